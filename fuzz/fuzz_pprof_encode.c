/*
 * fuzz_pprof_encode.c
 *	  libFuzzer harness of the pprof encoder (pprof_encode.c): what it
 *	  writes, the decoder (pprof.c) reads back as the same profile.
 *
 * The input chooses a profile: its sample type and unit, a table of
 * functions whose names, files and resources are made of a few pieces (so
 * that strings repeat and functions share a resource; a file or resource
 * may be absent), and samples of up to eight locations and one value each.
 * The harness encodes it, decodes the bytes and checks that every field
 * comes back as it was given: the decode of the encode is the identity
 * (an absent file reads as "", the format's empty string).  The encoder
 * is given valid profiles only, so an ERROR anywhere is a failure.
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "formats/pprof.h"
#include "pg_stubs.h"

#define MAX_FUNCTIONS	12
#define MAX_SAMPLES		16
#define MAX_DEPTH		8

/* The input, read a byte at a time; past its end, zeros */
typedef struct Input
{
	const uint8 *data;
	size_t		len;
	size_t		at;
} Input;

typedef struct Sample
{
	uint64		location_ids[MAX_DEPTH];
	int			depth;
	int64		value;
} Sample;

/* A profile to encode, and what its decoding must give back */
typedef struct Profile
{
	const char *sample_type;
	const char *unit;
	PprofEncodeFunction functions[MAX_FUNCTIONS];
	int			nfunctions;
	Sample		samples[MAX_SAMPLES];
	int			nsamples;
} Profile;

static uint8
next_byte(Input *input)
{
	return input->at < input->len ? input->data[input->at++] : 0;
}

static int64
next_int64(Input *input)
{
	uint64		v = 0;

	for (int i = 0; i < 8; i++)
		v = (v << 8) | next_byte(input);
	return (int64) v;
}

/* Up to three pieces: empty, ASCII, separators, two- and three-byte UTF-8 */
static const char *
next_string(Input *input)
{
	static const char *const pieces[] = {
		"", "a", "main", "x/y.c", ";", " ", "\xc3\xa9", "\xe2\x82\xac"
	};
	int			count = next_byte(input) % 4;
	StringInfoData s;

	initStringInfo(&s);
	for (int i = 0; i < count; i++)
		appendStringInfoString(&s, pieces[next_byte(input) % lengthof(pieces)]);
	return s.data;
}

static void
choose_profile(Input *input, Profile *profile)
{
	profile->sample_type = next_string(input);
	profile->unit = next_string(input);
	profile->nfunctions = next_byte(input) % (MAX_FUNCTIONS + 1);
	for (int i = 0; i < profile->nfunctions; i++)
	{
		uint8		absent = next_byte(input);

		profile->functions[i].name = next_string(input);
		profile->functions[i].file = (absent & 1) ? NULL : next_string(input);
		profile->functions[i].resource = (absent & 2) ? NULL : next_string(input);
	}
	profile->nsamples = profile->nfunctions == 0 ? 0 : next_byte(input) % (MAX_SAMPLES + 1);
	for (int i = 0; i < profile->nsamples; i++)
	{
		Sample	   *sample = &profile->samples[i];

		sample->depth = next_byte(input) % (MAX_DEPTH + 1);
		for (int d = 0; d < sample->depth; d++)
			sample->location_ids[d] = 1 + next_byte(input) % profile->nfunctions;
		sample->value = next_int64(input);
	}
}

static void
encode(const Profile *profile, StringInfo out)
{
	PprofEncoder *encoder = pprof_encoder_begin(out, profile->sample_type, profile->unit,
												profile->functions, profile->nfunctions);

	for (int i = 0; i < profile->nsamples; i++)
		pprof_encoder_sample(encoder, profile->samples[i].location_ids, profile->samples[i].depth,
							 profile->samples[i].value);
	pprof_encoder_finish(encoder);
}

static void
check_string(PprofProfile *decoded, int64 index, size_t at, const char *expected, const char *what)
{
	const char *s = pprof_string(decoded, index, at, what);

	FUZZ_CHECK(strcmp(s, expected) == 0, "the %s \"%s\" came back as \"%s\"", what, expected, s);
}

