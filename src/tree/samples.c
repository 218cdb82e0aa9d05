/*
 * samples.c
 *	  The codec of the samples value (samples.h): packing samples into the
 *	  layout samples.h documents, and reading it back, checking every byte.
 *	  No fmgr here, so that a fuzzing harness can run it.
 */
#include "postgres.h"

#include <stdarg.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "tree/calltree.h"
#include "tree/samples.h"

#define SAMPLES_HINT \
	"A samples value is made by calltree.samples_agg() or read from its text form " \
	"{stack_id:weight@ts#labels_id,...}; its binary form is the packed bytes that calltree.samples_send() writes."

/* ---------------------------------------------------------------- integers */

static inline uint64
zigzag(int64 value)
{
	return ((uint64) value << 1) ^ (0 - ((uint64) value >> 63));
}

static inline int64
unzigzag(uint64 code)
{
	return (int64) ((code >> 1) ^ (0 - (code & 1)));
}

static uint64
gcd64(uint64 a, uint64 b)
{
	while (b != 0)
	{
		uint64		r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* |value|, exact also for PG_INT64_MIN */
static inline uint64
magnitude(int64 value)
{
	return value < 0 ? 0 - (uint64) value : (uint64) value;
}

/* The int64 of sign `negative` and magnitude m <= 2^63 (2^63 only if negative) */
static inline int64
signed_of(bool negative, uint64 m)
{
	if (!negative)
		return (int64) m;
	return m == ((uint64) 1 << 63) ? PG_INT64_MIN : -(int64) m;
}

/* ---------------------------------------------------------------- sorting */

static inline int
compare_int64(int64 a, int64 b)
{
	return (a > b) - (a < b);
}

/* The canonical order of samples.h */
static inline int
canonical_order(const Sample *x, const Sample *y)
{
	if (x->has_ts != y->has_ts)
		return x->has_ts ? 1 : -1;
	if (x->has_ts && x->ts != y->ts)
		return compare_int64(x->ts, y->ts);
	if (x->stack_id != y->stack_id)
		return compare_int64(x->stack_id, y->stack_id);
	if (x->has_labels != y->has_labels)
		return x->has_labels ? 1 : -1;
	if (x->has_labels && x->labels_id != y->labels_id)
		return compare_int64(x->labels_id, y->labels_id);
	return compare_int64(x->weight, y->weight);
}

int
samples_compare(const Sample *x, const Sample *y)
{
	return canonical_order(x, y);
}

/*
 * A sort with the comparison inlined (PostgreSQL's sort template): sorting
 * is most of the time of packing, which every import does.
 */
#define ST_SORT sort_canonical
#define ST_ELEMENT_TYPE Sample
#define ST_COMPARE(a, b) canonical_order(a, b)
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/* ids sorted with the comparison inlined too */
#define ST_SORT sort_ids
#define ST_ELEMENT_TYPE int64
#define ST_COMPARE(a, b) compare_int64(*(a), *(b))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * Samples without a time are sorted first by their stack, in place, a byte
 * of the stack id at a time from the highest that differs (a radix sort
 * that moves each sample once per byte: an import's few hundred samples
 * over a few hundred stacks take two or three passes, where comparing sorts
 * took most of the time of packing).  The samples of one stack, a few, are
 * then sorted by comparison.  Below RADIX_MIN samples comparing is as cheap.
 */
#define RADIX_MIN 64

/* A stack id as an unsigned key of the same order */
static inline uint64
stack_key(const Sample *sample)
{
	return (uint64) sample->stack_id ^ ((uint64) 1 << 63);
}

static inline void
swap_samples(Sample *a, Sample *b)
{
	Sample		t = *a;

	*a = *b;
	*b = t;
}

static void
radix_sort_untimed(Sample *samples, int64 count, int shift)
{
	int64		sizes[256] = {0};
	int64		next[256];
	int64		end[256];
	int64		at = 0;

	if (count < RADIX_MIN)
	{
		if (count > 1)
			sort_canonical(samples, (size_t) count);
		return;
	}
	for (int64 i = 0; i < count; i++)
		sizes[(stack_key(&samples[i]) >> shift) & 0xFF]++;
	for (int b = 0; b < 256; b++)
	{
		next[b] = at;
		at += sizes[b];
		end[b] = at;
	}
	/* each sample is swapped into its byte's bucket, the buckets in order */
	for (int b = 0; b < 256; b++)
		while (next[b] < end[b])
		{
			int			to = (int) ((stack_key(&samples[next[b]]) >> shift) & 0xFF);

			if (to == b)
				next[b]++;
			else
				swap_samples(&samples[next[b]], &samples[next[to]++]);
		}
	for (int64 b = 0, from = 0; b < 256; from += sizes[b], b++)
	{
		if (sizes[b] < 2)
			continue;
		if (shift == 0)
			sort_canonical(samples + from, (size_t) sizes[b]);	/* one stack */
		else
			radix_sort_untimed(samples + from, sizes[b], shift - 8);
	}
}

void
samples_sort(Sample *samples, int64 count)
{
	int64		untimed = 0;
	uint64		differ = 0;
	int			shift = 0;

	if (count < RADIX_MIN)
	{
		if (count > 1)
			sort_canonical(samples, (size_t) count);
		return;
	}
	for (int64 i = 1; i < count && canonical_order(&samples[i - 1], &samples[i]) <= 0; i++)
		if (i == count - 1)
			return;				/* in order already */
	/* samples without a time to the front, which canonical order puts first */
	for (int64 i = 0; i < count; i++)
		if (!samples[i].has_ts)
		{
			if (i != untimed)
				swap_samples(&samples[i], &samples[untimed]);
			untimed++;
		}
	/* time order: usually in it already, which the sort checks in one pass */
	if (count - untimed > 1)
		sort_canonical(samples + untimed, (size_t) (count - untimed));
	if (untimed < 2)
		return;
	for (int64 i = 1; i < untimed; i++)
		differ |= stack_key(&samples[i]) ^ stack_key(&samples[0]);
	while (shift < 56 && (differ >> shift) > 0xFF)
		shift += 8;
	radix_sort_untimed(samples, untimed, shift);
}

/*
 * Removes from `set` (count samples, in canonical order) one sample equal
 * to each of `doomed` (ndoomed samples, in canonical order) that it holds,
 * keeping the order; found[i] says whether doomed[i] was.  A merge of the
 * two sorted lists: equal samples are adjacent in both.  The samples left
 * in `set`.
 */
int64
samples_remove(Sample *set, int64 count, const Sample *doomed, int64 ndoomed, bool *found)
{
	int64		kept = 0;
	int64		d = 0;

	for (int64 i = 0; i < count; i++)
	{
		int			cmp = 1;

		while (d < ndoomed && (cmp = samples_compare(&doomed[d], &set[i])) < 0)
			found[d++] = false;
		if (d < ndoomed && cmp == 0)
			found[d++] = true;
		else
			set[kept++] = set[i];
	}
	while (d < ndoomed)
		found[d++] = false;
	return kept;
}

/* ---------------------------------------------------------------- writing */

typedef struct Writer
{
	uint8	   *data;			/* a varlena: VARHDRSZ bytes, then the value */
	Size		len;
	Size		capacity;
} Writer;

/* Room for `bytes` more bytes */
static inline void
writer_reserve(Writer *writer, Size bytes)
{
	if (unlikely(writer->len + bytes > writer->capacity))
	{
		writer->capacity = Max(writer->capacity * 2, writer->len + bytes);
		writer->data = repalloc_huge(writer->data, writer->capacity);
	}
}

static void
write_byte(Writer *writer, uint8 byte)
{
	writer_reserve(writer, 1);
	writer->data[writer->len++] = byte;
}

/* A varint takes at most 10 bytes: room is made once */
static inline void
write_varint(Writer *writer, uint64 value)
{
	uint8	   *out;

	writer_reserve(writer, 10);
	out = writer->data + writer->len;
	while (value >= 0x80)
	{
		*out++ = (uint8) (value | 0x80);
		value >>= 7;
	}
	*out++ = (uint8) value;
	writer->len = out - writer->data;
}

/*
 * The distinct values of `count` ids, ascending, in a new array; *distinct
 * gets their number.  Samples without times are in stack order already:
 * the sort returns after one pass over their stacks, as over any input in
 * order.
 */
static int64 *
distinct_ids(const Sample *samples, int64 count, bool labels, int64 *distinct)
{
	int64	   *ids = palloc_extended(sizeof(int64) * Max(count, 1), MCXT_ALLOC_HUGE);
	int64		n = 0;
	int64		kept = 0;

	for (int64 i = 0; i < count; i++)
	{
		if (!labels)
			ids[n++] = samples[i].stack_id;
		else if (samples[i].has_labels)
			ids[n++] = samples[i].labels_id;
	}
	if (n > 1)
		sort_ids(ids, (size_t) n);
	for (int64 i = 0; i < n; i++)
		if (kept == 0 || ids[i] != ids[kept - 1])
			ids[kept++] = ids[i];
	*distinct = kept;
	return ids;
}

/* The index of `id` in the ascending dictionary, where it is */
static int64
index_of(const int64 *dictionary, int64 count, int64 id)
{
	int64		low = 0;
	int64		high = count - 1;

	while (low < high)
	{
		int64		middle = low + (high - low) / 2;

		if (dictionary[middle] < id)
			low = middle + 1;
		else
			high = middle;
	}
	Assert(dictionary[low] == id);
	return low;
}

/*
 * The same, for ids met mostly in ascending order (the stacks of samples
 * without times): the index of the previous id, or the next, is tried
 * before bisecting.
 */
static inline int64
index_near(const int64 *dictionary, int64 count, int64 id, int64 previous)
{
	if (dictionary[previous] == id)
		return previous;
	if (previous + 1 < count && dictionary[previous + 1] == id)
		return previous + 1;
	return index_of(dictionary, count, id);
}

static void
write_dictionary(Writer *writer, const int64 *ids, int64 count)
{
	for (int64 i = 0; i < count; i++)
	{
		if (i == 0)
			write_varint(writer, zigzag(ids[0]));
		else
			write_varint(writer, (uint64) ids[i] - (uint64) ids[i - 1] - 1);
	}
}

static uint64
weight_unit(const Sample *samples, int64 count)
{
	uint64		unit = 0;

	for (int64 i = 0; i < count && unit != 1; i++)
		unit = gcd64(unit, magnitude(samples[i].weight));
	return unit == 0 ? 1 : unit;
}

/* The gcd of the time steps of the last `timed` samples */
static uint64
time_unit(const Sample *samples, int64 count, int64 timed)
{
	uint64		unit = 0;

	for (int64 i = count - timed + 1; i < count && unit != 1; i++)
		unit = gcd64(unit, (uint64) samples[i].ts - (uint64) samples[i - 1].ts);
	return unit == 0 ? 1 : unit;
}

static void
too_many_samples(int64 count)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("too many samples for one samples value: " INT64_FORMAT, count),
			 errdetail("A samples value holds at most " INT64_FORMAT " samples.", SAMPLES_MAX),
			 errhint("Pack a large set into several values, for example one per thread or per batch.")));
}

