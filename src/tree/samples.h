/*
 * samples.h
 *	  The samples value: a profile's samples packed into one varlena, its
 *	  layout, and the codec that writes and reads it (samples.c, no fmgr).
 *	  The SQL type's text and binary I/O are in samples_io.c.
 *
 * A samples value is a multiset of samples, each a stack id, a weight and,
 * when the format has them, a time (ns from the profile's start) and a
 * label set id.  Duplicates are kept: a value holds as many samples as
 * the rows it was packed from, so counts stay what they were, and the
 * stack_agg of a value equals the stack_agg of its rows.
 *
 * The value is canonical: its samples are kept in one order, so that a
 * multiset has exactly one encoding (equal values have equal bytes, and a
 * dump restores the same bytes).  Samples without a time come first,
 * ordered by (stack id, label set, weight); then those with a time, in time
 * order, ties ordered by (stack id, label set, weight).  No label set sorts
 * before any label set.  The order of time-stamped samples is thus their
 * time order, which readers of time-ordered samples rely on.
 *
 * Layout (version 2), after the varlena header.  Every integer past the
 * first two bytes is a varint unless said otherwise: 7 bits per byte,
 * least significant group first, the high bit set on every byte but the
 * last, at most 10 bytes and no needless trailing zero group.  "zigzag"
 * maps a signed integer to an unsigned one, 0, -1, 1, -2, ... to 0, 1, 2,
 * 3, ...  Version 1, the same columns each as varints only, was never
 * released (development versions of 0.3 wrote it); it is not read.
 *
 *	offset	size	field
 *	0		1		format version, SAMPLES_VERSION
 *	1		1		flags: SAMPLES_HAS_TIMES, SAMPLES_HAS_LABELS; other bits zero
 *	2		var		n, the number of samples
 *	.		var		d, the number of distinct stacks (0 if and only if n = 0)
 *	.		var		t, with SAMPLES_HAS_TIMES: the samples with a time, 1..n:
 *					they are the last t; without the flag t = 0
 *	.		var		l, with SAMPLES_HAS_LABELS: the distinct label sets, 1..n;
 *					without the flag no sample has one
 *	.		var		weight unit g >= 1: the greatest common divisor of the
 *					weights' magnitudes (1 when every weight is 0)
 *	.		var		with SAMPLES_HAS_TIMES, time unit u >= 1: the greatest
 *					common divisor of the time steps (1 when all are 0)
 *	.		var		the stack dictionary, the distinct stack ids ascending,
 *					when d > 0: zigzag(first id), then
 *	.		col		the d - 1 gaps (id - previous id - 1)
 *	.		var		the label set dictionary, when l > 0, as the stacks':
 *	.		col		zigzag(first id), then the l - 1 gaps
 *	.		col		the stack column of the n - t samples without a time:
 *					their dictionary indexes, each minus the previous
 *					sample's (the first minus 0), which order makes >= 0
 *	.		col		the stack column of the t samples with a time: their
 *					dictionary indexes themselves
 *	.		col		the weight column: the n values weight / g, signed
 *	.		col		with SAMPLES_HAS_LABELS, the label column of n values:
 *					0 for no label set, i + 1 for the i-th set of the
 *					dictionary
 *	.		var		with SAMPLES_HAS_TIMES, the time column: zigzag(first
 *					time), then
 *	.		col		the t - 1 steps (time - previous time) / u
 *
 * and nothing after it.  Every dictionary entry is used by some sample.
 *
 * A column ("col") of k values is written as its content suits:
 *
 *	k = 0	nothing
 *	k = 1	the value as a varint (zigzag(value) when signed)
 *	k >= 2	a tag byte, then one of three codings:
 *			tag 0..64, a frame of reference of width w = tag: the base,
 *				the least value, as a varint (zigzag(base) when signed),
 *				then ceil(k * w / 8) bytes holding each value minus the
 *				base in w bits, the first value in the lowest bits of the
 *				first byte, least significant bit first, the bits after
 *				the last value zero (w = 0: no bytes, every value is the
 *				base);
 *			tag 254 (SAMPLES_GAMMA), gamma codes: the base as a frame's,
 *				then for each value x = value - base + 1, of b bits, its
 *				Elias gamma code of 2b - 1 bits: b - 1 zero bits, a one
 *				bit, then the b - 1 bits of x under its highest, least
 *				significant first; the codes one after the other from the
 *				lowest bit of the first byte, the bits after the last code
 *				zero (x = 1: "1"; 2: "010"; 3: "011" in the order written)
 *			tag 255 (SAMPLES_VARINTS), varints: the k values as varints
 *				(zigzag(value) when signed).
 *
 * A frame's width is the fewest bits that hold the largest value minus
 * the base.  Of the three codings a column takes the one of fewest bytes,
 * a frame on a tie, then gamma codes (gamma codes only where every value
 * minus the base, plus 1, has at most SAMPLES_GAMMA_MAX_BITS bits): so a
 * column has exactly one encoding, and a value is at most 7 bytes (the
 * tags) larger than its columns as varints alone.  A frame suits a few
 * distinct small values, gamma codes small values with a long tail (the
 * weights of a CPU profile, mostly one to a few periods), varints a few
 * values far apart.
 *
 * Cost: a stack id of a profile is usually a few steps from the previous
 * one, and weights are mostly a small multiple of one period, so a
 * sample without a time costs about a byte or less: a bit for its stack
 * step (0 or 1), a few bits for its weight (none when every weight is the
 * same), a few more for its label set; each distinct stack costs a few
 * bits of dictionary, more when the stacks of a profile are far apart
 * among the database's.  A time-stamped sample adds its time step, about
 * 1 to 3 bytes (sampling is regular, but rarely exactly), and its stack
 * is a dictionary index, not a step.  The 751 samples of bench/ingest.sh
 * (300 stacks, 8 label sets, weights of 2 to 168 periods, 96% of them 10
 * or less) take 868 bytes, 2,574 as varints only.  The value is compact on its own:
 * PostgreSQL compresses only values over about 2 kB.  A column of this
 * type in a table can ask for lz4 (ALTER TABLE ... SET COMPRESSION lz4)
 * where the server was built with it.
 *
 * The codec trusts nothing it reads: a truncated value, a varint that is
 * not minimal, an order that is broken, a count that does not match, a
 * dictionary entry unused, a unit that is not the greatest common divisor,
 * a column tag that is none of the three codings, a frame or gamma codes
 * whose base is not the least value, whose bits after the last value are
 * not zero or whose values pass 64 bits, a frame wider than needed, a
 * gamma code of more than SAMPLES_GAMMA_MAX_BITS bits of x, a column in
 * another coding than its canonical one, or a byte after the end is an
 * error (ERRCODE_INVALID_BINARY_REPRESENTATION) naming what is wrong and
 * its byte offset, counted from the version byte (the offset in the
 * binary form, which is these bytes).  A value of a frame or of gamma
 * codes is placed at the byte that holds its first bit.
 *
 * What reading takes: a value of a few bytes can hold SAMPLES_MAX
 * samples (a constant column costs only its base, a dictionary of
 * consecutive ids only its first), so the memory of reading one is
 * bounded by its size only where it is checked, not unpacked.
 * samples_check, what samples_recv runs, makes every check above, in the
 * order samples_decode makes them and with the same errors and offsets,
 * without unpacking: it walks each column with a cursor that reads it
 * again from the bytes as often as a check needs (a few times: its range,
 * the sizes of the other codings, its own checks), stepping the cursors
 * of the columns together for the order.  It holds only the distinct values of the timed samples' stack
 * column and of the label column, 4 bytes each, when such a column is not
 * constant: it then takes a bit a value at least, so at most 32 bytes per
 * byte of the column.  Its time is linear in the samples and the
 * dictionaries' entries.  samples_decode unpacks: 40 bytes a sample
 * returned, 16 more and 8 a distinct stack or label set while reading
 * (about 230 MB for SAMPLES_MAX samples).  That is at most 448 bytes a
 * byte of the value when its samples take a bit each at least, but
 * unbounded for a denser value (constant columns).  So the readers whose
 * result can be much smaller than the samples unpacked unpack such a
 * value only (the fastest read: each column read once), and read a
 * denser one by cursors: samples_stack_sums then checks the stack and
 * weight columns and reads them again, holding 16 bytes a distinct stack
 * (its result); a SamplesStream (unnest, the text output,
 * with_label_sets) checks the value as samples_check does, then returns
 * its samples one at a time, holding the dictionaries, 8 bytes a distinct
 * stack or label set.  samples_decode alone is for what rewrites a
 * value (DELETE through the view) and for tests.  Values are checked on
 * the way in (text input packs samples it has parsed, so its memory
 * follows its text).
 */
