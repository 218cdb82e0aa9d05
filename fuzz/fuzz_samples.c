/*
 * fuzz_samples.c
 *	  libFuzzer harness of the samples type: its codec (tree/samples.c) and
 *	  its text and binary input and output (tree/samples_io.c).
 *
 * The first byte chooses the input, by its value modulo 3:
 *
 * 0: the rest is a text value for samples_in;
 * 1: the rest is packed bytes for samples_recv, which must refuse them or
 *    accept exactly the canonical encoding of what they decode to (a value
 *    has one encoding: packing its decoded samples gives its bytes back);
 *    samples_check (what samples_recv runs) and samples_decode must raise
 *    the same error or none, and samples_check take at most
 *    CHECK_BYTES_PER_BYTE bytes of memory per byte of input, and
 *    CHECK_BYTES_EXTRA more, however many samples the bytes hold;
 * 2: the rest is a list of samples, each a control byte (bit 0: has a
 *    time, bit 1: has a label set, bits 2-5: which of stack, weight, time,
 *    label set take 8 bytes rather than 1 signed byte) and its fields:
 *    packed, they must decode to the same multiset, in at most
 *    SAMPLES_MAX_EXTRA bytes more than every column as varints would take
 *    (each column picks the coding of fewest bytes, and pays a tag byte).
 *
 * Every accepted value must print and send, and come back from both forms
 * with the same bytes; its stack sums (the path of stack_agg(samples)) and
 * distinct stacks must be those of its samples.  The stack sums, which do
 * not count a value's codings again, must read any packed bytes safely.
 */
#include "postgres.h"

#include <limits.h>

#include "common/int.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "tree/samples.h"
#include "pg_stubs.h"

extern Datum samples_in(PG_FUNCTION_ARGS);
extern Datum samples_out(PG_FUNCTION_ARGS);
extern Datum samples_recv(PG_FUNCTION_ARGS);
extern Datum samples_send(PG_FUNCTION_ARGS);

/* A tag byte for each of the 7 columns: stack and label set gaps, stack steps and indexes, weights, label sets, time steps */
#define SAMPLES_MAX_EXTRA 7

/*
 * What samples_check may allocate: 4 bytes per value of the timed
 * stacks' and the label column when they are not constant (a bit a value
 * at least), and a little for errors
 */
#define CHECK_BYTES_PER_BYTE 32
#define CHECK_BYTES_EXTRA 4096

typedef enum InputKind
{
	INPUT_TEXT,
	INPUT_PACKED,
	INPUT_SAMPLES
} InputKind;

typedef struct Input
{
	const uint8 *data;
	size_t		len;
	InputKind	kind;
} Input;

/* fn(arg), called as the fmgr calls a function of one argument */
static Datum
call1(PGFunction fn, Datum arg)
{
	LOCAL_FCINFO(fcinfo, 1);
	Datum		result;

	InitFunctionCallInfoData(*fcinfo, NULL, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = arg;
	fcinfo->args[0].isnull = false;
	result = fn(fcinfo);
	FUZZ_CHECK(!fcinfo->isnull, "a null result");
	return result;
}

static struct varlena *
from_text(const char *text)
{
	return (struct varlena *) DatumGetPointer(call1(samples_in, CStringGetDatum(text)));
}

static struct varlena *
from_binary(const uint8 *bytes, size_t len)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, (const char *) bytes, (int) len);
	return (struct varlena *) DatumGetPointer(call1(samples_recv, PointerGetDatum(&buf)));
}

static void
check_same(const struct varlena *a, const struct varlena *b, const char *how)
{
	FUZZ_CHECK(VARSIZE(a) == VARSIZE(b) && memcmp(a, b, VARSIZE(a)) == 0,
			   "a samples value changed through %s", how);
}

static bool
same_sample(const Sample *a, const Sample *b)
{
	return a->stack_id == b->stack_id && a->weight == b->weight &&
		a->has_ts == b->has_ts && (!a->has_ts || a->ts == b->ts) &&
		a->has_labels == b->has_labels && (!a->has_labels || a->labels_id == b->labels_id);
}