struct varlena *
samples_encode(Sample *samples, int64 count)
{
	Writer		writer;
	int64		nstacks;
	int64		nlabels;
	int64		timed = 0;
	int64	   *stacks;
	int64	   *labels;
	uint64		wunit;
	uint64		tunit = 1;
	int64		previous = 0;
	uint8		flags = 0;

	if (count > SAMPLES_MAX)
		too_many_samples(count);
	samples_sort(samples, count);
	while (timed < count && samples[count - 1 - timed].has_ts)
		timed++;
	stacks = distinct_ids(samples, count, false, &nstacks);
	labels = distinct_ids(samples, count, true, &nlabels);
	wunit = weight_unit(samples, count);
	if (timed > 0)
	{
		flags |= SAMPLES_HAS_TIMES;
		tunit = time_unit(samples, count, timed);
	}
	if (nlabels > 0)
		flags |= SAMPLES_HAS_LABELS;

	writer.capacity = VARHDRSZ + 64 + (Size) count * 3;
	writer.data = palloc_extended(writer.capacity, MCXT_ALLOC_HUGE);
	writer.len = VARHDRSZ;
	write_byte(&writer, SAMPLES_VERSION);
	write_byte(&writer, flags);
	write_varint(&writer, (uint64) count);
	write_varint(&writer, (uint64) nstacks);
	if (timed > 0)
		write_varint(&writer, (uint64) timed);
	if (nlabels > 0)
		write_varint(&writer, (uint64) nlabels);
	write_varint(&writer, wunit);
	if (timed > 0)
		write_varint(&writer, tunit);
	write_dictionary(&writer, stacks, nstacks);
	write_dictionary(&writer, labels, nlabels);

	for (int64 i = 0; i < count; i++)
	{
		int64		index = index_near(stacks, nstacks, samples[i].stack_id, previous);

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		write_varint(&writer, (uint64) (i < count - timed ? index - previous : index));
		previous = index;
	}
	for (int64 i = 0; i < count; i++)
	{
		uint64		scaled = magnitude(samples[i].weight) / wunit;

		write_varint(&writer, zigzag(signed_of(samples[i].weight < 0, scaled)));
	}
	for (int64 i = 0; i < count && nlabels > 0; i++)
		write_varint(&writer, samples[i].has_labels ?
					 (uint64) index_of(labels, nlabels, samples[i].labels_id) + 1 : 0);
	for (int64 i = count - timed; i < count; i++)
	{
		if (i == count - timed)
			write_varint(&writer, zigzag(samples[i].ts));
		else
			write_varint(&writer, ((uint64) samples[i].ts - (uint64) samples[i - 1].ts) / tunit);
	}

	pfree(stacks);
	pfree(labels);
	SET_VARSIZE(writer.data, writer.len);
	return (struct varlena *) writer.data;
}

