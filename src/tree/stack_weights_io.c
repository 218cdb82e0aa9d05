/*
 * stack_weights_io.c
 *	  Text and binary input and output of the stack_weights type, the state
 *	  of stack_agg (stack_weights.h).
 *
 * Text form: the (stack id, weight) pairs in braces, in ascending id order,
 *
 *		{3:2000000,17:1000000,18:-5}
 *
 * and {} for no pair.  On input whitespace is free around every token, and
 * ids must be strictly ascending: the form is the one the output writes,
 * so every accepted text is a value that prints back the same way (up to
 * whitespace).  Citus ships an aggregate's state from a worker to the
 * coordinator in this form, so it is kept short: no space after a comma.
 *
 * Binary form, network byte order: version (1 byte), count (4 bytes), then
 * per pair the stack id (8) and the weight (8), in ascending id order.
 */
#include "postgres.h"

#include <ctype.h>

#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "tree/stack_weights.h"

PG_FUNCTION_INFO_V1(stack_weights_in);
PG_FUNCTION_INFO_V1(stack_weights_out);
PG_FUNCTION_INFO_V1(stack_weights_recv);
PG_FUNCTION_INFO_V1(stack_weights_send);

#define STACK_WEIGHTS_SYNTAX_HINT \
	"A stack_weights value is written {stack_id:weight,...} with ascending stack ids, for example {3:20,17:5}."

typedef struct TextParser
{
	const char *input;
	const char *pos;
} TextParser;

static int
position_of(const TextParser *parser, const char *at)
{
	return (int) (at - parser->input) + 1;
}

static pg_attribute_noreturn() void
syntax_error(const TextParser *parser, const char *expected)
{
	if (*parser->pos == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("malformed stack_weights: unexpected end of input at character %d",
						position_of(parser, parser->pos)),
				 errdetail("Expected %s.", expected),
				 errhint(STACK_WEIGHTS_SYNTAX_HINT)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("malformed stack_weights at character %d", position_of(parser, parser->pos)),
			 errdetail("Expected %s, found \"%c\".", expected, *parser->pos),
			 errhint(STACK_WEIGHTS_SYNTAX_HINT)));
}

static bool
accept(TextParser *parser, char c)
{
	while (isspace((unsigned char) *parser->pos))
		parser->pos++;
	if (*parser->pos != c)
		return false;
	parser->pos++;
	return true;
}

static void
expect(TextParser *parser, char c, const char *expected)
{
	if (!accept(parser, c))
		syntax_error(parser, expected);
}

/* A decimal bigint, optionally negative; *start gets where it begins. */
static int64
parse_int64(TextParser *parser, const char *what, const char **start)
{
	char	   *end;
	long long	value;

	while (isspace((unsigned char) *parser->pos))
		parser->pos++;
	*start = parser->pos;
	if (!(isdigit((unsigned char) **start) ||
		  (**start == '-' && isdigit((unsigned char) (*start)[1]))))
		syntax_error(parser, what);
	errno = 0;
	value = strtoll(*start, &end, 10);
	if (errno == ERANGE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s out of range in stack_weights at character %d",
						what, position_of(parser, *start)),
				 errdetail("Value \"%.*s\" does not fit in bigint.", (int) (end - *start), *start)));
	parser->pos = end;
	return (int64) value;
}

/* Growing arrays of the pairs read so far */
typedef struct PairList
{
	int64	   *ids;
	int64	   *sums;
	int32		count;
	int32		capacity;
} PairList;

static void
append_pair(PairList *list, int64 id, int64 sum)
{
	if (list->count == list->capacity)
	{
		if (list->capacity >= STACK_WEIGHTS_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("stack_weights value has too many stacks"),
					 errdetail("A stack_weights value holds at most %d stacks.", STACK_WEIGHTS_MAX)));
		list->capacity = (int32) Min((int64) list->capacity * 2, (int64) STACK_WEIGHTS_MAX);
		list->ids = repalloc_huge(list->ids, sizeof(int64) * (Size) list->capacity);
		list->sums = repalloc_huge(list->sums, sizeof(int64) * (Size) list->capacity);
	}
	list->ids[list->count] = id;
	list->sums[list->count] = sum;
	list->count++;
}

