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
 *
 * The top level's usual fields, and Samples, Locations (with their lines)
 * and Functions of the shape every writer of pprof gives them (one-byte
 * tags, short varints) are read by fast paths with local pointers; an
 * entry of any other shape is read again from its start by the generic
 * decoder, which alone raises errors, so that both read the same values
 * and the errors are the generic ones.  A sample's labels of the usual
 * shape outside are read later, each by the fast path or the generic one
 * (pprof_read_sample_labels).
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "formats/pprof.h"

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

/*
 * The most entries that grow() gives one table: its capacities are 16, 32,
 * 64... as long as the table fits in MaxAllocSize.
 */
static int
grow_limit(Size element)
{
	int			capacity = 16;

	while ((Size) capacity * 2 * element <= MaxAllocSize)
		capacity *= 2;
	return capacity;
}

static void
table_full_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("pprof profile has too many entries in one table")));
}

/* Doubles the capacity of a growing array, within max_bytes (huge when over MaxAllocSize). */
static pg_noinline void
enlarge(void **array, int *capacity, Size element, Size max_bytes)
{
	int			wanted = *capacity ? *capacity * 2 : 16;

	if (*capacity > PG_INT32_MAX / 2 || (Size) wanted * element > max_bytes)
		table_full_error();
	*array = *array ? repalloc_huge(*array, (Size) wanted * element)
		: palloc_extended((Size) wanted * element, MCXT_ALLOC_HUGE);
	*capacity = wanted;
}

/*
 * Makes an empty growing array room for `count` entries at once: the
 * capacity that doubling from 16 would reach, so that the limits are
 * those of growing (grow_limit; a larger table still fails as it grows).
 */
static void
presize(void **array, int *capacity, int64 count, Size element, Size max_bytes)
{
	int			wanted = 16;

	Assert(*array == NULL);
	if (count <= 0)
		return;
	while (wanted < count && wanted <= PG_INT32_MAX / 2 && (Size) wanted * 2 * element <= max_bytes)
		wanted *= 2;
	*array = palloc_extended((Size) wanted * element, MCXT_ALLOC_HUGE);
	*capacity = wanted;
}

/* Appends one zeroed element to a growing array; the new element. */
static inline void *
grow(void **array, int *count, int *capacity, Size element)
{
	char	   *added;

	if (unlikely(*count == *capacity))
		enlarge(array, capacity, element, MaxAllocSize);
	added = (char *) *array + (Size) (*count)++ * element;
	memset(added, 0, element);
	return added;
}

/*
 * The capacities of the growing tables of the first pass, and the lines
 * of every location in one array (the profile's): a location's lines are
 * lines[first_line ...].
 */
typedef struct PprofDecoder
{
	PprofProfile *profile;
	int			sample_types_capacity;
	int			mappings_capacity;
	int			locations_capacity;
	int			functions_capacity;
	int			strings_capacity;
	int			nlines;
	int			lines_capacity;
	int			max_location_lines; /* of one location: grow_limit() of its lines */
} PprofDecoder;

/* A new line of a location, zeroed */
static inline PprofLine *
add_line(PprofDecoder *decoder, PprofLocation *location)
{
	PprofLine  *line;

	if (location->nlines == 0)
		location->first_line = decoder->nlines;
	else if (unlikely(location->nlines == decoder->max_location_lines))
		table_full_error();
	if (unlikely(decoder->nlines == decoder->lines_capacity))
		enlarge((void **) &decoder->profile->lines, &decoder->lines_capacity, sizeof(PprofLine),
				MaxAllocHugeSize);
	line = &decoder->profile->lines[decoder->nlines++];
	memset(line, 0, sizeof(PprofLine));
	location->nlines++;
	return line;
}

/*
 * A varint of up to nine bytes that ends before end, at *p: moves *p past
 * it.  False, without moving, for any other (which the generic decoder
 * then reads, or refuses).
 */
static pg_noinline bool
long_field_varint(const uint8 **p, const uint8 *end, uint64 *value)
{
	const uint8 *q = *p;
	uint64		v = 0;

	for (int shift = 0; shift < 63 && q < end; shift += 7)
	{
		uint8		byte = *q++;

		v |= (uint64) (byte & 0x7F) << shift;
		if (byte < 0x80)
		{
			*p = q;
			*value = v;
			return true;
		}
	}
	return false;
}

