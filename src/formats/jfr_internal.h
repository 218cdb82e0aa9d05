/*
 * jfr_internal.h
 *	  What the parts of the JFR reader share: jfr.c (chunks, constant
 *	  pools, events, stacks), jfr_metadata.c (the metadata event, which
 *	  describes every class and its fields) and jfr_settings.c (the
 *	  recording's jdk.ActiveSetting events).  Not for use outside them.
 */
#ifndef CALLTREE_JFR_INTERNAL_H
#define CALLTREE_JFR_INTERNAL_H

#include "lib/stringinfo.h"

#include "formats/jfr.h"

#define JFR_HEADER_SIZE 68
#define JFR_EVENT_METADATA 0
#define JFR_EVENT_CONSTANT_POOL 1
/* nesting of metadata elements and of struct values */
#define JFR_MAX_DEPTH 32

typedef enum JfrType
{
	JT_STRUCT = 0,
	JT_BOOLEAN,
	JT_BYTE,
	JT_CHAR,
	JT_SHORT,
	JT_INT,
	JT_LONG,
	JT_FLOAT,
	JT_DOUBLE,
	JT_STRING
} JfrType;

typedef struct JfrPoolEntry
{
	int64		key;
	size_t		offset;
} JfrPoolEntry;

typedef struct JfrField
{
	const char *name;
	int64		class_id;
	int			class_index;	/* into the chunk's classes, resolved after parsing */
	bool		constant_pool;
	bool		array;
} JfrField;

typedef struct JfrClass
{
	int64		id;
	const char *name;
	JfrType		type;
	JfrField   *fields;
	int			nfields;
	int			fields_cap;
	JfrPoolEntry *pool;
	int			npool;
	int			pool_cap;
} JfrClass;

typedef struct JfrReader
{
	const uint8 *data;
	size_t		pos;
	size_t		end;
	bool		compressed;
} JfrReader;

/* A field's value as read: a number (integers, booleans, keys) and where it starts */
typedef struct JfrValue
{
	int64		num;
	size_t		at;
} JfrValue;

/*
 * The jdk.ActiveSetting events of the execution sample's type seen so far,
 * in every chunk (jfr_settings.c); 0 or JFR_EVENT_UNSET where none was.
 */
typedef enum JfrRecordedEvent
{
	JFR_EVENT_UNSET = 0,		/* no "event" setting: the JDK's own recorder */
	JFR_EVENT_CPU_TIME,			/* async-profiler's cpu, itimer or ctimer */
	JFR_EVENT_WALL_TIME,		/* async-profiler's wall */
	JFR_EVENT_OTHER				/* a counter or a method: intervals are not time */
} JfrRecordedEvent;

typedef struct JfrSettings
{
	JfrRecordedEvent event;
	int64		period;			/* the JDK's shortest "period", ns */
	int64		interval;		/* async-profiler's "interval", ns if event is time */
	int64		wall;			/* async-profiler's "wall" interval, ns */
} JfrSettings;

struct JfrDecoder
{
	const uint8 *data;
	size_t		len;
	size_t		memory_limit;
	size_t		memory_used;
	bool		compressed;
	int32		chunk;
	size_t		chunk_start;
	size_t		chunk_end;
	JfrClass   *classes;
	int			nclasses;
	int			classes_cap;
	JfrPoolEntry *class_ids;	/* (class id, index into classes), sorted by id */
	const char **strings;		/* the metadata's string table */
	int			nstrings;
	int			string_class;	/* java.lang.String, -1 if absent */
	int			stack_trace_class;	/* jdk.types.StackTrace, -1 if absent */
	MemoryContext chunk_cxt;
	MemoryContext caller_cxt;	/* jfr_decode's caller's, the handler's */
	int64		steps_left;		/* fields a chunk may still read (see step) */
	int64		ticks_per_second;	/* the chunk's clock, for durations */
	int64		start_nanos;	/* the earliest chunk's start, ns since 1970; 0: none */
	JfrSettings settings;
};

/* readers of the chunk's bytes (jfr.c) */
extern int64 jfr_read_int(JfrReader *r, int bytes);
extern int64 jfr_read_count(JfrReader *r, const char *what);
extern const char *jfr_read_string(JfrDecoder *decoder, JfrReader *r, bool out);
extern void jfr_chunk_reader(const JfrDecoder *decoder, JfrReader *r, size_t at);

/* the decoder's memory, counted against its limit (jfr.c) */
extern void *jfr_alloc(JfrDecoder *decoder, size_t size, size_t at);
extern void *jfr_grow(JfrDecoder *decoder, void *array, int *cap, int count, size_t elem, size_t at);

/* classes (jfr.c) */
extern int	jfr_class_by_name(const JfrDecoder *decoder, const char *name);
extern int	jfr_class_by_id(const JfrDecoder *decoder, int64 id);
extern int	jfr_compare_entries(const void *a, const void *b);

/* struct values (jfr.c) */
extern void jfr_read_struct(JfrDecoder *decoder, JfrReader *r, const JfrClass *cls, JfrValue *values);
extern int	jfr_field_index(const JfrClass *cls, const char *name);
extern const char *jfr_string_field(JfrDecoder *decoder, const JfrClass *cls, const JfrValue *values,
									const char *name);

/*
 * A jdk.ActiveSetting event (of class cls, at r) into decoder->settings,
 * if it is about the execution sample's type, whose id is sample_type
 * (jfr_settings.c)
 */
extern void jfr_read_setting(JfrDecoder *decoder, const JfrClass *cls, JfrReader *r, int64 sample_type);
/* What the settings say of the sampling intervals */
extern void jfr_settings_sampling(const JfrSettings *settings, JfrSampling *sampling);

/* the metadata event at a chunk's offset (jfr_metadata.c) */
extern void jfr_read_metadata(JfrDecoder *decoder, size_t at);

#endif