static void
parse_pairs(TextParser *parser, PairList *list)
{
	expect(parser, '{', "\"{\"");
	if (accept(parser, '}'))
		return;
	do
	{
		const char *start;
		int64		id = parse_int64(parser, "stack id", &start);
		int64		sum;

		if (list->count > 0 && id <= list->ids[list->count - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("malformed stack_weights: stack id out of order at character %d",
							position_of(parser, start)),
					 errdetail("Stack id " INT64_FORMAT " follows stack id " INT64_FORMAT ".",
							   id, list->ids[list->count - 1]),
					 errhint("Write each stack once, in ascending order of stack id.")));
		expect(parser, ':', "\":\" and a weight");
		sum = parse_int64(parser, "weight", &start);
		append_pair(list, id, sum);
		if ((list->count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	} while (accept(parser, ','));
	expect(parser, '}', "\",\" or the final \"}\"");
	while (isspace((unsigned char) *parser->pos))
		parser->pos++;
	if (*parser->pos != '\0')
		syntax_error(parser, "end of input after the final \"}\"");
}

static FlatStackWeights *
flat_from_pairs(const int64 *ids, const int64 *sums, int32 count)
{
	FlatStackWeights *flat = stack_weights_new_flat(count);

	memcpy(flat_stack_ids(flat), ids, sizeof(int64) * (Size) count);
	memcpy(flat_stack_sums(flat), sums, sizeof(int64) * (Size) count);
	return flat;
}

Datum
stack_weights_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	TextParser	parser = {str, str};
	PairList	list;

	list.capacity = 64;
	list.count = 0;
	list.ids = palloc(sizeof(int64) * list.capacity);
	list.sums = palloc(sizeof(int64) * list.capacity);
	parse_pairs(&parser, &list);
	PG_RETURN_POINTER(flat_from_pairs(list.ids, list.sums, list.count));
}

/* Prints a value, flat or expanded (Citus prints a worker's state as it is). */
Datum
stack_weights_out(PG_FUNCTION_ARGS)
{
	const int64 *ids;
	const int64 *sums;
	int64		count = stack_weights_pairs(PG_GETARG_DATUM(0), &ids, &sums);
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int64 i = 0; i < count; i++)
	{
		char		number[MAXINT8LEN + 1];

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i > 0)
			appendStringInfoChar(&buf, ',');
		appendBinaryStringInfo(&buf, number, pg_lltoa(ids[i], number));
		appendStringInfoChar(&buf, ':');
		appendBinaryStringInfo(&buf, number, pg_lltoa(sums[i], number));
	}
	appendStringInfoChar(&buf, '}');
	PG_RETURN_CSTRING(buf.data);
}

Datum
stack_weights_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			version = pq_getmsgbyte(buf);
	int32		count = pq_getmsgint(buf, 4);
	FlatStackWeights *flat;
	int64	   *ids;
	int64	   *sums;

	if (version != STACK_WEIGHTS_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported binary stack_weights version %d", version),
				 errhint("This server reads binary stack_weights version %d.", STACK_WEIGHTS_VERSION)));
	/* check the count against the message before allocating for it */
	if (count < 0 || (int64) count * 16 > buf->len - buf->cursor)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid stack count %d in binary stack_weights", count),
				 errdetail("The message has %d bytes left.", buf->len - buf->cursor)));
	flat = stack_weights_new_flat(count);
	ids = flat_stack_ids(flat);
	sums = flat_stack_sums(flat);
	for (int32 i = 0; i < count; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		ids[i] = pq_getmsgint64(buf);
		sums[i] = pq_getmsgint64(buf);
		if (i > 0 && ids[i] <= ids[i - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("stack id out of order in pair %d of binary stack_weights", i),
					 errdetail("Stack id " INT64_FORMAT " follows stack id " INT64_FORMAT ".",
							   ids[i], ids[i - 1])));
	}
	pq_getmsgend(buf);
	PG_RETURN_POINTER(flat);
}

Datum
stack_weights_send(PG_FUNCTION_ARGS)
{
	const int64 *ids;
	const int64 *sums;
	int64		count = stack_weights_pairs(PG_GETARG_DATUM(0), &ids, &sums);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, STACK_WEIGHTS_VERSION);
	pq_sendint32(&buf, (int32) count);
	for (int64 i = 0; i < count; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		pq_sendint64(&buf, ids[i]);
		pq_sendint64(&buf, sums[i]);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
