/*
 * otlp.c
 *	  Decoding OpenTelemetry profiles from protobuf bytes (otlp.h).
 *
 * Two passes, as for pprof: otlp_decode() reads the dictionary, wherever
 * the request puts it (a message field given twice is merged: the tables
 * of both are appended), and lists every Profile with the Resource and
 * InstrumentationScope around it; the profiles are then read one at a
 * time, their samples streamed.  Nothing is resolved while reading, since
 * the string table may come after what refers to it.  Fields calltree
 * does not use are still checked for their wire type; unknown fields are
 * skipped.
 *
 * Index 0 of a table stands for "unset" wherever an index refers to it,
 * whatever the entry holds (the protocol wants the zero value there), so
 * a table that lacks its zero entry is read all the same.  The one index
 * that means an entry itself is a stack's location index.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "formats/otlp.h"

#define FORMAT "OTLP"

void
otlp_error(size_t at, const char *detail_fmt,...)
{
	char		detail[256];
	va_list		args;

	va_start(args, detail_fmt);
	vsnprintf(detail, sizeof(detail), detail_fmt, args);
	va_end(args);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid OTLP data at byte %zu", at),
			 errdetail("%s", detail),
			 errhint("The data may be truncated or corrupt, or not an OTLP profile.")));
	pg_unreachable();
}

/*
 * Appends one zeroed element to a growing array of the request; the new
 * element.  What the arrays take counts against the request's limit.
 */
static void *
grow(OtlpRequest *request, void **array, int *count, int *capacity, Size element)
{
	if (*count == *capacity)
	{
		int			more = *capacity ? *capacity : 16;
		Size		added = (Size) more * element;

		if ((Size) (*capacity + more) * element > MaxAllocSize ||
			request->memory_used + added > request->memory_limit)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("OTLP request is too large to import within calltree.import_work_mem"),
					 errdetail("Its dictionary needs more than %zu kB of memory to read.",
							   request->memory_limit / 1024),
					 errhint("Raise calltree.import_work_mem, or send fewer profiles in one request.")));
		request->memory_used += added;
		*capacity += more;
		*array = *array ? repalloc(*array, (Size) *capacity * element) : palloc((Size) *capacity * element);
	}
	memset((char *) *array + (Size) (*count) * element, 0, element);
	return (char *) *array + (Size) (*count)++ * element;
}

/* An int32 field: protobuf keeps the low 32 bits of the varint */
static int32
read_int32(PbReader *reader, int wiretype, const char *field_name)
{
	return (int32) (uint32) pb_expect_varint(reader, wiretype, field_name);
}

static OtlpBytes
read_bytes(PbReader *reader, int wiretype, const char *field_name)
{
	OtlpBytes	bytes;
	PbReader	sub;

	pb_expect_submessage(reader, wiretype, field_name, &sub, reader->message);
	bytes.offset = sub.pos;
	bytes.len = sub.end - sub.pos;
	return bytes;
}

static void
check_fixed64(PbReader *reader, int wiretype, const char *field_name)
{
	if (wiretype != PB_FIXED64)
		pb_error(reader, reader->field_at, "field %s has wire type %d, expected 1 (64-bit).",
				 field_name, wiretype);
}

