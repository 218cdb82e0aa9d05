/*
 * samples.c
 *	  The codec of the samples value (samples.h): packing samples into the
 *	  layout samples.h documents, and reading it back, checking every byte.
 *	  No fmgr here, so that a fuzzing harness can run it.
 */
#include "postgres.h"

#include <stdarg.h>

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
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

/* The canonical order of two samples of one stack and time (or none) */
static inline int
order_in_stack(const Sample *x, const Sample *y)
{
	if (x->has_labels != y->has_labels)
		return x->has_labels ? 1 : -1;
	if (x->has_labels && x->labels_id != y->labels_id)
		return compare_int64(x->labels_id, y->labels_id);
	return compare_int64(x->weight, y->weight);
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
	return order_in_stack(x, y);
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

/* an order of samples, pointers into them, sorted likewise */
typedef Sample *SampleRef;

#define ST_SORT sort_order
#define ST_ELEMENT_TYPE SampleRef
#define ST_COMPARE(a, b) canonical_order(*(a), *(b))
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

/* the dictionary indexes of a column checked, not unpacked */
#define ST_SORT sort_indexes
#define ST_ELEMENT_TYPE uint32
#define ST_COMPARE(a, b) compare_int64(*(a), *(b))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

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

/*
 * Samples without a time are sorted first by their stack by grouping them:
 * a hash table gives each stack a group as it is first met, the groups
 * (the distinct stacks, a few hundred in an import) are sorted by a radix
 * sort over the bytes where their ids differ, and each sample is then
 * moved once, in place, to the place of its group (a counting sort over
 * the distinct stacks, not over the 64-bit ids).  The samples of one
 * stack, a few, are then sorted by comparison.  The sorted groups are the
 * stack dictionary of packing, which then costs nothing more.  Below
 * GROUPING_MIN samples comparing is as cheap.  The label sets of packing
 * are gathered by the same table: their dictionary and each sample's
 * index in it in one pass.
 */
#define GROUPING_MIN 64

/* The most bits of a digit of the radix sort of the groups */
#define GROUP_DIGIT_MAX 11

/*
 * The distinct keys met, each a group numbered in the order met, found by
 * an open-addressing table of at most half its slots used.  Counts are
 * int32: every caller groups fewer than 2^31 samples (samples_encode at
 * most SAMPLES_MAX, sample_face.c the rows of one array of row ids, under
 * 1 GB).
 */
typedef struct KeyGroups
{
	uint64	   *keys;			/* group -> its key */
	int32	   *sizes;			/* group -> the samples of its key */
	int32		count;
	int32		capacity;
	int32	   *slots;			/* a group, or -1 for none */
	int			slot_bits;
} KeyGroups;

/* The slot of a key, Fibonacci hashing (the high bits of a product) */
static inline uint32
slot_of(uint64 key, int bits)
{
	return (uint32) ((key * UINT64CONST(0x9E3779B97F4A7C15)) >> (64 - bits));
}

/* A table of 2^bits slots for the groups */
static void
groups_rehash(KeyGroups *groups, int bits)
{
	uint32		mask = ((uint32) 1 << bits) - 1;

	if (groups->slots != NULL)
		pfree(groups->slots);
	groups->slots = palloc_extended(sizeof(int32) << bits, MCXT_ALLOC_HUGE);
	memset(groups->slots, 0xFF, sizeof(int32) << bits);
	groups->slot_bits = bits;
	for (int32 g = 0; g < groups->count; g++)
	{
		uint32		slot = slot_of(groups->keys[g], bits);

		while (groups->slots[slot] >= 0)
			slot = (slot + 1) & mask;
		groups->slots[slot] = g;
	}
}

/* Groups for about `expected` distinct keys (they grow past it) */
static void
groups_init(KeyGroups *groups, int64 expected)
{
	groups->capacity = (int32) Max(Min(expected, 1024), 16);
	groups->keys = palloc(sizeof(uint64) * groups->capacity);
	groups->sizes = palloc(sizeof(int32) * groups->capacity);
	groups->count = 0;
	groups->slots = NULL;
	groups_rehash(groups, pg_leftmost_one_pos64((uint64) groups->capacity * 2 - 1) + 1);
}

static void
groups_free(KeyGroups *groups)
{
	pfree(groups->keys);
	pfree(groups->sizes);
	pfree(groups->slots);
}

/* A new group for `key`, which `slot` is free for */
static pg_noinline int32
groups_add(KeyGroups *groups, uint64 key, uint32 slot)
{
	int32		g = groups->count++;

	if (g == groups->capacity)
	{
		groups->capacity *= 2;
		groups->keys = repalloc_huge(groups->keys, sizeof(uint64) * groups->capacity);
		groups->sizes = repalloc_huge(groups->sizes, sizeof(int32) * groups->capacity);
	}
	groups->keys[g] = key;
	groups->sizes[g] = 1;
	groups->slots[slot] = g;
	if ((uint64) groups->count * 2 > ((uint64) 1 << groups->slot_bits))
		groups_rehash(groups, groups->slot_bits + 1);
	return g;
}

/* The group of `key`, made if it is new; counts one sample of it */
static inline int32
group_of(KeyGroups *groups, uint64 key)
{
	uint32		mask = ((uint32) 1 << groups->slot_bits) - 1;
	uint32		slot = slot_of(key, groups->slot_bits);
	int32		g;

	while ((g = groups->slots[slot]) >= 0)
	{
		if (groups->keys[g] == key)
		{
			groups->sizes[g]++;
			return g;
		}
		slot = (slot + 1) & mask;
	}
	return groups_add(groups, key, slot);
}

/* One pass of groups_in_order: `from` into `to` by the digit at `shift` */
static void
digit_pass(const KeyGroups *groups, const int32 *from, int32 *to, int shift, int bits)
{
	int32		next[1 << GROUP_DIGIT_MAX];
	uint64		mask = ((uint64) 1 << bits) - 1;

	memset(next, 0, sizeof(int32) << bits);
	for (int32 k = 0; k < groups->count; k++)
		next[(groups->keys[from[k]] >> shift) & mask]++;
	for (int32 d = 0, at = 0; d <= (int32) mask; d++)
	{
		int32		size = next[d];

		next[d] = at;
		at += size;
	}
	for (int32 k = 0; k < groups->count; k++)
		to[next[(groups->keys[from[k]] >> shift) & mask]++] = from[k];
}

/*
 * The groups in the order of their keys, in a new array: a radix sort,
 * least significant digit first, over the bits where some keys differ, in
 * digits of about as many buckets as there are groups, at most
 * GROUP_DIGIT_MAX bits (two for the few hundred stacks of an import,
 * interned together)
 */
static int32 *
groups_in_order(const KeyGroups *groups)
{
	int32		n = groups->count;
	int32	   *order = palloc(sizeof(int32) * Max(n, 1));
	int32	   *other = palloc(sizeof(int32) * Max(n, 1));
	uint64		differ = 0;
	int			digit_max = Min(Max(pg_leftmost_one_pos32(Max(n, 1)) + 1, 4), GROUP_DIGIT_MAX);
	int			low;
	int			span;
	int			digits;

	for (int32 g = 0; g < n; g++)
	{
		order[g] = g;
		differ |= groups->keys[g] ^ groups->keys[0];
	}
	if (differ == 0)
	{
		pfree(other);
		return order;
	}
	low = pg_rightmost_one_pos64(differ);
	span = pg_leftmost_one_pos64(differ) + 1 - low;
	digits = (span + digit_max - 1) / digit_max;
	for (int d = 0; d < digits; d++)
	{
		int			bits = (d + 1) * span / digits - d * span / digits;
		int32	   *swap;

		digit_pass(groups, order, other, low, bits);
		low += bits;
		swap = order;
		order = other;
		other = swap;
	}
	pfree(other);
	return order;
}

/*
 * A group's few samples, all of one stack, in canonical order; more than
 * a few (a profile of few stacks) by the sort of the whole order
 */
static inline void
sort_group(Sample **group, int32 count)
{
	if (count > 8)
	{
		sort_order(group, (size_t) count);
		return;
	}
	for (int32 i = 1; i < count; i++)
	{
		Sample	   *sample = group[i];
		int32		j = i;

		for (; j > 0 && order_in_stack(group[j - 1], sample) > 0; j--)
			group[j] = group[j - 1];
		group[j] = sample;
	}
}

/*
 * The order of `count` >= 2 samples without a time: sorted[] gets them in
 * canonical order; the distinct stack ids, ascending, in a new array,
 * *nstacks their number
 */
static int64 *
order_by_stack(Sample *samples, int64 count, Sample **sorted, int64 *nstacks)
{
	KeyGroups	groups;
	int32	   *group = palloc_extended(sizeof(int32) * count, MCXT_ALLOC_HUGE);
	int32	   *order;
	int64	   *stacks;
	int32		from = 0;

	StaticAssertStmt(SAMPLES_MAX <= PG_INT32_MAX, "samples counted in int32");
	/* the samples of a stack are a few, two or three in an import */
	groups_init(&groups, count / 2);
	for (int64 i = 0; i < count; i++)
		group[i] = group_of(&groups, stack_key(&samples[i]));
	order = groups_in_order(&groups);
	/* each group's first place; sizes[] become where its next sample goes */
	stacks = palloc(sizeof(int64) * groups.count);
	for (int32 k = 0, at = 0; k < groups.count; k++)
	{
		int32		g = order[k];
		int32		size = groups.sizes[g];

		stacks[k] = (int64) (groups.keys[g] ^ ((uint64) 1 << 63));
		groups.sizes[g] = at;
		at += size;
	}
	/* the samples of a group in the order met */
	for (int64 i = 0; i < count; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		sorted[groups.sizes[group[i]]++] = &samples[i];
	}
	/* sizes[] are now where each group ends */
	for (int32 k = 0; k < groups.count; k++)
	{
		int32		end = groups.sizes[order[k]];

		sort_group(sorted + from, end - from);
		from = end;
	}
	*nstacks = groups.count;
	pfree(order);
	pfree(group);
	groups_free(&groups);
	return stacks;
}

/*
 * The canonical order of the samples: sorted[] gets them in it, pointers
 * into samples[], which are moved only to put those without a time first.
 * When the samples without a time were grouped by stack, the distinct
 * stacks of those, ascending, in a new array (*nstacks their number), else
 * NULL.
 */
static int64 *
order_samples(Sample *samples, int64 count, Sample **sorted, int64 *nstacks)
{
	int64		untimed = 0;
	int64	   *stacks = NULL;
	bool		in_order = count < GROUPING_MIN;

	if (count < GROUPING_MIN && count > 1)
		sort_canonical(samples, (size_t) count);
	for (int64 i = 1; !in_order && canonical_order(&samples[i - 1], &samples[i]) <= 0; i++)
		if (i == count - 1)
			in_order = true;
	if (!in_order)
	{
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
	}
	if (untimed > 1)
		stacks = order_by_stack(samples, untimed, sorted, nstacks);
	for (int64 i = untimed > 1 ? untimed : 0; i < count; i++)
		sorted[i] = &samples[i];
	return stacks;
}

void
samples_sort(Sample *samples, int64 count)
{
	Sample	  **sorted = palloc_extended(sizeof(Sample *) * Max(count, 1), MCXT_ALLOC_HUGE);
	Sample	   *copy;
	int64		nstacks;
	int64	   *stacks = order_samples(samples, count, sorted, &nstacks);

	if (stacks != NULL)
	{
		copy = palloc_extended(sizeof(Sample) * count, MCXT_ALLOC_HUGE);
		for (int64 i = 0; i < count; i++)
			copy[i] = *sorted[i];
		memcpy(samples, copy, sizeof(Sample) * count);
		pfree(copy);
		pfree(stacks);
	}
	pfree(sorted);
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

/* ---------------------------------------------------------------- columns */

/*
 * A column of the layout: what its entries are called in errors, and
 * whether its values are signed (the weights) or not (all the others).
 * The codec carries a column's values as keys: an unsigned value is its
 * own key, a signed one has its sign bit flipped, so that keys order as
 * the values do and a frame's offsets are (key - base) in both cases.
 */
typedef struct ColumnKind
{
	const char *column;			/* "weight column", for the errors of the column */
	const char *entry;			/* "weight", for those of one of its values */
	bool		is_signed;
} ColumnKind;

static const ColumnKind STACK_GAPS = {"stack dictionary", "stack id", false};
static const ColumnKind LABEL_GAPS = {"label set dictionary", "label set id", false};
static const ColumnKind STACK_STEPS = {"stack column", "stack index", false};
static const ColumnKind TIMED_STACKS = {"stack column of the timed samples", "stack index", false};
static const ColumnKind WEIGHTS = {"weight column", "weight", true};
static const ColumnKind LABEL_CODES = {"label column", "label set index", false};
static const ColumnKind TIME_STEPS = {"time column", "time step", false};

#define SIGN_BIT	((uint64) 1 << 63)

static inline uint64
key_of_signed(int64 value)
{
	return (uint64) value ^ SIGN_BIT;
}

static inline int64
signed_of_key(uint64 key)
{
	return (int64) (key ^ SIGN_BIT);
}

/* What a varint of the column (or a frame's base) holds for a key */
static inline uint64
code_of_key(const ColumnKind *kind, uint64 key)
{
	return kind->is_signed ? zigzag(signed_of_key(key)) : key;
}

static inline uint64
key_of_code(const ColumnKind *kind, uint64 code)
{
	return kind->is_signed ? key_of_signed(unzigzag(code)) : code;
}

/* The bits x needs: 0 for 0 */
static inline int
bit_width(uint64 x)
{
	return x == 0 ? 0 : pg_leftmost_one_pos64(x) + 1;
}

static inline Size
varint_size(uint64 value)
{
	return (bit_width(value | 1) + 6) / 7;
}

/* The bytes of count values of `width` bits */
static inline Size
bits_size(int64 count, int width)
{
	return ((Size) count * width + 7) / 8;
}

/*
 * The gamma code of an offset: x = offset + 1 of b bits (b <= 28) takes
 * 2b - 1 bits: b - 1 zeros, a one, then the b - 1 bits of x under its
 * highest, least significant first.
 */
#define GAMMA_MAX_OFFSET	(((uint64) 1 << SAMPLES_GAMMA_MAX_BITS) - 2)

static inline int
gamma_bits(uint64 offset)
{
	return 2 * bit_width(offset + 1) - 1;
}

/* The bytes of the gamma codes of the keys' offsets from `base` */
static Size
gamma_size(const uint64 *keys, int64 count, uint64 base)
{
	uint64		bits = 0;

	/* 2b - 1 bits each, b the bits of offset + 1 >= 1 */
	for (int64 i = 0; i < count; i++)
		bits += 2 * pg_leftmost_one_pos64(keys[i] - base + 1) + 1;
	return (Size) ((bits + 7) / 8);
}

/* The bytes of the keys written as varints */
static Size
varints_size(const ColumnKind *kind, const uint64 *keys, int64 count)
{
	Size		total = 0;

	for (int64 i = 0; i < count; i++)
		total += varint_size(code_of_key(kind, keys[i]));
	return total;
}

typedef enum ColumnCoding
{
	CODING_FRAME,
	CODING_GAMMA,
	CODING_VARINTS
} ColumnCoding;

static const char *const CODING_NAMES[] = {"bit-packed", "gamma-coded", "as varints"};

/*
 * A column to read again from its bytes, when its keys are not held
 * (checking a value without unpacking it): the reading section defines it
 */
typedef struct ColumnSource ColumnSource;
static Size source_gamma_size(const ColumnSource *source, int64 count, uint64 base);
static Size source_varints_size(const ColumnSource *source, int64 count);

/* How a column of two values or more is written, and its bytes after the tag */
typedef struct ColumnChoice
{
	ColumnCoding coding;
	uint64		base;			/* the least key */
	int			width;			/* the fewest bits that hold every offset */
	Size		bytes;
} ColumnChoice;

/*
 * The canonical coding of a column of `count` >= 2 keys, `least` and
 * `most` the least and the largest: the one of fewest bytes, a frame of
 * reference on a tie, then gamma codes.  Gamma codes take a bit each at
 * least and varints a byte, so a coding is counted only when it might
 * win; one that cannot counts as SIZE_MAX.  `gamma_known` is the bytes of
 * the gamma codes when the caller has read them, else 0.  The keys are
 * keys[], or when keys is NULL those that `source` reads again.
 */
static ColumnChoice
choose_coding(const ColumnKind *kind, const uint64 *keys, const ColumnSource *source,
			  int64 count, uint64 least, uint64 most, Size gamma_known)
{
	ColumnChoice choice;
	Size		base_bytes = varint_size(code_of_key(kind, least));
	Size		framed;
	Size		gamma = SIZE_MAX;
	Size		varints = SIZE_MAX;

	choice.base = least;
	choice.width = bit_width(most - least);
	framed = base_bytes + bits_size(count, choice.width);
	if (gamma_known > 0)
		gamma = gamma_known;
	else if (most - least <= GAMMA_MAX_OFFSET && framed > base_bytes + bits_size(count, 1))
		gamma = base_bytes + (keys ? gamma_size(keys, count, least) : source_gamma_size(source, count, least));
	if (Min(framed, gamma) > (Size) count)
		varints = keys ? varints_size(kind, keys, count) : source_varints_size(source, count);

	if (framed <= gamma && framed <= varints)
		choice.coding = CODING_FRAME, choice.bytes = framed;
	else if (gamma <= varints)
		choice.coding = CODING_GAMMA, choice.bytes = gamma;
	else
		choice.coding = CODING_VARINTS, choice.bytes = varints;
	return choice;
}

/* 8 bytes as a little-endian word, those past `len` read as zeros */
static inline uint64
load_le64(const uint8 *data, Size len, Size at)
{
	uint64		word = 0;

	if (likely(at + 8 <= len))
		memcpy(&word, data + at, 8);
	else if (at < len)
		memcpy(&word, data + at, len - at);
#ifdef WORDS_BIGENDIAN
	word = pg_bswap64(word);
#endif
	return word;
}

static inline void
store_le64(uint8 *out, uint64 word)
{
#ifdef WORDS_BIGENDIAN
	word = pg_bswap64(word);
#endif
	memcpy(out, &word, 8);
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
 * Bits gathered in a word and written 8 bytes at a time, least
 * significant first; the room reserved has 8 bytes to spare for the last,
 * partial word.
 */
typedef struct BitWriter
{
	uint8	   *out;
	uint64		word;
	int			filled;
} BitWriter;

/* Appends the `len` (1 to 64) bits of `field` */
static inline void
put_bits(BitWriter *bits, uint64 field, int len)
{
	bits->word |= field << bits->filled;
	bits->filled += len;
	if (bits->filled >= 64)
	{
		store_le64(bits->out, bits->word);
		bits->out += 8;
		bits->filled -= 64;
		bits->word = bits->filled > 0 ? field >> (len - bits->filled) : 0;
	}
}

/* A frame: each key's offset from the base in `width` bits */
static void
write_frame(Writer *writer, const uint64 *keys, int64 count, const ColumnChoice *choice)
{
	BitWriter	bits = {writer->data + writer->len, 0, 0};

	for (int64 i = 0; i < count && choice->width > 0; i++)
		put_bits(&bits, keys[i] - choice->base, choice->width);
	store_le64(bits.out, bits.word);
}

/* Gamma codes: each key's offset from the base as samples.h says */
static void
write_gamma(Writer *writer, const uint64 *keys, int64 count, const ColumnChoice *choice)
{
	BitWriter	bits = {writer->data + writer->len, 0, 0};

	for (int64 i = 0; i < count; i++)
	{
		uint64		x = keys[i] - choice->base + 1;
		int			high = bit_width(x) - 1;

		put_bits(&bits, ((x ^ ((uint64) 1 << high)) << (high + 1)) | ((uint64) 1 << high), 2 * high + 1);
	}
	store_le64(bits.out, bits.word);
}

/*
 * The keys of a column as they are made, with the least and the largest,
 * kept as they come rather than found by another pass
 */
typedef struct ColumnKeys
{
	uint64	   *keys;
	int64		count;
	uint64		least;
	uint64		most;
} ColumnKeys;

static inline ColumnKeys
column_keys(uint64 *room)
{
	ColumnKeys	column = {room, 0, PG_UINT64_MAX, 0};

	return column;
}

static inline void
column_put(ColumnKeys *column, uint64 key)
{
	column->keys[column->count++] = key;
	column->least = Min(column->least, key);
	column->most = Max(column->most, key);
}

/*
 * A column of keys in its canonical coding: nothing when empty, the one
 * value's varint when it has one, else a tag byte and the coding
 * choose_coding picks.
 */
static void
write_column(Writer *writer, const ColumnKind *kind, const ColumnKeys *column)
{
	const uint64 *keys = column->keys;
	int64		count = column->count;
	ColumnChoice choice;

	if (count == 0)
		return;
	if (count == 1)
	{
		write_varint(writer, code_of_key(kind, keys[0]));
		return;
	}
	choice = choose_coding(kind, keys, NULL, count, column->least, column->most, 0);
	if (choice.coding == CODING_VARINTS)
	{
		write_byte(writer, SAMPLES_VARINTS);
		for (int64 i = 0; i < count; i++)
			write_varint(writer, code_of_key(kind, keys[i]));
		return;
	}
	write_byte(writer, choice.coding == CODING_FRAME ? (uint8) choice.width : SAMPLES_GAMMA);
	write_varint(writer, code_of_key(kind, choice.base));
	writer_reserve(writer, choice.bytes + 8);
	if (choice.coding == CODING_FRAME)
		write_frame(writer, keys, count, &choice);
	else
		write_gamma(writer, keys, count, &choice);
	writer->len += choice.bytes - varint_size(code_of_key(kind, choice.base));
}

/*
 * The distinct stack ids of `count` samples, ascending, in a new array;
 * *distinct gets their number.  Samples without times are in stack order
 * already: a run of one stack is kept once, and the sort returns after one
 * pass over the stacks, as over any input in order.
 */
static int64 *
distinct_ids(Sample *const *sorted, int64 count, int64 *distinct)
{
	int64	   *ids = palloc_extended(sizeof(int64) * Max(count, 1), MCXT_ALLOC_HUGE);
	int64		n = 0;
	int64		kept = 0;

	for (int64 i = 0; i < count; i++)
	{
		/* a run of one id kept once */
		if (n == 0 || ids[n - 1] != sorted[i]->stack_id)
			ids[n++] = sorted[i]->stack_id;
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

/* zigzag(first id), then the column of the gaps (id - previous id - 1) */
static void
write_dictionary(Writer *writer, const ColumnKind *kind, const int64 *ids, int64 count, uint64 *scratch)
{
	ColumnKeys	gaps = column_keys(scratch);

	if (count == 0)
		return;
	write_varint(writer, zigzag(ids[0]));
	for (int64 i = 1; i < count; i++)
		column_put(&gaps, (uint64) ids[i] - (uint64) ids[i - 1] - 1);
	write_column(writer, kind, &gaps);
}

/*
 * The stack column: the index steps of the samples without a time, then
 * the indexes of those with one
 */
static void
write_stack_column(Writer *writer, Sample *const *sorted, int64 count, int64 timed,
				   const int64 *stacks, int64 nstacks, uint64 *scratch)
{
	int64		untimed = count - timed;
	int64		previous = 0;
	ColumnKeys	steps = column_keys(scratch);
	ColumnKeys	indexes = column_keys(scratch + untimed);

	for (int64 i = 0; i < count; i++)
	{
		int64		index = index_near(stacks, nstacks, sorted[i]->stack_id, previous);

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i < untimed)
			column_put(&steps, (uint64) (index - previous));
		else
			column_put(&indexes, (uint64) index);
		previous = index;
	}
	write_column(writer, &STACK_STEPS, &steps);
	write_column(writer, &TIMED_STACKS, &indexes);
}

static void
write_weight_column(Writer *writer, Sample *const *sorted, int64 count, uint64 unit, uint64 *scratch)
{
	ColumnKeys	weights = column_keys(scratch);

	for (int64 i = 0; i < count; i++)
	{
		uint64		scaled = magnitude(sorted[i]->weight) / unit;

		column_put(&weights, key_of_signed(signed_of(sorted[i]->weight < 0, scaled)));
	}
	write_column(writer, &WEIGHTS, &weights);
}

/*
 * The label sets of the samples: their distinct ids, ascending, in a new
 * array (*nlabels their number), and in codes[] each sample's index in
 * it plus one, 0 for a sample without one
 */
static int64 *
label_dictionary(Sample *const *sorted, int64 count, int32 *codes, int64 *nlabels)
{
	KeyGroups	groups;
	int32	   *order;
	int32	   *index;
	int64	   *labels;

	groups_init(&groups, 16);
	for (int64 i = 0; i < count; i++)
		codes[i] = sorted[i]->has_labels ? group_of(&groups, key_of_signed(sorted[i]->labels_id)) + 1 : 0;
	order = groups_in_order(&groups);
	index = palloc(sizeof(int32) * Max(groups.count, 1));
	labels = palloc(sizeof(int64) * Max(groups.count, 1));
	for (int32 k = 0; k < groups.count; k++)
	{
		labels[k] = signed_of_key(groups.keys[order[k]]);
		index[order[k]] = k;
	}
	for (int64 i = 0; i < count; i++)
		if (codes[i] > 0)
			codes[i] = index[codes[i] - 1] + 1;
	*nlabels = groups.count;
	pfree(index);
	pfree(order);
	groups_free(&groups);
	return labels;
}

static void
write_label_column(Writer *writer, const int32 *codes, int64 count, uint64 *scratch)
{
	ColumnKeys	column = column_keys(scratch);

	for (int64 i = 0; i < count; i++)
		column_put(&column, (uint64) codes[i]);
	write_column(writer, &LABEL_CODES, &column);
}

/* zigzag(first time), then the column of the steps over the unit */
static void
write_time_column(Writer *writer, Sample *const *sorted, int64 count, int64 timed,
				  uint64 unit, uint64 *scratch)
{
	int64		first = count - timed;
	ColumnKeys	steps = column_keys(scratch);

	write_varint(writer, zigzag(sorted[first]->ts));
	for (int64 i = first + 1; i < count; i++)
		column_put(&steps, ((uint64) sorted[i]->ts - (uint64) sorted[i - 1]->ts) / unit);
	write_column(writer, &TIME_STEPS, &steps);
}

static uint64
weight_unit(Sample *const *sorted, int64 count)
{
	uint64		unit = 0;

	for (int64 i = 0; i < count && unit != 1; i++)
	{
		uint64		m = magnitude(sorted[i]->weight);

		/* most weights are a multiple of the unit found: a division, not two */
		if (unit == 0 || m % unit != 0)
			unit = gcd64(unit, m);
	}
	return unit == 0 ? 1 : unit;
}

/* The gcd of the time steps of the last `timed` samples */
static uint64
time_unit(Sample *const *sorted, int64 count, int64 timed)
{
	uint64		unit = 0;

	for (int64 i = count - timed + 1; i < count && unit != 1; i++)
		unit = gcd64(unit, (uint64) sorted[i]->ts - (uint64) sorted[i - 1]->ts);
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
	Sample	  **sorted;
	int32	   *label_codes;
	uint64	   *scratch;
	uint64		wunit;
	uint64		tunit = 1;
	uint8		flags = 0;

	if (count > SAMPLES_MAX)
		too_many_samples(count);
	sorted = palloc_extended(sizeof(Sample *) * Max(count, 1), MCXT_ALLOC_HUGE);
	stacks = order_samples(samples, count, sorted, &nstacks);
	while (timed < count && sorted[count - 1 - timed]->has_ts)
		timed++;
	/* the stacks of timed samples are not among those grouped */
	if (stacks == NULL || timed > 0)
	{
		if (stacks != NULL)
			pfree(stacks);
		stacks = distinct_ids(sorted, count, &nstacks);
	}
	label_codes = palloc_extended(sizeof(int32) * Max(count, 1), MCXT_ALLOC_HUGE);
	labels = label_dictionary(sorted, count, label_codes, &nlabels);
	wunit = weight_unit(sorted, count);
	if (timed > 0)
	{
		flags |= SAMPLES_HAS_TIMES;
		tunit = time_unit(sorted, count, timed);
	}
	if (nlabels > 0)
		flags |= SAMPLES_HAS_LABELS;

	writer.capacity = VARHDRSZ + 64 + (Size) count * 2;
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

	/* every column has at most count values, written one after the other */
	scratch = palloc_extended(sizeof(uint64) * Max(count, 1), MCXT_ALLOC_HUGE);
	write_dictionary(&writer, &STACK_GAPS, stacks, nstacks, scratch);
	write_dictionary(&writer, &LABEL_GAPS, labels, nlabels, scratch);
	write_stack_column(&writer, sorted, count, timed, stacks, nstacks, scratch);
	write_weight_column(&writer, sorted, count, wunit, scratch);
	if (nlabels > 0)
		write_label_column(&writer, label_codes, count, scratch);
	if (timed > 0)
		write_time_column(&writer, sorted, count, timed, tunit, scratch);

	pfree(scratch);
	pfree(stacks);
	pfree(labels);
	pfree(label_codes);
	pfree(sorted);
	SET_VARSIZE(writer.data, writer.len);
	return (struct varlena *) writer.data;
}

/* ---------------------------------------------------------------- reading */

typedef struct Reader
{
	const uint8 *data;
	Size		len;
	Size		pos;
	/*
	 * The value was checked whole when it was made (by the packer, or by
	 * the type's input or receive function on its way in): a column's
	 * coding is not counted again against the other codings.  Whatever a
	 * read relies on (lengths, tags, indexes, ranges) is checked as ever.
	 */
	bool		codings_known;
} Reader;

/* Where a column is, for the offsets of errors about its values */
typedef struct ColumnPlace
{
	const ColumnKind *kind;
	Size		at;				/* its tag, or its one varint */
	Size		base;			/* a frame's or gamma codes' base */
	Size		values;			/* its first varint, or its bits */
	ColumnCoding coding;		/* CODING_VARINTS also for one value */
	int			width;			/* a frame's */
	uint64		least;			/* its least and largest keys (0 when empty) */
	uint64		most;
} ColumnPlace;

/* Where a dictionary is: its first id, then the column of the gaps */
typedef struct DictionaryPlace
{
	Size		first;
	int64		first_id;		/* set by scan_dictionary only */
	ColumnPlace gaps;
} DictionaryPlace;

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
 * A varint: most of the varints of a value are one byte, read here
 * without a call; the others, and every error, by read_varint_checked.
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
}

void
samples_read_header(const uint8 *data, Size len, SamplesHeader *header)
{
	Reader		reader = {data, len, 0};

	read_header(&reader, header);
}

/*
 * Bits read from a bit position on, a word at a time: `word` holds the
 * bits from `pos` on, `avail` of them loaded (57 to 64 after a refill);
 * the bits past the value read as zeros.
 */
typedef struct BitReader
{
	const uint8 *data;
	Size		len;
	uint64		pos;			/* in bits from data[0] */
	uint64		word;
	int			avail;
} BitReader;

static inline void
bits_refill(BitReader *bits)
{
	bits->word = load_le64(bits->data, bits->len, (Size) (bits->pos >> 3)) >> (bits->pos & 7);
	bits->avail = 64 - (int) (bits->pos & 7);
}

static inline void
bits_start(BitReader *bits, const Reader *reader)
{
	bits->data = reader->data;
	bits->len = reader->len;
	bits->pos = (uint64) reader->pos * 8;
	bits_refill(bits);
}

/* Passes over n (below 64) bits already loaded */
static inline void
bits_skip(BitReader *bits, int n)
{
	bits->word >>= n;
	bits->avail -= n;
	bits->pos += n;
}

/* The next value of a frame of `width` bits, 1 to 56 */
static inline uint64
frame_next(BitReader *bits, int width, uint64 mask)
{
	uint64		value;

	if (unlikely(bits->avail < width))
		bits_refill(bits);
	value = bits->word & mask;
	bits_skip(bits, width);
	return value;
}

/* The next value of a frame of `width` bits, 57 to 64: it may span 9 bytes */
static inline uint64
frame_next_wide(BitReader *bits, int width, uint64 mask)
{
	Size		at = (Size) (bits->pos >> 3);
	int			shift = bits->pos & 7;
	uint64		value = load_le64(bits->data, bits->len, at) >> shift;

	if (shift + width > 64)
		value |= (uint64) bits->data[at + 8] << (64 - shift);
	bits->pos += width;
	return value & mask;
}

/*
 * The offset of the next gamma code.  Its one bit is searched for among
 * the loaded bits, up to the 29th (a bit set there for the search only);
 * a code that the loaded bits may not hold whole is searched for again
 * after a refill, which loads more than the longest code.
 */
static inline uint64
gamma_next(BitReader *bits, const ColumnKind *kind)
{
	const uint64 stop = (uint64) 1 << SAMPLES_GAMMA_MAX_BITS;
	int			high = pg_rightmost_one_pos64(bits->word | stop);
	uint64		offset;

	if (unlikely(2 * high + 1 > bits->avail))
	{
		bits_refill(bits);
		high = pg_rightmost_one_pos64(bits->word | stop);
	}
	if (unlikely(high == SAMPLES_GAMMA_MAX_BITS))
	{
		if (bits->pos + SAMPLES_GAMMA_MAX_BITS > (uint64) bits->len * 8)
			malformed((Size) (bits->pos >> 3), "truncated: a gamma code of the %s runs past the end of the value (%zu bytes)",
					  kind->column, bits->len);
		malformed((Size) (bits->pos >> 3), "a gamma code of the %s is longer than %d bits",
				  kind->column, 2 * SAMPLES_GAMMA_MAX_BITS - 1);
	}
	offset = (((uint64) 1 << high) | ((bits->word >> (high + 1)) & (((uint64) 1 << high) - 1))) - 1;
	bits_skip(bits, 2 * high + 1);
	return offset;
}

/*
 * A cursor over a column's values, read again from the bytes one at a
 * time, nothing kept: what checks a value without unpacking it.  It reads
 * base + offset for a frame or gamma codes (base 0: the offsets), the keys
 * of varints, and the one varint of a column of one value.
 */
typedef struct ColumnCursor
{
	const ColumnKind *kind;
	ColumnCoding coding;
	int			width;
	uint64		mask;
	uint64		base;
	Reader		varints;
	BitReader	bits;
} ColumnCursor;

static void
cursor_start(ColumnCursor *cursor, const Reader *reader, const ColumnPlace *place, uint64 base)
{
	Reader		values = {reader->data, reader->len, place->values};

	cursor->kind = place->kind;
	cursor->coding = place->coding;
	cursor->width = place->width;
	cursor->mask = place->width == 64 ? PG_UINT64_MAX : ((uint64) 1 << place->width) - 1;
	cursor->base = base;
	cursor->varints = values;
	if (place->coding != CODING_VARINTS)
		bits_start(&cursor->bits, &values);
}

static inline uint64
cursor_next(ColumnCursor *cursor)
{
	switch (cursor->coding)
	{
		case CODING_FRAME:
			if (cursor->width == 0)
				return cursor->base;
			return cursor->base + (cursor->width <= 56 ?
								   frame_next(&cursor->bits, cursor->width, cursor->mask) :
								   frame_next_wide(&cursor->bits, cursor->width, cursor->mask));
		case CODING_GAMMA:
			return cursor->base + gamma_next(&cursor->bits, cursor->kind);
		case CODING_VARINTS:
			break;
	}
	return key_of_code(cursor->kind, read_varint(&cursor->varints, cursor->kind->entry));
}

/* A column read (its place known), for what choose_coding counts again */
struct ColumnSource
{
	const Reader *reader;
	const ColumnPlace *place;
};

static Size
source_gamma_size(const ColumnSource *source, int64 count, uint64 base)
{
	ColumnCursor cursor;
	uint64		bits = 0;

	cursor_start(&cursor, source->reader, source->place, source->place->least);
	for (int64 i = 0; i < count; i++)
		bits += gamma_bits(cursor_next(&cursor) - base);
	return (Size) ((bits + 7) / 8);
}

static Size
source_varints_size(const ColumnSource *source, int64 count)
{
	ColumnCursor cursor;
	Size		total = 0;

	cursor_start(&cursor, source->reader, source->place, source->place->least);
	for (int64 i = 0; i < count; i++)
		total += varint_size(code_of_key(source->place->kind, cursor_next(&cursor)));
	return total;
}

/*
 * The least and the largest of a column's `count` values, read by a
 * cursor from `base` (a column checked, not unpacked).  *length gets the
 * bits a frame's or gamma codes' values take.
 */
static void
scan_values(const Reader *reader, const ColumnPlace *place, int64 count, uint64 base,
			uint64 *least, uint64 *most, uint64 *length, Size *end)
{
	ColumnCursor cursor;
	uint64		low = PG_UINT64_MAX;
	uint64		high = 0;

	cursor_start(&cursor, reader, place, base);
	for (int64 i = 0; i < count; i++)
	{
		uint64		value = cursor_next(&cursor);

		low = Min(low, value);
		high = Max(high, value);
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	*least = low;
	*most = high;
	if (length)
		*length = cursor.bits.pos - (uint64) place->values * 8;
	if (end)
		*end = cursor.varints.pos;
}

/*
 * The offsets of a frame's `count` values of `width` bits (1 to 64) into
 * keys[], as base + offset; the largest offset is returned, *least gets
 * the least.
 */
static uint64
unpack_frame(const Reader *reader, int64 count, int width, uint64 base, uint64 *keys, uint64 *least)
{
	uint64		mask = width == 64 ? PG_UINT64_MAX : ((uint64) 1 << width) - 1;
	uint64		low = PG_UINT64_MAX;
	uint64		high = 0;
	BitReader	bits;

	bits_start(&bits, reader);
	for (int64 i = 0; i < count; i++)
	{
		uint64		offset = width <= 56 ? frame_next(&bits, width, mask) : frame_next_wide(&bits, width, mask);

		low = Min(low, offset);
		high = Max(high, offset);
		keys[i] = base + offset;
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	*least = low;
	return high;
}

/*
 * The offsets of `count` gamma codes into keys[], as base + offset; the
 * largest offset is returned, *least gets the least, *length their bits.
 */
static uint64
unpack_gamma(const Reader *reader, const ColumnKind *kind, int64 count, uint64 base,
			 uint64 *keys, uint64 *least, uint64 *length)
{
	uint64		low = PG_UINT64_MAX;
	uint64		high = 0;
	BitReader	bits;

	bits_start(&bits, reader);
	for (int64 i = 0; i < count; i++)
	{
		uint64		offset = gamma_next(&bits, kind);

		low = Min(low, offset);
		high = Max(high, offset);
		keys[i] = base + offset;
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	*least = low;
	*length = bits.pos - (uint64) reader->pos * 8;
	return high;
}

/*
 * A frame of reference or gamma codes, its tag read: the base, then the
 * bits, into keys[] or (keys NULL) only checked.  *least and *most get
 * the least and the largest key.
 */
static void
read_bits(Reader *reader, const ColumnKind *kind, int64 count, uint64 *keys,
		  ColumnPlace *place, uint64 *least, uint64 *most)
{
	uint64		base;
	uint64		low = 0;
	uint64		high = 0;
	uint64		bits;
	Size		bytes;

	place->base = reader->pos;
	base = key_of_code(kind, read_varint(reader, kind->entry));
	place->values = reader->pos;
	if (place->coding == CODING_FRAME)
	{
		bits = (uint64) count * place->width;
		bytes = bits_size(count, place->width);
		if (bytes > reader->len - reader->pos)
			malformed(reader->pos, "truncated: the %s needs %zu bytes of %d-bit values, %zu are left",
					  kind->column, bytes, place->width, reader->len - reader->pos);
		if (place->width == 0)
			for (int64 i = 0; keys != NULL && i < count; i++)
				keys[i] = base;
		else if (keys != NULL)
			high = unpack_frame(reader, count, place->width, base, keys, &low);
		else
			scan_values(reader, place, count, 0, &low, &high, NULL, NULL);
	}
	else
	{
		if (keys != NULL)
			high = unpack_gamma(reader, kind, count, base, keys, &low, &bits);
		else
			scan_values(reader, place, count, 0, &low, &high, &bits, NULL);
		bytes = (Size) ((bits + 7) / 8);
		if (bytes > reader->len - reader->pos)
			malformed(reader->pos, "truncated: the gamma codes of the %s take %zu bytes, %zu are left",
					  kind->column, bytes, reader->len - reader->pos);
	}
	reader->pos += bytes;

	if (bits % 8 != 0 && reader->data[reader->pos - 1] >> (bits % 8) != 0)
		malformed(reader->pos - 1, "the bits after the last value of the %s are not zero", kind->column);
	if (low != 0)
		malformed(place->base, "the base of the %s is not its least value", kind->column);
	if (high > PG_UINT64_MAX - base)
		malformed(place->base, "a value of the %s, its base plus its offset, is beyond the %s range",
				  kind->column, kind->is_signed ? "bigint" : "64-bit");
	if (place->coding == CODING_FRAME && place->width != bit_width(high))
		malformed(place->at, "the %s is packed in %d bits a value, but its values fit in %d",
				  kind->column, place->width, bit_width(high));
	*least = base;
	*most = base + high;
}

/*
 * Varints, their tag read, into keys[] or (keys NULL) only checked.
 * *least and *most get the least and the largest key.
 */
static void
read_varints(Reader *reader, const ColumnKind *kind, int64 count, uint64 *keys,
			 ColumnPlace *place, uint64 *least, uint64 *most)
{
	uint64		low = PG_UINT64_MAX;
	uint64		high = 0;

	place->values = reader->pos;
	if (keys == NULL)
	{
		scan_values(reader, place, count, 0, least, most, NULL, &reader->pos);
		return;
	}
	for (int64 i = 0; i < count; i++)
	{
		keys[i] = key_of_code(kind, read_varint(reader, kind->entry));
		low = Min(low, keys[i]);
		high = Max(high, keys[i]);
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
	}
	*least = low;
	*most = high;
}

/*
 * A column of `count` values into keys[] (their keys), as write_column
 * writes it, checking that it is in its canonical coding.  With keys
 * NULL the column is only checked, its values read by cursors (twice at
 * most, when another coding might be smaller): nothing is allocated.
 */
static void
read_column(Reader *reader, const ColumnKind *kind, int64 count, uint64 *keys, ColumnPlace *place)
{
	uint8		tag;
	uint64		least;
	uint64		most;
	ColumnChoice choice;
	ColumnSource source = {reader, place};

	place->kind = kind;
	place->at = reader->pos;
	place->base = reader->pos;
	place->values = reader->pos;
	place->coding = CODING_VARINTS;
	place->width = 0;
	place->least = 0;
	place->most = 0;
	if (count == 0)
		return;
	if (count == 1)
	{
		place->least = place->most = key_of_code(kind, read_varint(reader, kind->entry));
		if (keys != NULL)
			keys[0] = place->least;
		return;
	}
	if (reader->pos >= reader->len)
		malformed(reader->pos, "truncated: the %s runs past the end of the value (%zu bytes)",
				  kind->column, reader->len);
	tag = reader->data[reader->pos++];
	if (tag <= SAMPLES_MAX_WIDTH)
		place->coding = CODING_FRAME, place->width = tag;
	else if (tag == SAMPLES_GAMMA)
		place->coding = CODING_GAMMA;
	else if (tag != SAMPLES_VARINTS)
		malformed(place->at, "the %s is coded %d: neither a bit width (0 to %d), gamma codes (%d) nor varints (%d)",
				  kind->column, tag, SAMPLES_MAX_WIDTH, SAMPLES_GAMMA, SAMPLES_VARINTS);

	if (place->coding == CODING_VARINTS)
		read_varints(reader, kind, count, keys, place, &least, &most);
	else
		read_bits(reader, kind, count, keys, place, &least, &most);
	place->least = least;
	place->most = most;
	if (reader->codings_known)
		return;
	/* gamma codes just read are not counted again */
	choice = choose_coding(kind, keys, &source, count, least, most,
						   place->coding == CODING_GAMMA ? reader->pos - place->at - 1 : 0);
	if (choice.coding != place->coding)
		malformed(place->at, "the %s is written %s in %zu bytes, but %s it takes %zu: a column takes the coding of fewest bytes, a frame of reference on a tie, then gamma codes",
				  kind->column, CODING_NAMES[place->coding], reader->pos - place->at - 1,
				  CODING_NAMES[choice.coding], choice.bytes);
}

/*
 * The offset of value i of a column (for errors): its varint, its gamma
 * code's first byte, or the byte of its first bit in a frame (width 0:
 * its base)
 */
static Size
column_entry_offset(const Reader *reader, const ColumnPlace *place, int64 i)
{
	Reader		scan = {reader->data, reader->len, place->values};
	BitReader	bits;

	switch (place->coding)
	{
		case CODING_FRAME:
			if (place->width == 0)
				return place->base;
			return place->values + (Size) ((uint64) i * place->width / 8);
		case CODING_GAMMA:
			bits_start(&bits, &scan);
			for (int64 k = 0; k < i; k++)
				(void) gamma_next(&bits, place->kind);
			return (Size) (bits.pos >> 3);
		case CODING_VARINTS:
			break;
	}
	for (int64 k = 0; k < i; k++)
		(void) read_varint(&scan, place->kind->entry);
	return scan.pos;
}

/* The offset of entry i of a dictionary */
static Size
dictionary_entry_offset(const Reader *reader, const DictionaryPlace *place, int64 i)
{
	return i == 0 ? place->first : column_entry_offset(reader, &place->gaps, i - 1);
}

/* `count` ids, strictly ascending, into ids[] */
static void
read_dictionary(Reader *reader, const ColumnKind *kind, int64 count, int64 *ids, DictionaryPlace *place)
{
	place->first = reader->pos;
	if (count == 0)
		return;
	ids[0] = unzigzag(read_varint(reader, kind->entry));
	/* the gaps, read in place */
	read_column(reader, kind, count - 1, (uint64 *) ids + 1, &place->gaps);
	for (int64 i = 1; i < count; i++)
	{
		uint64		gap = (uint64) ids[i];

		if (gap >= (uint64) PG_INT64_MAX - (uint64) ids[i - 1])
			malformed(column_entry_offset(reader, &place->gaps, i - 1),
					  "the %s after " INT64_FORMAT " is beyond the bigint range", kind->entry, ids[i - 1]);
		ids[i] = (int64) ((uint64) ids[i - 1] + gap + 1);
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

/* Where the stack column's two parts are */
typedef struct StackPlace
{
	ColumnPlace steps;			/* the samples without a time */
	ColumnPlace timed;
	int64		untimed;
} StackPlace;

/* The offset of sample i's entry of the stack column */
static Size
stack_entry_offset(const Reader *reader, const StackPlace *place, int64 i)
{
	return i < place->untimed ? column_entry_offset(reader, &place->steps, i) :
		column_entry_offset(reader, &place->timed, i - place->untimed);
}

/*
 * The stack column into index[]: each index below the stack count, and
 * those of the samples without a time in ascending order (their steps
 * are unsigned, only the bound needs checking).
 */
static void
read_stack_column(Reader *reader, const SamplesHeader *header, int64 *index, StackPlace *place)
{
	int64		untimed = header->count - header->ntimed;
	uint64		previous = 0;

	place->untimed = untimed;
	read_column(reader, &STACK_STEPS, untimed, (uint64 *) index, &place->steps);
	read_column(reader, &TIMED_STACKS, header->ntimed, (uint64 *) index + untimed, &place->timed);
	for (int64 i = 0; i < header->count; i++)
	{
		uint64		code = (uint64) index[i];
		uint64		bound = (uint64) header->nstacks - (i < untimed ? previous : 0);

		if (code >= bound)
			malformed(stack_entry_offset(reader, place, i),
					  "the stack of sample " INT64_FORMAT " is beyond the " INT64_FORMAT " stacks of the dictionary",
					  i, header->nstacks);
		if (i < untimed)
			index[i] = (int64) (previous += code);
	}
}

/*
 * The weight column into weight[], checking that the unit is their gcd.
 * When the least and the largest weight fit in bigint once multiplied by
 * the unit, all do: they are multiplied without a check each.
 */
static void
read_weight_column(Reader *reader, const SamplesHeader *header, int64 *weight, bool check_unit)
{
	ColumnPlace place;
	uint64		common = 0;
	int64		unscaled;
	bool		in_range;

	read_column(reader, &WEIGHTS, header->count, (uint64 *) weight, &place);
	in_range = unscale_weight(signed_of_key(place.least), header->weight_unit, &unscaled) &&
		unscale_weight(signed_of_key(place.most), header->weight_unit, &unscaled);
	for (int64 i = 0; i < header->count; i++)
	{
		int64		scaled = signed_of_key((uint64) weight[i]);

		if (likely(in_range))
			weight[i] = (int64) ((uint64) scaled * header->weight_unit);
		else if (!unscale_weight(scaled, header->weight_unit, &weight[i]))
			malformed(column_entry_offset(reader, &place, i),
					  "the weight of sample " INT64_FORMAT " times the unit " UINT64_FORMAT " is beyond the bigint range",
					  i, header->weight_unit);
		if (check_unit && common != 1)
			common = gcd64(common, magnitude(scaled));
	}
	if (check_unit && (common > 1 || (common == 0 && header->weight_unit != 1)))
		malformed(header->weight_unit_at, "the weight unit " UINT64_FORMAT " is not the greatest common divisor of the weights",
				  header->weight_unit);
}

/*
 * Entry `index` of a dictionary is used by no sample: the error names it,
 * at its own offset.
 */
static void
unused_entry(const Reader *reader, const DictionaryPlace *place, const char *what, int64 index, int64 id)
{
	malformed(dictionary_entry_offset(reader, place, index),
			  "%s " INT64_FORMAT " (id " INT64_FORMAT ") is used by no sample", what, index, id);
}

static void
read_label_column(Reader *reader, const SamplesHeader *header, const int64 *dictionary,
				  const DictionaryPlace *dictionary_place, uint64 *scratch, Sample *samples)
{
	bool	   *used;
	ColumnPlace place;

	if (header->nlabels == 0)
	{
		for (int64 i = 0; i < header->count; i++)
		{
			samples[i].has_labels = false;
			samples[i].labels_id = 0;
		}
		return;
	}
	used = palloc_extended(sizeof(bool) * header->nlabels, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	read_column(reader, &LABEL_CODES, header->count, scratch, &place);
	for (int64 i = 0; i < header->count; i++)
	{
		uint64		code = scratch[i];

		if (code > (uint64) header->nlabels)
			malformed(column_entry_offset(reader, &place, i),
					  "the label set of sample " INT64_FORMAT " is beyond the " INT64_FORMAT " label sets of the dictionary",
					  i, header->nlabels);
		samples[i].has_labels = code > 0;
		samples[i].labels_id = code > 0 ? dictionary[code - 1] : 0;
		if (code > 0)
			used[code - 1] = true;
	}
	for (int64 k = 0; k < header->nlabels; k++)
		if (!used[k])
			unused_entry(reader, dictionary_place, "label set dictionary entry", k, dictionary[k]);
	pfree(used);
}

static void
read_time_column(Reader *reader, const SamplesHeader *header, uint64 *scratch, Sample *samples)
{
	int64		first = header->count - header->ntimed;
	uint64		common = 0;
	ColumnPlace place;

	for (int64 i = 0; i < header->count; i++)
	{
		samples[i].has_ts = i >= first;
		samples[i].ts = 0;
	}
	if (header->ntimed == 0)
		return;
	samples[first].ts = unzigzag(read_varint(reader, "time"));
	read_column(reader, &TIME_STEPS, header->ntimed - 1, scratch, &place);
	for (int64 i = first + 1; i < header->count; i++)
	{
		uint64		code = scratch[i - first - 1];
		uint64		room = (uint64) PG_INT64_MAX - (uint64) samples[i - 1].ts;

		if (code != 0 && (header->time_unit > room / code))
			malformed(column_entry_offset(reader, &place, i - first - 1),
					  "the time of sample " INT64_FORMAT " is beyond the bigint range", i);
		samples[i].ts = (int64) ((uint64) samples[i - 1].ts + code * header->time_unit);
		if (common != 1)
			common = gcd64(common, code);
	}
	if (common > 1 || (common == 0 && header->time_unit != 1))
		malformed(header->time_unit_at, "the time unit " UINT64_FORMAT " is not the greatest common divisor of the time steps",
				  header->time_unit);
}

/* Every sample in canonical order after the one before it */
static void
check_order(const Reader *reader, const StackPlace *place, const Sample *samples, int64 count)
{
	for (int64 i = 1; i < count; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (samples_compare(&samples[i - 1], &samples[i]) > 0)
			malformed(stack_entry_offset(reader, place, i),
					  "sample " INT64_FORMAT " is out of order: the samples without a time come first, ordered by stack, label set and weight, then the others by time, stack, label set and weight",
					  i);
	}
}

/* Every stack of the dictionary used by some sample */
static void
check_stacks_used(const Reader *reader, const SamplesHeader *header, const DictionaryPlace *place,
				  const int64 *stacks, const int64 *index)
{
	bool	   *used = palloc_extended(sizeof(bool) * Max(header->nstacks, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	for (int64 i = 0; i < header->count; i++)
		used[index[i]] = true;
	for (int64 k = 0; k < header->nstacks; k++)
		if (!used[k])
			unused_entry(reader, place, "stack dictionary entry", k, stacks[k]);
	pfree(used);
}


/* ---------------------------------------------------------------- checking */

/*
 * samples_check reads a value as samples_decode does, in the same order and
 * with the same errors, but walks each column with a cursor instead of
 * unpacking it (read_column with keys NULL), and steps the cursors of the
 * columns together where a check needs a sample whole (the order).  Stack
 * and label set ids are compared as dictionary indexes, which order as the
 * ids do; weights as their keys over the unit, which order as the weights.
 */

/* Whether every value of a column is its least one, without reading it */
static inline bool
column_is_constant(const ColumnPlace *place, int64 count)
{
	return count <= 1 || (place->coding == CODING_FRAME && place->width == 0);
}

/*
 * The distinct values of a checked column of indexes (each below 2^32),
 * ascending, in a new array; returns their number.  A column that is not
 * constant takes a bit a value at least, so the array takes at most 32
 * bytes per byte of the column.
 */
static int64
distinct_indexes(const Reader *reader, const ColumnPlace *place, int64 count, uint32 **out)
{
	uint32	   *values = palloc(sizeof(uint32) * Max(column_is_constant(place, count) ? 1 : count, 1));
	ColumnCursor cursor;
	int64		kept = 0;

	*out = values;
	if (count == 0)
		return 0;
	if (column_is_constant(place, count))
	{
		values[0] = (uint32) place->least;
		return 1;
	}
	cursor_start(&cursor, reader, place, place->least);
	for (int64 i = 0; i < count; i++)
		values[i] = (uint32) cursor_next(&cursor);
	sort_indexes(values, (size_t) count);
	for (int64 i = 0; i < count; i++)
		if (kept == 0 || values[i] != values[kept - 1])
			values[kept++] = values[i];
	return kept;
}

/* The id of entry k of a checked dictionary */
static int64
dictionary_entry_id(const Reader *reader, const DictionaryPlace *place, int64 k)
{
	ColumnCursor gaps;
	uint64		id = (uint64) place->first_id;

	cursor_start(&gaps, reader, &place->gaps, place->gaps.least);
	for (int64 i = 1; i <= k; i++)
		id += cursor_next(&gaps) + 1;
	return (int64) id;
}

/* A dictionary of `count` ids, strictly ascending, checked as read_dictionary does */
static void
scan_dictionary(Reader *reader, const ColumnKind *kind, int64 count, DictionaryPlace *place)
{
	ColumnCursor gaps;
	int64		id;

	place->first = reader->pos;
	place->first_id = 0;
	if (count == 0)
		return;
	id = place->first_id = unzigzag(read_varint(reader, kind->entry));
	read_column(reader, kind, count - 1, NULL, &place->gaps);
	cursor_start(&gaps, reader, &place->gaps, place->gaps.least);
	for (int64 i = 1; i < count; i++)
	{
		uint64		gap = cursor_next(&gaps);

		if (gap >= (uint64) PG_INT64_MAX - (uint64) id)
			malformed(column_entry_offset(reader, &place->gaps, i - 1),
					  "the %s after " INT64_FORMAT " is beyond the bigint range", kind->entry, id);
		id = (int64) ((uint64) id + gap + 1);
	}
}

/* The stack column, checked as read_stack_column does */
static void
scan_stack_column(Reader *reader, const SamplesHeader *header, StackPlace *place)
{
	int64		untimed = header->count - header->ntimed;
	uint64		previous = 0;
	ColumnCursor steps;
	ColumnCursor timed;

	place->untimed = untimed;
	read_column(reader, &STACK_STEPS, untimed, NULL, &place->steps);
	read_column(reader, &TIMED_STACKS, header->ntimed, NULL, &place->timed);
	cursor_start(&steps, reader, &place->steps, place->steps.least);
	cursor_start(&timed, reader, &place->timed, place->timed.least);
	for (int64 i = 0; i < header->count; i++)
	{
		uint64		code = i < untimed ? cursor_next(&steps) : cursor_next(&timed);
		uint64		bound = (uint64) header->nstacks - (i < untimed ? previous : 0);

		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		if (code >= bound)
			malformed(stack_entry_offset(reader, place, i),
					  "the stack of sample " INT64_FORMAT " is beyond the " INT64_FORMAT " stacks of the dictionary",
					  i, header->nstacks);
		if (i < untimed)
			previous += code;
	}
}

/* The weight column, checked as read_weight_column does */
static void
scan_weight_column(Reader *reader, const SamplesHeader *header, ColumnPlace *place)
{
	ColumnCursor weights;
	uint64		common = 0;
	int64		unscaled;
	bool		in_range;

	read_column(reader, &WEIGHTS, header->count, NULL, place);
	in_range = unscale_weight(signed_of_key(place->least), header->weight_unit, &unscaled) &&
		unscale_weight(signed_of_key(place->most), header->weight_unit, &unscaled);
	cursor_start(&weights, reader, place, place->least);
	for (int64 i = 0; i < header->count && (!in_range || common != 1); i++)
	{
		int64		scaled = signed_of_key(cursor_next(&weights));

		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		if (!in_range && !unscale_weight(scaled, header->weight_unit, &unscaled))
			malformed(column_entry_offset(reader, place, i),
					  "the weight of sample " INT64_FORMAT " times the unit " UINT64_FORMAT " is beyond the bigint range",
					  i, header->weight_unit);
		if (common != 1)
			common = gcd64(common, magnitude(scaled));
	}
	if (common > 1 || (common == 0 && header->weight_unit != 1))
		malformed(header->weight_unit_at, "the weight unit " UINT64_FORMAT " is not the greatest common divisor of the weights",
				  header->weight_unit);
}

/*
 * Every stack of the dictionary used by some sample, as check_stacks_used
 * checks it: the samples without a time use their ascending indexes,
 * walked again by a cursor; the others the distinct values of their
 * column, which is constant or takes a bit a sample.
 */
static void
scan_stacks_used(const Reader *reader, const SamplesHeader *header, const DictionaryPlace *dictionary,
				 const StackPlace *place)
{
	ColumnCursor steps;
	int64		untimed_left = place->untimed;
	uint64		untimed_index = 0;
	uint32	   *timed;
	int64		ntimed = distinct_indexes(reader, &place->timed, header->ntimed, &timed);
	int64		t = 0;

	cursor_start(&steps, reader, &place->steps, place->steps.least);
	if (untimed_left > 0)
	{
		untimed_index = cursor_next(&steps);
		untimed_left--;
	}
	for (int64 k = 0; k < header->nstacks; k++)
	{
		if ((k & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		/* the next index of a sample without a time that is k or more */
		while (untimed_index < (uint64) k && untimed_left > 0)
		{
			untimed_index += cursor_next(&steps);
			untimed_left--;
		}
		while (t < ntimed && timed[t] < k)
			t++;
		if (!(place->untimed > 0 && untimed_index == (uint64) k) && !(t < ntimed && timed[t] == k))
			unused_entry(reader, dictionary, "stack dictionary entry", k,
						 dictionary_entry_id(reader, dictionary, k));
	}
	pfree(timed);
}

/* The label column, checked as read_label_column does */
static void
scan_label_column(Reader *reader, const SamplesHeader *header, const DictionaryPlace *dictionary,
				  ColumnPlace *place)
{
	ColumnCursor labels;
	uint32	   *codes;
	int64		ncodes;
	int64		c = 0;

	if (header->nlabels == 0)
		return;
	read_column(reader, &LABEL_CODES, header->count, NULL, place);
	cursor_start(&labels, reader, place, place->least);
	for (int64 i = 0; i < header->count; i++)
	{
		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		if (cursor_next(&labels) > (uint64) header->nlabels)
			malformed(column_entry_offset(reader, place, i),
					  "the label set of sample " INT64_FORMAT " is beyond the " INT64_FORMAT " label sets of the dictionary",
					  i, header->nlabels);
	}
	ncodes = distinct_indexes(reader, place, header->count, &codes);
	for (int64 k = 0; k < header->nlabels; k++)
	{
		while (c < ncodes && codes[c] < k + 1)
			c++;
		if (!(c < ncodes && codes[c] == k + 1))
			unused_entry(reader, dictionary, "label set dictionary entry", k,
						 dictionary_entry_id(reader, dictionary, k));
	}
	pfree(codes);
}

/* The time column, checked as read_time_column does */
static void
scan_time_column(Reader *reader, const SamplesHeader *header, ColumnPlace *place, int64 *first_time)
{
	int64		first = header->count - header->ntimed;
	uint64		common = 0;
	ColumnCursor steps;
	int64		ts;

	*first_time = 0;
	if (header->ntimed == 0)
		return;
	ts = *first_time = unzigzag(read_varint(reader, "time"));
	read_column(reader, &TIME_STEPS, header->ntimed - 1, NULL, place);
	cursor_start(&steps, reader, place, place->least);
	for (int64 i = first + 1; i < header->count; i++)
	{
		uint64		code = cursor_next(&steps);
		uint64		room = (uint64) PG_INT64_MAX - (uint64) ts;

		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		if (code != 0 && (header->time_unit > room / code))
			malformed(column_entry_offset(reader, place, i - first - 1),
					  "the time of sample " INT64_FORMAT " is beyond the bigint range", i);
		ts = (int64) ((uint64) ts + code * header->time_unit);
		if (common != 1)
			common = gcd64(common, code);
	}
	if (common > 1 || (common == 0 && header->time_unit != 1))
		malformed(header->time_unit_at, "the time unit " UINT64_FORMAT " is not the greatest common divisor of the time steps",
				  header->time_unit);
}

/* What the order compares of a sample, but its time: dictionary indexes and the weight's key */
typedef struct SampleKeys
{
	uint64		stack;
	uint64		label;
	uint64		weight;
} SampleKeys;

static inline int
compare_keys(const SampleKeys *x, const SampleKeys *y)
{
	if (x->stack != y->stack)
		return x->stack > y->stack ? 1 : -1;
	if (x->label != y->label)
		return x->label > y->label ? 1 : -1;
	return (x->weight > y->weight) - (x->weight < y->weight);
}

/*
 * Every sample in canonical order after the one before it, as check_order
 * checks it, the cursors of the columns stepped together.  Samples
 * without a time are ordered by stack before the rest, and their stack
 * steps are never negative; those with a time by time before the rest,
 * and their time steps are never negative: the rest is compared only
 * after a step of 0.
 */
static void
scan_order(const Reader *reader, const SamplesHeader *header, const StackPlace *stacks,
		   const ColumnPlace *weights, const ColumnPlace *labels, const ColumnPlace *times)
{
	ColumnCursor steps;
	ColumnCursor timed;
	ColumnCursor weight;
	ColumnCursor label;
	ColumnCursor time;
	SampleKeys	previous = {0, 0, 0};
	SampleKeys	sample = {0, 0, 0};

	cursor_start(&steps, reader, &stacks->steps, stacks->steps.least);
	cursor_start(&timed, reader, &stacks->timed, stacks->timed.least);
	cursor_start(&weight, reader, weights, weights->least);
	if (header->nlabels > 0)
		cursor_start(&label, reader, labels, labels->least);
	if (header->ntimed > 1)
		cursor_start(&time, reader, times, times->least);
	for (int64 i = 0; i < header->count; i++)
	{
		bool		tied;

		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		if (i < stacks->untimed)
		{
			uint64		step = cursor_next(&steps);

			sample.stack = previous.stack + step;
			tied = i > 0 && step == 0;
		}
		else
		{
			sample.stack = cursor_next(&timed);
			tied = i > stacks->untimed && cursor_next(&time) == 0;
		}
		sample.label = header->nlabels > 0 ? cursor_next(&label) : 0;
		sample.weight = cursor_next(&weight);
		if (tied && compare_keys(&previous, &sample) > 0)
			malformed(stack_entry_offset(reader, stacks, i),
					  "sample " INT64_FORMAT " is out of order: the samples without a time come first, ordered by stack, label set and weight, then the others by time, stack, label set and weight",
					  i);
		previous = sample;
	}
}

/* Where the parts of a checked value are, for the cursors that read it */
typedef struct ValuePlaces
{
	DictionaryPlace stack_dictionary;
	DictionaryPlace label_dictionary;
	StackPlace	stacks;
	ColumnPlace weights;
	ColumnPlace labels;
	ColumnPlace times;
	int64		first_time;
} ValuePlaces;

static void
check_value(Reader *reader, SamplesHeader *header, ValuePlaces *places)
{
	read_header(reader, header);
	scan_dictionary(reader, &STACK_GAPS, header->nstacks, &places->stack_dictionary);
	scan_dictionary(reader, &LABEL_GAPS, header->nlabels, &places->label_dictionary);
	scan_stack_column(reader, header, &places->stacks);
	scan_weight_column(reader, header, &places->weights);
	scan_stacks_used(reader, header, &places->stack_dictionary, &places->stacks);
	scan_label_column(reader, header, &places->label_dictionary, &places->labels);
	scan_time_column(reader, header, &places->times, &places->first_time);
	if (reader->pos != reader->len)
		malformed(reader->pos, "trailing bytes: %zu after the last column", reader->len - reader->pos);
	scan_order(reader, header, &places->stacks, &places->weights, &places->labels, &places->times);
}

void
samples_check(const uint8 *data, Size len, SamplesHeader *header)
{
	Reader		reader = {data, len, 0};
	ValuePlaces places;

	check_value(&reader, header, &places);
}

Sample *
samples_decode(const uint8 *data, Size len, int64 *count)
{
	Reader		reader = {data, len, 0};
	SamplesHeader header;
	DictionaryPlace stack_dictionary;
	DictionaryPlace label_dictionary;
	StackPlace stack_column;
	int64	   *stacks;
	int64	   *labels;
	int64	   *index;
	int64	   *weight;
	Sample	   *samples;

	read_header(&reader, &header);
	stacks = palloc_extended(sizeof(int64) * Max(header.nstacks, 1), MCXT_ALLOC_HUGE);
	labels = palloc_extended(sizeof(int64) * Max(header.nlabels, 1), MCXT_ALLOC_HUGE);
	read_dictionary(&reader, &STACK_GAPS, header.nstacks, stacks, &stack_dictionary);
	read_dictionary(&reader, &LABEL_GAPS, header.nlabels, labels, &label_dictionary);

	index = palloc_extended(sizeof(int64) * Max(header.count, 1), MCXT_ALLOC_HUGE);
	weight = palloc_extended(sizeof(int64) * Max(header.count, 1), MCXT_ALLOC_HUGE);
	read_stack_column(&reader, &header, index, &stack_column);
	read_weight_column(&reader, &header, weight, true);
	check_stacks_used(&reader, &header, &stack_dictionary, stacks, index);

	samples = palloc_extended(sizeof(Sample) * Max(header.count, 1), MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < header.count; i++)
	{
		samples[i].stack_id = stacks[index[i]];
		samples[i].weight = weight[i];
	}
	/* the index array holds the label and time columns' values next */
	read_label_column(&reader, &header, labels, &label_dictionary, (uint64 *) index, samples);
	read_time_column(&reader, &header, (uint64 *) index, samples);
	if (reader.pos != len)
		malformed(reader.pos, "trailing bytes: %zu after the last column", len - reader.pos);
	check_order(&reader, &stack_column, samples, header.count);

	pfree(stacks);
	pfree(labels);
	pfree(index);
	pfree(weight);
	*count = header.count;
	return samples;
}

int64 *
samples_stack_ids(const uint8 *data, Size len, SamplesHeader *header)
{
	Reader		reader = {data, len, 0};
	DictionaryPlace place;
	int64	   *stacks;

	read_header(&reader, header);
	stacks = palloc_extended(sizeof(int64) * Max(header->nstacks, 1), MCXT_ALLOC_HUGE);
	read_dictionary(&reader, &STACK_GAPS, header->nstacks, stacks, &place);
	return stacks;
}

int64 *
samples_label_set_ids(const uint8 *data, Size len, SamplesHeader *header)
{
	Reader		reader = {data, len, 0};
	DictionaryPlace place;
	int64	   *stacks;
	int64	   *labels;

	read_header(&reader, header);
	stacks = palloc_extended(sizeof(int64) * Max(header->nstacks, 1), MCXT_ALLOC_HUGE);
	read_dictionary(&reader, &STACK_GAPS, header->nstacks, stacks, &place);
	pfree(stacks);
	labels = palloc_extended(sizeof(int64) * Max(header->nlabels, 1), MCXT_ALLOC_HUGE);
	read_dictionary(&reader, &LABEL_GAPS, header->nlabels, labels, &place);
	return labels;
}

/*
 * Whether unpacking a value takes memory in proportion to its bytes: when
 * its samples take a bit each at least, at most 8 a byte, unpacked (56
 * bytes a sample at most) they take at most 448 bytes a byte of the value.
 * Unpacking is the fastest read: each column is read once.  A denser
 * value (constant columns: a few bytes can hold SAMPLES_MAX samples) is
 * read by cursors instead, which hold nothing per sample.
 */
static inline bool
unpacking_is_bounded(const SamplesHeader *header, Size len)
{
	return (uint64) header->count <= (uint64) len * 8;
}

/*
 * The weights of the samples added to the sums of their stacks, total[]
 * by dictionary index, the stack and weight columns (checked) read by
 * cursors.  When the least and the largest weight fit in bigint once
 * multiplied by the unit, all do (as read_weight_column).
 */
static void
add_stack_sums(const Reader *reader, const SamplesHeader *header, const StackPlace *stacks,
			   const ColumnPlace *weights, int64 *total)
{
	ColumnCursor steps;
	ColumnCursor timed;
	ColumnCursor weight;
	uint64		unit = header->weight_unit;
	uint64		index = 0;
	int64		unscaled;
	bool		in_range;

	in_range = unscale_weight(signed_of_key(weights->least), unit, &unscaled) &&
		unscale_weight(signed_of_key(weights->most), unit, &unscaled);
	cursor_start(&steps, reader, &stacks->steps, stacks->steps.least);
	cursor_start(&timed, reader, &stacks->timed, stacks->timed.least);
	cursor_start(&weight, reader, weights, weights->least);
	for (int64 i = 0; i < header->count; i++)
	{
		int64		scaled = signed_of_key(cursor_next(&weight));

		if ((i & 0xFFFF) == 0xFFFF)
			CHECK_FOR_INTERRUPTS();
		index = i < stacks->untimed ? index + cursor_next(&steps) : cursor_next(&timed);
		if (likely(in_range))
			unscaled = (int64) ((uint64) scaled * unit);
		else if (!unscale_weight(scaled, unit, &unscaled))
			malformed(column_entry_offset(reader, weights, i),
					  "the weight of sample " INT64_FORMAT " times the unit " UINT64_FORMAT " is beyond the bigint range",
					  i, unit);
		total[index] = calltree_add_weight(total[index], unscaled);
	}
}

/*
 * The stack sums of a value denser than a bit a sample: the stack and
 * weight columns are checked as samples_decode checks them (their
 * codings, each index below the stack count), then read once more by
 * cursors to add up.  The memory is the dictionary and the sums, 16 bytes
 * a distinct stack, whatever the samples.
 */
static void
stack_sums_streamed(Reader *reader, const SamplesHeader *header, int64 *stack_ids, int64 *total)
{
	DictionaryPlace dictionary;
	StackPlace	stacks;
	ColumnPlace weights;

	read_dictionary(reader, &STACK_GAPS, header->nstacks, stack_ids, &dictionary);
	scan_dictionary(reader, &LABEL_GAPS, header->nlabels, &dictionary);
	scan_stack_column(reader, header, &stacks);
	read_column(reader, &WEIGHTS, header->count, NULL, &weights);
	add_stack_sums(reader, header, &stacks, &weights, total);
}

/* The scratch's two arrays, made to hold `count` samples at least */
static void
scratch_reserve(SamplesScratch *scratch, int64 count)
{
	Size		bytes;

	if (count <= scratch->capacity)
		return;
	if (scratch->index != NULL)
	{
		pfree(scratch->index);
		pfree(scratch->weight);
		scratch->index = scratch->weight = NULL;
		scratch->capacity = 0;
	}
	bytes = sizeof(int64) * (Size) count;
	scratch->index = MemoryContextAllocExtended(scratch->context, bytes, MCXT_ALLOC_HUGE);
	scratch->weight = MemoryContextAllocExtended(scratch->context, bytes, MCXT_ALLOC_HUGE);
	scratch->capacity = count;
}

/*
 * The stack sums of a value of a bit a sample or more: its stack and
 * weight columns unpacked, 16 bytes a sample, into the scratch (or new
 * arrays without one), then added up.
 */
static void
stack_sums_unpacked(Reader *reader, const SamplesHeader *header, SamplesScratch *scratch,
					int64 *stack_ids, int64 *total)
{
	SamplesScratch own = {CurrentMemoryContext, NULL, NULL, 0};
	SamplesScratch *columns = scratch != NULL ? scratch : &own;
	DictionaryPlace place;
	StackPlace	stack_column;
	int64	   *labels;
	int64	   *index;
	int64	   *weight;

	read_dictionary(reader, &STACK_GAPS, header->nstacks, stack_ids, &place);
	labels = palloc_extended(sizeof(int64) * Max(header->nlabels, 1), MCXT_ALLOC_HUGE);
	read_dictionary(reader, &LABEL_GAPS, header->nlabels, labels, &place);
	pfree(labels);
	scratch_reserve(columns, Max(header->count, 1));
	index = columns->index;
	weight = columns->weight;
	read_stack_column(reader, header, index, &stack_column);
	read_weight_column(reader, header, weight, false);
	for (int64 i = 0; i < header->count; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		total[index[i]] = calltree_add_weight(total[index[i]], weight[i]);
	}
	if (columns == &own)
	{
		pfree(index);
		pfree(weight);
	}
}

int64
samples_stack_sums(const uint8 *data, Size len, SamplesScratch *scratch, int64 **ids, int64 **sums)
{
	Reader		reader = {data, len, 0, .codings_known = true};
	SamplesHeader header;

	read_header(&reader, &header);
	*ids = palloc_extended(sizeof(int64) * Max(header.nstacks, 1), MCXT_ALLOC_HUGE);
	*sums = palloc_extended(sizeof(int64) * Max(header.nstacks, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	if (unpacking_is_bounded(&header, len))
		stack_sums_unpacked(&reader, &header, scratch, *ids, *sums);
	else
		stack_sums_streamed(&reader, &header, *ids, *sums);
	return header.nstacks;
}

/* ---------------------------------------------------------------- streaming */

/*
 * A checked value's samples one at a time: a value of a bit a sample or
 * more is unpacked whole (the fastest); a denser one is checked as
 * samples_check does, then read by cursors: the dictionaries held, each
 * column read by a cursor, the untimed samples' stack index and the last
 * time carried from one sample to the next.
 */
struct SamplesStream
{
	SamplesHeader header;
	int64		next;			/* the number of the sample returned next */
	bool		all_labelled;	/* every sample has a label set */
	Sample	   *unpacked;		/* the samples, or NULL: read by cursors */
	int64	   *stacks;
	int64	   *labels;
	ColumnCursor steps;
	ColumnCursor timed;
	ColumnCursor weights;
	ColumnCursor label_codes;
	ColumnCursor time_steps;
	uint64		index;			/* the stack index of the sample before */
	int64		ts;				/* the time of the sample before */
};

/* The ids of a checked dictionary, in a new array */
static int64 *
dictionary_ids(const Reader *reader, const DictionaryPlace *place, int64 count)
{
	int64	   *ids = palloc_extended(sizeof(int64) * Max(count, 1), MCXT_ALLOC_HUGE);
	ColumnCursor gaps;

	if (count == 0)
		return ids;
	ids[0] = place->first_id;
	cursor_start(&gaps, reader, &place->gaps, place->gaps.least);
	for (int64 i = 1; i < count; i++)
		ids[i] = (int64) ((uint64) ids[i - 1] + cursor_next(&gaps) + 1);
	return ids;
}

static void
stream_unpacked(SamplesStream *stream, const uint8 *data, Size len)
{
	int64		count;

	stream->unpacked = samples_decode(data, len, &count);
	stream->all_labelled = count > 0;
	for (int64 i = 0; i < count && stream->all_labelled; i++)
		stream->all_labelled = stream->unpacked[i].has_labels;
}

static void
stream_by_cursors(SamplesStream *stream, const uint8 *data, Size len)
{
	Reader		reader = {data, len, 0};
	const SamplesHeader *header = &stream->header;
	ValuePlaces places;

	check_value(&reader, &stream->header, &places);
	stream->stacks = dictionary_ids(&reader, &places.stack_dictionary, header->nstacks);
	stream->labels = dictionary_ids(&reader, &places.label_dictionary, header->nlabels);
	cursor_start(&stream->steps, &reader, &places.stacks.steps, places.stacks.steps.least);
	cursor_start(&stream->timed, &reader, &places.stacks.timed, places.stacks.timed.least);
	cursor_start(&stream->weights, &reader, &places.weights, places.weights.least);
	if (header->nlabels > 0)
		cursor_start(&stream->label_codes, &reader, &places.labels, places.labels.least);
	if (header->ntimed > 1)
		cursor_start(&stream->time_steps, &reader, &places.times, places.times.least);
	stream->ts = places.first_time;
	stream->all_labelled = header->count > 0 && header->nlabels > 0 && places.labels.least > 0;
}

SamplesStream *
samples_stream_begin(const uint8 *data, Size len, SamplesHeader *header)
{
	SamplesStream *stream = palloc0(sizeof(SamplesStream));

	samples_read_header(data, len, &stream->header);
	if (unpacking_is_bounded(&stream->header, len))
		stream_unpacked(stream, data, len);
	else
		stream_by_cursors(stream, data, len);
	*header = stream->header;
	return stream;
}

/* The next sample of a stream by cursors */
static void
stream_next_by_cursors(SamplesStream *stream, int64 i, Sample *sample)
{
	const SamplesHeader *header = &stream->header;
	int64		untimed = header->count - header->ntimed;
	uint64		label = 0;

	if (i < untimed)
		stream->index += cursor_next(&stream->steps);
	else
	{
		stream->index = cursor_next(&stream->timed);
		/* checked: every time is in range */
		if (i > untimed)
			stream->ts = (int64) ((uint64) stream->ts + cursor_next(&stream->time_steps) * header->time_unit);
	}
	sample->stack_id = stream->stacks[stream->index];
	/* checked: every weight times the unit is in range */
	sample->weight = (int64) ((uint64) signed_of_key(cursor_next(&stream->weights)) * header->weight_unit);
	sample->has_ts = i >= untimed;
	sample->ts = sample->has_ts ? stream->ts : 0;
	if (header->nlabels > 0)
		label = cursor_next(&stream->label_codes);
	sample->has_labels = label > 0;
	sample->labels_id = label > 0 ? stream->labels[label - 1] : 0;
}

bool
samples_stream_next(SamplesStream *stream, Sample *sample)
{
	int64		i = stream->next;

	if (i >= stream->header.count)
		return false;
	if ((i & 0xFFFF) == 0xFFFF)
		CHECK_FOR_INTERRUPTS();
	stream->next++;
	if (stream->unpacked != NULL)
		*sample = stream->unpacked[i];
	else
		stream_next_by_cursors(stream, i, sample);
	return true;
}

bool
samples_stream_all_labelled(const SamplesStream *stream)
{
	return stream->all_labelled;
}

void
samples_stream_end(SamplesStream *stream)
{
	if (stream->unpacked != NULL)
		pfree(stream->unpacked);
	if (stream->stacks != NULL)
		pfree(stream->stacks);
	if (stream->labels != NULL)
		pfree(stream->labels);
	pfree(stream);
}