/* ---------------------------------------------------------------- reading */

typedef struct Reader
{
	const uint8 *data;
	Size		len;
	Size		pos;
} Reader;

static pg_attribute_noreturn() pg_attribute_printf(2, 3) void
malformed(Size at, const char *fmt,...)
{
	char		detail[256];
	va_list		args;

	va_start(args, fmt);
	vsnprintf(detail, sizeof(detail), fmt, args);
	va_end(args);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("malformed samples value at byte %zu: %s", at, detail),
			 errhint(SAMPLES_HINT)));
}

static uint64 read_varint_checked(Reader *reader, const char *what);

/*
 * A varint: most of a value's are one byte (a stack a step from the last,
 * a weight of one period), read here without a call; the others, and every
 * error, by read_varint_checked.
 */
static inline uint64
read_varint(Reader *reader, const char *what)
{
	if (likely(reader->pos < reader->len))
	{
		uint8		byte = reader->data[reader->pos];

		if (likely(byte < 0x80))
		{
			reader->pos++;
			return byte;
		}
	}
	return read_varint_checked(reader, what);
}

static uint64
read_varint_checked(Reader *reader, const char *what)
{
	Size		start = reader->pos;
	uint64		value = 0;

	for (int i = 0;; i++)
	{
		uint8		byte;

		if (reader->pos >= reader->len)
			malformed(start, "truncated: the %s runs past the end of the value (%zu bytes)",
					  what, reader->len);
		byte = reader->data[reader->pos++];
		if (i == 9 && byte > 1)
			malformed(start, "the %s does not fit in 64 bits", what);
		value |= (uint64) (byte & 0x7F) << (7 * i);
		if (!(byte & 0x80))
		{
			if (byte == 0 && i > 0)
				malformed(start, "the %s is not written in its fewest bytes", what);
			return value;
		}
	}
}

