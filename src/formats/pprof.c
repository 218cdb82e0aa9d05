/*
 * pprof.c
 *	  Decoding a pprof profile from protobuf bytes (pprof.h); the field
 *	  numbers that encode one are in pprof.h too.
 *
 * Two passes over the top-level message: pprof_decode() reads every field
 * but the samples (the string table is usually written after the tables
 * that refer to it, so nothing is resolved while reading), and
 * pprof_next_sample() later walks the top level again yielding samples.
 * Fields that calltree does not use are still checked for their wire type
 * when profile.proto gives them one; unknown fields are skipped.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "formats/pprof.h"
#include "common/hashfn.h"

void
pprof_error(size_t at, const char *detail_fmt,...)
{
	char		detail[256];
	va_list		args;

	va_start(args, detail_fmt);
	vsnprintf(detail, sizeof(detail), detail_fmt, args);
	va_end(args);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid pprof data at byte %zu", at),
			 errdetail("%s", detail),
			 errhint("The data may be truncated or corrupt, or not a pprof profile.")));
	pg_unreachable();
}

/* Appends one zeroed element to a growing array; the new element. */
static void *
grow(void **array, int *count, int *capacity, Size element)
{
	if (*count == *capacity)
	{
		*capacity = *capacity ? *capacity * 2 : 16;
		if ((Size) *capacity * element > MaxAllocSize)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("pprof profile has too many entries in one table")));
		*array = *array ? repalloc(*array, (Size) *capacity * element) : palloc((Size) *capacity * element);
	}
	memset((char *) *array + (Size) (*count) * element, 0, element);
	return (char *) *array + (Size) (*count)++ * element;
}

static void
decode_value_type(PbReader *reader, PprofValueType *vt)
{
	uint32		field;
	int			wiretype;

	vt->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field == PPROF_VALUETYPE_TYPE)
			vt->type = (int64) pb_expect_varint(reader, wiretype, "ValueType.type");
		else if (field == PPROF_VALUETYPE_UNIT)
			vt->unit = (int64) pb_expect_varint(reader, wiretype, "ValueType.unit");
		else
			pb_skip(reader, wiretype);
	}
}

