/*
 * import_otlp.c
 *	  OpenTelemetry profiles: an OTLP ExportProfilesServiceRequest (or
 *	  ProfilesData, the same message) of the v1development signal, as
 *	  OpenTelemetry's profilers and Collector send it, protobuf,
 *	  gzip-compressed or not.
 *
 * One request carries many profiles, of several resources and scopes,
 * which share one dictionary: each OTLP Profile becomes a calltree
 * profile, and import_otlp returns all their ids.
 *
 * Mapping OTLP onto calltree:
 * - A profile's name is the caller's, else its resource's service.name.
 *   Its meta holds the resource's attributes, the scope's name and
 *   version (otel.scope.name, otel.scope.version) and attributes, the
 *   profile's attributes, then sample_type, period, period_type,
 *   duration_ns and otlp_profile_id, each a top-level key (the later
 *   wins), and the caller's meta over all of them.
 * - The sample type's unit is the weight unit; time_unix_nano the start
 *   time (else the earliest sample timestamp); a sample's timestamps are
 *   its rows' ts, in nanoseconds from that start.
 * - A sample is one row per observation: per value (with its timestamp
 *   when there are both), else per timestamp with weight 1.
 * - A stack (leaf first) is read root first; a location with several
 *   lines gives one frame per line, the last (the caller) first, as pprof.
 * - A func is (Function.name, else system_name; Function.filename; the
 *   mapping's resource), the resource being the mapping's filename and,
 *   in parentheses, its build id (the process.executable.build_id.gnu,
 *   .go, .htlhash or .profiling attribute, the first present).  A
 *   location without lines in a mapping with a resource is an address
 *   frame (as intern_address makes them), which symbolicate() can name
 *   later; without a resource, a func named by the address.
 * - A sample's attributes become its label set ("key": value, or
 *   {"num"/"value": v, "unit": u} with a unit), with the trace_id and
 *   span_id of its link, in hex.
 * - Attribute values as JSON: strings, booleans, numbers (a double that is
 *   not finite as a string: "NaN"), arrays, objects (key-value lists),
 *   bytes as base64, an unset value as null.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "common/base64.h"
#include "datatype/timestamp.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "formats/gzip.h"
#include "formats/otlp.h"
#include "import/importer.h"
#include "module.h"
#include "tree/id_maps.h"

PG_FUNCTION_INFO_V1(calltree_import_otlp);

/* Decompressed requests larger than this are refused. */
#define OTLP_MAX_DECOMPRESSED ((size_t) 1 << 30)

/* Deeper attribute values (arrays in arrays...) are refused. */
#define OTLP_MAX_VALUE_DEPTH 64

/*
 * Label sets remembered per profile, under keys of at most this many
 * bytes (a sample of more attributes is built each time): the memo takes
 * at most a few MB, whatever the request.
 */
#define LABEL_MEMO_MAX 4096
#define LABEL_MEMO_KEY_MAX 1024

/* The build id attributes of a mapping, the first present taken */
static const char *const build_id_keys[] = {
	"process.executable.build_id.gnu",
	"process.executable.build_id.go",
	"process.executable.build_id.htlhash",
	"process.executable.build_id.profiling",
};

typedef struct LocationFrames
{
	int64	   *frames;			/* outermost first */
	int			nframes;
} LocationFrames;

typedef struct OtlpImport
{
	OtlpRequest request;
	OtlpProfile profile;
	ProfileWriter *writer;
	LocationFrames *location_frames;	/* per location, this profile's */
	int64	   *stack_ids;		/* per stack, this profile's; 0: not yet */
	const char **resources;		/* per mapping, for the whole request */
	bool	   *resource_known;
	uint64		start_nanos;	/* the sample times' origin */

	idcache_hash *label_memo;	/* label set ids under [link, attributes...] */
	int			label_memo_count;
	MemoryContext label_cxt;
} OtlpImport;

/* ---------------------------------------------------------------- values as jsonb */

