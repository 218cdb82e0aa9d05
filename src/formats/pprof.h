/*
 * pprof.h
 *	  The pprof profile format (the Profile message of pprof's profile.proto):
 *	  its field numbers, its decoder (pprof.c) for the importer and its
 *	  encoder (pprof_encode.c) for the exporter, both without fmgr or SPI.
 *
 * pprof_decode() reads everything but the samples into arrays, each made
 * at its size (the top level's fields are counted first); samples are
 * then streamed one at a time with pprof_next_sample(), so a profile with
 * millions of samples needs no memory per sample; a sample's location ids
 * and labels, kept as bytes where they have the usual shape, are read when
 * asked for (pprof_sample_locations, pprof_sample_labels).  String fields are
 * indices into the string table, resolved (and checked) on use with
 * pprof_string(): copied to end with a NUL, or, in data the caller gave
 * to the decoder, ended in place where that is safe (pprof.c).  Every
 * structural error is an ereport naming "pprof" and the byte offset in the
 * (uncompressed) protobuf data.
 */
#ifndef CALLTREE_PPROF_H
#define CALLTREE_PPROF_H

#include "postgres.h"

#include "formats/protobuf.h"

/* Field numbers of profile.proto */
#define PPROF_PROFILE_SAMPLE_TYPE		1
#define PPROF_PROFILE_SAMPLE			2
#define PPROF_PROFILE_MAPPING			3
#define PPROF_PROFILE_LOCATION			4
#define PPROF_PROFILE_FUNCTION			5
#define PPROF_PROFILE_STRING_TABLE		6
#define PPROF_PROFILE_DROP_FRAMES		7
#define PPROF_PROFILE_KEEP_FRAMES		8
#define PPROF_PROFILE_TIME_NANOS		9
#define PPROF_PROFILE_DURATION_NANOS	10
#define PPROF_PROFILE_PERIOD_TYPE		11
#define PPROF_PROFILE_PERIOD			12
#define PPROF_PROFILE_COMMENT			13
#define PPROF_PROFILE_DEFAULT_SAMPLE_TYPE 14

#define PPROF_VALUETYPE_TYPE			1
#define PPROF_VALUETYPE_UNIT			2

#define PPROF_SAMPLE_LOCATION_ID		1
#define PPROF_SAMPLE_VALUE				2
#define PPROF_SAMPLE_LABEL				3

#define PPROF_LABEL_KEY					1
#define PPROF_LABEL_STR					2
#define PPROF_LABEL_NUM					3
#define PPROF_LABEL_NUM_UNIT			4

#define PPROF_MAPPING_ID				1
#define PPROF_MAPPING_MEMORY_START		2
#define PPROF_MAPPING_MEMORY_LIMIT		3
#define PPROF_MAPPING_FILE_OFFSET		4
#define PPROF_MAPPING_FILENAME			5
#define PPROF_MAPPING_BUILD_ID			6
#define PPROF_MAPPING_HAS_FUNCTIONS		7
#define PPROF_MAPPING_HAS_FILENAMES		8

#define PPROF_LOCATION_ID				1
#define PPROF_LOCATION_MAPPING_ID		2
#define PPROF_LOCATION_ADDRESS			3
#define PPROF_LOCATION_LINE				4
#define PPROF_LOCATION_IS_FOLDED		5

#define PPROF_LINE_FUNCTION_ID			1
#define PPROF_LINE_LINE					2
#define PPROF_LINE_COLUMN				3	/* added to profile.proto in 2023 */

#define PPROF_FUNCTION_ID				1
#define PPROF_FUNCTION_NAME				2
#define PPROF_FUNCTION_SYSTEM_NAME		3
#define PPROF_FUNCTION_FILENAME			4
#define PPROF_FUNCTION_START_LINE		5

typedef struct PprofValueType
{
	int64		type;			/* string index */
	int64		unit;			/* string index */
	size_t		at;				/* byte offset, for errors */
} PprofValueType;

typedef struct PprofMapping
{
	uint64		id;
	int64		filename;		/* string index */
	int64		build_id;		/* string index */
	size_t		at;
} PprofMapping;

typedef struct PprofLine
{
	uint64		function_id;	/* 0: no function */
	int64		line;			/* 0: unknown */
	int64		column;			/* 0: unknown */
} PprofLine;

typedef struct PprofLocation
{
	uint64		id;
	uint64		mapping_id;		/* 0: no mapping */
	uint64		address;		/* 0: unknown */
	size_t		at;
	int			nlines;			/* several: inlined calls, the caller last */
	int			first_line;		/* its first in the profile's lines (pprof_location_lines) */
} PprofLocation;

typedef struct PprofFunction
{
	uint64		id;
	int64		name;			/* string index */
	int64		system_name;	/* string index */
	int64		filename;		/* string index */
	int64		start_line;
	size_t		at;
} PprofFunction;

/*
 * A string of the table: where its bytes are, and the string itself once
 * resolved (NULL until then).  The data is at most 1 GB (a bytea), so
 * offsets and lengths fit in 32 bits.
 */
