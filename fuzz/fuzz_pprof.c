/*
 * fuzz_pprof.c
 *	  libFuzzer harness of the protobuf reader and the pprof decoder
 *	  (protobuf.c, pprof.c), through gzip.c as import_pprof reads.
 *
 * The input is a pprof profile, gzip-compressed or not.  The harness does
 * what import_pprof does with one short of writing: decode, resolve every
 * string, mapping, function and location that the tables and the samples
 * refer to, and walk every sample.  Any ERROR is a clean rejection.
 *
 * Then a check of the wire format on its own: the input read as 64-bit
 * values, written as a packed repeated field and read back, gives the same
 * values.
 */
#include "postgres.h"

#include "formats/gzip.h"
#include "pg_stubs.h"
#include "formats/pprof.h"

/* import_pprof's own limit is larger; this keeps the fuzzer's memory low */
#define FUZZ_MAX_DECOMPRESSED (16 * 1024 * 1024)

typedef struct Input
{
	const uint8 *data;
	size_t		len;
} Input;

static void
resolve_location(PprofProfile *profile, const PprofLocation *location)
{
	const PprofMapping *mapping = pprof_mapping(profile, location->mapping_id, location->at);
	const PprofLine *lines = pprof_location_lines(profile, location);

	FUZZ_CHECK(pprof_location_index(profile, location) >= 0 &&
			   pprof_location_index(profile, location) < profile->nlocations,
			   "location index out of the table");
	if (mapping)
	{
		FUZZ_CHECK(mapping->id == location->mapping_id, "mapping lookup found another id");
		FUZZ_CHECK(pprof_mapping_index(profile, mapping) < profile->nmappings, "mapping index out of the table");
		(void) strlen(pprof_string(profile, mapping->filename, mapping->at, "mapping's file name"));
		(void) strlen(pprof_string(profile, mapping->build_id, mapping->at, "mapping's build id"));
	}
	for (int i = 0; i < location->nlines; i++)
	{
		const PprofFunction *function = pprof_function(profile, lines[i].function_id, location->at);

		if (function == NULL)
			continue;
		FUZZ_CHECK(function->id == lines[i].function_id, "function lookup found another id");
		(void) strlen(pprof_string(profile, function->name, function->at, "function's name"));
		(void) strlen(pprof_string(profile, function->system_name, function->at, "function's system name"));
		(void) strlen(pprof_string(profile, function->filename, function->at, "function's file name"));
	}
}

/*
 * A packed location_id field that pb_packed_varints_short accepts reads
 * backward (as import_pprof reads it) to the ids read forward, in reverse;
 * the forward reader read it without an error.
 */
static void
check_backward(const PprofSample *sample, const uint8 *start, const uint8 *end)
{
	const uint8 *p = end;
	int			n = sample->nlocation_ids;

	while (p > start)
	{
		uint64		id;

		FUZZ_CHECK(pb_packed_varint_before(&p, &id), "a short varint did not read backward");
		FUZZ_CHECK(n > 0 && sample->location_ids[--n] == id, "a varint read backward is not the one read forward");
	}
	FUZZ_CHECK(n == 0, "fewer varints read backward than forward");
}

static void
walk_samples(PprofProfile *profile)
{
	PbReader	top;
	PprofSample sample;
	int64		seen = 0;

	memset(&sample, 0, sizeof(sample));
	pprof_samples_begin(profile, &top);
	while (pprof_next_sample(profile, &top, &sample))
	{
		const uint8 *packed_end = sample.location_bytes ? sample.location_bytes + sample.location_bytes_len : NULL;
		bool		backward = packed_end != NULL && sample.locations_pending &&
			pb_packed_varints_short(sample.packed_location_ids, packed_end);

		seen++;
		pprof_sample_labels(&sample);
		pprof_sample_locations(&sample);
		if (backward)
			check_backward(&sample, sample.packed_location_ids, packed_end);
		for (int i = 0; i < sample.nlocation_ids; i++)
		{
			const PprofLocation *location = pprof_location(profile, sample.location_ids[i], sample.at);

			FUZZ_CHECK(location->id == sample.location_ids[i], "location lookup found another id");
		}
		for (int i = 0; i < sample.nlabels; i++)
		{
			const PprofLabel *label = &sample.labels[i];

			(void) strlen(pprof_string(profile, label->key, sample.at, "label's key"));
			if (label->str != 0)
				(void) strlen(pprof_string(profile, label->str, sample.at, "label's value"));
			if (label->num_unit != 0)
				(void) strlen(pprof_string(profile, label->num_unit, sample.at, "label's unit"));
		}
	}
	FUZZ_CHECK(seen == profile->nsamples, "the first pass counted " INT64_FORMAT " samples, the second "
			   INT64_FORMAT, profile->nsamples, seen);
}

static void
decode_profile(void *arg)
{
	Input	   *input = arg;
	const uint8 *bytes = input->data;
	size_t		len = input->len;
	PprofProfile profile;

	if (gzip_is_compressed((const char *) bytes, len))
		bytes = (const uint8 *) gzip_decompress((const char *) bytes, len, FUZZ_MAX_DECOMPRESSED,
												"pprof", &len);
	/* inflated here, the data is the harness's: strings end in place, as in an import */
	pprof_decode(&profile, bytes, len, bytes != input->data);
	for (int i = 0; i < profile.nsample_types; i++)
	{
		PprofValueType *vt = &profile.sample_types[i];

		(void) strlen(pprof_string(&profile, vt->type, vt->at, "sample type"));
		(void) strlen(pprof_string(&profile, vt->unit, vt->at, "sample unit"));
	}
	if (profile.default_sample_type != 0)
		(void) pprof_string(&profile, profile.default_sample_type, profile.default_sample_type_at,
							"default sample type");
	for (int i = 0; i < profile.nlocations; i++)
		resolve_location(&profile, &profile.locations[i]);
	walk_samples(&profile);
}

/* 64-bit values through pb_put_packed_varints and back through pb_append_varints */
static void
varint_round_trip(void *arg)
{
	Input	   *input = arg;
	int			count = (int) (input->len / 8);
	uint64	   *values = palloc(sizeof(uint64) * Max(count, 1));
	uint64	   *read = NULL;
	int			nread = 0;
	int			capacity = 0;
	StringInfoData buf;
	PbReader	reader;
	uint32		field;
	int			wiretype;

	for (int i = 0; i < count; i++)
		memcpy(&values[i], input->data + 8 * i, 8);
	initStringInfo(&buf);
	pb_put_varint_field(&buf, 1, (uint64) count);
	pb_put_packed_varints(&buf, 2, values, count);
	pb_reader_init(&reader, (const uint8 *) buf.data, buf.len, "fuzz", "RoundTrip");
	FUZZ_CHECK(pb_next_field(&reader, &field, &wiretype) && field == 1, "no count field");
	FUZZ_CHECK(pb_expect_varint(&reader, wiretype, "count") == (uint64) count, "count changed");
	while (pb_next_field(&reader, &field, &wiretype))
	{
		FUZZ_CHECK(field == 2, "unexpected field %u", field);
		pb_append_varints(&reader, wiretype, "values", &read, &nread, &capacity);
	}
	FUZZ_CHECK(nread == count, "wrote %d values, read %d", count, nread);
	for (int i = 0; i < count; i++)
		FUZZ_CHECK(read[i] == values[i], "value %d changed", i);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input = {data, size};

	(void) fuzz_try(decode_profile, &input);
	FUZZ_CHECK(fuzz_try(varint_round_trip, &input), "varint round trip failed: %s", fuzz_last_error.message);
	return 0;
}