/* Passes over `count` varints (a dictionary that is not needed) */
static void
skip_varints(Reader *reader, int64 count, const char *what)
{
	for (int64 k = 0; k < count; k++)
		(void) read_varint(reader, what);
}

/* A count between `min` and `max` */
static int64
read_count(Reader *reader, const char *what, int64 min, int64 max)
{
	Size		start = reader->pos;
	uint64		value = read_varint(reader, what);

	if (value < (uint64) min || value > (uint64) max)
		malformed(start, "the %s is " UINT64_FORMAT ", not between " INT64_FORMAT " and " INT64_FORMAT,
				  what, value, min, max);
	return (int64) value;
}

/* A unit: at least 1 */
static uint64
read_unit(Reader *reader, const char *what, Size *at)
{
	uint64		value;

	*at = reader->pos;
	value = read_varint(reader, what);
	if (value == 0)
		malformed(*at, "the %s is 0", what);
	return value;
}

static void
read_header(Reader *reader, SamplesHeader *header)
{
	Size		least;

	if (reader->len < 2)
		malformed(reader->len, "truncated: a header takes 2 bytes at least, the value has %zu", reader->len);
	if (reader->data[0] != SAMPLES_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported samples version %d at byte 0", reader->data[0]),
				 errhint("This server reads samples version %d.", SAMPLES_VERSION)));
	header->flags = reader->data[1];
	if (header->flags & ~SAMPLES_KNOWN_FLAGS)
		malformed(1, "unknown flags 0x%02x", header->flags & ~SAMPLES_KNOWN_FLAGS);
	reader->pos = 2;
	header->count = read_count(reader, "sample count", 0, SAMPLES_MAX);
	header->nstacks = read_count(reader, "stack count", header->count > 0 ? 1 : 0, header->count);
	header->ntimed = (header->flags & SAMPLES_HAS_TIMES) ?
		read_count(reader, "count of samples with a time", 1, header->count) : 0;
	header->nlabels = (header->flags & SAMPLES_HAS_LABELS) ?
		read_count(reader, "label set count", 1, header->count) : 0;
	header->weight_unit = read_unit(reader, "weight unit", &header->weight_unit_at);
	header->time_unit = 1;
	header->time_unit_at = reader->pos;
	if (header->flags & SAMPLES_HAS_TIMES)
		header->time_unit = read_unit(reader, "time unit", &header->time_unit_at);
	header->dictionaries = reader->pos;

	/* one byte at least per entry: checked before anything is allocated */
	least = (Size) header->nstacks + header->nlabels + header->ntimed +
		(Size) header->count * ((header->flags & SAMPLES_HAS_LABELS) ? 3 : 2);
	if (least > reader->len - reader->pos)
		malformed(reader->pos, "truncated: the counts need %zu bytes at least, %zu are left",
				  least, reader->len - reader->pos);
}