typedef struct PprofString
{
	const char *resolved;
	uint32		offset;			/* in the data */
	uint32		len;			/* of its bytes there; once resolved, the strlen of resolved */
} PprofString;

/*
 * Where each id of a table is, when its ids are not 1, 2, 3... (there
 * the id's place is known without it): a hash from id to index, or NULL
 * (pprof.c says how).
 */
typedef struct PprofIdIndex
{
	int32	   *slots;			/* an entry's index, -1 for none */
	int			shift;			/* 64 - log2 of the number of slots */
} PprofIdIndex;

typedef struct PprofProfile
{
	const uint8 *data;
	size_t		len;
	bool		data_is_ours;	/* may be written: strings end in place (pprof.c) */

	PprofValueType *sample_types;
	int			nsample_types;
	/* sorted by id, each id unique and nonzero */
	PprofMapping *mappings;
	int			nmappings;
	PprofLocation *locations;
	int			nlocations;
	PprofLine  *lines;			/* of every location, each one's together */
	int			nlines;
	PprofFunction *functions;
	int			nfunctions;
	PprofIdIndex location_index;
	PprofIdIndex function_index;

	PprofString *strings;
	int			nstrings;
	MemoryContext strings_cxt;	/* of the strings resolved, the decoder's */
	bool		server_utf8;	/* the database's encoding is UTF-8: strings need no conversion */
	char	   *string_block;	/* where the next copy of a string goes */
	size_t		string_block_left;

	int64		default_sample_type;	/* string index, 0: unset */
	size_t		default_sample_type_at;
	int64		time_nanos;
	size_t		time_nanos_at;
	int64		duration_nanos;
	int64		period;
	int64		nsamples;
	size_t		samples_from;	/* where the first sample's field starts */
	size_t		samples_to;		/* and where the last one's ends */
} PprofProfile;

typedef struct PprofLabel
{
	int64		key;			/* string index */
	int64		str;			/* string index, 0: a numeric label */
	int64		num;
	int64		num_unit;		/* string index, 0: no unit */
} PprofLabel;

/* One sample; its arrays are reused from one sample to the next. */
typedef struct PprofSample
{
	size_t		at;
	uint64	   *location_ids;	/* leaf first: see pprof_sample_locations */
	int			nlocation_ids;
	int			location_ids_capacity;

	/*
	 * A sample's one packed location_id field (as every writer of pprof
	 * sends them) is read when its ids are asked for, not before: its bytes
	 * (length included) are a key for a stack met before, which then needs
	 * no decoding.  NULL for other samples, whose ids are read at once.
	 */
	const uint8 *location_bytes;
	size_t		location_bytes_len;
	const uint8 *packed_location_ids;	/* its ids, after the length: to location_bytes' end */
	PbReader	location_field;	/* at the field's length, for reading it */
	bool		locations_pending;
	uint64	   *values;			/* int64 values, as read */
	int			nvalues;
	int			values_capacity;
	PprofLabel *labels;			/* see pprof_sample_labels */
	int			nlabels;
	int			labels_capacity;

	/*
	 * A sample's label fields, when they follow one another and are of
	 * the usual shape outside (a one-byte tag, a short length), are read
	 * when its labels are asked for, not before: their bytes (from the
	 * first tag to the end of the last) are a key for a label set met
	 * before, which then needs no decoding.  NULL for other samples, whose
	 * labels are read at once.
	 */
	const uint8 *label_bytes;
	size_t		label_bytes_len;
	const uint8 *data;			/* the profile's, for the errors of reading them */
	bool		labels_pending;
} PprofSample;

extern void pprof_decode(PprofProfile *profile, const uint8 *data, size_t len, bool data_is_ours);

/* Streams the samples: start with pprof_samples_begin, then next until false. */
extern void pprof_samples_begin(const PprofProfile *profile, PbReader *top);
extern bool pprof_next_sample(const PprofProfile *profile, PbReader *top, PprofSample *sample);

extern void pprof_read_sample_locations(PprofSample *sample);

/* Makes sample->location_ids hold the sample's locations (leaf first). */
static inline void
pprof_sample_locations(PprofSample *sample)
{
	if (sample->locations_pending)
		pprof_read_sample_locations(sample);
}

extern void pprof_read_sample_labels(PprofSample *sample);

/*
 * Makes sample->labels hold the sample's labels, or raises the error of
 * reading them: to be called after pprof_next_sample before anything else
 * that raises errors, unless the label bytes are known to read (those of
 * a sample read before), so that errors come in the order of the data.
 */
static inline void
pprof_sample_labels(PprofSample *sample)
{
	if (sample->labels_pending)
		pprof_read_sample_labels(sample);
}

extern const char *pprof_resolve_string(PprofProfile *profile, int64 index, size_t at, const char *what);

/*
 * A string of the table in the server encoding; `at` and `what` name the
 * referrer in errors.  Resolved (checked, converted) on first use by
 * pprof_resolve_string, then from the cache here.
 */
