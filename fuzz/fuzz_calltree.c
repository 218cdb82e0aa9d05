/*
 * fuzz_calltree.c
 *	  libFuzzer harness of the calltree type's input and output functions
 *	  (calltree_io.c over builder.c): text input, binary receive, and the round
 *	  trips of what they accept.
 *
 * The first byte chooses the function: even, the rest of the input is a
 * text calltree for calltree_in; odd, a binary one for calltree_recv.  A
 * value that is accepted must print, send, and come back from both forms
 * with the same bytes.
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "lib/stringinfo.h"

#include "tree/calltree.h"
#include "pg_stubs.h"

extern Datum calltree_in(PG_FUNCTION_ARGS);
extern Datum calltree_out(PG_FUNCTION_ARGS);
extern Datum calltree_recv(PG_FUNCTION_ARGS);
extern Datum calltree_send(PG_FUNCTION_ARGS);

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

static CallTree *
from_text(const char *text)
{
	return (CallTree *) DatumGetPointer(call1(calltree_in, CStringGetDatum(text)));
}

static CallTree *
from_binary(const char *bytes, int len)
{
	StringInfoData buf;

	/* as the backend hands a datum's bytes to a receive function */
	initStringInfo(&buf);
	appendBinaryStringInfo(&buf, bytes, len);
	return (CallTree *) DatumGetPointer(call1(calltree_recv, PointerGetDatum(&buf)));
}

static void
check_same(const CallTree *a, const CallTree *b, const char *how)
{
	FUZZ_CHECK(VARSIZE(a) == VARSIZE(b) && memcmp(a, b, VARSIZE(a)) == 0,
			   "a calltree changed through %s", how);
}

/* Everything an accepted value must survive */
static void
check_round_trips(CallTree *tree)
{
	char	   *text = DatumGetCString(call1(calltree_out, PointerGetDatum(tree)));
	bytea	   *binary = DatumGetByteaPP(call1(calltree_send, PointerGetDatum(tree)));

	calltree_check_header(tree, VARSIZE(tree));
	check_same(tree, from_text(text), "text output and input");
	check_same(tree, from_binary(VARDATA_ANY(binary), VARSIZE_ANY_EXHDR(binary)),
			   "binary send and receive");
}

static void
run(void *arg)
{
	Input	   *input = arg;
	CallTree   *tree;

	if (input->binary)
		tree = from_binary(input->data, (int) input->len);
	else
		tree = from_text(pnstrdup(input->data, input->len));
	/* errors from here on are not rejections of the input */
	PG_TRY();
	{
		check_round_trips(tree);
	}
	PG_CATCH();
	{
		fuzz_fail(__FILE__, __LINE__, "round trips", "an accepted calltree fails its round trips: %s",
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