/* The stack sums and distinct stacks of the value against its samples */
static void
check_stacks(const uint8 *packed, Size len, const Sample *samples, int64 count)
{
	int64	   *ids;
	int64	   *sums;
	int64		nstacks;
	int64	   *dictionary;
	SamplesHeader header;
	int64		k = -1;
	bool		overflow = false;
	int64	   *expected = palloc(sizeof(int64) * Max(count, 1));
	int64	   *expected_ids = palloc(sizeof(int64) * Max(count, 1));

	/* the samples are in canonical order, but stacks repeat across the time part */
	for (int64 i = 0; i < count; i++)
	{
		int64		j;

		for (j = 0; j <= k && expected_ids[j] != samples[i].stack_id; j++)
			;
		if (j > k)
		{
			k = j;
			expected_ids[j] = samples[i].stack_id;
			expected[j] = 0;
		}
		overflow = overflow || pg_add_s64_overflow(expected[j], samples[i].weight, &expected[j]);
	}
	dictionary = samples_stack_ids(packed, len, &header);
	FUZZ_CHECK(header.nstacks == k + 1, "the dictionary has " INT64_FORMAT " stacks, the samples " INT64_FORMAT,
			   header.nstacks, k + 1);
	for (int64 i = 1; i < header.nstacks; i++)
		FUZZ_CHECK(dictionary[i - 1] < dictionary[i], "the stack dictionary is not ascending");
	if (overflow)
		return;					/* the sums are an error, tested in SQL */
	nstacks = samples_stack_sums(packed, len, NULL, &ids, &sums);
	FUZZ_CHECK(nstacks == k + 1, "stack sums of a different number of stacks");
	for (int64 i = 0; i < nstacks; i++)
	{
		int64		j;

		FUZZ_CHECK(ids[i] == dictionary[i], "the stack sums are not in dictionary order");
		for (j = 0; expected_ids[j] != ids[i]; j++)
			;
		FUZZ_CHECK(sums[i] == expected[j], "the sum of stack " INT64_FORMAT " is wrong", ids[i]);
	}
}

/*
 * The stream of an accepted value gives the samples decoding gives (read
 * by cursors when the value is denser than a bit a sample, else unpacked)
 */
static void
check_stream(const uint8 *packed, Size len, const Sample *samples, int64 count)
{
	SamplesHeader header;
	SamplesStream *stream = samples_stream_begin(packed, len, &header);
	Sample		sample;
	bool		labelled = count > 0;

	FUZZ_CHECK(header.count == count, "the stream's header counts " INT64_FORMAT " samples, decoding " INT64_FORMAT,
			   header.count, count);
	for (int64 i = 0; i < count; i++)
	{
		FUZZ_CHECK(samples_stream_next(stream, &sample), "the stream ended at sample " INT64_FORMAT, i);
		FUZZ_CHECK(same_sample(&samples[i], &sample), "the stream gave another sample " INT64_FORMAT, i);
		labelled = labelled && samples[i].has_labels;
	}
	FUZZ_CHECK(!samples_stream_next(stream, &sample), "the stream gave more samples than decoding");
	FUZZ_CHECK(samples_stream_all_labelled(stream) == labelled, "the stream says wrongly whether every sample has a label set");
	samples_stream_end(stream);
}

/* An accepted value: its forms, its canonical bytes, its stacks */
static void
check_value(struct varlena *value)
{
	const uint8 *packed = (const uint8 *) VARDATA(value);
	Size		len = VARSIZE(value) - VARHDRSZ;
	int64		count;
	Sample	   *samples = samples_decode(packed, len, &count);
	Sample	   *copy = palloc(sizeof(Sample) * Max(count, 1));
	char	   *text = DatumGetCString(call1(samples_out, PointerGetDatum(value)));
	bytea	   *binary = DatumGetByteaPP(call1(samples_send, PointerGetDatum(value)));
	int64		again;
	Sample	   *decoded;

	memcpy(copy, samples, sizeof(Sample) * count);
	check_same(value, samples_encode(copy, count), "decoding and encoding");
	check_same(value, from_text(text), "text output and input");
	check_same(value, from_binary((const uint8 *) VARDATA_ANY(binary), VARSIZE_ANY_EXHDR(binary)),
			   "binary send and receive");
	decoded = samples_decode(packed, len, &again);
	FUZZ_CHECK(again == count, "a second decoding gave another count");
	for (int64 i = 0; i < count; i++)
		FUZZ_CHECK(same_sample(&samples[i], &decoded[i]), "a second decoding gave another sample");
	check_stacks(packed, len, samples, count);
	check_stream(packed, len, samples, count);
}

/* An integer of the sample list: 8 bytes when wide, else one signed byte */
static bool
take_int(const Input *input, size_t *pos, bool wide, int64 *value)
{
	size_t		need = wide ? 8 : 1;

	if (input->len - *pos < need)
		return false;
	if (wide)
		memcpy(value, input->data + *pos, 8);
	else
		*value = (int8) input->data[*pos];
	*pos += need;
	return true;
}

static Size
varint_bytes(uint64 value)
{
	Size		bytes = 1;

	for (; value >= 0x80; value >>= 7)
		bytes++;
	return bytes;
}

static uint64
zigzag64(int64 value)
{
	return ((uint64) value << 1) ^ (0 - ((uint64) value >> 63));
}