static void
push_string(JsonbParseState **state, JsonbIteratorToken token, const char *s)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = strlen(s);
	pushJsonbValue(state, token, &v);
}

static void
push_int(JsonbParseState **state, JsonbIteratorToken token, int64 n)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(n);
	pushJsonbValue(state, token, &v);
}

static void
push_double(JsonbParseState **state, JsonbIteratorToken token, double d)
{
	JsonbValue	v;

	if (isnan(d))
	{
		push_string(state, token, "NaN");
		return;
	}
	if (isinf(d))
	{
		push_string(state, token, d > 0 ? "Infinity" : "-Infinity");
		return;
	}
	v.type = jbvNumeric;
	v.val.numeric = DatumGetNumeric(DirectFunctionCall1(float8_numeric, Float8GetDatum(d)));
	pushJsonbValue(state, token, &v);
}

static void
push_scalar(JsonbParseState **state, JsonbIteratorToken token, enum jbvType type, bool b)
{
	JsonbValue	v;

	v.type = type;
	v.val.boolean = b;
	pushJsonbValue(state, token, &v);
}

static char *
hex_bytes(const OtlpRequest *request, OtlpBytes bytes)
{
	char	   *hex = palloc(bytes.len * 2 + 1);

	for (size_t i = 0; i < bytes.len; i++)
		snprintf(hex + 2 * i, 3, "%02x", request->data[bytes.offset + i]);
	hex[bytes.len * 2] = '\0';
	return hex;
}

static char *
base64_bytes(const OtlpRequest *request, OtlpBytes bytes)
{
	int			len;
	char	   *b64;

	if (bytes.len > (size_t) MaxAllocSize / 2)
		otlp_error(bytes.offset, "A bytes value of %zu bytes is too long.", bytes.len);
	len = pg_b64_enc_len((int) bytes.len);
	b64 = palloc(len + 1);
	len = pg_b64_encode((const char *) request->data + bytes.offset, (int) bytes.len, b64, len);
	if (len < 0)
		otlp_error(bytes.offset, "A bytes value could not be encoded.");
	b64[len] = '\0';
	return b64;
}

static void push_value(OtlpImport *import, JsonbParseState **state, JsonbIteratorToken token,
					   OtlpBytes message, int depth);

/* A KeyValue's key: the inline key, else the one of the string table */
static const char *
key_value_key(OtlpImport *import, const OtlpKeyValue *kv)
{
	if (kv->key.len > 0)
		return otlp_text(&import->request, kv->key, "attribute's key");
	return otlp_string(&import->request, kv->key_strindex, kv->at, "attribute's key");
}

/* The KeyValues of field `field` of a message, as key/value pairs of the object being built */
static void
push_key_values(OtlpImport *import, JsonbParseState **state, OtlpBytes message,
				const char *name, uint32 field, int depth)
{
	PbReader	reader;
	OtlpKeyValue kv;

	otlp_key_values_begin(&import->request, message, name, &reader);
	while (otlp_next_key_value(&reader, field, &kv))
	{
		push_string(state, WJB_KEY, key_value_key(import, &kv));
		if (kv.has_value)
			push_value(import, state, WJB_VALUE, kv.value, depth);
		else
			push_scalar(state, WJB_VALUE, jbvNull, false);
	}
}