void
samples_read_header(const uint8 *data, Size len, SamplesHeader *header)
{
	Reader		reader = {data, len, 0};

	read_header(&reader, header);
}

/* `count` ids, strictly ascending, into ids[] */
static void
read_dictionary(Reader *reader, int64 count, const char *what, int64 *ids)
{
	for (int64 i = 0; i < count; i++)
	{
		Size		start = reader->pos;
		uint64		code = read_varint(reader, what);
		uint64		room;

		if (i == 0)
		{
			ids[0] = unzigzag(code);
			continue;
		}
		room = (uint64) PG_INT64_MAX - (uint64) ids[i - 1];
		if (code >= room)
			malformed(start, "the %s after " INT64_FORMAT " is beyond the bigint range", what, ids[i - 1]);
		ids[i] = (int64) ((uint64) ids[i - 1] + code + 1);
	}
}

/* weight = scaled * unit, or false when it does not fit in bigint */
static inline bool
unscale_weight(int64 scaled, uint64 unit, int64 *weight)
{
	uint64		m;

	if (likely(unit == 1))
	{
		*weight = scaled;
		return true;
	}
	m = magnitude(scaled);

	if (m != 0 && unit > ((uint64) 1 << 63) / m)
		return false;
	m *= unit;
	if (m > (uint64) PG_INT64_MAX && !(scaled < 0 && m == ((uint64) 1 << 63)))
		return false;
	*weight = signed_of(scaled < 0, m);
	return true;
}

/*
 * The stack column into index[]: each index below the stack count, and
 * those of the samples without a time in ascending order (their deltas
 * are unsigned, only the bound needs checking).
 */
static void
read_stack_column(Reader *reader, const SamplesHeader *header, int64 *index)
{
	int64		untimed = header->count - header->ntimed;
	int64		previous = 0;

	for (int64 i = 0; i < header->count; i++)
	{
		Size		start = reader->pos;
		uint64		code = read_varint(reader, "stack index");
		uint64		bound = (uint64) (header->nstacks - (i < untimed ? previous : 0));

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (code >= bound)
			malformed(start, "the stack of sample " INT64_FORMAT " is beyond the " INT64_FORMAT " stacks of the dictionary",
					  i, header->nstacks);
		index[i] = (int64) code + (i < untimed ? previous : 0);
		previous = index[i];
	}
}

