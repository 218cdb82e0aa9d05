/*
 * otlp.h
 *	  OpenTelemetry profiles (OTLP, the v1development signal): the field
 *	  numbers of ExportProfilesServiceRequest and ProfilesData and their
 *	  decoder (otlp.c), without fmgr or SPI, for the importer.
 *
 * The version followed is opentelemetry-proto's profiles/v1development
 * (profiles.proto, common.proto, resource.proto) as of 2026-08: one
 * ProfilesDictionary shared by every profile of the request, its tables
 * referred to by index, index 0 of each table the zero entry.
 * ExportProfilesServiceRequest and ProfilesData have the same two fields,
 * so one decoder reads both.
 *
 * otlp_decode() reads the dictionary into arrays and lists the profiles
 * with their resource and scope; a profile's header is read with
 * otlp_profile_header(), and its samples are streamed one at a time with
 * otlp_next_sample().  Attribute values (AnyValue) are read one level at a
 * time, so that the caller builds what it needs of them.  Every structural
 * error is an ereport naming "OTLP" and the byte offset in the
 * (uncompressed) protobuf data.  The decoded tables count against a memory
 * limit given by the caller.
 */
#ifndef CALLTREE_OTLP_H
#define CALLTREE_OTLP_H

#include "postgres.h"

#include "formats/protobuf.h"

/* ExportProfilesServiceRequest and ProfilesData */
#define OTLP_REQUEST_RESOURCE_PROFILES	1
#define OTLP_REQUEST_DICTIONARY			2

#define OTLP_RESOURCE_PROFILES_RESOURCE	1
#define OTLP_RESOURCE_PROFILES_SCOPE_PROFILES 2
#define OTLP_RESOURCE_PROFILES_SCHEMA_URL 3

#define OTLP_RESOURCE_ATTRIBUTES		1

#define OTLP_SCOPE_PROFILES_SCOPE		1
#define OTLP_SCOPE_PROFILES_PROFILES	2
#define OTLP_SCOPE_PROFILES_SCHEMA_URL	3

#define OTLP_SCOPE_NAME					1
#define OTLP_SCOPE_VERSION				2
#define OTLP_SCOPE_ATTRIBUTES			3

#define OTLP_DICTIONARY_MAPPING			1
#define OTLP_DICTIONARY_LOCATION		2
#define OTLP_DICTIONARY_FUNCTION		3
#define OTLP_DICTIONARY_LINK			4
#define OTLP_DICTIONARY_STRING			5
#define OTLP_DICTIONARY_ATTRIBUTE		6
#define OTLP_DICTIONARY_STACK			7

#define OTLP_PROFILE_SAMPLE_TYPE		1
#define OTLP_PROFILE_SAMPLES			2
#define OTLP_PROFILE_TIME_UNIX_NANO		3
#define OTLP_PROFILE_DURATION_NANO		4
#define OTLP_PROFILE_PERIOD_TYPE		5
#define OTLP_PROFILE_PERIOD				6
#define OTLP_PROFILE_PROFILE_ID			7
#define OTLP_PROFILE_DROPPED_ATTRIBUTES	8
#define OTLP_PROFILE_PAYLOAD_FORMAT		9
#define OTLP_PROFILE_PAYLOAD			10
#define OTLP_PROFILE_ATTRIBUTES			11

#define OTLP_VALUETYPE_TYPE				1
#define OTLP_VALUETYPE_UNIT				2

#define OTLP_SAMPLE_STACK				1
#define OTLP_SAMPLE_ATTRIBUTES			2
#define OTLP_SAMPLE_LINK				3
#define OTLP_SAMPLE_VALUES				4
#define OTLP_SAMPLE_TIMESTAMPS			5

#define OTLP_MAPPING_MEMORY_START		1
#define OTLP_MAPPING_MEMORY_LIMIT		2
#define OTLP_MAPPING_FILE_OFFSET		3
#define OTLP_MAPPING_FILENAME			4
#define OTLP_MAPPING_ATTRIBUTES			5

#define OTLP_STACK_LOCATIONS			1

#define OTLP_LOCATION_MAPPING			1
#define OTLP_LOCATION_ADDRESS			2
#define OTLP_LOCATION_LINES				3
#define OTLP_LOCATION_ATTRIBUTES		4

#define OTLP_LINE_FUNCTION				1
#define OTLP_LINE_LINE					2
#define OTLP_LINE_COLUMN				3

#define OTLP_FUNCTION_NAME				1
#define OTLP_FUNCTION_SYSTEM_NAME		2
#define OTLP_FUNCTION_FILENAME			3
#define OTLP_FUNCTION_START_LINE		4