static void
push_value(OtlpImport *import, JsonbParseState **state, JsonbIteratorToken token,
		   OtlpBytes message, int depth)
{
	OtlpValue	value;
	PbReader	reader;
	OtlpBytes	element;

	check_stack_depth();
	if (depth > OTLP_MAX_VALUE_DEPTH)
		otlp_error(message.offset, "An attribute value nests more than %d arrays or key-value lists.",
				   OTLP_MAX_VALUE_DEPTH);
	otlp_read_value(&import->request, message, &value);
	switch (value.kind)
	{
		case OTLP_VALUE_EMPTY:
			push_scalar(state, token, jbvNull, false);
			break;
		case OTLP_VALUE_STRING:
			push_string(state, token, value.from_table
						? otlp_string(&import->request, value.strindex, value.at, "attribute's value")
						: otlp_text(&import->request, value.bytes, "attribute's string value"));
			break;
		case OTLP_VALUE_BOOL:
			push_scalar(state, token, jbvBool, value.boolean);
			break;
		case OTLP_VALUE_INT:
			push_int(state, token, value.integer);
			break;
		case OTLP_VALUE_DOUBLE:
			push_double(state, token, value.dbl);
			break;
		case OTLP_VALUE_BYTES:
			push_string(state, token, base64_bytes(&import->request, value.bytes));
			break;
		case OTLP_VALUE_ARRAY:
			pushJsonbValue(state, WJB_BEGIN_ARRAY, NULL);
			otlp_key_values_begin(&import->request, value.bytes, "ArrayValue", &reader);
			while (otlp_next_array_value(&reader, &element))
				push_value(import, state, WJB_ELEM, element, depth + 1);
			pushJsonbValue(state, WJB_END_ARRAY, NULL);
			break;
		case OTLP_VALUE_KVLIST:
			pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
			push_key_values(import, state, value.bytes, "KeyValueList", OTLP_LIST_VALUES, depth + 1);
			pushJsonbValue(state, WJB_END_OBJECT, NULL);
			break;
	}
}

/* Dictionary attributes (KeyValueAndUnit) as key/value pairs; index 0 is none */
static void
push_attribute(OtlpImport *import, JsonbParseState **state, int64 index, size_t at)
{
	const OtlpAttribute *attribute = otlp_attribute(&import->request, index, at);
	bool		numeric;

	if (attribute == NULL)
		return;
	push_string(state, WJB_KEY, otlp_string(&import->request, attribute->key, attribute->at, "attribute's key"));
	if (!attribute->has_value)
	{
		push_scalar(state, WJB_VALUE, jbvNull, false);
		return;
	}
	if (attribute->unit == 0)
	{
		push_value(import, state, WJB_VALUE, attribute->value, 0);
		return;
	}
	/* with a unit: {"num": 42, "unit": "bytes"} as pprof's numeric labels */
	{
		OtlpValue	value;

		otlp_read_value(&import->request, attribute->value, &value);
		numeric = value.kind == OTLP_VALUE_INT || value.kind == OTLP_VALUE_DOUBLE;
	}
	pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
	push_string(state, WJB_KEY, numeric ? "num" : "value");
	push_value(import, state, WJB_VALUE, attribute->value, 0);
	push_string(state, WJB_KEY, "unit");
	push_string(state, WJB_VALUE, otlp_string(&import->request, attribute->unit, attribute->at, "attribute's unit"));
	pushJsonbValue(state, WJB_END_OBJECT, NULL);
}

/* ---------------------------------------------------------------- meta and name */

/* The string value of a resource attribute, NULL if none or not a string */
static const char *
resource_string(OtlpImport *import, OtlpBytes resource, const char *key)
{
	PbReader	reader;
	OtlpKeyValue kv;
	const char *found = NULL;

	otlp_key_values_begin(&import->request, resource, "Resource", &reader);
	while (otlp_next_key_value(&reader, OTLP_RESOURCE_ATTRIBUTES, &kv))
	{
		OtlpValue	value;

		if (!kv.has_value || strcmp(key_value_key(import, &kv), key) != 0)
			continue;
		otlp_read_value(&import->request, kv.value, &value);
		if (value.kind != OTLP_VALUE_STRING)
			found = NULL;
		else
			found = value.from_table
				? otlp_string(&import->request, value.strindex, value.at, "attribute's value")
				: otlp_text(&import->request, value.bytes, "attribute's string value");
	}
	return found;
}

static void
push_value_type(OtlpImport *import, JsonbParseState **state, const char *key, int32 index)
{
	const char *s = otlp_string(&import->request, index, import->profile.at, key);

	if (s[0] == '\0')
		return;
	push_string(state, WJB_KEY, key);
	push_string(state, WJB_VALUE, s);
}