#ifndef CALLTREE_SAMPLES_H
#define CALLTREE_SAMPLES_H

#include "postgres.h"

#define SAMPLES_VERSION		2
#define SAMPLES_HAS_TIMES	0x01
#define SAMPLES_HAS_LABELS	0x02
#define SAMPLES_KNOWN_FLAGS	(SAMPLES_HAS_TIMES | SAMPLES_HAS_LABELS)

/* A column's tag: a frame's width, 0 to SAMPLES_MAX_WIDTH, gamma codes or varints */
#define SAMPLES_MAX_WIDTH	64
#define SAMPLES_GAMMA		254
#define SAMPLES_VARINTS		255

/* The most bits of (value - base + 1) in a gamma code, which takes 2b - 1 bits */
#define SAMPLES_GAMMA_MAX_BITS	28

/*
 * The most samples one value holds, which bounds the memory of packing and
 * unpacking one (40 bytes per sample unpacked): a larger set is split
 * across values, by thread or by batch.
 */
#define SAMPLES_MAX			((int64) 1 << 22)

/* One sample, unpacked */
typedef struct Sample
{
	int64		stack_id;
	int64		weight;
	int64		ts;				/* when has_ts */
	int64		labels_id;		/* when has_labels */
	bool		has_ts;
	bool		has_labels;
} Sample;