/* A repeated int32 field, packed or not, appended to the request's pool of indices */
static void
append_indices(OtlpRequest *request, PbReader *reader, int wiretype, const char *field_name,
			   OtlpIndices *list, int *capacity)
{
	PbReader	packed;

	if (list->count == 0)
		list->first = request->nindices;
	/* nothing else is appended to the pool while the list's message is read */
	Assert(list->first + list->count == request->nindices);
	if (wiretype == PB_VARINT)
	{
		*(int32 *) grow(request, (void **) &request->indices, &request->nindices, capacity,
						sizeof(int32)) = (int32) (uint32) pb_read_varint(reader);
		list->count++;
		return;
	}
	if (wiretype != PB_LEN)
		pb_error(reader, reader->field_at, "repeated field %s has wire type %d, expected 0 or 2 (packed).",
				 field_name, wiretype);
	pb_read_submessage(reader, &packed, reader->message);
	while (packed.pos < packed.end)
	{
		*(int32 *) grow(request, (void **) &request->indices, &request->nindices, capacity,
						sizeof(int32)) = (int32) (uint32) pb_read_varint(&packed);
		if ((++list->count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/* ---------------------------------------------------------------- dictionary */

typedef struct Capacities
{
	int			mappings;
	int			locations;
	int			functions;
	int			links;
	int			strings;
	int			attributes;
	int			stacks;
	int			lines;
	int			indices;
	int			profiles;
} Capacities;

static void
decode_mapping(OtlpRequest *request, PbReader *reader, OtlpMapping *mapping, Capacities *caps)
{
	uint32		field;
	int			wiretype;

	mapping->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case OTLP_MAPPING_MEMORY_START:
				mapping->memory_start = pb_expect_varint(reader, wiretype, "Mapping.memory_start");
				break;
			case OTLP_MAPPING_MEMORY_LIMIT:
				mapping->memory_limit = pb_expect_varint(reader, wiretype, "Mapping.memory_limit");
				break;
			case OTLP_MAPPING_FILE_OFFSET:
				mapping->file_offset = pb_expect_varint(reader, wiretype, "Mapping.file_offset");
				break;
			case OTLP_MAPPING_FILENAME:
				mapping->filename = read_int32(reader, wiretype, "Mapping.filename_strindex");
				break;
			case OTLP_MAPPING_ATTRIBUTES:
				append_indices(request, reader, wiretype, "Mapping.attribute_indices",
							   &mapping->attributes, &caps->indices);
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

static void
decode_line(PbReader *reader, OtlpLine *line)
{
	uint32		field;
	int			wiretype;

	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field == OTLP_LINE_FUNCTION)
			line->function = read_int32(reader, wiretype, "Line.function_index");
		else if (field == OTLP_LINE_LINE)
			line->line = (int64) pb_expect_varint(reader, wiretype, "Line.line");
		else if (field == OTLP_LINE_COLUMN)
			line->column = (int64) pb_expect_varint(reader, wiretype, "Line.column");
		else
			pb_skip(reader, wiretype);
	}
}

static void
decode_location(OtlpRequest *request, PbReader *reader, OtlpLocation *location, Capacities *caps)
{
	uint32		field;
	int			wiretype;
	PbReader	sub;

	location->at = reader->pos;
	location->first_line = request->nlines_total;
	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case OTLP_LOCATION_MAPPING:
				location->mapping = read_int32(reader, wiretype, "Location.mapping_index");
				break;
			case OTLP_LOCATION_ADDRESS:
				location->address = pb_expect_varint(reader, wiretype, "Location.address");
				break;
			case OTLP_LOCATION_LINES:
				pb_expect_submessage(reader, wiretype, "Location.lines", &sub, "Line");
				/* nothing else is appended to the lines while a location is read */
				decode_line(&sub, grow(request, (void **) &request->lines, &request->nlines_total,
									   &caps->lines, sizeof(OtlpLine)));
				location->nlines++;
				break;
			case OTLP_LOCATION_ATTRIBUTES:
				append_indices(request, reader, wiretype, "Location.attribute_indices",
							   &location->attributes, &caps->indices);
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

static void
decode_function(PbReader *reader, OtlpFunction *function)
{
	uint32		field;
	int			wiretype;

	function->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case OTLP_FUNCTION_NAME:
				function->name = read_int32(reader, wiretype, "Function.name_strindex");
				break;
			case OTLP_FUNCTION_SYSTEM_NAME:
				function->system_name = read_int32(reader, wiretype, "Function.system_name_strindex");
				break;
			case OTLP_FUNCTION_FILENAME:
				function->filename = read_int32(reader, wiretype, "Function.filename_strindex");
				break;
			case OTLP_FUNCTION_START_LINE:
				function->start_line = (int64) pb_expect_varint(reader, wiretype, "Function.start_line");
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

static void
decode_link(PbReader *reader, OtlpLink *link)
{
	uint32		field;
	int			wiretype;

	link->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field == OTLP_LINK_TRACE_ID)
			link->trace_id = read_bytes(reader, wiretype, "Link.trace_id");
		else if (field == OTLP_LINK_SPAN_ID)
			link->span_id = read_bytes(reader, wiretype, "Link.span_id");
		else
			pb_skip(reader, wiretype);
	}
}

static void
decode_attribute(PbReader *reader, OtlpAttribute *attribute)
{
	uint32		field;
	int			wiretype;

	attribute->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field == OTLP_ATTRIBUTE_KEY)
			attribute->key = read_int32(reader, wiretype, "KeyValueAndUnit.key_strindex");
		else if (field == OTLP_ATTRIBUTE_VALUE)
		{
			/* a message given twice is merged: for a oneof, the last value wins */
			attribute->value = read_bytes(reader, wiretype, "KeyValueAndUnit.value");
			attribute->has_value = true;
		}
		else if (field == OTLP_ATTRIBUTE_UNIT)
			attribute->unit = read_int32(reader, wiretype, "KeyValueAndUnit.unit_strindex");
		else
			pb_skip(reader, wiretype);
	}
}

static void
decode_stack(OtlpRequest *request, PbReader *reader, OtlpStack *stack, Capacities *caps)
{
	uint32		field;
	int			wiretype;

	stack->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field == OTLP_STACK_LOCATIONS)
			append_indices(request, reader, wiretype, "Stack.location_indices",
						   &stack->locations, &caps->indices);
		else
			pb_skip(reader, wiretype);
	}
}