/* The profile's meta (see the file header), the caller's over it */
static Jsonb *
profile_meta(OtlpImport *import, const ProfileInfo *info)
{
	const OtlpProfile *profile = &import->profile;
	const OtlpProfileRef *ref = profile->ref;
	JsonbParseState *state = NULL;
	OtlpBytes	scope_name;
	OtlpBytes	scope_version;
	Datum		ours;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	push_key_values(import, &state, ref->resource, "Resource", OTLP_RESOURCE_ATTRIBUTES, 0);
	otlp_scope_names(&import->request, ref->scope, &scope_name, &scope_version);
	if (scope_name.len > 0)
	{
		push_string(&state, WJB_KEY, "otel.scope.name");
		push_string(&state, WJB_VALUE, otlp_text(&import->request, scope_name, "scope's name"));
	}
	if (scope_version.len > 0)
	{
		push_string(&state, WJB_KEY, "otel.scope.version");
		push_string(&state, WJB_VALUE, otlp_text(&import->request, scope_version, "scope's version"));
	}
	push_key_values(import, &state, ref->scope, "InstrumentationScope", OTLP_SCOPE_ATTRIBUTES, 0);
	for (int i = 0; i < profile->nattributes; i++)
		push_attribute(import, &state, profile->attributes[i], profile->at);
	push_value_type(import, &state, "sample_type", profile->sample_type.type);
	if (profile->period != 0)
	{
		push_string(&state, WJB_KEY, "period");
		push_int(&state, WJB_VALUE, profile->period);
	}
	push_value_type(import, &state, "period_type", profile->period_type.type);
	push_value_type(import, &state, "period_unit", profile->period_type.unit);
	if (profile->duration_nano != 0)
	{
		if (profile->duration_nano > (uint64) PG_INT64_MAX)
			otlp_error(profile->at, "Profile.duration_nano " UINT64_FORMAT " is out of range.",
					   profile->duration_nano);
		push_string(&state, WJB_KEY, "duration_ns");
		push_int(&state, WJB_VALUE, (int64) profile->duration_nano);
	}
	if (profile->profile_id.len > 0)
	{
		push_string(&state, WJB_KEY, "otlp_profile_id");
		push_string(&state, WJB_VALUE, hex_bytes(&import->request, profile->profile_id));
	}
	ours = JsonbPGetDatum(JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL)));
	if (info->meta == NULL)
		return DatumGetJsonbP(ours);
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, ours, JsonbPGetDatum(info->meta)));
}

/* ---------------------------------------------------------------- times */