/* The weight column into weight[], checking that the unit is their gcd */
static void
read_weight_column(Reader *reader, const SamplesHeader *header, int64 *weight)
{
	uint64		common = 0;

	for (int64 i = 0; i < header->count; i++)
	{
		Size		start = reader->pos;
		int64		scaled = unzigzag(read_varint(reader, "weight"));

		if (!unscale_weight(scaled, header->weight_unit, &weight[i]))
			malformed(start, "the weight of sample " INT64_FORMAT " times the unit " UINT64_FORMAT " is beyond the bigint range",
					  i, header->weight_unit);
		common = gcd64(common, magnitude(scaled));
	}
	if (common > 1 || (common == 0 && header->weight_unit != 1))
		malformed(header->weight_unit_at, "the weight unit " UINT64_FORMAT " is not the greatest common divisor of the weights",
				  header->weight_unit);
}

/* The offset of entry i of a column of varints starting at `start` (for errors) */
static Size
entry_offset(const Reader *reader, Size start, int64 i)
{
	Reader		scan = {reader->data, reader->len, start};

	for (int64 k = 0; k < i; k++)
		(void) read_varint(&scan, "entry");
	return scan.pos;
}

/*
 * Entry `index` of a dictionary is used by no sample: the error names it,
 * at its own offset (`skip` entries past the first dictionary's start:
 * the label set dictionary follows the stack dictionary's d entries).
 */
static void
unused_entry(const Reader *reader, const SamplesHeader *header, int64 skip,
			 const char *what, int64 index, int64 id)
{
	malformed(entry_offset(reader, header->dictionaries, skip + index),
			  "%s " INT64_FORMAT " (id " INT64_FORMAT ") is used by no sample", what, index, id);
}

