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
 * coordinator in this form, so it is kept short (no space after a comma)
 * and cheap both ways: the output writes each pair in place, the input reads
 * the digits itself, straight into a value sized once.
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

/*
 * A decimal bigint, optionally negative; *start gets where it begins.
 * Digits are read here rather than by strtoll: the coordinator of a Citus
 * cluster reads every shard's state in this form, and that parse is most of
 * its share of a query over all profiles.
 */
static int64
parse_int64(TextParser *parser, const char *what, const char **start)
{
	const char *p;
	bool		negative;
	uint64		magnitude = 0;
	bool		overflow = false;

	while (isspace((unsigned char) *parser->pos))
		parser->pos++;
	*start = p = parser->pos;
	negative = *p == '-';
	if (negative)
		p++;
	if (!isdigit((unsigned char) *p))
		syntax_error(parser, what);
	for (; isdigit((unsigned char) *p); p++)
	{
		unsigned	digit = (unsigned) (*p - '0');

		if (magnitude > (PG_UINT64_MAX - digit) / 10)
			overflow = true;
		else
			magnitude = magnitude * 10 + digit;
	}
	if (overflow || magnitude > (uint64) PG_INT64_MAX + (negative ? 1 : 0))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s out of range in stack_weights at character %d",
						what, position_of(parser, *start)),
				 errdetail("Value \"%.*s\" does not fit in bigint.", (int) (p - *start), *start)));
	parser->pos = p;
	if (!negative)
		return (int64) magnitude;
	return magnitude == 0 ? 0 : -(int64) (magnitude - 1) - 1;
}

/*
 * The most pairs a text of `len` bytes can hold: one per colon, and the
 * k-th ends at least 4k bytes in (the brace, then a digit, the colon and a
 * digit per pair, with a comma between two).  What the parse allocates, so
 * that it stays within a few times the input's size whatever the input.
 */
static int64
pairs_bound(const char *str, size_t len)
{
	int64		colons = 0;
	const char *p = str;
	const char *end = str + len;

	while ((p = memchr(p, ':', end - p)) != NULL)
	{
		colons++;
		p++;
	}
	return Min(colons, (int64) ((len + 1) / 4));
}

/* Reads the pairs into ids[] and sums[] (room for `capacity`); their number */
static int32
parse_pairs(TextParser *parser, int64 *ids, int64 *sums, int64 capacity)
{
	int32		count = 0;

	expect(parser, '{', "\"{\"");
	if (accept(parser, '}'))
		return 0;
	do
	{
		const char *start;
		int64		id = parse_int64(parser, "stack id", &start);
		int64		sum;

		if (count > 0 && id <= ids[count - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("malformed stack_weights: stack id out of order at character %d",
							position_of(parser, start)),
					 errdetail("Stack id " INT64_FORMAT " follows stack id " INT64_FORMAT ".",
							   id, ids[count - 1]),
					 errhint("Write each stack once, in ascending order of stack id.")));
		expect(parser, ':', "\":\" and a weight");
		sum = parse_int64(parser, "weight", &start);
		/* (never true: a pair read has used a colon and four bytes) */
		if (unlikely(count >= capacity))
			elog(ERROR, "stack_weights input holds more pairs than its bound " INT64_FORMAT, capacity);
		ids[count] = id;
		sums[count] = sum;
		count++;
		if ((count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	} while (accept(parser, ','));
	expect(parser, '}', "\",\" or the final \"}\"");
	while (isspace((unsigned char) *parser->pos))
		parser->pos++;
	if (*parser->pos != '\0')
		syntax_error(parser, "end of input after the final \"}\"");
	return count;
}

/*
 * The pairs are read straight into a flat value sized for the most the text
 * can hold, which is their number for every text the output writes.
 */
Datum
stack_weights_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	TextParser	parser = {str, str};
	int64		capacity = pairs_bound(str, strlen(str));
	FlatStackWeights *flat;
	FlatStackWeights *exact;
	int32		count;

	if (capacity > STACK_WEIGHTS_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("stack_weights value has too many stacks"),
				 errdetail("A stack_weights value holds at most %d stacks.", STACK_WEIGHTS_MAX)));
	flat = stack_weights_new_flat((int32) capacity);
	count = parse_pairs(&parser, flat_stack_ids(flat), flat_stack_sums(flat), capacity);
	if (count == capacity)
		PG_RETURN_POINTER(flat);
	/* fewer pairs than the bound (never from the output): a value of their size */
	exact = stack_weights_new_flat(count);
	memcpy(flat_stack_ids(exact), flat_stack_ids(flat), sizeof(int64) * (Size) count);
	memcpy(flat_stack_sums(exact), flat_stack_sums(flat), sizeof(int64) * (Size) count);
	pfree(flat);
	PG_RETURN_POINTER(exact);
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
		char	   *end;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		/* room for ",id:weight" and the terminating zero, then written in place */
		enlargeStringInfo(&buf, 2 * MAXINT8LEN + 3);
		end = buf.data + buf.len;
		if (i > 0)
			*end++ = ',';
		end += pg_lltoa(ids[i], end);
		*end++ = ':';
		end += pg_lltoa(sums[i], end);
		*end = '\0';
		buf.len = end - buf.data;
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
