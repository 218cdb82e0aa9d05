/*
 * pprof_encode.c
 *	  Writing a pprof profile (pprof.h): the encoder, without fmgr or SPI,
 *	  the inverse of pprof.c's decoder.
 *
 * The profile has one sample type, and one Function and one Location per
 * function the caller names: function i of its table becomes Function and
 * Location i + 1, the location with a single line.  A function's resource
 * becomes a Mapping whose filename is the resource, one per distinct
 * resource, marked as holding its functions so that pprof does not try to
 * symbolize it.  Samples are written as they come, each a list of location
 * ids, leaf first, and one value.
 *
 * The fields go out in the order sample type, samples, mappings, functions
 * and locations, string table; the string table holds each distinct
 * string once, "" first, in order of first use.
 */
#include "postgres.h"

#include "common/hashfn.h"

#include "formats/pprof.h"

/* A string and its index in the string table, or a resource and its mapping id */
typedef struct StringEntry
{
	const char *key;
	uint32		hash;
	int64		index;
	char		status;
} StringEntry;

#define SH_PREFIX		strtab
#define SH_ELEMENT_TYPE StringEntry
#define SH_KEY_TYPE		const char *
#define SH_KEY			key
#define SH_HASH_KEY(tb, k)	hash_bytes((const unsigned char *) (k), strlen(k))
#define SH_EQUAL(tb, a, b)	(strcmp((a), (b)) == 0)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a)	((a)->hash)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

struct PprofEncoder
{
	StringInfo	out;			/* the caller's: the profile so far */
	const PprofEncodeFunction *functions;
	int			nfunctions;
	strtab_hash *strings;
	StringInfoData string_table;	/* the string_table fields, in index order */
	int64		nstrings;
	StringInfoData message;		/* one message at a time, reused */
	StringInfoData line;
};

/* The index of s in the string table, added at the end if new */
static int64
string_index(PprofEncoder *encoder, const char *s)
{
	bool		found;
	StringEntry *entry = strtab_insert(encoder->strings, s, &found);

	if (!found)
	{
		entry->index = encoder->nstrings++;
		pb_put_bytes_field(&encoder->string_table, PPROF_PROFILE_STRING_TABLE, s, strlen(s));
	}
	return entry->index;
}

PprofEncoder *
pprof_encoder_begin(StringInfo out, const char *sample_type, const char *unit,
					const PprofEncodeFunction *functions, int nfunctions)
{
	PprofEncoder *encoder = palloc0(sizeof(PprofEncoder));

	encoder->out = out;
	encoder->functions = functions;
	encoder->nfunctions = nfunctions;
	encoder->strings = strtab_create(CurrentMemoryContext, 256, NULL);
	initStringInfo(&encoder->string_table);
	initStringInfo(&encoder->message);
	initStringInfo(&encoder->line);
	(void) string_index(encoder, "");

	pb_put_varint_field(&encoder->message, PPROF_VALUETYPE_TYPE, string_index(encoder, sample_type));
	pb_put_varint_field(&encoder->message, PPROF_VALUETYPE_UNIT, string_index(encoder, unit));
	pb_put_bytes_field(out, PPROF_PROFILE_SAMPLE_TYPE, encoder->message.data, encoder->message.len);
	return encoder;
}

void
pprof_encoder_sample(PprofEncoder *encoder, const uint64 *location_ids, int nlocation_ids,
					 int64 value)
{
	uint64		encoded = (uint64) value;
	StringInfo	message = &encoder->message;

	resetStringInfo(message);
	pb_put_packed_varints(message, PPROF_SAMPLE_LOCATION_ID, location_ids, nlocation_ids);
	pb_put_packed_varints(message, PPROF_SAMPLE_VALUE, &encoded, 1);
	pb_put_bytes_field(encoder->out, PPROF_PROFILE_SAMPLE, message->data, message->len);
}

/*
 * One Mapping per distinct resource, numbered from 1 in order of first
 * appearance; mapping_id[i] is function i's (0: no resource).
 */
static void
put_mappings(PprofEncoder *encoder, uint64 *mapping_id)
{
	strtab_hash *ids = strtab_create(CurrentMemoryContext, 16, NULL);
	uint64		next_id = 1;
	StringInfo	message = &encoder->message;

	for (int i = 0; i < encoder->nfunctions; i++)
	{
		const char *resource = encoder->functions[i].resource;
		bool		found;
		StringEntry *entry;

		mapping_id[i] = 0;
		if (resource == NULL)
			continue;
		entry = strtab_insert(ids, resource, &found);
		if (!found)
		{
			entry->index = (int64) next_id++;
			resetStringInfo(message);
			pb_put_varint_field(message, PPROF_MAPPING_ID, (uint64) entry->index);
			pb_put_varint_field(message, PPROF_MAPPING_FILENAME, string_index(encoder, resource));
			pb_put_varint_field(message, PPROF_MAPPING_HAS_FUNCTIONS, 1);
			pb_put_bytes_field(encoder->out, PPROF_PROFILE_MAPPING, message->data, message->len);
		}
		mapping_id[i] = (uint64) entry->index;
	}
	strtab_destroy(ids);
}

/* Function i + 1, named and filed, and Location i + 1, one line of it */
static void
put_function_and_location(PprofEncoder *encoder, int i, uint64 mapping_id)
{
	const PprofEncodeFunction *function = &encoder->functions[i];
	int64		name = string_index(encoder, function->name);
	StringInfo	message = &encoder->message;
	StringInfo	line = &encoder->line;

	resetStringInfo(message);
	pb_put_varint_field(message, PPROF_FUNCTION_ID, i + 1);
	pb_put_varint_field(message, PPROF_FUNCTION_NAME, name);
	pb_put_varint_field(message, PPROF_FUNCTION_SYSTEM_NAME, name);
	if (function->file)
		pb_put_varint_field(message, PPROF_FUNCTION_FILENAME, string_index(encoder, function->file));
	pb_put_bytes_field(encoder->out, PPROF_PROFILE_FUNCTION, message->data, message->len);

	resetStringInfo(line);
	pb_put_varint_field(line, PPROF_LINE_FUNCTION_ID, i + 1);
	resetStringInfo(message);
	pb_put_varint_field(message, PPROF_LOCATION_ID, i + 1);
	if (mapping_id)
		pb_put_varint_field(message, PPROF_LOCATION_MAPPING_ID, mapping_id);
	pb_put_bytes_field(message, PPROF_LOCATION_LINE, line->data, line->len);
	pb_put_bytes_field(encoder->out, PPROF_PROFILE_LOCATION, message->data, message->len);
}

void
pprof_encoder_finish(PprofEncoder *encoder)
{
	uint64	   *mapping_id = palloc_extended(sizeof(uint64) * Max(encoder->nfunctions, 1),
											 MCXT_ALLOC_HUGE);

	put_mappings(encoder, mapping_id);
	for (int i = 0; i < encoder->nfunctions; i++)
		put_function_and_location(encoder, i, mapping_id[i]);
	appendBinaryStringInfo(encoder->out, encoder->string_table.data, encoder->string_table.len);

	pfree(mapping_id);
	strtab_destroy(encoder->strings);
	pfree(encoder->string_table.data);
	pfree(encoder->message.data);
	pfree(encoder->line.data);
	pfree(encoder);
}
