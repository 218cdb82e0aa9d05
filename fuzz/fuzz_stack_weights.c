/*
 * fuzz_stack_weights.c
 *	  libFuzzer harness of the stack_weights type's input and output
 *	  functions (stack_weights_io.c), and of the merging of two values
 *	  (stack_weights.c), which is what a combine function does.
 *
 * The first byte chooses the function: even, the rest of the input is a
 * text value for stack_weights_in; odd, a binary one for
 * stack_weights_recv.  A value that is accepted must print, send, and come
 * back from both forms with the same bytes; and merged into an empty
 * accumulator, then into one holding it already, it must give back its own
 * pairs, then the same ids with doubled weights (or an out-of-range error).
 */
#include "postgres.h"

#include <limits.h>

#include "common/int.h"
#include "fmgr.h"
#include "lib/stringinfo.h"

#include "tree/stack_weights.h"
#include "pg_stubs.h"

extern Datum stack_weights_in(PG_FUNCTION_ARGS);
extern Datum stack_weights_out(PG_FUNCTION_ARGS);
extern Datum stack_weights_recv(PG_FUNCTION_ARGS);
extern Datum stack_weights_send(PG_FUNCTION_ARGS);

typedef struct Input
{
	const char *data;
	size_t		len;
	bool		binary;
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

static FlatStackWeights *
from_text(const char *text)
{
	return (FlatStackWeights *) DatumGetPointer(call1(stack_weights_in, CStringGetDatum(text)));
}

static FlatStackWeights *
from_binary(const char *bytes, int len)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, bytes, len);
	return (FlatStackWeights *) DatumGetPointer(call1(stack_weights_recv, PointerGetDatum(&buf)));
}

static void
check_same(const FlatStackWeights *a, const FlatStackWeights *b, const char *how)
{
	FUZZ_CHECK(VARSIZE(a) == VARSIZE(b) && memcmp(a, b, VARSIZE(a)) == 0,
			   "a stack_weights value changed through %s", how);
}

/* The value merged once, then twice, into an accumulator */
static void
check_merge(const FlatStackWeights *flat)
{
	StackWeights *weights = stack_weights_create(CurrentMemoryContext);
	int32		n = flat->count;
	int64	   *ids = palloc(sizeof(int64) * Max(n, 1));
	int64	   *sums = palloc(sizeof(int64) * Max(n, 1));
	bool		doubles = true;

	stack_weights_add_datum(weights, PointerGetDatum(flat));
	FUZZ_CHECK(stack_weights_count(weights) == n, "a merge lost or made stacks");
	stack_weights_sorted(weights, ids, sums);
	FUZZ_CHECK(n == 0 || (memcmp(ids, flat_stack_ids(flat), sizeof(int64) * n) == 0 &&
						  memcmp(sums, flat_stack_sums(flat), sizeof(int64) * n) == 0),
			   "a merge into an empty accumulator changed the pairs");
	for (int32 i = 0; i < n; i++)
	{
		int64		twice;

		doubles = doubles && !pg_add_s64_overflow(sums[i], sums[i], &twice);
	}
	if (!doubles)
		return;					/* the second merge would overflow: an error, tested elsewhere */
	stack_weights_add_datum(weights, PointerGetDatum(flat));
	stack_weights_sorted(weights, ids, sums);
	for (int32 i = 0; i < n; i++)
		FUZZ_CHECK(ids[i] == flat_stack_ids(flat)[i] && sums[i] == 2 * flat_stack_sums(flat)[i],
				   "merging a value twice did not double its weights");
}

static void
check_round_trips(FlatStackWeights *flat)
{
	char	   *text = DatumGetCString(call1(stack_weights_out, PointerGetDatum(flat)));
	bytea	   *binary = DatumGetByteaPP(call1(stack_weights_send, PointerGetDatum(flat)));

	stack_weights_check_flat(flat, VARSIZE(flat));
	check_same(flat, from_text(text), "text output and input");
	check_same(flat, from_binary(VARDATA_ANY(binary), VARSIZE_ANY_EXHDR(binary)),
			   "binary send and receive");
	check_merge(flat);
}

static void
run(void *arg)
{
	Input	   *input = arg;
	FlatStackWeights *flat;

	if (input->binary)
		flat = from_binary(input->data, (int) input->len);
	else
		flat = from_text(pnstrdup(input->data, input->len));
	/* errors from here on are not rejections of the input */
	PG_TRY();
	{
		check_round_trips(flat);
	}
	PG_CATCH();
	{
		fuzz_fail(__FILE__, __LINE__, "round trips", "an accepted stack_weights value fails its round trips: %s",
				  fuzz_last_error.message);
	}
	PG_END_TRY();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input;

	if (size == 0 || size > INT_MAX / 2)
		return 0;
	input.binary = data[0] & 1;
	input.data = (const char *) data + 1;
	input.len = size - 1;
	(void) fuzz_try(run, &input);
	return 0;
}