/* The same, those of one to four bytes (ids, counts, most values) read here */
static inline bool
short_field_varint(const uint8 **p, const uint8 *end, uint64 *value)
{
	const uint8 *q = *p;
	size_t		left = end - q;

	if (likely(left >= 1) && q[0] < 0x80)
	{
		*value = q[0];
		*p = q + 1;
		return true;
	}
	if (likely(left >= 2) && q[1] < 0x80)
	{
		*value = (uint64) (q[0] & 0x7F) | (uint64) q[1] << 7;
		*p = q + 2;
		return true;
	}
	if (likely(left >= 3) && q[2] < 0x80)
	{
		*value = (uint64) (q[0] & 0x7F) | (uint64) (q[1] & 0x7F) << 7 | (uint64) q[2] << 14;
		*p = q + 3;
		return true;
	}
	if (likely(left >= 4) && q[3] < 0x80)
	{
		*value = (uint64) (q[0] & 0x7F) | (uint64) (q[1] & 0x7F) << 7 | (uint64) (q[2] & 0x7F) << 14 |
			(uint64) q[3] << 21;
		*p = q + 4;
		return true;
	}
	return long_field_varint(p, end, value);
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
decode_location(PprofDecoder *decoder, PbReader *reader, PprofLocation *location)
{
	uint32		field;
	int			wiretype;
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
				decode_line(&sub, add_line(decoder, location));
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
 * The fast paths of the tables' first pass: a Location or Function as
 * writers of pprof send them, fields of one-byte tags and varints of up
 * to nine bytes, read with local pointers.  False, the entry half read,
 * for any other shape: the generic decoder then reads it again, with the
 * same result for this shape, and raises the errors of others.
 */
static inline bool
decode_line_fast(const uint8 *p, const uint8 *end, PprofLine *line)
{
	while (p < end)
	{
		uint8		tag = *p++;
		uint64		value;

		if (!short_field_varint(&p, end, &value))
			return false;
		switch (tag)
		{
			case PPROF_LINE_FUNCTION_ID << 3 | PB_VARINT:
				line->function_id = value;
				break;
			case PPROF_LINE_LINE << 3 | PB_VARINT:
				line->line = (int64) value;
				break;
			case PPROF_LINE_COLUMN << 3 | PB_VARINT:
				line->column = (int64) value;
				break;
			default:
				return false;
		}
	}
	return true;
}

static bool
decode_location_fast(PprofDecoder *decoder, const PbReader *sub, PprofLocation *location)
{
	const uint8 *p = sub->data + sub->pos;
	const uint8 *end = sub->data + sub->end;

	location->at = sub->pos;
	while (p < end)
	{
		uint8		tag = *p++;
		uint64		value;

		if (!short_field_varint(&p, end, &value))
			return false;
		switch (tag)
		{
			case PPROF_LOCATION_ID << 3 | PB_VARINT:
				location->id = value;
				break;
			case PPROF_LOCATION_MAPPING_ID << 3 | PB_VARINT:
				location->mapping_id = value;
				break;
			case PPROF_LOCATION_ADDRESS << 3 | PB_VARINT:
				location->address = value;
				break;
			case PPROF_LOCATION_IS_FOLDED << 3 | PB_VARINT:
				break;
			case PPROF_LOCATION_LINE << 3 | PB_LEN:
				if (value > (uint64) (end - p) ||
					!decode_line_fast(p, p + value, add_line(decoder, location)))
					return false;
				p += value;
				break;
			default:
				return false;
		}
	}
	return true;
}

static bool
decode_function_fast(const PbReader *sub, PprofFunction *function)
{
	const uint8 *p = sub->data + sub->pos;
	const uint8 *end = sub->data + sub->end;

	function->at = sub->pos;
	while (p < end)
	{
		uint8		tag = *p++;
		uint64		value;

		if (!short_field_varint(&p, end, &value))
			return false;
		switch (tag)
		{
			case PPROF_FUNCTION_ID << 3 | PB_VARINT:
				function->id = value;
				break;
			case PPROF_FUNCTION_NAME << 3 | PB_VARINT:
				function->name = (int64) value;
				break;
			case PPROF_FUNCTION_SYSTEM_NAME << 3 | PB_VARINT:
				function->system_name = (int64) value;
				break;
			case PPROF_FUNCTION_FILENAME << 3 | PB_VARINT:
				function->filename = (int64) value;
				break;
			case PPROF_FUNCTION_START_LINE << 3 | PB_VARINT:
				function->start_line = (int64) value;
				break;
			default:
				return false;
		}
	}
	return true;
}

/* A Location of the top level, by the fast path or else the generic one */
static void
read_location(PprofDecoder *decoder, PbReader *sub, PprofLocation *location)
{
	int			nlines = decoder->nlines;

	if (decode_location_fast(decoder, sub, location))
		return;
	/* the lines it added are read again */
	decoder->nlines = nlines;
	memset(location, 0, sizeof(PprofLocation));
	decode_location(decoder, sub, location);
}

static void
read_function(PbReader *sub, PprofFunction *function)
{
	if (decode_function_fast(sub, function))
		return;
	memset(function, 0, sizeof(PprofFunction));
	decode_function(sub, function);
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

static bool
strictly_increasing(const void *array, int count, Size element)
{
	const char *p = array;

	for (int i = 1; i < count; i++, p += element)
		if (ID_OF(p) >= ID_OF(p + element))
			return false;
	return true;
}

static void
sort_by_id(void *array, int count, Size element, const char *table, size_t (*at_of) (const void *))
{
	if (count == 0)
		return;
	/* most writers list a table by increasing id: nothing to sort or check */
	if (ID_OF(array) != 0 && strictly_increasing(array, count, element))
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

/*
 * The index of a table whose ids are not 1, 2, 3... (writers that keep the
 * ids of a larger profile): an open-addressing hash from id to the entry's
 * place (pprof_id_slot, linear probing), instead of a bisection for each
 * of the many lookups of a profile's samples.  It has at least four times
 * as many slots as ids, so that most ids are in their first slot.  Ids
 * chosen to collide could make probes long: a table whose longest probe
 * would pass PPROF_MAX_PROBE is given up for the bisection, so that a
 * lookup costs a bounded number of steps either way.
 */
#define PPROF_MAX_PROBE 32

static void
build_id_index(PprofIdIndex *index, const void *array, int count, Size element)
{
	int			bits = 1;
	uint64		mask;

	index->slots = NULL;
	if (count == 0 || ID_OF((const char *) array + (Size) (count - 1) * element) == (uint64) count)
		return;
	while (((uint64) 1 << bits) < (uint64) count * 4)
		bits++;
	mask = ((uint64) 1 << bits) - 1;
	index->shift = 64 - bits;
	index->slots = palloc_extended(sizeof(int32) << bits, MCXT_ALLOC_HUGE);
	memset(index->slots, 0xFF, sizeof(int32) << bits);	/* every slot -1 */
	for (int i = 0; i < count; i++)
	{
		uint64		slot = pprof_id_slot(index, ID_OF((const char *) array + (Size) i * element));
		int			probe = 0;

		while (index->slots[slot] >= 0)
		{
			if (++probe > PPROF_MAX_PROBE)
			{
				pfree(index->slots);
				index->slots = NULL;
				return;
			}
			slot = (slot + 1) & mask;
		}
		index->slots[slot] = i;
	}
}

static inline const void *
find_indexed(const PprofIdIndex *index, const void *array, int count, Size element, uint64 id)
{
	uint64		mask;
	uint64		slot;

	if (index->slots == NULL)
		return find_by_id(array, count, element, id);
	mask = PG_UINT64_MAX >> index->shift;
	slot = pprof_id_slot(index, id);
	/* (every id of the table is within PPROF_MAX_PROBE slots of its own) */
	for (int probe = 0; probe <= PPROF_MAX_PROBE; probe++)
	{
		int32		at = index->slots[slot];
		const char *p;

		if (at < 0)
			return NULL;
		p = (const char *) array + (Size) at * element;
		if (ID_OF(p) == id)
			return p;
		slot = (slot + 1) & mask;
	}
	return NULL;
}

/* One top-level field of the first pass. */
static void
decode_profile_field(PprofProfile *profile, PprofDecoder *decoder, PbReader *reader,
					 uint32 field, int wiretype)
{
	PbReader	sub;
	switch (field)
	{
		case PPROF_PROFILE_SAMPLE_TYPE:
			pb_expect_submessage(reader, wiretype, "Profile.sample_type", &sub, "ValueType");
			decode_value_type(&sub, grow((void **) &profile->sample_types, &profile->nsample_types,
										 &decoder->sample_types_capacity, sizeof(PprofValueType)));
			break;
		case PPROF_PROFILE_SAMPLE:
			/* only counted and skipped, without a reader of its own */
			if (wiretype != PB_LEN)
				pb_wiretype_error(reader, wiretype, "Profile.sample", PB_LEN);
			reader->pos += pb_read_length(reader);
			if (profile->nsamples++ == 0)
				profile->samples_from = reader->field_at;
			profile->samples_to = reader->pos;
			break;
		case PPROF_PROFILE_MAPPING:
			pb_expect_submessage(reader, wiretype, "Profile.mapping", &sub, "Mapping");
			decode_mapping(&sub, grow((void **) &profile->mappings, &profile->nmappings,
									  &decoder->mappings_capacity, sizeof(PprofMapping)));
			break;
		case PPROF_PROFILE_LOCATION:
			pb_expect_submessage(reader, wiretype, "Profile.location", &sub, "Location");
			read_location(decoder, &sub, grow((void **) &profile->locations, &profile->nlocations,
												&decoder->locations_capacity, sizeof(PprofLocation)));
			break;
		case PPROF_PROFILE_FUNCTION:
			pb_expect_submessage(reader, wiretype, "Profile.function", &sub, "Function");
			read_function(&sub, grow((void **) &profile->functions, &profile->nfunctions,
									   &decoder->functions_capacity, sizeof(PprofFunction)));
			break;
		case PPROF_PROFILE_STRING_TABLE:
			{
				PprofString *s;
				size_t		len;

				if (wiretype != PB_LEN)
					pb_wiretype_error(reader, wiretype, "Profile.string_table", PB_LEN);
				len = pb_read_length(reader);
				s = grow((void **) &profile->strings, &profile->nstrings, &decoder->strings_capacity, sizeof(PprofString));
				/* (pprof_decode checked that offsets fit in 32 bits) */
				s->offset = (uint32) reader->pos;
				s->len = (uint32) len;
				reader->pos += len;
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
			{
				uint64	   *ignored = NULL;
				int			nignored = 0;
				int			ignored_capacity = 0;

				pb_append_varints(reader, wiretype, "Profile.comment", &ignored, &nignored, &ignored_capacity);
				if (ignored)
					pfree(ignored);
				break;
			}
		default:
			pb_skip(reader, wiretype);
	}
}

/* The reader of a submessage at `body`, as pb_expect_submessage makes it */
static inline PbReader
usual_submessage(const PbReader *reader, size_t at, size_t body, size_t len, const char *message)
{
	PbReader	sub = *reader;

	sub.pos = body;
	sub.end = body + len;
	sub.field_at = at;
	sub.message = message;
	return sub;
}

/*
 * The fast path of the top level: its fields as writers of pprof send
 * most of them, a sample, location, function or string of a one-byte tag
 * and a length of one or two bytes that fits, read from the reader's
 * position with local offsets up to the first field of any other kind,
 * which decode_profile_field then reads.  Each is read as there.
 */
static void
decode_usual_fields(PprofProfile *profile, PprofDecoder *decoder, PbReader *reader, uint64 *fields)
{
	const uint8 *data = reader->data;
	size_t		end = reader->end;
	size_t		pos = reader->pos;

	while (end - pos >= 3)
	{
		size_t		at = pos;
		size_t		len = data[pos + 1];
		size_t		body = pos + 2;
		PbReader	sub;

		if (len >= 0x80)
		{
			if (data[pos + 2] >= 0x80)
				break;
			len = (len & 0x7F) | (size_t) data[pos + 2] << 7;
			body++;
		}
		if (len > end - body)
			break;
		switch (data[pos])
		{
			case PPROF_PROFILE_SAMPLE << 3 | PB_LEN:
				if (profile->nsamples++ == 0)
					profile->samples_from = at;
				profile->samples_to = body + len;
				break;
			case PPROF_PROFILE_LOCATION << 3 | PB_LEN:
				sub = usual_submessage(reader, at, body, len, "Location");
				read_location(decoder, &sub, grow((void **) &profile->locations, &profile->nlocations,
												  &decoder->locations_capacity, sizeof(PprofLocation)));
				break;
			case PPROF_PROFILE_FUNCTION << 3 | PB_LEN:
				sub = usual_submessage(reader, at, body, len, "Function");
				read_function(&sub, grow((void **) &profile->functions, &profile->nfunctions,
										 &decoder->functions_capacity, sizeof(PprofFunction)));
				break;
			case PPROF_PROFILE_STRING_TABLE << 3 | PB_LEN:
				{
					PprofString *s = grow((void **) &profile->strings, &profile->nstrings,
										  &decoder->strings_capacity, sizeof(PprofString));

					s->offset = (uint32) body;
					s->len = (uint32) len;
					break;
				}
			default:
				reader->pos = at;
				return;
		}
		pos = body + len;
		if ((++*fields & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	reader->pos = pos;
}

/*
 * A varint of the counting pass below: false when it does not end before
 * `len` or is longer than ten bytes.
 */
static pg_noinline bool
scan_long_varint(const uint8 *data, size_t len, size_t *pos, uint64 *value)
{
	uint64		v = 0;

	for (int shift = 0; shift < 70 && *pos < len; shift += 7)
	{
		uint8		byte = data[(*pos)++];

		v |= (uint64) (byte & 0x7F) << shift;
		if (byte < 0x80)
		{
			*value = v;
			return true;
		}
	}
	return false;
}

/* The same, those of one or two bytes (tags, most lengths) read here */
static inline bool
scan_varint(const uint8 *data, size_t len, size_t *pos, uint64 *value)
{
	size_t		at = *pos;

	if (likely(at + 2 <= len))
	{
		if (data[at] < 0x80)
		{
			*value = data[at];
			*pos = at + 1;
			return true;
		}
		if (data[at + 1] < 0x80)
		{
			*value = (uint64) (data[at] & 0x7F) | (uint64) data[at + 1] << 7;
			*pos = at + 2;
			return true;
		}
	}
	return scan_long_varint(data, len, pos, value);
}

/*
 * One field of the counting pass below at *pos, moved past it, a
 * length-delimited one of fields 1 to 15 counted in counts; false when it
 * is malformed.
 */
static bool
count_field(const uint8 *data, size_t len, size_t *pos, int64 counts[16])
{
	uint64		tag;
	uint64		value;

	if (!scan_varint(data, len, pos, &tag))
		return false;
	switch (tag & 7)
	{
		case PB_VARINT:
			return scan_varint(data, len, pos, &value);
		case PB_FIXED64:
			*pos += 8;
			return true;
		case PB_FIXED32:
			*pos += 4;
			return true;
		case PB_LEN:
			if (!scan_varint(data, len, pos, &value) || value > len - *pos)
				return false;
			*pos += value;
			if ((tag >> 3) < 16)
				counts[tag >> 3]++;
			return true;
		default:
			return false;
	}
}

/*
 * How many entries of each table (by field number, up to the string
 * table) the top level holds, counted from its tags and lengths alone,
 * so that the first pass makes each table at its size rather than
 * growing it by copies.  Counts only: whatever is malformed ends the
 * count, and the first pass reports it.
 */
#define COUNT_CHUNK ((size_t) 1 << 20)

static void
count_top_level(const uint8 *data, size_t len, int64 counts[PPROF_PROFILE_STRING_TABLE + 1])
{
	int64		by_field[16] = {0};
	size_t		pos = 0;

	while (pos < len)
	{
		/* 1 MB at a time between checks for interrupts, each field's first two bytes in the data */
		size_t		stop = len - pos > COUNT_CHUNK ? pos + COUNT_CHUNK : len - 1;

		CHECK_FOR_INTERRUPTS();
		/* most fields: a one-byte tag of a length-delimited field and a one-byte length */
		while (pos < stop && (data[pos] & 0x87) == PB_LEN && data[pos + 1] < 0x80)
		{
			size_t		value = data[pos + 1];

			if (value > len - pos - 2)
				goto done;
			by_field[data[pos] >> 3]++;
			pos += 2 + value;
		}
		/* any other field, or the last byte */
		if ((pos < stop || pos == len - 1) && !count_field(data, len, &pos, by_field))
			break;
	}
done:
	memcpy(counts, by_field, sizeof(int64) * (PPROF_PROFILE_STRING_TABLE + 1));
}

/* The tables of the first pass, each made at the size counted */
static void
presize_tables(PprofProfile *profile, PprofDecoder *decoder)
{
	int64		counts[PPROF_PROFILE_STRING_TABLE + 1];

	count_top_level(profile->data, profile->len, counts);
	presize((void **) &profile->sample_types, &decoder->sample_types_capacity,
			counts[PPROF_PROFILE_SAMPLE_TYPE], sizeof(PprofValueType), MaxAllocSize);
	presize((void **) &profile->mappings, &decoder->mappings_capacity,
			counts[PPROF_PROFILE_MAPPING], sizeof(PprofMapping), MaxAllocSize);
	presize((void **) &profile->locations, &decoder->locations_capacity,
			counts[PPROF_PROFILE_LOCATION], sizeof(PprofLocation), MaxAllocSize);
	/* most locations have one line, a few more (inlined calls); growing past 1 GB only as they come */
	presize((void **) &profile->lines, &decoder->lines_capacity,
			counts[PPROF_PROFILE_LOCATION] * 3 / 2, sizeof(PprofLine), MaxAllocSize);
	presize((void **) &profile->functions, &decoder->functions_capacity,
			counts[PPROF_PROFILE_FUNCTION], sizeof(PprofFunction), MaxAllocSize);
	presize((void **) &profile->strings, &decoder->strings_capacity,
			counts[PPROF_PROFILE_STRING_TABLE], sizeof(PprofString), MaxAllocSize);
}

/*
 * data_is_ours: the caller lets the decoder write into the data (see
 * pprof_resolve_string), which it then no longer reads.
 */
void
pprof_decode(PprofProfile *profile, const uint8 *data, size_t len, bool data_is_ours)
{
	PbReader	reader;
	uint32		field;
	int			wiretype;
	PprofDecoder decoder;
	uint64		fields = 0;

	memset(profile, 0, sizeof(PprofProfile));
	memset(&decoder, 0, sizeof(decoder));
	/* a bytea or what gzip_decompress allows: 1 GB at most */
	if (len > PG_UINT32_MAX)
		elog(ERROR, "pprof data of %zu bytes is too large to decode", len);
	decoder.profile = profile;
	decoder.max_location_lines = grow_limit(sizeof(PprofLine));
	profile->data = data;
	profile->len = len;
	profile->data_is_ours = data_is_ours;
	profile->strings_cxt = CurrentMemoryContext;
	profile->server_utf8 = GetDatabaseEncoding() == PG_UTF8;
	presize_tables(profile, &decoder);
	pb_reader_init(&reader, data, len, "pprof", "Profile");
	for (;;)
	{
		decode_usual_fields(profile, &decoder, &reader, &fields);
		if (!pb_next_field(&reader, &field, &wiretype))
			break;
		if ((++fields & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		decode_profile_field(profile, &decoder, &reader, field, wiretype);
	}
	profile->nlines = decoder.nlines;

	sort_by_id(profile->mappings, profile->nmappings, sizeof(PprofMapping), "mapping", mapping_at);
	sort_by_id(profile->locations, profile->nlocations, sizeof(PprofLocation), "location", location_at);
	sort_by_id(profile->functions, profile->nfunctions, sizeof(PprofFunction), "function", function_at);
	build_id_index(&profile->location_index, profile->locations, profile->nlocations, sizeof(PprofLocation));
	build_id_index(&profile->function_index, profile->functions, profile->nfunctions, sizeof(PprofFunction));
	/* profile.proto: string_table[0] must always be "" */
	if (profile->nstrings > 0 && profile->strings[0].len != 0)
		pprof_error(profile->strings[0].offset, "The first string of the string table is not empty.");
}

/*
 * Whether a string is ASCII without a NUL byte, 8 bytes at a time (the
 * last 8 overlapping those before when the length is not a multiple): then
 * it is valid UTF-8 as it is, as the names of most profiles are.
 */
static bool
plain_ascii(const char *s, size_t len)
{
	const uint64 ones = UINT64CONST(0x0101010101010101);
	const uint64 highs = UINT64CONST(0x8080808080808080);
	uint64		seen = 0;
	uint64		word;

	if (len < 8)
	{
		for (size_t i = 0; i < len; i++)
			if ((uint8) s[i] >= 0x80 || s[i] == 0)
				return false;
		return true;
	}
	for (size_t i = 0; i + 8 <= len; i += 8)
	{
		memcpy(&word, s + i, 8);
		/* a high bit, or a zero byte (which subtracting 1 turns into 0xFF) */
		seen |= word | ((word - ones) & ~word);
	}
	memcpy(&word, s + len - 8, 8);
	seen |= word | ((word - ones) & ~word);
	return (seen & highs) == 0;
}

/*
 * Room for n bytes, kept with the profile: the copies of strings, which
 * are many and small, are cut from blocks rather than allocated one by
 * one (a large one has a chunk of its own).
 */
#define PPROF_STRING_BLOCK 8192

static char *
string_room(PprofProfile *profile, size_t n)
{
	char	   *room;

	if (n > PPROF_STRING_BLOCK / 8)
		return MemoryContextAlloc(profile->strings_cxt, n);
	if (profile->string_block_left < n)
	{
		profile->string_block = MemoryContextAlloc(profile->strings_cxt, PPROF_STRING_BLOCK);
		profile->string_block_left = PPROF_STRING_BLOCK;
	}
	room = profile->string_block;
	profile->string_block += n;
	profile->string_block_left -= n;
	return room;
}

/*
 * Whether a string of the table may end with a NUL written in place, over
 * the byte after it: when the caller gave the data to the decoder, and that
 * byte is neither past the data nor read again once the first pass is done.
 * It is the tag of the next top-level field: only the samples are read
 * again, from the tag of the first to the end of the last.  Go writes its
 * string table after the samples, as most writers do: its strings then
 * need no copy.
 */
static bool
ends_in_place(const PprofProfile *profile, const PprofString *s)
{
	size_t		after = (size_t) s->offset + s->len;

	return profile->data_is_ours && after < profile->len &&
		(after < profile->samples_from || after >= profile->samples_to);
}

/* pprof_string() of a string not resolved yet, or an error */
const char *
pprof_resolve_string(PprofProfile *profile, int64 index, size_t at, const char *what)
{
	PprofString *s;
	char	   *bytes;
	char	   *converted;
	bool		in_place;

	if (index < 0 || index >= profile->nstrings)
		pprof_error(at, "The %s refers to string " INT64_FORMAT ", but the string table has %d strings.",
					what, index, profile->nstrings);
	s = &profile->strings[index];
	if (s->resolved)
		return s->resolved;
	/* (written only where ends_in_place says so) */
	bytes = (char *) profile->data + s->offset;
	/* UTF-8 without NUL bytes, as text needs; then into the server encoding */
	if (s->len > (size_t) MaxAllocSize - 1 ||
		!(plain_ascii(bytes, s->len) || pg_verify_mbstr(PG_UTF8, bytes, (int) s->len, true)))
		pprof_error(s->offset, "String " INT64_FORMAT " of the string table is not valid UTF-8 or holds a NUL byte.", index);
	in_place = ends_in_place(profile, s);
	if (in_place)
		bytes[s->len] = '\0';
	/* (in a UTF-8 database, checked once: the conversion would check again) */
	converted = bytes;
	if (!profile->server_utf8)
	{
		/* kept with the profile, whatever context the caller works in */
		MemoryContext caller = MemoryContextSwitchTo(profile->strings_cxt);

		converted = pg_any_to_server(bytes, (int) s->len, PG_UTF8);
		MemoryContextSwitchTo(caller);
	}
	if (converted == bytes && !in_place)
	{
		/* a copy to end with a NUL (there is none inside) */
		converted = string_room(profile, s->len + 1);
		memcpy(converted, bytes, s->len);
		converted[s->len] = '\0';
	}
	else if (converted != bytes)
		s->len = (uint32) strlen(converted);
	s->resolved = converted;
	return converted;
}

/* pprof_location() where the id is not where it looks first */
const PprofLocation *
pprof_find_location(const PprofProfile *profile, uint64 id, size_t at)
{
	const PprofLocation *location = find_indexed(&profile->location_index, profile->locations,
												 profile->nlocations, sizeof(PprofLocation), id);

	if (location == NULL)
		pprof_error(at, "A sample refers to location id " UINT64_FORMAT ", which the profile does not define.", id);
	return location;
}

/* pprof_function() where the id is not where it looks first */
const PprofFunction *
pprof_find_function(const PprofProfile *profile, uint64 id, size_t at)
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

/*
 * Passes over a sample's packed location_id field, its length checked,
 * keeping where it is: pprof_read_sample_locations reads it as
 * pb_append_varints would have here, with the same errors.
 */
static void
keep_location_field(PbReader *reader, PprofSample *sample)
{
	size_t		start = reader->pos;
	size_t		len;

	sample->location_field = *reader;
	len = pb_read_length(reader);
	sample->packed_location_ids = reader->data + reader->pos;
	reader->pos += len;
	sample->location_bytes = reader->data + start;
	sample->location_bytes_len = reader->pos - start;
	sample->locations_pending = true;
}

void
pprof_read_sample_locations(PprofSample *sample)
{
	PbReader	field = sample->location_field;

	sample->locations_pending = false;
	pb_append_varints(&field, PB_LEN, "Sample.location_id", &sample->location_ids,
					  &sample->nlocation_ids, &sample->location_ids_capacity);
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
	sample->location_bytes = NULL;
	sample->location_bytes_len = 0;
	sample->locations_pending = false;
	sample->label_bytes = NULL;
	sample->label_bytes_len = 0;
	sample->labels_pending = false;
	while (pb_next_field(reader, &field, &wiretype))
	{
		switch (field)
		{
			case PPROF_SAMPLE_LOCATION_ID:
				if (wiretype == PB_LEN && sample->location_bytes == NULL && sample->nlocation_ids == 0)
					keep_location_field(reader, sample);
				else
				{
					/* a second field: the ids in file order, and no key */
					pprof_sample_locations(sample);
					sample->location_bytes = NULL;
					pb_append_varints(reader, wiretype, "Sample.location_id", &sample->location_ids,
									  &sample->nlocation_ids, &sample->location_ids_capacity);
				}
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

/* Label fields of one-byte tags and short varints, as decode_label reads them; false for any other. */
static inline bool
decode_label_fast(const uint8 *p, const uint8 *end, PprofLabel *label)
{
	while (p < end)
	{
		uint8		tag = *p++;
		uint64		value;

		if (!short_field_varint(&p, end, &value))
			return false;
		switch (tag)
		{
			case PPROF_LABEL_KEY << 3 | PB_VARINT:
				label->key = (int64) value;
				break;
			case PPROF_LABEL_STR << 3 | PB_VARINT:
				label->str = (int64) value;
				break;
			case PPROF_LABEL_NUM << 3 | PB_VARINT:
				label->num = (int64) value;
				break;
			case PPROF_LABEL_NUM_UNIT << 3 | PB_VARINT:
				label->num_unit = (int64) value;
				break;
			default:
				return false;
		}
	}
	return true;
}

/*
 * The sample whose fields are sub's, as writers of pprof send them: one
 * packed location_id field, values packed or one by one (Go's runtime/pprof
 * writes a list of two or fewer so: a CPU profile's count and time), and
 * labels, each with a one-byte tag and a short length or value, and
 * nothing else.  False, the sample half read, for any other shape:
 * decode_sample then reads it again from its start, with the same result
 * for this shape, and raises the errors of others.
 */
static bool
decode_sample_fast(const PbReader *sub, PprofSample *sample)
{
	const uint8 *p = sub->data + sub->pos;
	const uint8 *end = sub->data + sub->end;

	sample->at = sub->pos;
	sample->nlocation_ids = 0;
	sample->nvalues = 0;
	sample->nlabels = 0;
	sample->location_bytes = NULL;
	sample->location_bytes_len = 0;
	sample->locations_pending = false;
	sample->label_bytes = NULL;
	sample->label_bytes_len = 0;
	sample->data = sub->data;
	while (p < end)
	{
		uint8		tag = *p++;
		const uint8 *length_at = p;
		uint64		len;

		/* a length that fits, or the value of a field of its own */
		if (!short_field_varint(&p, end, &len) ||
			(len > (uint64) (end - p) && tag != (PPROF_SAMPLE_VALUE << 3 | PB_VARINT)))
			return false;
		switch (tag)
		{
			case PPROF_SAMPLE_VALUE << 3 | PB_VARINT:
				/* as pb_append_varints reads it */
				if (sample->values_capacity == sample->nvalues)
					pb_reserve_varints(&sample->values, sample->nvalues, &sample->values_capacity, 1);
				sample->values[sample->nvalues++] = len;
				continue;
			case PPROF_SAMPLE_LOCATION_ID << 3 | PB_LEN:
				if (sample->location_bytes != NULL)
					return false;
				/* what keep_location_field keeps */
				sample->location_field = *sub;
				sample->location_field.pos = length_at - sub->data;
				sample->location_field.field_at = length_at - 1 - sub->data;
				sample->location_bytes = length_at;
				sample->location_bytes_len = p + len - length_at;
				sample->packed_location_ids = p;
				sample->locations_pending = true;
				break;
			case PPROF_SAMPLE_VALUE << 3 | PB_LEN:
				{
					const uint8 *value = p;

					/* every varint takes a byte at least */
					if ((uint64) (sample->values_capacity - sample->nvalues) < len)
						pb_reserve_varints(&sample->values, sample->nvalues, &sample->values_capacity, len);
					while (value < p + len)
						if (!short_field_varint(&value, p + len, &sample->values[sample->nvalues++]))
							return false;
					break;
				}
			case PPROF_SAMPLE_LABEL << 3 | PB_LEN:
				/* kept for pprof_read_sample_labels, when next to the one before */
				if (sample->label_bytes == NULL)
					sample->label_bytes = length_at - 1;
				else if (sample->label_bytes + sample->label_bytes_len != length_at - 1)
					return false;
				sample->label_bytes_len = p + len - sample->label_bytes;
				break;
			default:
				return false;
		}
		p += len;
	}
	sample->labels_pending = sample->label_bytes != NULL;
	return true;
}

/*
 * The labels that decode_sample_fast kept: each by the fast path, or
 * else by decode_label as decode_sample reads it, with its errors.
 */
void
pprof_read_sample_labels(PprofSample *sample)
{
	const uint8 *p = sample->label_bytes;
	const uint8 *end = p + sample->label_bytes_len;

	sample->labels_pending = false;
	while (p < end)
	{
		const uint8 *tag_at = p++;
		uint64		len;
		PprofLabel *label;

		/* (the tag and length that decode_sample_fast read) */
		(void) short_field_varint(&p, end, &len);
		label = grow((void **) &sample->labels, &sample->nlabels, &sample->labels_capacity, sizeof(PprofLabel));
		if (!decode_label_fast(p, p + len, label))
		{
			PbReader	sub;

			/* what pb_expect_submessage makes */
			pb_reader_init(&sub, sample->data, p + len - sample->data, "pprof", "Label");
			sub.pos = p - sample->data;
			sub.field_at = tag_at - sample->data;
			memset(label, 0, sizeof(PprofLabel));
			decode_label(&sub, label);
		}
		p += len;
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
		if (!decode_sample_fast(&sub, sample))
			decode_sample(&sub, sample);
		return true;
	}
	return false;
}