static void
decode_mapping(PbReader *reader, PprofMapping *mapping)
{
	uint32		field;
	int			wiretype;

	mapping->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case PPROF_MAPPING_ID:
				mapping->id = pb_expect_varint(reader, wiretype, "Mapping.id");
				break;
			case PPROF_MAPPING_FILENAME:
				mapping->filename = (int64) pb_expect_varint(reader, wiretype, "Mapping.filename");
				break;
			case PPROF_MAPPING_BUILD_ID:
				mapping->build_id = (int64) pb_expect_varint(reader, wiretype, "Mapping.build_id");
				break;
			case PPROF_MAPPING_MEMORY_START:
			case PPROF_MAPPING_MEMORY_LIMIT:
			case PPROF_MAPPING_FILE_OFFSET:
				(void) pb_expect_varint(reader, wiretype, "Mapping address field");
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

static void
decode_line(PbReader *reader, PprofLine *line)
{
	uint32		field;
	int			wiretype;

	while (pb_next_field(reader, &field, &wiretype))
	{
		if (field == PPROF_LINE_FUNCTION_ID)
			line->function_id = pb_expect_varint(reader, wiretype, "Line.function_id");
		else if (field == PPROF_LINE_LINE)
			line->line = (int64) pb_expect_varint(reader, wiretype, "Line.line");
		else if (field == PPROF_LINE_COLUMN)
			line->column = (int64) pb_expect_varint(reader, wiretype, "Line.column");
		else
			pb_skip(reader, wiretype);
	}
}

static void
decode_location(PbReader *reader, PprofLocation *location)
{
	uint32		field;
	int			wiretype;
	int			capacity = 0;
	PbReader	sub;

	location->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case PPROF_LOCATION_ID:
				location->id = pb_expect_varint(reader, wiretype, "Location.id");
				break;
			case PPROF_LOCATION_MAPPING_ID:
				location->mapping_id = pb_expect_varint(reader, wiretype, "Location.mapping_id");
				break;
			case PPROF_LOCATION_ADDRESS:
				location->address = pb_expect_varint(reader, wiretype, "Location.address");
				break;
			case PPROF_LOCATION_LINE:
				pb_expect_submessage(reader, wiretype, "Location.line", &sub, "Line");
				decode_line(&sub, grow((void **) &location->lines, &location->nlines,
									   &capacity, sizeof(PprofLine)));
				break;
			case PPROF_LOCATION_IS_FOLDED:
				(void) pb_expect_varint(reader, wiretype, "Location.is_folded");
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

static void
decode_function(PbReader *reader, PprofFunction *function)
{
	uint32		field;
	int			wiretype;

	function->at = reader->pos;
	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case PPROF_FUNCTION_ID:
				function->id = pb_expect_varint(reader, wiretype, "Function.id");
				break;
			case PPROF_FUNCTION_NAME:
				function->name = (int64) pb_expect_varint(reader, wiretype, "Function.name");
				break;
			case PPROF_FUNCTION_SYSTEM_NAME:
				function->system_name = (int64) pb_expect_varint(reader, wiretype, "Function.system_name");
				break;
			case PPROF_FUNCTION_FILENAME:
				function->filename = (int64) pb_expect_varint(reader, wiretype, "Function.filename");
				break;
			case PPROF_FUNCTION_START_LINE:
				function->start_line = (int64) pb_expect_varint(reader, wiretype, "Function.start_line");
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

/*
 * Sorting the tables by id, so that lookups can bisect.  The comparators
 * are the same for all three: each struct starts with its uint64 id.
 */
#define ID_OF(p) (*(const uint64 *) (p))

static int
compare_ids(const void *a, const void *b)
{
	uint64		x = ID_OF(a);
	uint64		y = ID_OF(b);

	return x < y ? -1 : x > y ? 1 : 0;
}

static void
sort_by_id(void *array, int count, Size element, const char *table, size_t (*at_of) (const void *))
{
	if (count == 0)
		return;
	qsort(array, count, element, compare_ids);
	for (int i = 0; i < count; i++)
	{
		const char *p = (const char *) array + (Size) i * element;

		if (ID_OF(p) == 0)
			pprof_error(at_of(p), "A %s has id 0; ids must be nonzero.", table);
		if (i > 0 && ID_OF(p - element) == ID_OF(p))
			pprof_error(at_of(p), "Two %ss have the id " UINT64_FORMAT ".", table, ID_OF(p));
	}
}

static size_t
mapping_at(const void *p)
{
	return ((const PprofMapping *) p)->at;
}

static size_t
location_at(const void *p)
{
	return ((const PprofLocation *) p)->at;
}

static size_t
function_at(const void *p)
{
	return ((const PprofFunction *) p)->at;
}

/*
 * The element of a given id in an array sorted by id; NULL if none.  Most
 * writers number their locations and functions 1, 2, 3... in order: there
 * the id's place is known without a search.
 */
static const void *
find_by_id(const void *array, int count, Size element, uint64 id)
{
	int			lo = 0;
	int			hi = count - 1;

	if (id >= 1 && id <= (uint64) count)
	{
		const char *p = (const char *) array + (Size) (id - 1) * element;

		if (ID_OF(p) == id)
			return p;
	}

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;
		const char *p = (const char *) array + (Size) mid * element;

		if (ID_OF(p) == id)
			return p;
		if (ID_OF(p) < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

typedef struct IdSlot
{
	uint64		id;
	int32		index;
	char		status;
} IdSlot;

#define SH_PREFIX		idslots
#define SH_ELEMENT_TYPE IdSlot
#define SH_KEY_TYPE		uint64
#define SH_KEY			id
#define SH_HASH_KEY(tb, k)	murmurhash32((uint32) (k) ^ (uint32) ((k) >> 32))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/*
 * The index of a table whose ids are not 1, 2, 3... (writers that keep
 * the ids of a larger profile): a hash instead of a bisection for each of
 * the many lookups of a profile's samples.
 */
static void
build_id_index(PprofIdIndex *index, const void *array, int count, Size element)
{
	index->slots = NULL;
	if (count == 0 || ID_OF((const char *) array + (Size) (count - 1) * element) == (uint64) count)
		return;
	index->slots = idslots_create(CurrentMemoryContext, count, NULL);
	for (int i = 0; i < count; i++)
	{
		bool		found;

		idslots_insert(index->slots, ID_OF((const char *) array + (Size) i * element), &found)->index = i;
	}
}

static const void *
find_indexed(const PprofIdIndex *index, const void *array, int count, Size element, uint64 id)
{
	IdSlot	   *slot;

	if (index->slots == NULL)
		return find_by_id(array, count, element, id);
	slot = idslots_lookup(index->slots, id);
	return slot ? (const char *) array + (Size) slot->index * element : NULL;
}

/* One top-level field of the first pass. */
static void
decode_profile_field(PprofProfile *profile, PbReader *reader, uint32 field, int wiretype,
					 int *capacities)
{
	PbReader	sub;
	uint64	   *ignored = NULL;
	int			nignored = 0;
	int			ignored_capacity = 0;

	switch (field)
	{
		case PPROF_PROFILE_SAMPLE_TYPE:
			pb_expect_submessage(reader, wiretype, "Profile.sample_type", &sub, "ValueType");
			decode_value_type(&sub, grow((void **) &profile->sample_types, &profile->nsample_types,
										 &capacities[0], sizeof(PprofValueType)));
			break;
		case PPROF_PROFILE_SAMPLE:
			pb_expect_submessage(reader, wiretype, "Profile.sample", &sub, "Sample");
			if (profile->nsamples++ == 0)
				profile->samples_from = reader->field_at;
			profile->samples_to = reader->pos;
			break;
		case PPROF_PROFILE_MAPPING:
			pb_expect_submessage(reader, wiretype, "Profile.mapping", &sub, "Mapping");
			decode_mapping(&sub, grow((void **) &profile->mappings, &profile->nmappings,
									  &capacities[1], sizeof(PprofMapping)));
			break;
		case PPROF_PROFILE_LOCATION:
			pb_expect_submessage(reader, wiretype, "Profile.location", &sub, "Location");
			decode_location(&sub, grow((void **) &profile->locations, &profile->nlocations,
									   &capacities[2], sizeof(PprofLocation)));
			break;
		case PPROF_PROFILE_FUNCTION:
			pb_expect_submessage(reader, wiretype, "Profile.function", &sub, "Function");
			decode_function(&sub, grow((void **) &profile->functions, &profile->nfunctions,
									   &capacities[3], sizeof(PprofFunction)));
			break;
		case PPROF_PROFILE_STRING_TABLE:
			{
				PprofString *s;

				pb_expect_submessage(reader, wiretype, "Profile.string_table", &sub, "Profile");
				s = grow((void **) &profile->strings, &profile->nstrings, &capacities[4], sizeof(PprofString));
				s->offset = sub.pos;
				s->len = sub.end - sub.pos;
				break;
			}
		case PPROF_PROFILE_TIME_NANOS:
			profile->time_nanos_at = reader->field_at;
			profile->time_nanos = (int64) pb_expect_varint(reader, wiretype, "Profile.time_nanos");
			break;
		case PPROF_PROFILE_DURATION_NANOS:
			profile->duration_nanos = (int64) pb_expect_varint(reader, wiretype, "Profile.duration_nanos");
			break;
		case PPROF_PROFILE_PERIOD_TYPE:
			{
				PprofValueType period_type;

				pb_expect_submessage(reader, wiretype, "Profile.period_type", &sub, "ValueType");
				decode_value_type(&sub, &period_type);
				break;
			}
		case PPROF_PROFILE_PERIOD:
			profile->period = (int64) pb_expect_varint(reader, wiretype, "Profile.period");
			break;
		case PPROF_PROFILE_DEFAULT_SAMPLE_TYPE:
			profile->default_sample_type_at = reader->field_at;
			profile->default_sample_type = (int64) pb_expect_varint(reader, wiretype, "Profile.default_sample_type");
			break;
		case PPROF_PROFILE_DROP_FRAMES:
		case PPROF_PROFILE_KEEP_FRAMES:
			/* regular expressions for pprof's own pruning; not applied */
			(void) pb_expect_varint(reader, wiretype, "Profile.drop_frames/keep_frames");
			break;
		case PPROF_PROFILE_COMMENT:
			pb_append_varints(reader, wiretype, "Profile.comment", &ignored, &nignored, &ignored_capacity);
			if (ignored)
				pfree(ignored);
			break;
		default:
			pb_skip(reader, wiretype);
	}
}

void
pprof_decode(PprofProfile *profile, const uint8 *data, size_t len)
{
	PbReader	reader;
	uint32		field;
	int			wiretype;
	int			capacities[5] = {0};
	uint64		fields = 0;

	memset(profile, 0, sizeof(PprofProfile));
	profile->data = data;
	profile->len = len;
	pb_reader_init(&reader, data, len, "pprof", "Profile");
	while (pb_next_field(&reader, &field, &wiretype))
	{
		if ((++fields & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		decode_profile_field(profile, &reader, field, wiretype, capacities);
	}

	sort_by_id(profile->mappings, profile->nmappings, sizeof(PprofMapping), "mapping", mapping_at);
	sort_by_id(profile->locations, profile->nlocations, sizeof(PprofLocation), "location", location_at);
	sort_by_id(profile->functions, profile->nfunctions, sizeof(PprofFunction), "function", function_at);
	build_id_index(&profile->location_index, profile->locations, profile->nlocations, sizeof(PprofLocation));
	build_id_index(&profile->function_index, profile->functions, profile->nfunctions, sizeof(PprofFunction));
	profile->cstrings = palloc0(sizeof(char *) * Max(profile->nstrings, 1));
	/* profile.proto: string_table[0] must always be "" */
	if (profile->nstrings > 0 && profile->strings[0].len != 0)
		pprof_error(profile->strings[0].offset, "The first string of the string table is not empty.");
}

const char *
pprof_string(PprofProfile *profile, int64 index, size_t at, const char *what)
{
	const PprofString *s;
	const char *bytes;
	char	   *converted;
	MemoryContext caller;

	if (index < 0 || index >= profile->nstrings)
		pprof_error(at, "The %s refers to string " INT64_FORMAT ", but the string table has %d strings.",
					what, index, profile->nstrings);
	if (profile->cstrings[index])
		return profile->cstrings[index];
	s = &profile->strings[index];
	bytes = (const char *) profile->data + s->offset;
	/* UTF-8 without NUL bytes, as text needs; then into the server encoding */
	if (s->len > (size_t) MaxAllocSize - 1 || !pg_verify_mbstr(PG_UTF8, bytes, (int) s->len, true))
		pprof_error(s->offset, "String " INT64_FORMAT " of the string table is not valid UTF-8 or holds a NUL byte.", index);
	/* kept with the profile, whatever context the caller works in */
	caller = MemoryContextSwitchTo(GetMemoryChunkContext(profile->cstrings));
	/* (in a UTF-8 database, checked once: the conversion would check again) */
	converted = GetDatabaseEncoding() == PG_UTF8 ? (char *) bytes
		: pg_any_to_server(bytes, (int) s->len, PG_UTF8);
	if (converted == bytes)
		converted = pnstrdup(bytes, s->len);
	MemoryContextSwitchTo(caller);
	profile->cstrings[index] = converted;
	return converted;
}

const PprofLocation *
pprof_location(const PprofProfile *profile, uint64 id, size_t at)
{
	const PprofLocation *location = find_indexed(&profile->location_index, profile->locations,
												 profile->nlocations, sizeof(PprofLocation), id);

	if (location == NULL)
		pprof_error(at, "A sample refers to location id " UINT64_FORMAT ", which the profile does not define.", id);
	return location;
}

const PprofFunction *
pprof_function(const PprofProfile *profile, uint64 id, size_t at)
{
	const PprofFunction *function;

	if (id == 0)
		return NULL;
	function = find_indexed(&profile->function_index, profile->functions, profile->nfunctions,
							sizeof(PprofFunction), id);
	if (function == NULL)
		pprof_error(at, "A location refers to function id " UINT64_FORMAT ", which the profile does not define.", id);
	return function;
}

const PprofMapping *
pprof_mapping(const PprofProfile *profile, uint64 id, size_t at)
{
	const PprofMapping *mapping;

	if (id == 0)
		return NULL;
	mapping = find_by_id(profile->mappings, profile->nmappings, sizeof(PprofMapping), id);
	if (mapping == NULL)
		pprof_error(at, "A location refers to mapping id " UINT64_FORMAT ", which the profile does not define.", id);
	return mapping;
}

int
pprof_location_index(const PprofProfile *profile, const PprofLocation *location)
{
	return (int) (location - profile->locations);
}

int
pprof_mapping_index(const PprofProfile *profile, const PprofMapping *mapping)
{
	return (int) (mapping - profile->mappings);
}

/* ---------------------------------------------------------------- samples */

void
pprof_samples_begin(const PprofProfile *profile, PbReader *top)
{
	pb_reader_init(top, profile->data, profile->len, "pprof", "Profile");
	/* from the first sample to the end of the last: the rest has no sample */
	top->pos = profile->samples_from;
	top->end = profile->samples_to;
}

static void
decode_label(PbReader *reader, PprofLabel *label)
{
	uint32		field;
	int			wiretype;

	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case PPROF_LABEL_KEY:
				label->key = (int64) pb_expect_varint(reader, wiretype, "Label.key");
				break;
			case PPROF_LABEL_STR:
				label->str = (int64) pb_expect_varint(reader, wiretype, "Label.str");
				break;
			case PPROF_LABEL_NUM:
				label->num = (int64) pb_expect_varint(reader, wiretype, "Label.num");
				break;
			case PPROF_LABEL_NUM_UNIT:
				label->num_unit = (int64) pb_expect_varint(reader, wiretype, "Label.num_unit");
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

static void
decode_sample(PbReader *reader, PprofSample *sample)
{
	uint32		field;
	int			wiretype;
	PbReader	sub;

	sample->at = reader->pos;
	sample->nlocation_ids = 0;
	sample->nvalues = 0;
	sample->nlabels = 0;
	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case PPROF_SAMPLE_LOCATION_ID:
				pb_append_varints(reader, wiretype, "Sample.location_id", &sample->location_ids,
								  &sample->nlocation_ids, &sample->location_ids_capacity);
				break;
			case PPROF_SAMPLE_VALUE:
				pb_append_varints(reader, wiretype, "Sample.value", &sample->values,
								  &sample->nvalues, &sample->values_capacity);
				break;
			case PPROF_SAMPLE_LABEL:
				pb_expect_submessage(reader, wiretype, "Sample.label", &sub, "Label");
				decode_label(&sub, grow((void **) &sample->labels, &sample->nlabels,
										&sample->labels_capacity, sizeof(PprofLabel)));
				break;
			default:
				pb_skip(reader, wiretype);
		}
	}
}

/* The next sample of the profile into *sample; false after the last. */
bool
pprof_next_sample(const PprofProfile *profile, PbReader *top, PprofSample *sample)
{
	uint32		field;
	int			wiretype;
	PbReader	sub;

	/* the first pass checked the structure of the top level */
	while (pb_next_field(top, &field, &wiretype))
	{
		if (field != PPROF_PROFILE_SAMPLE)
		{
			pb_skip(top, wiretype);
			continue;
		}
		pb_read_submessage(top, &sub, "Sample");
		decode_sample(&sub, sample);
		return true;
	}
	return false;
}
