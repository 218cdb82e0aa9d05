/*
 * fuzz_otlp.c
 *	  libFuzzer harness of the OTLP profiles decoder (otlp.c, over
 *	  protobuf.c), through gzip.c as import_otlp reads.
 *
 * The input is an ExportProfilesServiceRequest, gzip-compressed or not.
 * The harness does what import_otlp does short of writing: decode, then
 * for every profile read its header and the strings it names, the
 * attributes of its resource, scope and itself (values walked to the
 * depth import_otlp allows), and walk every sample: its stack, each
 * location's mapping (with its attributes), lines and functions, its
 * attributes and link.  Any ERROR is a clean rejection.
 */
#include "postgres.h"

#include "formats/gzip.h"
#include "formats/otlp.h"
#include "pg_stubs.h"

/* import_otlp's own limits are larger; these keep the fuzzer's memory low */
#define FUZZ_MAX_DECOMPRESSED (16 * 1024 * 1024)
#define FUZZ_MEMORY_LIMIT (16 * 1024 * 1024)
/* as import_otlp */
#define MAX_VALUE_DEPTH 64

typedef struct Input
{
	const uint8 *data;
	size_t		len;
} Input;

static void walk_value(OtlpRequest *request, OtlpBytes message, int depth);

static void
walk_key_values(OtlpRequest *request, OtlpBytes message, uint32 field, int depth)
{
	PbReader	reader;
	OtlpKeyValue kv;

	otlp_key_values_begin(request, message, "KeyValues", &reader);
	while (otlp_next_key_value(&reader, field, &kv))
	{
		if (kv.key.len > 0)
			(void) strlen(otlp_text(request, kv.key, "key"));
		else
			(void) strlen(otlp_string(request, kv.key_strindex, kv.at, "key"));
		if (kv.has_value)
			walk_value(request, kv.value, depth);
	}
}

static void
walk_value(OtlpRequest *request, OtlpBytes message, int depth)
{
	OtlpValue	value;
	PbReader	reader;
	OtlpBytes	element;

	if (depth > MAX_VALUE_DEPTH)
		otlp_error(message.offset, "too deep");
	FUZZ_CHECK(message.offset + message.len <= request->len, "a value runs past the input");
	otlp_read_value(request, message, &value);
	switch (value.kind)
	{
		case OTLP_VALUE_STRING:
			if (value.from_table)
				(void) strlen(otlp_string(request, value.strindex, value.at, "value"));
			else
				(void) strlen(otlp_text(request, value.bytes, "value"));
			break;
		case OTLP_VALUE_ARRAY:
			otlp_key_values_begin(request, value.bytes, "ArrayValue", &reader);
			while (otlp_next_array_value(&reader, &element))
				walk_value(request, element, depth + 1);
			break;
		case OTLP_VALUE_KVLIST:
			walk_key_values(request, value.bytes, OTLP_LIST_VALUES, depth + 1);
			break;
		case OTLP_VALUE_BYTES:
			FUZZ_CHECK(value.bytes.offset + value.bytes.len <= request->len, "bytes run past the input");
			break;
		default:
			break;
	}
}

static void
walk_attribute(OtlpRequest *request, int64 index, size_t at)
{
	const OtlpAttribute *attribute = otlp_attribute(request, index, at);

	if (attribute == NULL)
		return;
	(void) strlen(otlp_string(request, attribute->key, attribute->at, "key"));
	(void) strlen(otlp_string(request, attribute->unit, attribute->at, "unit"));
	if (attribute->has_value)
		walk_value(request, attribute->value, 0);
}