static void
decode_dictionary(OtlpRequest *request, PbReader *reader, Capacities *caps)
{
	uint32		field;
	int			wiretype;
	PbReader	sub;
	uint64		fields = 0;

	while (pb_next_field(reader, &field, &wiretype))
	{
		if ((++fields & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		switch (field)
		{
			case OTLP_DICTIONARY_MAPPING:
				pb_expect_submessage(reader, wiretype, "ProfilesDictionary.mapping_table", &sub, "Mapping");
				decode_mapping(request, &sub, grow(request, (void **) &request->mappings, &request->nmappings,
												   &caps->mappings, sizeof(OtlpMapping)), caps);
				break;
			case OTLP_DICTIONARY_LOCATION:
				pb_expect_submessage(reader, wiretype, "ProfilesDictionary.location_table", &sub, "Location");
				decode_location(request, &sub, grow(request, (void **) &request->locations, &request->nlocations,
													&caps->locations, sizeof(OtlpLocation)), caps);
				break;
			case OTLP_DICTIONARY_FUNCTION:
				pb_expect_submessage(reader, wiretype, "ProfilesDictionary.function_table", &sub, "Function");
				decode_function(&sub, grow(request, (void **) &request->functions, &request->nfunctions,
										   &caps->functions, sizeof(OtlpFunction)));
				break;
			case OTLP_DICTIONARY_LINK:
				pb_expect_submessage(reader, wiretype, "ProfilesDictionary.link_table", &sub, "Link");
				decode_link(&sub, grow(request, (void **) &request->links, &request->nlinks,
									   &caps->links, sizeof(OtlpLink)));
				break;
			case OTLP_DICTIONARY_STRING:
				*(OtlpBytes *) grow(request, (void **) &request->strings, &request->nstrings,
									&caps->strings, sizeof(OtlpBytes)) =
					read_bytes(reader, wiretype, "ProfilesDictionary.string_table");
				break;
			case OTLP_DICTIONARY_ATTRIBUTE:
				pb_expect_submessage(reader, wiretype, "ProfilesDictionary.attribute_table", &sub, "KeyValueAndUnit");
				decode_attribute(&sub, grow(request, (void **) &request->attributes, &request->nattributes,
											&caps->attributes, sizeof(OtlpAttribute)));
				break;
			case OTLP_DICTIONARY_STACK:
				pb_expect_submessage(reader, wiretype, "ProfilesDictionary.stack_table", &sub, "Stack");
				decode_stack(request, &sub, grow(request, (void **) &request->stacks, &request->nstacks,
												 &caps->stacks, sizeof(OtlpStack)), caps);
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

/* ---------------------------------------------------------------- resources and scopes */

static void
check_string(PbReader *reader, int wiretype, const char *field_name)
{
	(void) read_bytes(reader, wiretype, field_name);
}

/* A ScopeProfiles: its profiles listed, then given the scope wherever it came */
static void
decode_scope_profiles(OtlpRequest *request, PbReader *reader, OtlpBytes resource, Capacities *caps)
{
	uint32		field;
	int			wiretype;
	int			first = request->nprofiles;
	OtlpBytes	scope = {0, 0};

	while (pb_next_field(reader, &field, &wiretype))
	{
		CHECK_FOR_INTERRUPTS();
		if (field == OTLP_SCOPE_PROFILES_SCOPE)
			scope = read_bytes(reader, wiretype, "ScopeProfiles.scope");
		else if (field == OTLP_SCOPE_PROFILES_PROFILES)
		{
			OtlpProfileRef *ref = grow(request, (void **) &request->profiles, &request->nprofiles,
									   &caps->profiles, sizeof(OtlpProfileRef));

			ref->profile = read_bytes(reader, wiretype, "ScopeProfiles.profiles");
			ref->resource = resource;
		}
		else if (field == OTLP_SCOPE_PROFILES_SCHEMA_URL)
			check_string(reader, wiretype, "ScopeProfiles.schema_url");
		else
			pb_skip(reader, wiretype);
	}
	for (int i = first; i < request->nprofiles; i++)
		request->profiles[i].scope = scope;
}

static void
decode_resource_profiles(OtlpRequest *request, PbReader *reader, Capacities *caps)
{
	uint32		field;
	int			wiretype;
	OtlpBytes	resource = {0, 0};
	PbReader	again = *reader;
	PbReader	sub;

	/* the resource first, so that scope_profiles before it get it too */
	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field == OTLP_RESOURCE_PROFILES_RESOURCE)
			resource = read_bytes(reader, wiretype, "ResourceProfiles.resource");
		else if (field == OTLP_RESOURCE_PROFILES_SCOPE_PROFILES)
			pb_expect_submessage(reader, wiretype, "ResourceProfiles.scope_profiles", &sub, "ScopeProfiles");
		else if (field == OTLP_RESOURCE_PROFILES_SCHEMA_URL)
			check_string(reader, wiretype, "ResourceProfiles.schema_url");
		else
			pb_skip(reader, wiretype);
	}
	/* the first pass checked the structure of this level */
	while (pb_next_field(&again, &field, &wiretype))
	{
		if (field != OTLP_RESOURCE_PROFILES_SCOPE_PROFILES)
		{
			pb_skip(&again, wiretype);
			continue;
		}
		pb_read_submessage(&again, &sub, "ScopeProfiles");
		decode_scope_profiles(request, &sub, resource, caps);
	}
}

void
otlp_decode(OtlpRequest *request, const uint8 *data, size_t len, size_t memory_limit)
{
	PbReader	reader;
	uint32		field;
	int			wiretype;
	Capacities	caps;
	PbReader	sub;

	memset(request, 0, sizeof(OtlpRequest));
	memset(&caps, 0, sizeof(caps));
	request->data = data;
	request->len = len;
	request->memory_limit = memory_limit;
	pb_reader_init(&reader, data, len, FORMAT, "ExportProfilesServiceRequest");
	while (pb_next_field(&reader, &field, &wiretype))
	{
		CHECK_FOR_INTERRUPTS();
		if (field == OTLP_REQUEST_RESOURCE_PROFILES)
		{
			pb_expect_submessage(&reader, wiretype, "ExportProfilesServiceRequest.resource_profiles",
								 &sub, "ResourceProfiles");
			decode_resource_profiles(request, &sub, &caps);
		}
		else if (field == OTLP_REQUEST_DICTIONARY)
		{
			pb_expect_submessage(&reader, wiretype, "ExportProfilesServiceRequest.dictionary",
								 &sub, "ProfilesDictionary");
			decode_dictionary(request, &sub, &caps);
		}
		else
			pb_skip(&reader, wiretype);
	}
	request->cstrings = palloc0(sizeof(char *) * Max(request->nstrings, 1));
	/* profiles.proto: string_table[0] must be "" */
	if (request->nstrings > 0 && request->strings[0].len != 0)
		otlp_error(request->strings[0].offset, "The first string of the dictionary's string table is not empty.");
}

/* ---------------------------------------------------------------- strings and lookups */

/*
 * Bytes as text: UTF-8 without NUL bytes, as text needs, converted to the
 * server encoding.  index: the string's in the string table, or -1 for a
 * string field of its own (what names it).
 */
static char *
convert_text(const OtlpRequest *request, OtlpBytes bytes, int32 index, const char *what)
{
	const char *raw = (const char *) request->data + bytes.offset;
	char	   *converted;

	if (bytes.len > (size_t) MaxAllocSize - 1 || !pg_verify_mbstr(PG_UTF8, raw, (int) bytes.len, true))
	{
		if (index >= 0)
			otlp_error(bytes.offset, "String %d of the string table is not valid UTF-8 or holds a NUL byte.", index);
		otlp_error(bytes.offset, "The %s is not valid UTF-8 or holds a NUL byte.", what);
	}
	converted = pg_any_to_server(raw, (int) bytes.len, PG_UTF8);
	if (converted == raw)
		converted = pnstrdup(raw, bytes.len);
	return converted;
}

char *
otlp_text(const OtlpRequest *request, OtlpBytes bytes, const char *what)
{
	return convert_text(request, bytes, -1, what);
}

const char *
otlp_string(OtlpRequest *request, int32 index, size_t at, const char *what)
{
	MemoryContext caller;
	char	   *converted;

	if (index == 0 && request->nstrings == 0)
		return "";
	if (index < 0 || index >= request->nstrings)
		otlp_error(at, "The %s refers to string %d, but the string table has %d strings.",
				   what, index, request->nstrings);
	if (request->cstrings[index])
		return request->cstrings[index];
	/* kept with the request, whatever context the caller works in */
	caller = MemoryContextSwitchTo(GetMemoryChunkContext(request->cstrings));
	converted = convert_text(request, request->strings[index], index, what);
	MemoryContextSwitchTo(caller);
	request->cstrings[index] = converted;
	return converted;
}

/* An entry of a table by index: NULL for 0, an error outside the table */
static const void *
table_entry(const void *table, int count, Size element, int64 index, size_t at,
			const char *referrer, const char *table_name)
{
	if (index == 0)
		return NULL;
	if (index < 0 || index >= count)
		otlp_error(at, "The %s refers to %s entry " INT64_FORMAT ", but the table has %d entries.",
				   referrer, table_name, index, count);
	return (const char *) table + (Size) index * element;
}

const OtlpMapping *
otlp_mapping(const OtlpRequest *request, int32 index, size_t at)
{
	return table_entry(request->mappings, request->nmappings, sizeof(OtlpMapping), index, at,
					   "location", "mapping_table");
}

/* A stack's location index names an entry, even 0 */
const OtlpLocation *
otlp_location(const OtlpRequest *request, int32 index, size_t at)
{
	if (index == 0 && request->nlocations > 0)
		return &request->locations[0];
	if (index == 0)
		otlp_error(at, "The stack refers to location_table entry 0, but the table is empty.");
	return table_entry(request->locations, request->nlocations, sizeof(OtlpLocation), index, at,
					   "stack", "location_table");
}

const OtlpFunction *
otlp_function(const OtlpRequest *request, int32 index, size_t at)
{
	return table_entry(request->functions, request->nfunctions, sizeof(OtlpFunction), index, at,
					   "location's line", "function_table");
}

const OtlpLink *
otlp_link(const OtlpRequest *request, int32 index, size_t at)
{
	return table_entry(request->links, request->nlinks, sizeof(OtlpLink), index, at,
					   "sample", "link_table");
}

const OtlpAttribute *
otlp_attribute(const OtlpRequest *request, int64 index, size_t at)
{
	return table_entry(request->attributes, request->nattributes, sizeof(OtlpAttribute), index, at,
					   "attribute list", "attribute_table");
}

const OtlpStack *
otlp_stack(const OtlpRequest *request, int32 index, size_t at)
{
	return table_entry(request->stacks, request->nstacks, sizeof(OtlpStack), index, at,
					   "sample", "stack_table");
}

/* ---------------------------------------------------------------- profiles */

static void
decode_value_type(PbReader *reader, OtlpValueType *vt)
{
	uint32		field;
	int			wiretype;

	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field == OTLP_VALUETYPE_TYPE)
			vt->type = read_int32(reader, wiretype, "ValueType.type_strindex");
		else if (field == OTLP_VALUETYPE_UNIT)
			vt->unit = read_int32(reader, wiretype, "ValueType.unit_strindex");
		else
			pb_skip(reader, wiretype);
	}
}

static void
message_reader(const OtlpRequest *request, OtlpBytes message, const char *name, PbReader *reader)
{
	pb_reader_init(reader, request->data, message.offset + message.len, FORMAT, name);
	reader->pos = message.offset;
}

void
otlp_profile_header(OtlpRequest *request, const OtlpProfileRef *ref, OtlpProfile *profile)
{
	PbReader	reader;
	PbReader	sub;
	uint32		field;
	int			wiretype;
	uint64	   *attributes = NULL;
	int			capacity = 0;

	memset(profile, 0, sizeof(OtlpProfile));
	profile->ref = ref;
	profile->at = ref->profile.offset;
	message_reader(request, ref->profile, "Profile", &reader);
	while (pb_next_field(&reader, &field, &wiretype))
	{
		switch (field)
		{
			case OTLP_PROFILE_SAMPLE_TYPE:
				pb_expect_submessage(&reader, wiretype, "Profile.sample_type", &sub, "ValueType");
				decode_value_type(&sub, &profile->sample_type);
				break;
			case OTLP_PROFILE_SAMPLES:
				pb_expect_submessage(&reader, wiretype, "Profile.samples", &sub, "Sample");
				if ((++profile->nsamples & 0xFFF) == 0)
					CHECK_FOR_INTERRUPTS();
				break;
			case OTLP_PROFILE_TIME_UNIX_NANO:
				check_fixed64(&reader, wiretype, "Profile.time_unix_nano");
				profile->time_at = reader.field_at;
				profile->time_unix_nano = pb_read_fixed64(&reader);
				break;
			case OTLP_PROFILE_DURATION_NANO:
				profile->duration_nano = pb_expect_varint(&reader, wiretype, "Profile.duration_nano");
				break;
			case OTLP_PROFILE_PERIOD_TYPE:
				pb_expect_submessage(&reader, wiretype, "Profile.period_type", &sub, "ValueType");
				decode_value_type(&sub, &profile->period_type);
				break;
			case OTLP_PROFILE_PERIOD:
				profile->period = (int64) pb_expect_varint(&reader, wiretype, "Profile.period");
				break;
			case OTLP_PROFILE_PROFILE_ID:
				profile->profile_id = read_bytes(&reader, wiretype, "Profile.profile_id");
				break;
			case OTLP_PROFILE_DROPPED_ATTRIBUTES:
				(void) pb_expect_varint(&reader, wiretype, "Profile.dropped_attributes_count");
				break;
			case OTLP_PROFILE_PAYLOAD_FORMAT:
				check_string(&reader, wiretype, "Profile.original_payload_format");
				break;
			case OTLP_PROFILE_PAYLOAD:
				check_string(&reader, wiretype, "Profile.original_payload");
				break;
			case OTLP_PROFILE_ATTRIBUTES:
				pb_append_varints(&reader, wiretype, "Profile.attribute_indices",
								  &attributes, &profile->nattributes, &capacity);
				break;
			default:
				pb_skip(&reader, wiretype);
		}
	}
	profile->attributes = palloc(sizeof(int32) * Max(profile->nattributes, 1));
	for (int i = 0; i < profile->nattributes; i++)
		profile->attributes[i] = (int32) (uint32) attributes[i];
	if (attributes)
		pfree(attributes);
}

void
otlp_samples_begin(const OtlpRequest *request, const OtlpProfile *profile, PbReader *reader)
{
	message_reader(request, profile->ref->profile, "Profile", reader);
}

/* A repeated fixed64 field, packed (wire type 2) or not (wire type 1) */
static void
append_fixed64s(PbReader *reader, int wiretype, const char *field_name,
				uint64 **values, int *count, int *capacity)
{
	PbReader	packed;
	size_t		n;

	if (wiretype == PB_FIXED64)
		n = 1;
	else if (wiretype == PB_LEN)
	{
		pb_read_submessage(reader, &packed, reader->message);
		if ((packed.end - packed.pos) % 8 != 0)
			pb_error(reader, packed.pos, "packed field %s holds %zu bytes, not a whole number of 64-bit values.",
					 field_name, packed.end - packed.pos);
		n = (packed.end - packed.pos) / 8;
	}
	else
		pb_error(reader, reader->field_at, "repeated field %s has wire type %d, expected 1 or 2 (packed).",
				 field_name, wiretype);
	/* the length was checked against the input: n is bounded by its size */
	if ((Size) *count + n > (Size) *capacity)
	{
		Size		wanted = Max((Size) *count + n, (Size) *capacity * 2);

		wanted = Max(wanted, 8);
		if (wanted * sizeof(uint64) > MaxAllocSize)
			pb_error(reader, reader->field_at, "field %s has too many values.", field_name);
		*values = *values ? repalloc(*values, wanted * sizeof(uint64)) : palloc(wanted * sizeof(uint64));
		*capacity = (int) wanted;
	}
	if (wiretype == PB_FIXED64)
		(*values)[(*count)++] = pb_read_fixed64(reader);
	else
		while (packed.pos < packed.end)
			(*values)[(*count)++] = pb_read_fixed64(&packed);
}

static void
decode_sample(PbReader *reader, OtlpSample *sample)
{
	uint32		field;
	int			wiretype;

	sample->at = reader->pos;
	sample->stack = 0;
	sample->link = 0;
	sample->nattributes = 0;
	sample->nvalues = 0;
	sample->ntimestamps = 0;
	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case OTLP_SAMPLE_STACK:
				sample->stack = read_int32(reader, wiretype, "Sample.stack_index");
				break;
			case OTLP_SAMPLE_ATTRIBUTES:
				pb_append_varints(reader, wiretype, "Sample.attribute_indices", &sample->attributes,
								  &sample->nattributes, &sample->attributes_capacity);
				break;
			case OTLP_SAMPLE_LINK:
				sample->link = read_int32(reader, wiretype, "Sample.link_index");
				break;
			case OTLP_SAMPLE_VALUES:
				pb_append_varints(reader, wiretype, "Sample.values", &sample->values,
								  &sample->nvalues, &sample->values_capacity);
				break;
			case OTLP_SAMPLE_TIMESTAMPS:
				append_fixed64s(reader, wiretype, "Sample.timestamps_unix_nano", &sample->timestamps,
								&sample->ntimestamps, &sample->timestamps_capacity);
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

/* The next sample of the profile into *sample; false after the last. */
bool
otlp_next_sample(OtlpRequest *request, PbReader *reader, OtlpSample *sample)
{
	uint32		field;
	int			wiretype;
	PbReader	sub;

	/* otlp_profile_header checked the structure of the Profile */
	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field != OTLP_PROFILE_SAMPLES)
		{
			pb_skip(reader, wiretype);
			continue;
		}
		pb_read_submessage(reader, &sub, "Sample");
		/* its arrays take at most 8 bytes per byte of the message */
		if (sub.end - sub.pos > request->memory_limit / sizeof(uint64))
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("OTLP sample at byte %zu is too large to import within calltree.import_work_mem",
							sub.pos),
					 errdetail("Its %zu bytes may need %zu kB of memory to read; calltree.import_work_mem is %zu kB.",
							   sub.end - sub.pos, (sub.end - sub.pos) * sizeof(uint64) / 1024,
							   request->memory_limit / 1024),
					 errhint("Raise calltree.import_work_mem.")));
		decode_sample(&sub, sample);
		return true;
	}
	return false;
}