/* What the header of a packed value says, and where its parts start */
typedef struct SamplesHeader
{
	uint8		flags;
	int64		count;			/* n */
	int64		nstacks;		/* d */
	int64		ntimed;			/* t */
	int64		nlabels;		/* l */
	uint64		weight_unit;	/* g */
	uint64		time_unit;		/* u, 1 without times */
	Size		weight_unit_at; /* offsets of the units, for errors */
	Size		time_unit_at;
	Size		dictionaries;	/* offset of the stack dictionary */
} SamplesHeader;

/* Sorts samples into the canonical order, which samples_compare gives */
extern void samples_sort(Sample *samples, int64 count);
extern int	samples_compare(const Sample *x, const Sample *y);

/*
 * Removes from `set` (in canonical order) one sample equal to each sample
 * of `doomed` (in canonical order) that it holds; found[i] says whether
 * doomed[i] was.  Returns how many samples `set` keeps, in order.
 */
extern int64 samples_remove(Sample *set, int64 count, const Sample *doomed, int64 ndoomed,
							bool *found);

/*
 * The packed value (a varlena) of `count` samples in any order, which it
 * may reorder (not into canonical order: it sorts pointers to them).  An
 * error when count exceeds SAMPLES_MAX.
 */
extern struct varlena *samples_encode(Sample *samples, int64 count);

/*
 * The samples of the packed bytes data[0 .. len), in canonical order, after
 * checking every byte; *count gets their number.
 */
extern Sample *samples_decode(const uint8 *data, Size len, int64 *count);

/*
 * Checks every byte of the packed bytes data[0 .. len) as samples_decode
 * does, with the same errors, without unpacking the samples; *header gets
 * the header.  Its memory is bounded by len, not by the sample count.
 */
extern void samples_check(const uint8 *data, Size len, SamplesHeader *header);

/* Reads and checks the header only */
extern void samples_read_header(const uint8 *data, Size len, SamplesHeader *header);

/*
 * The distinct stack ids of a packed value, ascending (a new array of
 * header->nstacks ids): what references a value keeps.  Reads the header
 * and the stack dictionary.
 */
extern int64 *samples_stack_ids(const uint8 *data, Size len, SamplesHeader *header);

/*
 * Memory samples_stack_sums reuses from one value to the next: the stack
 * and weight columns of a value unpacked, 16 bytes a sample, as many as
 * the largest value read so far.  An aggregate keeps one for its call
 * site, so that each value's columns do not take (and fault in) new pages
 * from the system, several megabytes for a value of a million samples.
 * Zeroed, with `context` set, to start.
 */
typedef struct SamplesScratch
{
	MemoryContext context;		/* where index and weight live */
	int64	   *index;
	int64	   *weight;
	int64		capacity;		/* samples they hold */
} SamplesScratch;

/*
 * The distinct stack ids of a packed value, ascending, and the sum of the
 * weights of each (two new arrays); returns their number.  Reads the
 * header, the dictionary and the stack and weight columns only: the path
 * of stack_agg(samples).  A sum out of range is an error.  The value was
 * checked when it was made: its lengths, tags and indexes are checked
 * again, not whether its codings are the smallest (its canonical form).
 * With a scratch (or NULL: new arrays, freed) for the unpacked columns.
 */
extern int64 samples_stack_sums(const uint8 *data, Size len, SamplesScratch *scratch,
								int64 **ids, int64 **sums);


/* The distinct label set ids of a packed value, ascending (a new array) */
extern int64 *samples_label_set_ids(const uint8 *data, Size len, SamplesHeader *header);

/*
 * The samples of a packed value one at a time, in canonical order, as
 * samples_decode returns them, after checking every byte as it does (with
 * its errors; *header gets the header).  A value of a bit a sample or
 * more is unpacked by begin; a denser one is not: each next reads a
 * sample's columns by cursors, and the memory is that of samples_check
 * and the two dictionaries, 8 bytes an entry (each entry is used by a
 * sample).  The bytes must stay until the end.
 */
typedef struct SamplesStream SamplesStream;

extern SamplesStream *samples_stream_begin(const uint8 *data, Size len, SamplesHeader *header);
extern bool samples_stream_next(SamplesStream *stream, Sample *sample);
/* Whether every sample has a label set (and there is one at least) */
extern bool samples_stream_all_labelled(const SamplesStream *stream);
extern void samples_stream_end(SamplesStream *stream);

#endif							/* CALLTREE_SAMPLES_H */