static uint64
gcd_of(uint64 a, uint64 b)
{
	while (b != 0)
	{
		uint64		r = a % b;

		a = b;
		b = r;
	}
	return a;
}

static int
compare_ids(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return (x > y) - (x < y);
}

/* The distinct ids of the samples' stacks (or label sets), ascending, and the varint bytes of their gaps */
static int64
dictionary(const Sample *samples, int64 count, bool labels, int64 *ids, Size *bytes)
{
	int64		n = 0;
	int64		kept = 0;

	for (int64 i = 0; i < count; i++)
		if (!labels || samples[i].has_labels)
			ids[n++] = labels ? samples[i].labels_id : samples[i].stack_id;
	qsort(ids, n, sizeof(int64), compare_ids);
	*bytes = 0;
	for (int64 i = 0; i < n; i++)
	{
		if (kept > 0 && ids[i] == ids[kept - 1])
			continue;
		*bytes += varint_bytes(kept == 0 ? zigzag64(ids[i]) : (uint64) ids[i] - (uint64) ids[kept - 1] - 1);
		ids[kept++] = ids[i];
	}
	return kept;
}

static int64
position(const int64 *ids, int64 count, int64 id)
{
	const int64 *found = bsearch(&id, ids, count, sizeof(int64), compare_ids);

	return found - ids;
}

/*
 * The bytes of the same samples (sorted) with every column as varints:
 * the layout before columns chose their coding, whose header was the same
 */
static Size
varints_only_size(const Sample *samples, int64 count)
{
	int64	   *stacks = palloc(sizeof(int64) * Max(count, 1));
	int64	   *labels = palloc(sizeof(int64) * Max(count, 1));
	Size		stack_bytes;
	Size		label_bytes;
	int64		nstacks = dictionary(samples, count, false, stacks, &stack_bytes);
	int64		nlabels = dictionary(samples, count, true, labels, &label_bytes);
	int64		timed = 0;
	uint64		wunit = 0;
	uint64		tunit = 0;
	int64		previous = 0;
	Size		bytes = 2 + varint_bytes(count) + varint_bytes(nstacks) + stack_bytes + label_bytes;

	while (timed < count && samples[count - 1 - timed].has_ts)
		timed++;
	for (int64 i = 0; i < count; i++)
		wunit = gcd_of(wunit, samples[i].weight < 0 ? 0 - (uint64) samples[i].weight : (uint64) samples[i].weight);
	for (int64 i = count - timed + 1; i < count; i++)
		tunit = gcd_of(tunit, (uint64) samples[i].ts - (uint64) samples[i - 1].ts);
	wunit = Max(wunit, 1);
	tunit = Max(tunit, 1);
	bytes += varint_bytes(wunit) + (timed > 0 ? varint_bytes(timed) + varint_bytes(tunit) : 0) +
		(nlabels > 0 ? varint_bytes(nlabels) : 0);
	for (int64 i = 0; i < count; i++)
	{
		int64		index = position(stacks, nstacks, samples[i].stack_id);
		uint64		scaled = (samples[i].weight < 0 ? 0 - (uint64) samples[i].weight : (uint64) samples[i].weight) / wunit;

		bytes += varint_bytes(i < count - timed ? (uint64) (index - previous) : (uint64) index);
		previous = index;
		bytes += varint_bytes(samples[i].weight < 0 ? 2 * scaled - 1 : 2 * scaled);
		if (nlabels > 0)
			bytes += varint_bytes(samples[i].has_labels ? position(labels, nlabels, samples[i].labels_id) + 1 : 0);
		if (i == count - timed)
			bytes += varint_bytes(zigzag64(samples[i].ts));
		else if (i > count - timed)
			bytes += varint_bytes(((uint64) samples[i].ts - (uint64) samples[i - 1].ts) / tunit);
	}
	return bytes;
}