/* ---------------------------------------------------------------- attribute values */

void
otlp_read_value(const OtlpRequest *request, OtlpBytes message, OtlpValue *value)
{
	PbReader	reader;
	uint32		field;
	int			wiretype;

	memset(value, 0, sizeof(OtlpValue));
	value->at = message.offset;
	message_reader(request, message, "AnyValue", &reader);
	/* a oneof: the last field given wins */
	while (pb_next_field(&reader, &field, &wiretype))
	{
		switch (field)
		{
			case OTLP_ANYVALUE_STRING:
				value->bytes = read_bytes(&reader, wiretype, "AnyValue.string_value");
				value->kind = OTLP_VALUE_STRING;
				value->from_table = false;
				break;
			case OTLP_ANYVALUE_BOOL:
				value->boolean = pb_expect_varint(&reader, wiretype, "AnyValue.bool_value") != 0;
				value->kind = OTLP_VALUE_BOOL;
				break;
			case OTLP_ANYVALUE_INT:
				value->integer = (int64) pb_expect_varint(&reader, wiretype, "AnyValue.int_value");
				value->kind = OTLP_VALUE_INT;
				break;
			case OTLP_ANYVALUE_DOUBLE:
				{
					uint64		bits;

					check_fixed64(&reader, wiretype, "AnyValue.double_value");
					bits = pb_read_fixed64(&reader);
					memcpy(&value->dbl, &bits, sizeof(double));
					value->kind = OTLP_VALUE_DOUBLE;
					break;
				}
			case OTLP_ANYVALUE_ARRAY:
				value->bytes = read_bytes(&reader, wiretype, "AnyValue.array_value");
				value->kind = OTLP_VALUE_ARRAY;
				break;
			case OTLP_ANYVALUE_KVLIST:
				value->bytes = read_bytes(&reader, wiretype, "AnyValue.kvlist_value");
				value->kind = OTLP_VALUE_KVLIST;
				break;
			case OTLP_ANYVALUE_BYTES:
				value->bytes = read_bytes(&reader, wiretype, "AnyValue.bytes_value");
				value->kind = OTLP_VALUE_BYTES;
				break;
			case OTLP_ANYVALUE_STRINDEX:
				value->strindex = read_int32(&reader, wiretype, "AnyValue.string_value_strindex");
				value->kind = OTLP_VALUE_STRING;
				value->from_table = true;
				break;
			default:
				pb_skip(&reader, wiretype);
		}
	}
}