/* The number of distinct resources: one mapping each */
static int
distinct_resources(const Profile *profile)
{
	int			count = 0;

	for (int i = 0; i < profile->nfunctions; i++)
	{
		const char *resource = profile->functions[i].resource;
		bool		seen = resource == NULL;

		for (int j = 0; j < i && !seen; j++)
			seen = profile->functions[j].resource != NULL &&
				strcmp(profile->functions[j].resource, resource) == 0;
		count += !seen;
	}
	return count;
}

/* Function and location i + 1 are function i, on its resource's mapping */
static void
check_function(PprofProfile *decoded, const PprofEncodeFunction *expected, int i)
{
	const PprofFunction *function = pprof_function(decoded, i + 1, 0);
	const PprofLocation *location = pprof_location(decoded, i + 1, 0);
	const PprofMapping *mapping = pprof_mapping(decoded, location->mapping_id, location->at);

	check_string(decoded, function->name, function->at, expected->name, "function name");
	check_string(decoded, function->system_name, function->at, expected->name, "system name");
	check_string(decoded, function->filename, function->at, expected->file ? expected->file : "",
				 "file name");
	FUZZ_CHECK(location->nlines == 1 && pprof_location_lines(decoded, location)[0].function_id == (uint64) i + 1,
			   "location %d is not one line of function %d", i + 1, i + 1);
	FUZZ_CHECK((mapping == NULL) == (expected->resource == NULL),
			   "function %d's mapping came and went", i + 1);
	if (mapping)
		check_string(decoded, mapping->filename, mapping->at, expected->resource, "resource");
}

static void
check_samples(PprofProfile *decoded, const Profile *profile)
{
	PbReader	top;
	PprofSample sample;
	int			seen = 0;

	memset(&sample, 0, sizeof(sample));
	pprof_samples_begin(decoded, &top);
	while (pprof_next_sample(decoded, &top, &sample))
	{
		const Sample *expected;

		FUZZ_CHECK(seen < profile->nsamples, "more samples came back than went in");
		expected = &profile->samples[seen];
		pprof_sample_locations(&sample);
		FUZZ_CHECK(sample.nlocation_ids == expected->depth &&
				   (expected->depth == 0 ||
					memcmp(sample.location_ids, expected->location_ids,
						   sizeof(uint64) * expected->depth) == 0),
				   "the locations of sample %d changed", seen);
		FUZZ_CHECK(sample.nvalues == 1 && (int64) sample.values[0] == expected->value,
				   "the value of sample %d changed", seen);
		FUZZ_CHECK(sample.nlabels == 0, "sample %d came back with labels", seen);
		seen++;
	}
	FUZZ_CHECK(seen == profile->nsamples && decoded->nsamples == profile->nsamples,
			   "%d samples went in, %d came back", profile->nsamples, seen);
}

static void
round_trip(void *arg)
{
	Profile		chosen;
	Profile    *profile = &chosen;
	StringInfoData encoded;
	PprofProfile decoded;

	choose_profile(arg, profile);
	initStringInfo(&encoded);
	encode(profile, &encoded);
	pprof_decode(&decoded, (const uint8 *) encoded.data, encoded.len, false);

	FUZZ_CHECK(decoded.nsample_types == 1, "%d sample types came back", decoded.nsample_types);
	check_string(&decoded, decoded.sample_types[0].type, 0, profile->sample_type, "sample type");
	check_string(&decoded, decoded.sample_types[0].unit, 0, profile->unit, "unit");
	FUZZ_CHECK(decoded.nfunctions == profile->nfunctions && decoded.nlocations == profile->nfunctions,
			   "%d functions went in, %d functions and %d locations came back",
			   profile->nfunctions, decoded.nfunctions, decoded.nlocations);
	FUZZ_CHECK(decoded.nmappings == distinct_resources(profile),
			   "%d mappings came back for %d resources", decoded.nmappings, distinct_resources(profile));
	for (int i = 0; i < profile->nfunctions; i++)
		check_function(&decoded, &profile->functions[i], i);
	check_samples(&decoded, profile);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input = {data, size, 0};

	FUZZ_CHECK(fuzz_try(round_trip, &input), "a round trip raised an ERROR: %s",
			   fuzz_last_error.message);
	return 0;
}