/* Mode 2: the listed samples, packed, decode to the same multiset */
static void
check_packing(const Input *input)
{
	Sample	   *samples = palloc(sizeof(Sample) * (input->len + 1));
	Sample	   *sorted;
	int64		count = 0;
	size_t		pos = 0;
	struct varlena *value;
	Sample	   *decoded;
	int64		decoded_count;

	while (pos < input->len)
	{
		uint8		control = input->data[pos++];
		Sample	   *s = &samples[count];

		memset(s, 0, sizeof(Sample));
		s->has_ts = control & 1;
		s->has_labels = (control & 2) != 0;
		if (!take_int(input, &pos, control & 4, &s->stack_id) ||
			!take_int(input, &pos, control & 8, &s->weight) ||
			(s->has_ts && !take_int(input, &pos, control & 16, &s->ts)) ||
			(s->has_labels && !take_int(input, &pos, control & 32, &s->labels_id)))
			break;
		count++;
	}
	sorted = palloc(sizeof(Sample) * Max(count, 1));
	memcpy(sorted, samples, sizeof(Sample) * count);
	samples_sort(sorted, count);
	value = samples_encode(samples, count);
	decoded = samples_decode((const uint8 *) VARDATA(value), VARSIZE(value) - VARHDRSZ, &decoded_count);
	FUZZ_CHECK(decoded_count == count, "packed " INT64_FORMAT " samples, unpacked " INT64_FORMAT,
			   count, decoded_count);
	for (int64 i = 0; i < count; i++)
		FUZZ_CHECK(same_sample(&sorted[i], &decoded[i]), "sample " INT64_FORMAT " changed through packing", i);
	FUZZ_CHECK(VARSIZE(value) - VARHDRSZ <= varints_only_size(sorted, count) + SAMPLES_MAX_EXTRA,
			   "%zu samples packed in %zu bytes, more than %zu as varints and %d",
			   (size_t) count, (size_t) (VARSIZE(value) - VARHDRSZ), varints_only_size(sorted, count), SAMPLES_MAX_EXTRA);
	check_value(value);
}

static void
run(void *arg)
{
	Input	   *input = arg;
	struct varlena *value;

	if (input->kind == INPUT_SAMPLES)
	{
		/* nothing here is a rejection: every list of samples packs */
		PG_TRY();
		{
			check_packing(input);
		}
		PG_CATCH();
		{
			fuzz_fail(__FILE__, __LINE__, "packing", "a list of samples fails to pack and unpack: %s",
					  fuzz_last_error.message);
		}
		PG_END_TRY();
		return;
	}
	if (input->kind == INPUT_PACKED)
		value = from_binary(input->data, input->len);
	else
		value = from_text(pnstrdup((const char *) input->data, input->len));
	/* errors from here on are not rejections of the input */
	PG_TRY();
	{
		check_value(value);
	}
	PG_CATCH();
	{
		fuzz_fail(__FILE__, __LINE__, "round trips", "an accepted samples value fails its round trips: %s",
				  fuzz_last_error.message);
	}
	PG_END_TRY();
}

/* Packed bytes checked without unpacking, or decoded */
static void
check_only(void *arg)
{
	Input	   *input = arg;
	SamplesHeader header;

	samples_check(input->data, input->len, &header);
}

static void
decode_only(void *arg)
{
	Input	   *input = arg;
	int64		count;

	(void) samples_decode(input->data, input->len, &count);
}

/*
 * The stack sums of any bytes: stack_agg(samples) does not count a
 * value's codings again (the value was checked when it was made), so on
 * bytes that no check accepted it must still only read within them and
 * fail cleanly or sum (checked above for accepted values).
 */
static void
stack_sums_only(void *arg)
{
	Input	   *input = arg;
	int64	   *ids;
	int64	   *sums;
	SamplesScratch scratch = {CurrentMemoryContext, NULL, NULL, 0};

	(void) samples_stack_sums(input->data, input->len, &scratch, &ids, &sums);
}

/* samples_check accepts exactly what samples_decode accepts, with the same error */
static void
compare_check_and_decode(Input *input)
{
	Size		before = fuzz_bytes_requested;
	bool		checked = fuzz_try(check_only, input);
	Size		check_bytes = fuzz_bytes_requested - before;
	FuzzError	check_error = fuzz_last_error;
	bool		decoded = fuzz_try(decode_only, input);

	FUZZ_CHECK(check_bytes <= CHECK_BYTES_PER_BYTE * input->len + CHECK_BYTES_EXTRA,
			   "samples_check of %zu bytes allocated %zu", input->len, check_bytes);

	FUZZ_CHECK(checked == decoded, "samples_check %s, samples_decode %s: %s",
			   checked ? "accepts" : "refuses", decoded ? "accepts" : "refuses",
			   checked ? fuzz_last_error.message : check_error.message);
	FUZZ_CHECK(checked || (check_error.sqlerrcode == fuzz_last_error.sqlerrcode &&
						   strcmp(check_error.message, fuzz_last_error.message) == 0),
			   "samples_check says \"%s\", samples_decode \"%s\"",
			   check_error.message, fuzz_last_error.message);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input;

	if (size == 0 || size > INT_MAX / 2)
		return 0;
	input.kind = (InputKind) (data[0] % 3);
	input.data = data + 1;
	input.len = size - 1;
	if (input.kind == INPUT_PACKED)
	{
		compare_check_and_decode(&input);
		(void) fuzz_try(stack_sums_only, &input);
	}
	(void) fuzz_try(run, &input);
	return 0;
}