static inline const char *
pprof_string(PprofProfile *profile, int64 index, size_t at, const char *what)
{
	if (likely(index >= 0 && index < profile->nstrings && profile->strings[index].resolved != NULL))
		return profile->strings[index].resolved;
	return pprof_resolve_string(profile, index, at, what);
}

/* pprof_string, with its length (strlen) into *len */
static inline const char *
pprof_string_sized(PprofProfile *profile, int64 index, size_t at, const char *what, size_t *len)
{
	const char *s = pprof_string(profile, index, at, what);

	/* (resolved: the index is the table's) */
	*len = profile->strings[index].len;
	return s;
}

/* Lookups by id: NULL for id 0, an error for an unknown id. */
extern const PprofLocation *pprof_find_location(const PprofProfile *profile, uint64 id, size_t at);
extern const PprofFunction *pprof_find_function(const PprofProfile *profile, uint64 id, size_t at);
extern const PprofMapping *pprof_mapping(const PprofProfile *profile, uint64 id, size_t at);

/* The first slot of an id in a PprofIdIndex: Fibonacci hashing, the top bits of id * 2^64 / phi */
static inline uint64
pprof_id_slot(const PprofIdIndex *index, uint64 id)
{
	return (id * UINT64CONST(0x9E3779B97F4A7C15)) >> index->shift;
}

/*
 * Where the entry of an id is in a table of count entries if anywhere: its
 * index, or -1.  Not checked: the entry there may have another id.  Ids 1,
 * 2, 3... are found by place, others by their first slot in the index.
 */
static inline int
pprof_id_place(const PprofIdIndex *index, int count, uint64 id)
{
	if (index->slots != NULL)
		return index->slots[pprof_id_slot(index, id)];
	if (id - 1 < (uint64) count)
		return (int) (id - 1);
	return -1;
}

/* pprof_id_place of a location id */
static inline int
pprof_location_place(const PprofProfile *profile, uint64 id)
{
	return pprof_id_place(&profile->location_index, profile->nlocations, id);
}

/*
 * The location of an id, an error for an unknown one.  It is looked up
 * for every location of every sample: the common cases are inline (at its
 * place), the others in pprof_find_location.
 */
static inline const PprofLocation *
pprof_location(const PprofProfile *profile, uint64 id, size_t at)
{
	int			place = pprof_location_place(profile, id);

	if (likely(place >= 0 && profile->locations[place].id == id))
		return &profile->locations[place];
	return pprof_find_location(profile, id, at);
}

/*
 * The function of an id, NULL for id 0, an error for an unknown one: at
 * its place (pprof_id_place) inline, as a location, else in
 * pprof_find_function.  It is looked up for every line of every location.
 */
static inline const PprofFunction *
pprof_function(const PprofProfile *profile, uint64 id, size_t at)
{
	int			place = pprof_id_place(&profile->function_index, profile->nfunctions, id);

	if (likely(place >= 0 && profile->functions[place].id == id))
		return &profile->functions[place];
	return pprof_find_function(profile, id, at);
}

/* The lines of a location (location->nlines of them) */
static inline const PprofLine *
pprof_location_lines(const PprofProfile *profile, const PprofLocation *location)
{
	return location->nlines > 0 ? profile->lines + location->first_line : NULL;
}

/* The place of a location or mapping in its table */
static inline int
pprof_location_index(const PprofProfile *profile, const PprofLocation *location)
{
	return (int) (location - profile->locations);
}

static inline int
pprof_mapping_index(const PprofProfile *profile, const PprofMapping *mapping)
{
	return (int) (mapping - profile->mappings);
}

/*
 * The encoder (pprof_encode.c): a profile of one sample type whose
 * functions are named up front, then written sample by sample into the
 * caller's buffer, uncompressed.  Function i of the table is Function and
 * Location i + 1 of the profile, its resource (if any) a Mapping; a sample
 * names its locations by those ids, leaf first.  Strings are in the
 * server encoding, none NULL but file and resource.  pprof_decode() of
 * the result gives back the type, the unit, the functions (an absent file
 * as ""), a mapping per distinct resource and the samples, in order.
 */
typedef struct PprofEncodeFunction
{
	const char *name;
	const char *file;			/* NULL: none */
	const char *resource;		/* NULL: none, no mapping */
} PprofEncodeFunction;

typedef struct PprofEncoder PprofEncoder;

/* Writes the sample type into out; functions must outlive the encoder. */
extern PprofEncoder *pprof_encoder_begin(StringInfo out, const char *sample_type, const char *unit,
										 const PprofEncodeFunction *functions, int nfunctions);
extern void pprof_encoder_sample(PprofEncoder *encoder, const uint64 *location_ids,
								 int nlocation_ids, int64 value);
/* Writes the mappings, functions, locations and strings into out, and frees the encoder. */
extern void pprof_encoder_finish(PprofEncoder *encoder);

/* The error of pprof data that decodes but does not make sense */
extern void pprof_error(size_t at, const char *detail_fmt,...) pg_attribute_printf(2, 3) pg_attribute_noreturn();

#endif							/* CALLTREE_PPROF_H */