static void
walk_location(OtlpRequest *request, int32 index, size_t at)
{
	const OtlpLocation *location = otlp_location(request, index, at);
	const OtlpMapping *mapping = otlp_mapping(request, location->mapping, location->at);

	FUZZ_CHECK(location->first_line + location->nlines <= request->nlines_total, "lines out of the pool");
	if (mapping)
	{
		(void) strlen(otlp_string(request, mapping->filename, mapping->at, "filename"));
		FUZZ_CHECK(mapping->attributes.first + mapping->attributes.count <= request->nindices,
				   "mapping attributes out of the pool");
		for (int i = 0; i < mapping->attributes.count; i++)
			walk_attribute(request, request->indices[mapping->attributes.first + i], mapping->at);
	}
	for (int i = 0; i < location->nlines; i++)
	{
		const OtlpLine *line = &request->lines[location->first_line + i];
		const OtlpFunction *function = otlp_function(request, line->function, location->at);

		if (function == NULL)
			continue;
		(void) strlen(otlp_string(request, function->name, function->at, "name"));
		(void) strlen(otlp_string(request, function->system_name, function->at, "system name"));
		(void) strlen(otlp_string(request, function->filename, function->at, "filename"));
	}
}

static void
walk_samples(OtlpRequest *request, const OtlpProfile *profile)
{
	PbReader	reader;
	OtlpSample	sample;
	int64		seen = 0;

	memset(&sample, 0, sizeof(sample));
	otlp_samples_begin(request, profile, &reader);
	while (otlp_next_sample(request, &reader, &sample))
	{
		const OtlpStack *stack = otlp_stack(request, sample.stack, sample.at);
		const OtlpLink *link = otlp_link(request, sample.link, sample.at);

		seen++;
		if (stack)
		{
			FUZZ_CHECK(stack->locations.first + stack->locations.count <= request->nindices,
					   "stack out of the pool");
			for (int i = 0; i < stack->locations.count; i++)
				walk_location(request, request->indices[stack->locations.first + i], stack->at);
		}
		for (int i = 0; i < sample.nattributes; i++)
			walk_attribute(request, (int64) (int32) (uint32) sample.attributes[i], sample.at);
		if (link)
			FUZZ_CHECK(link->trace_id.offset + link->trace_id.len <= request->len &&
					   link->span_id.offset + link->span_id.len <= request->len, "link ids run past the input");
	}
	FUZZ_CHECK(seen == profile->nsamples, "the header counted " INT64_FORMAT " samples, the walk "
			   INT64_FORMAT, profile->nsamples, seen);
}

static void
decode_request(void *arg)
{
	Input	   *input = arg;
	const uint8 *bytes = input->data;
	size_t		len = input->len;
	OtlpRequest request;

	if (gzip_is_compressed((const char *) bytes, len))
		bytes = (const uint8 *) gzip_decompress((const char *) bytes, len, FUZZ_MAX_DECOMPRESSED,
												"OTLP", &len);
	otlp_decode(&request, bytes, len, FUZZ_MEMORY_LIMIT);
	FUZZ_CHECK(request.memory_used <= FUZZ_MEMORY_LIMIT, "the decoder went past its memory limit");
	for (int i = 0; i < request.nprofiles; i++)
	{
		const OtlpProfileRef *ref = &request.profiles[i];
		OtlpProfile profile;
		OtlpBytes	name;
		OtlpBytes	version;

		otlp_profile_header(&request, ref, &profile);
		(void) strlen(otlp_string(&request, profile.sample_type.type, profile.at, "type"));
		(void) strlen(otlp_string(&request, profile.sample_type.unit, profile.at, "unit"));
		(void) strlen(otlp_string(&request, profile.period_type.type, profile.at, "period type"));
		walk_key_values(&request, ref->resource, OTLP_RESOURCE_ATTRIBUTES, 0);
		otlp_scope_names(&request, ref->scope, &name, &version);
		(void) strlen(otlp_text(&request, name, "scope name"));
		(void) strlen(otlp_text(&request, version, "scope version"));
		walk_key_values(&request, ref->scope, OTLP_SCOPE_ATTRIBUTES, 0);
		for (int j = 0; j < profile.nattributes; j++)
			walk_attribute(&request, profile.attributes[j], profile.at);
		walk_samples(&request, &profile);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input = {data, size};

	(void) fuzz_try(decode_request, &input);
	return 0;
}