/* The origin of sample times: time_unix_nano, else the earliest timestamp; 0 if none */
static uint64
times_origin(OtlpImport *import)
{
	PbReader	reader;
	OtlpSample	sample;
	uint64		earliest = 0;
	bool		found = false;
	int64		count = 0;

	if (import->profile.time_unix_nano != 0)
		return import->profile.time_unix_nano;
	memset(&sample, 0, sizeof(sample));
	otlp_samples_begin(&import->request, &import->profile, &reader);
	while (otlp_next_sample(&import->request, &reader, &sample))
	{
		if ((++count & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int i = 0; i < sample.ntimestamps; i++)
			if (!found || sample.timestamps[i] < earliest)
			{
				earliest = sample.timestamps[i];
				found = true;
			}
	}
	return earliest;
}

static void
set_started_at(OtlpImport *import, ProfileInfo *info, size_t at)
{
	uint64		nanos = import->start_nanos;
	TimestampTz ts;

	if (nanos == 0)
		return;
	if (nanos > (uint64) PG_INT64_MAX)
		otlp_error(at, "The profile's start time " UINT64_FORMAT " ns is out of range.", nanos);
	/* nanoseconds since 1970 to microseconds since 2000, rounding down */
	ts = (int64) (nanos / 1000) - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
	if (!IS_VALID_TIMESTAMP(ts))
		otlp_error(at, "The profile's start time " UINT64_FORMAT " ns is out of range.", nanos);
	info->has_started_at = true;
	info->started_at = ts;
}

/* A timestamp as ns from the origin */
static int64
sample_ts(OtlpImport *import, uint64 timestamp, size_t at)
{
	uint64		origin = import->start_nanos;

	if (timestamp >= origin && timestamp - origin <= (uint64) PG_INT64_MAX)
		return (int64) (timestamp - origin);
	if (timestamp < origin && origin - timestamp <= (uint64) PG_INT64_MAX)
		return -(int64) (origin - timestamp);
	otlp_error(at, "A sample's timestamp " UINT64_FORMAT " is too far from the profile's start.", timestamp);
}

/* ---------------------------------------------------------------- frames */

static const char *
optional_string(OtlpImport *import, int32 index, size_t at, const char *what)
{
	const char *s = otlp_string(&import->request, index, at, what);

	return s[0] ? s : NULL;
}

/* The string value of a mapping's build id attribute, NULL if none */
static const char *
mapping_build_id(OtlpImport *import, const OtlpMapping *mapping)
{
	OtlpRequest *request = &import->request;

	for (int k = 0; k < lengthof(build_id_keys); k++)
		for (int i = 0; i < mapping->attributes.count; i++)
		{
			const OtlpAttribute *attribute =
				otlp_attribute(request, request->indices[mapping->attributes.first + i], mapping->at);
			OtlpValue	value;
			const char *id;

			if (attribute == NULL || !attribute->has_value ||
				strcmp(otlp_string(request, attribute->key, attribute->at, "attribute's key"), build_id_keys[k]) != 0)
				continue;
			otlp_read_value(request, attribute->value, &value);
			if (value.kind == OTLP_VALUE_STRING)
				id = value.from_table
					? otlp_string(request, value.strindex, value.at, "build id")
					: otlp_text(request, value.bytes, "build id");
			else if (value.kind == OTLP_VALUE_BYTES)
				id = hex_bytes(request, value.bytes);
			else
				continue;
			if (id[0])
				return id;
		}
	return NULL;
}

static const char *
mapping_resource(OtlpImport *import, int32 index, size_t at)
{
	const OtlpMapping *mapping = otlp_mapping(&import->request, index, at);
	const char *filename;
	const char *build_id;
	const char *resource;

	if (mapping == NULL)
		return NULL;
	if (import->resource_known[index])
		return import->resources[index];
	filename = optional_string(import, mapping->filename, mapping->at, "mapping's filename");
	build_id = mapping_build_id(import, mapping);
	if (build_id == NULL)
		resource = filename;
	else if (filename == NULL)
		resource = psprintf("(%s)", build_id);
	else
		resource = psprintf("%s (%s)", filename, build_id);
	/* kept for the whole request */
	import->resources[index] = resource ? MemoryContextStrdup(GetMemoryChunkContext(import->resources), resource) : NULL;
	import->resource_known[index] = true;
	return import->resources[index];
}

static OptionalInt
frame_number(int64 value, size_t at, const char *what)
{
	if (value == 0)
		return NO_INT;
	if (value < PG_INT32_MIN || value > PG_INT32_MAX)
		otlp_error(at, "A location's %s " INT64_FORMAT " is out of range.", what, value);
	return SOME_INT(value);
}

static int64
line_frame(OtlpImport *import, const OtlpLocation *location, const OtlpLine *line,
		   const char *resource)
{
	const OtlpFunction *function = otlp_function(&import->request, line->function, location->at);
	const char *name = NULL;
	const char *file = NULL;

	if (function)
	{
		name = optional_string(import, function->name, function->at, "function's name");
		if (name == NULL)
			name = optional_string(import, function->system_name, function->at, "function's system name");
		file = optional_string(import, function->filename, function->at, "function's filename");
	}
	if (name == NULL)
		name = location->address ? psprintf("0x%" INT64_MODIFIER "x", location->address) : "(unknown)";
	return profile_writer_func_frame(import->writer, name, file, resource,
									 location->address ? SOME_INT((int64) location->address) : NO_INT,
									 frame_number(line->line, location->at, "line number"),
									 frame_number(line->column, location->at, "column"), NULL);
}

static const LocationFrames *
location_frames(OtlpImport *import, int32 index, size_t at)
{
	const OtlpLocation *location = otlp_location(&import->request, index, at);
	LocationFrames *lf = &import->location_frames[index];
	const char *resource;

	if (lf->frames)
		return lf;
	resource = mapping_resource(import, location->mapping, location->at);
	lf->frames = palloc(sizeof(int64) * Max(location->nlines, 1));
	if (location->nlines == 0)
	{
		OtlpLine	none = {0, 0, 0};

		/* not symbolized: an address frame that symbolicate() can name */
		if (resource != NULL && location->address != 0)
			lf->frames[0] = profile_writer_address(import->writer, resource, (int64) location->address);
		else
			lf->frames[0] = line_frame(import, location, &none, resource);
		lf->nframes = 1;
		return lf;
	}
	for (int i = location->nlines - 1; i >= 0; i--)
		lf->frames[lf->nframes++] = line_frame(import, location,
											   &import->request.lines[location->first_line + i], resource);
	return lf;
}

/* The calltree stack of a stack index, root first; 0 for an empty stack */
static int64
stack_id(OtlpImport *import, int32 index, size_t at)
{
	const OtlpStack *stack = otlp_stack(&import->request, index, at);
	const int32 *locations;
	int64		id = 0;

	if (stack == NULL)
		return 0;
	if (import->stack_ids[index] != 0)
		return import->stack_ids[index];
	locations = &import->request.indices[stack->locations.first];
	profile_writer_walk_begin(import->writer);
	for (int i = stack->locations.count - 1; i >= 0; i--)
	{
		const LocationFrames *lf;

		if ((i & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		lf = location_frames(import, locations[i], stack->at);
		profile_writer_walk_push_all(import->writer, lf->frames, lf->nframes);
	}
	id = profile_writer_walk_end(import->writer);
	import->stack_ids[index] = id;
	return id;
}

/* ---------------------------------------------------------------- labels */

static void
push_link(OtlpImport *import, JsonbParseState **state, const char *key, OtlpBytes id)
{
	bool		zero = true;

	for (size_t i = 0; i < id.len; i++)
		zero = zero && import->request.data[id.offset + i] == 0;
	if (zero)
		return;
	push_string(state, WJB_KEY, key);
	push_string(state, WJB_VALUE, hex_bytes(&import->request, id));
}

/* A sample's label set as jsonb; NULL when it has none */
static Jsonb *
labels_jsonb(OtlpImport *import, const OtlpSample *sample)
{
	const OtlpLink *link = otlp_link(&import->request, sample->link, sample->at);
	JsonbParseState *state = NULL;
	JsonbValue *result;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < sample->nattributes; i++)
		push_attribute(import, &state, (int64) (int32) (uint32) sample->attributes[i], sample->at);
	if (link)
	{
		push_link(import, &state, "trace_id", link->trace_id);
		push_link(import, &state, "span_id", link->span_id);
	}
	result = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	if (result->val.object.nPairs == 0)
		return NULL;
	return JsonbValueToJsonb(result);
}

/* The interned label set of a sample, 0 for none; remembered under its indices */
static int64
sample_labels(OtlpImport *import, const OtlpSample *sample)
{
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext scratch;
	int			nkey = sample->nattributes + 1;
	uint64	   *key_data;
	BytesKey	key;
	CachedId   *memo;
	Jsonb	   *labels;
	int64		id;

	if (sample->nattributes == 0 && sample->link == 0)
		return 0;
	key_data = palloc(sizeof(uint64) * nkey);
	key_data[0] = (uint64) (uint32) sample->link;
	memcpy(key_data + 1, sample->attributes, sizeof(uint64) * sample->nattributes);
	key.data = (const char *) key_data;
	key.len = (int32) (sizeof(uint64) * nkey);
	memo = idcache_lookup(import->label_memo, key);
	if (memo)
	{
		pfree(key_data);
		return memo->id;
	}
	/* built in a scratch context: memory stays bounded by the sets remembered */
	scratch = AllocSetContextCreate(import->label_cxt, "calltree OTLP labels", ALLOCSET_SMALL_SIZES);
	MemoryContextSwitchTo(scratch);
	labels = labels_jsonb(import, sample);
	id = labels ? profile_writer_labels(import->writer, labels) : 0;
	MemoryContextSwitchTo(caller);
	MemoryContextDelete(scratch);
	if (import->label_memo_count < LABEL_MEMO_MAX && key.len <= LABEL_MEMO_KEY_MAX)
	{
		bool		found;

		key.data = memcpy(MemoryContextAlloc(import->label_cxt, key.len), key_data, key.len);
		idcache_insert(import->label_memo, key, &found)->id = id;
		import->label_memo_count++;
	}
	pfree(key_data);
	return id;
}

/* ---------------------------------------------------------------- samples */

/* The rows of one sample (see the file header) */
static void
write_sample(OtlpImport *import, const OtlpSample *sample, int64 stack, int64 labels)
{
	if (sample->nvalues == 0 && sample->ntimestamps == 0)
		otlp_error(sample->at, "A sample has neither values nor timestamps.");
	if (sample->nvalues > 0 && sample->ntimestamps > 0 && sample->nvalues != sample->ntimestamps)
		otlp_error(sample->at, "A sample has %d values but %d timestamps; they must be as many.",
				   sample->nvalues, sample->ntimestamps);
	for (int i = 0; i < Max(sample->nvalues, sample->ntimestamps); i++)
	{
		int64		weight = sample->nvalues > 0 ? (int64) sample->values[i] : 1;
		bool		has_ts = sample->ntimestamps > 0;
		int64		ts = has_ts ? sample_ts(import, sample->timestamps[i], sample->at) : 0;

		profile_writer_sample(import->writer, NULL, has_ts, ts, stack, weight, labels);
	}
}

static void
import_samples(OtlpImport *import)
{
	PbReader	reader;
	OtlpSample	sample;
	int64		count = 0;
	int64		skipped = 0;

	memset(&sample, 0, sizeof(sample));
	otlp_samples_begin(&import->request, &import->profile, &reader);
	while (otlp_next_sample(&import->request, &reader, &sample))
	{
		int64		stack;

		if ((++count & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		stack = stack_id(import, sample.stack, sample.at);
		if (stack == 0)
		{
			skipped++;
			continue;
		}
		write_sample(import, &sample, stack, sample_labels(import, &sample));
	}
	if (skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " OTLP sample%s without a stack",
						skipped, skipped == 1 ? "" : "s")));
}

/* One OTLP Profile into a new calltree profile; its id */
static int64
import_one_profile(OtlpImport *import, const OtlpProfileRef *ref, const ProfileInfo *info)
{
	ProfileInfo profile_info = *info;
	const char *unit;

	otlp_profile_header(&import->request, ref, &import->profile);
	if (profile_info.name == NULL)
		profile_info.name = resource_string(import, ref->resource, "service.name");
	profile_info.meta = profile_meta(import, info);
	unit = optional_string(import, import->profile.sample_type.unit, import->profile.at, "sample type's unit");
	if (unit)
		profile_info.weight_unit = unit;
	import->start_nanos = times_origin(import);
	set_started_at(import, &profile_info, import->profile.time_at ? import->profile.time_at : import->profile.at);

	import->location_frames = palloc0(sizeof(LocationFrames) * Max(import->request.nlocations, 1));
	import->stack_ids = palloc0(sizeof(int64) * Max(import->request.nstacks, 1));
	import->label_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree OTLP label memo",
											  ALLOCSET_SMALL_SIZES);
	import->label_memo = idcache_create(import->label_cxt, 16, NULL);
	import->label_memo_count = 0;

	import->writer = profile_writer_begin(&profile_info);
	import_samples(import);
	return profile_writer_finish(import->writer);
}

/*
 * Imports OTLP protobuf, already decompressed: every profile, each in a
 * memory context of its own.  The ids, in the request's order, into *ids.
 */
static int
otlp_import_all(const ProfileInfo *info, const char *data, size_t len, int64 **ids)
{
	OtlpImport	import;
	MemoryContext caller = CurrentMemoryContext;

	memset(&import, 0, sizeof(import));
	otlp_decode(&import.request, (const uint8 *) data, len, (size_t) calltree_import_work_mem * 1024);
	import.resources = palloc0(sizeof(char *) * Max(import.request.nmappings, 1));
	import.resource_known = palloc0(sizeof(bool) * Max(import.request.nmappings, 1));
	*ids = palloc(sizeof(int64) * Max(import.request.nprofiles, 1));
	for (int i = 0; i < import.request.nprofiles; i++)
	{
		MemoryContext cxt = AllocSetContextCreate(caller, "calltree OTLP profile", ALLOCSET_DEFAULT_SIZES);

		CHECK_FOR_INTERRUPTS();
		MemoryContextSwitchTo(cxt);
		(*ids)[i] = import_one_profile(&import, &import.request.profiles[i], info);
		MemoryContextSwitchTo(caller);
		MemoryContextDelete(cxt);
	}
	return import.request.nprofiles;
}

/*
 * The Importer's import_all, for import_stream: every profile's id; a
 * request without any is an error.
 */
static int
otlp_import_every(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options,
				  int64 **ids)
{
	int			count = otlp_import_all(info, data, len, ids);

	if (count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("OTLP request holds no profile"),
				 errhint("import_otlp() accepts an empty request and returns no id.")));
	return count;
}