void
otlp_key_values_begin(const OtlpRequest *request, OtlpBytes message, const char *name, PbReader *reader)
{
	message_reader(request, message, name, reader);
}

static void
decode_key_value(PbReader *reader, OtlpKeyValue *kv)
{
	uint32		field;
	int			wiretype;

	memset(kv, 0, sizeof(OtlpKeyValue));
	kv->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field == OTLP_KEYVALUE_KEY)
			kv->key = read_bytes(reader, wiretype, "KeyValue.key");
		else if (field == OTLP_KEYVALUE_VALUE)
		{
			kv->value = read_bytes(reader, wiretype, "KeyValue.value");
			kv->has_value = true;
		}
		else if (field == OTLP_KEYVALUE_KEY_STRINDEX)
			kv->key_strindex = read_int32(reader, wiretype, "KeyValue.key_strindex");
		else
			pb_skip(reader, wiretype);
	}
}

bool
otlp_next_key_value(PbReader *reader, uint32 wanted, OtlpKeyValue *kv)
{
	uint32		field;
	int			wiretype;
	PbReader	sub;

	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field != wanted)
		{
			pb_skip(reader, wiretype);
			continue;
		}
		pb_expect_submessage(reader, wiretype, "attributes", &sub, "KeyValue");
		decode_key_value(&sub, kv);
		return true;
	}
	return false;
}

bool
otlp_next_array_value(PbReader *reader, OtlpBytes *value)
{
	uint32		field;
	int			wiretype;

	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field != OTLP_LIST_VALUES)
		{
			pb_skip(reader, wiretype);
			continue;
		}
		*value = read_bytes(reader, wiretype, "ArrayValue.values");
		return true;
	}
	return false;
}

void
otlp_scope_names(const OtlpRequest *request, OtlpBytes scope, OtlpBytes *name, OtlpBytes *version)
{
	PbReader	reader;
	uint32		field;
	int			wiretype;

	memset(name, 0, sizeof(OtlpBytes));
	memset(version, 0, sizeof(OtlpBytes));
	message_reader(request, scope, "InstrumentationScope", &reader);
	while (pb_next_field(&reader, &field, &wiretype))
	{
		if (field == OTLP_SCOPE_NAME)
			*name = read_bytes(&reader, wiretype, "InstrumentationScope.name");
		else if (field == OTLP_SCOPE_VERSION)
			*version = read_bytes(&reader, wiretype, "InstrumentationScope.version");
		else
			pb_skip(&reader, wiretype);
	}
}