static void
read_label_column(Reader *reader, const SamplesHeader *header, const int64 *dictionary, Sample *samples)
{
	bool	   *used = palloc_extended(sizeof(bool) * Max(header->nlabels, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	for (int64 i = 0; i < header->count; i++)
	{
		Size		start = reader->pos;
		uint64		code = header->nlabels > 0 ? read_varint(reader, "label set index") : 0;

		if (code > (uint64) header->nlabels)
			malformed(start, "the label set of sample " INT64_FORMAT " is beyond the " INT64_FORMAT " label sets of the dictionary",
					  i, header->nlabels);
		samples[i].has_labels = code > 0;
		samples[i].labels_id = code > 0 ? dictionary[code - 1] : 0;
		if (code > 0)
			used[code - 1] = true;
	}
	for (int64 k = 0; k < header->nlabels; k++)
		if (!used[k])
			unused_entry(reader, header, header->nstacks, "label set dictionary entry", k, dictionary[k]);
	pfree(used);
}

static void
read_time_column(Reader *reader, const SamplesHeader *header, Sample *samples)
{
	int64		first = header->count - header->ntimed;
	uint64		common = 0;

	for (int64 i = 0; i < header->count; i++)
	{
		samples[i].has_ts = i >= first;
		samples[i].ts = 0;
	}
	for (int64 i = first; i < header->count; i++)
	{
		Size		start = reader->pos;
		uint64		code = read_varint(reader, "time");
		uint64		room;

		if (i == first)
		{
			samples[i].ts = unzigzag(code);
			continue;
		}
		room = (uint64) PG_INT64_MAX - (uint64) samples[i - 1].ts;
		if (code != 0 && (header->time_unit > room / code))
			malformed(start, "the time of sample " INT64_FORMAT " is beyond the bigint range", i);
		samples[i].ts = (int64) ((uint64) samples[i - 1].ts + code * header->time_unit);
		common = gcd64(common, code);
	}
	if (common > 1 || (common == 0 && header->time_unit != 1))
		malformed(header->time_unit_at, "the time unit " UINT64_FORMAT " is not the greatest common divisor of the time steps",
				  header->time_unit);
}

/* Every sample in canonical order after the one before it */
static void
check_order(const Reader *reader, Size stack_column, const Sample *samples, int64 count)
{
	for (int64 i = 1; i < count; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (samples_compare(&samples[i - 1], &samples[i]) > 0)
			malformed(entry_offset(reader, stack_column, i),
					  "sample " INT64_FORMAT " is out of order: the samples without a time come first, ordered by stack, label set and weight, then the others by time, stack, label set and weight",
					  i);
	}
}

Sample *
samples_decode(const uint8 *data, Size len, int64 *count)
{
	Reader		reader = {data, len, 0};
	SamplesHeader header;
	int64	   *stacks;
	int64	   *labels;
	int64	   *index;
	int64	   *weight;
	bool	   *used;
	Sample	   *samples;
	Size		stack_column;

	read_header(&reader, &header);
	stacks = palloc_extended(sizeof(int64) * Max(header.nstacks, 1), MCXT_ALLOC_HUGE);
	labels = palloc_extended(sizeof(int64) * Max(header.nlabels, 1), MCXT_ALLOC_HUGE);
	read_dictionary(&reader, header.nstacks, "stack id", stacks);
	read_dictionary(&reader, header.nlabels, "label set id", labels);

	stack_column = reader.pos;
	index = palloc_extended(sizeof(int64) * Max(header.count, 1), MCXT_ALLOC_HUGE);
	weight = palloc_extended(sizeof(int64) * Max(header.count, 1), MCXT_ALLOC_HUGE);
	read_stack_column(&reader, &header, index);
	read_weight_column(&reader, &header, weight);

	samples = palloc_extended(sizeof(Sample) * Max(header.count, 1), MCXT_ALLOC_HUGE);
	used = palloc_extended(sizeof(bool) * Max(header.nstacks, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int64 i = 0; i < header.count; i++)
	{
		samples[i].stack_id = stacks[index[i]];
		samples[i].weight = weight[i];
		used[index[i]] = true;
	}
	for (int64 k = 0; k < header.nstacks; k++)
		if (!used[k])
			unused_entry(&reader, &header, 0, "stack dictionary entry", k, stacks[k]);
	read_label_column(&reader, &header, labels, samples);
	read_time_column(&reader, &header, samples);
	if (reader.pos != len)
		malformed(reader.pos, "trailing bytes: %zu after the last column", len - reader.pos);
	check_order(&reader, stack_column, samples, header.count);

	pfree(stacks);
	pfree(labels);
	pfree(index);
	pfree(weight);
	pfree(used);
	*count = header.count;
	return samples;
}

int64 *
samples_stack_ids(const uint8 *data, Size len, SamplesHeader *header)
{
	Reader		reader = {data, len, 0};
	int64	   *stacks;

	read_header(&reader, header);
	stacks = palloc_extended(sizeof(int64) * Max(header->nstacks, 1), MCXT_ALLOC_HUGE);
	read_dictionary(&reader, header->nstacks, "stack id", stacks);
	return stacks;
}

int64 *
samples_label_set_ids(const uint8 *data, Size len, SamplesHeader *header)
{
	Reader		reader = {data, len, 0};
	int64	   *labels;

	read_header(&reader, header);
	skip_varints(&reader, header->nstacks, "stack id");
	labels = palloc_extended(sizeof(int64) * Max(header->nlabels, 1), MCXT_ALLOC_HUGE);
	read_dictionary(&reader, header->nlabels, "label set id", labels);
	return labels;
}

int64
samples_stack_sums(const uint8 *data, Size len, int64 **ids, int64 **sums)
{
	Reader		reader = {data, len, 0};
	SamplesHeader header;
	int64	   *stacks;
	int64	   *index;
	int64	   *total;

	read_header(&reader, &header);
	stacks = palloc_extended(sizeof(int64) * Max(header.nstacks, 1), MCXT_ALLOC_HUGE);
	read_dictionary(&reader, header.nstacks, "stack id", stacks);
	skip_varints(&reader, header.nlabels, "label set id");
	index = palloc_extended(sizeof(int64) * Max(header.count, 1), MCXT_ALLOC_HUGE);
	read_stack_column(&reader, &header, index);

	total = palloc_extended(sizeof(int64) * Max(header.nstacks, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int64 i = 0; i < header.count; i++)
	{
		Size		start = reader.pos;
		int64		weight;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!unscale_weight(unzigzag(read_varint(&reader, "weight")), header.weight_unit, &weight))
			malformed(start, "the weight of sample " INT64_FORMAT " times the unit " UINT64_FORMAT " is beyond the bigint range",
					  i, header.weight_unit);
		total[index[i]] = calltree_add_weight(total[index[i]], weight);
	}
	pfree(index);
	*ids = stacks;
	*sums = total;
	return header.nstacks;
}