/*
 * The Importer's import, for import_stream as 0.2 declared it: the first
 * profile's id, with a NOTICE naming the others.
 */
static int64
otlp_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	int64	   *ids;
	int			count = otlp_import_every(info, data, len, options, &ids);

	return importer_first_id("OTLP", "import_otlp()", ids, count);
}

const Importer otlp_importer = {
	.name = "otlp",
	.format = "otlp",
	.binary = true,
	.import = otlp_import,
	.import_all = otlp_import_every,
};

/* The protobuf bytes of a request: decompressed if it is gzip */
static const char *
otlp_bytes(bytea *data, size_t *len)
{
	const char *raw = VARDATA_ANY(data);
	size_t		raw_len = VARSIZE_ANY_EXHDR(data);

	if (gzip_is_compressed(raw, raw_len))
		return gzip_decompress(raw, raw_len, OTLP_MAX_DECOMPRESSED, "OTLP", len);
	*len = raw_len;
	return raw;
}

/* import_otlp(data bytea, name text, meta jsonb) → bigint[], every profile's id */
Datum
calltree_import_otlp(PG_FUNCTION_ARGS)
{
	ProfileInfo info;
	const ImportOptions keep = {0};	/* a file imported before: said, and kept */
	const char *bytes;
	size_t		len;
	int64	   *ids;
	int			count;
	Datum	   *elements;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	bytes = otlp_bytes(PG_GETARG_BYTEA_PP(0), &len);
	profile_info_from_args(fcinfo, 1, 2, otlp_importer.format, &info);
	content_note(&info, content_digest(bytes, len), &keep);
	count = otlp_import_all(&info, bytes, len, &ids);
	elements = palloc(sizeof(Datum) * Max(count, 1));
	for (int i = 0; i < count; i++)
		elements[i] = Int64GetDatum(ids[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elements, count, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE));
}