#define OTLP_LINK_TRACE_ID				1
#define OTLP_LINK_SPAN_ID				2

#define OTLP_ATTRIBUTE_KEY				1
#define OTLP_ATTRIBUTE_VALUE			2
#define OTLP_ATTRIBUTE_UNIT				3

#define OTLP_KEYVALUE_KEY				1
#define OTLP_KEYVALUE_VALUE				2
#define OTLP_KEYVALUE_KEY_STRINDEX		3

#define OTLP_ANYVALUE_STRING			1
#define OTLP_ANYVALUE_BOOL				2
#define OTLP_ANYVALUE_INT				3
#define OTLP_ANYVALUE_DOUBLE			4
#define OTLP_ANYVALUE_ARRAY				5
#define OTLP_ANYVALUE_KVLIST			6
#define OTLP_ANYVALUE_BYTES				7
#define OTLP_ANYVALUE_STRINDEX			8

#define OTLP_LIST_VALUES				1	/* ArrayValue and KeyValueList */

/* A run of bytes of the input: a string or bytes field, or a message */
typedef struct OtlpBytes
{
	size_t		offset;
	size_t		len;
} OtlpBytes;

/* A run of the dictionary's pool of indices: attribute or location lists */
typedef struct OtlpIndices
{
	int			first;
	int			count;
} OtlpIndices;

typedef struct OtlpMapping
{
	uint64		memory_start;
	uint64		memory_limit;
	uint64		file_offset;
	int32		filename;		/* string index */
	OtlpIndices attributes;
	size_t		at;
} OtlpMapping;

typedef struct OtlpLine
{
	int32		function;		/* 0: no function */
	int64		line;			/* 0: unknown */
	int64		column;			/* 0: unknown */
} OtlpLine;

typedef struct OtlpLocation
{
	int32		mapping;		/* 0: no mapping */
	uint64		address;		/* 0: unknown */
	int			first_line;		/* in the dictionary's lines */
	int			nlines;			/* several: inlined calls, the caller last */
	OtlpIndices attributes;
	size_t		at;
} OtlpLocation;

typedef struct OtlpFunction
{
	int32		name;			/* string indices */
	int32		system_name;
	int32		filename;
	int64		start_line;
	size_t		at;
} OtlpFunction;

typedef struct OtlpLink
{
	OtlpBytes	trace_id;
	OtlpBytes	span_id;
	size_t		at;
} OtlpLink;

typedef struct OtlpAttribute
{
	int32		key;			/* string index */
	int32		unit;			/* string index, 0: none */
	bool		has_value;
	OtlpBytes	value;			/* an AnyValue message */
	size_t		at;
} OtlpAttribute;

typedef struct OtlpStack
{
	OtlpIndices locations;		/* leaf first */
	size_t		at;
} OtlpStack;

/* One Profile of the request, with where its resource and scope are */
typedef struct OtlpProfileRef
{
	OtlpBytes	profile;		/* the Profile message */
	OtlpBytes	resource;		/* the Resource message, len 0: none */
	OtlpBytes	scope;			/* the InstrumentationScope message, len 0: none */
} OtlpProfileRef;

typedef struct OtlpRequest
{
	const uint8 *data;
	size_t		len;
	size_t		memory_limit;	/* bytes the decoded tables may take */
	size_t		memory_used;

	OtlpMapping *mappings;
	int			nmappings;
	OtlpLocation *locations;
	int			nlocations;
	OtlpFunction *functions;
	int			nfunctions;
	OtlpLink   *links;
	int			nlinks;
	OtlpBytes  *strings;
	int			nstrings;
	OtlpAttribute *attributes;
	int			nattributes;
	OtlpStack  *stacks;
	int			nstacks;
	OtlpLine   *lines;			/* the lines of every location */
	int			nlines_total;
	int32	   *indices;		/* the index lists of stacks, locations, mappings */
	int			nindices;
	char	  **cstrings;		/* resolved strings of the table, NULL until used */

	OtlpProfileRef *profiles;
	int			nprofiles;
} OtlpRequest;

typedef struct OtlpValueType
{
	int32		type;			/* string indices */
	int32		unit;
} OtlpValueType;

/* A Profile's fields but its samples */
typedef struct OtlpProfile
{
	const OtlpProfileRef *ref;
	size_t		at;				/* of the Profile message */
	OtlpValueType sample_type;
	OtlpValueType period_type;
	uint64		time_unix_nano;
	size_t		time_at;
	uint64		duration_nano;
	int64		period;
	OtlpBytes	profile_id;
	int32	   *attributes;		/* attribute indices */
	int			nattributes;
	int64		nsamples;
} OtlpProfile;

/* One sample; its arrays are reused from one sample to the next */
typedef struct OtlpSample
{
	size_t		at;
	int32		stack;
	int32		link;
	uint64	   *attributes;		/* attribute indices, as read */
	int			nattributes;
	int			attributes_capacity;
	uint64	   *values;			/* int64 values, as read */
	int			nvalues;
	int			values_capacity;
	uint64	   *timestamps;		/* nanoseconds since 1970 */
	int			ntimestamps;
	int			timestamps_capacity;
} OtlpSample;

/* An AnyValue, one level: arrays and key-value lists are read on */
typedef enum OtlpValueKind
{
	OTLP_VALUE_EMPTY,			/* none of the oneof set */
	OTLP_VALUE_STRING,			/* bytes (inline) or strindex */
	OTLP_VALUE_BOOL,
	OTLP_VALUE_INT,
	OTLP_VALUE_DOUBLE,
	OTLP_VALUE_ARRAY,			/* bytes: the ArrayValue message */
	OTLP_VALUE_KVLIST,			/* bytes: the KeyValueList message */
	OTLP_VALUE_BYTES
} OtlpValueKind;

typedef struct OtlpValue
{
	OtlpValueKind kind;
	size_t		at;
	OtlpBytes	bytes;			/* STRING (inline), ARRAY, KVLIST, BYTES */
	int32		strindex;		/* STRING from the string table, when bytes.len = 0 and set */
	bool		from_table;
	bool		boolean;
	int64		integer;
	double		dbl;
} OtlpValue;

/* A KeyValue of a resource, a scope or a key-value list */
typedef struct OtlpKeyValue
{
	size_t		at;
	OtlpBytes	key;			/* inline key */
	int32		key_strindex;	/* when the inline key is empty */
	bool		has_value;
	OtlpBytes	value;			/* an AnyValue message */
} OtlpKeyValue;

extern void otlp_decode(OtlpRequest *request, const uint8 *data, size_t len, size_t memory_limit);

extern void otlp_profile_header(OtlpRequest *request, const OtlpProfileRef *ref, OtlpProfile *profile);

/* Streams a profile's samples: begin, then next until false. */
extern void otlp_samples_begin(const OtlpRequest *request, const OtlpProfile *profile, PbReader *reader);
extern bool otlp_next_sample(OtlpRequest *request, PbReader *reader, OtlpSample *sample);

/*
 * Strings in the server encoding: one of the string table ("" for index 0,
 * an error outside the table), or inline bytes; at and what name the
 * referrer in errors.
 */
extern const char *otlp_string(OtlpRequest *request, int32 index, size_t at, const char *what);
extern char *otlp_text(const OtlpRequest *request, OtlpBytes bytes, const char *what);

/* Dictionary entries by index: NULL for 0, an error outside the table */
extern const OtlpMapping *otlp_mapping(const OtlpRequest *request, int32 index, size_t at);
extern const OtlpLocation *otlp_location(const OtlpRequest *request, int32 index, size_t at);
extern const OtlpFunction *otlp_function(const OtlpRequest *request, int32 index, size_t at);
extern const OtlpLink *otlp_link(const OtlpRequest *request, int32 index, size_t at);
extern const OtlpAttribute *otlp_attribute(const OtlpRequest *request, int64 index, size_t at);
extern const OtlpStack *otlp_stack(const OtlpRequest *request, int32 index, size_t at);

/* Attribute values */
extern void otlp_read_value(const OtlpRequest *request, OtlpBytes message, OtlpValue *value);
/* The KeyValues of field `field` of a message (Resource 1, scope 3, KeyValueList 1), in turn */
extern void otlp_key_values_begin(const OtlpRequest *request, OtlpBytes message, const char *name,
								  PbReader *reader);
extern bool otlp_next_key_value(PbReader *reader, uint32 field, OtlpKeyValue *kv);
/* The AnyValues of an ArrayValue, in turn */
extern bool otlp_next_array_value(PbReader *reader, OtlpBytes *value);
/* The scope's name and version (len 0: none) */
extern void otlp_scope_names(const OtlpRequest *request, OtlpBytes scope, OtlpBytes *name, OtlpBytes *version);

/* The error of OTLP data that decodes but does not make sense */
extern void otlp_error(size_t at, const char *detail_fmt,...) pg_attribute_printf(2, 3) pg_attribute_noreturn();

#endif							/* CALLTREE_OTLP_H */
