/*
 * calltree_io.c
 *	  Text and binary input/output of the calltree type.
 *
 * Text form: a forest in braces, each node `func:running/self`, followed by
 * `#calls` for trees from instrumented traces and by its children in braces:
 *
 *		{1:3/0 {2:3/0 {3:2/0 {4:1/0 {5:1/1}, 6:1/0 {7:1/1}}, 8:1/0 {6:1/1}}}}
 *
 * Trees with latency histograms add `@min..max[bucket:count,...]` after the
 * calls.  The empty tree is {}.  On input, whitespace is free, sibling order is free
 * and siblings with the same func are merged; each node's running weight
 * must equal its self weight plus its children's running weights.
 *
 * Binary form, network byte order: version (1 byte), flags (1 byte), node
 * count (4 bytes), then per node in preorder: func (4), parent index (4,
 * -1 for a root), self (8) and, with CALLTREE_HAS_CALLS, calls (8); with
 * CALLTREE_HAS_LATENCY, min (8), max (8), a bucket count (4) and that many
 * (bucket index (4), count (8)) pairs.
 */
#include "postgres.h"

#include <ctype.h>
#include <limits.h>

#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "tree/builder.h"
#include "tree/calltree.h"

PG_FUNCTION_INFO_V1(calltree_in);
PG_FUNCTION_INFO_V1(calltree_out);
PG_FUNCTION_INFO_V1(calltree_recv);
PG_FUNCTION_INFO_V1(calltree_send);

#define CALLTREE_SYNTAX_HINT \
	"A calltree is written {func:running/self {children}, ...}, for example {1:3/0 {2:3/3}}."

typedef struct TextParser
{
	const char *input;
	const char *pos;
} TextParser;

/* An open node while parsing: its children's running weights are summed. */
typedef struct OpenNode
{
	int32		node;			/* builder node */
	int32		func;
	int64		running;		/* as written */
	int64		self;			/* as written */
	int64		children_low;	/* the children's running weights, summed */
	int32		children_high;	/* exactly: see calltree_wide_add */
	int			position;		/* character where the node starts */
} OpenNode;

static pg_attribute_noreturn() void
syntax_error(const TextParser *parser, const char *expected)
{
	int			position = (int) (parser->pos - parser->input) + 1;

	if (*parser->pos == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("malformed calltree: unexpected end of input at character %d", position),
				 errdetail("Expected %s.", expected),
				 errhint(CALLTREE_SYNTAX_HINT)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("malformed calltree at character %d", position),
			 errdetail("Expected %s, found \"%c\".", expected, *parser->pos),
			 errhint(CALLTREE_SYNTAX_HINT)));
}

static void
skip_space(TextParser *parser)
{
	while (isspace((unsigned char) *parser->pos))
		parser->pos++;
}

static bool
accept(TextParser *parser, char c)
{
	skip_space(parser);
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

static int64
parse_integer(TextParser *parser, int64 min, int64 max, const char *what)
{
	const char *start;
	char	   *end;
	long long	value;

	skip_space(parser);
	start = parser->pos;
	if (!(isdigit((unsigned char) *start) ||
		  (*start == '-' && isdigit((unsigned char) start[1]))))
		syntax_error(parser, what);
	errno = 0;
	value = strtoll(start, &end, 10);
	if (errno == ERANGE || value < min || value > max)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s out of range in calltree at character %d",
						what, (int) (start - parser->input) + 1),
				 errdetail("Value \"%.*s\" is outside %lld..%lld.",
						   (int) (end - start), start, (long long) min, (long long) max)));
	parser->pos = end;
	return value;
}

/*
 * A node's running weight as written against its self weight plus its
 * children's, summed exactly: written in any order, the same children must
 * give the same verdict (and calltree_out writes them in its own order).
 */
static void
check_running(const TextParser *parser, const OpenNode *open)
{
	int64		expected = open->children_low;
	int32		high = open->children_high;

	calltree_wide_add(&expected, &high, open->self);
	if (!calltree_wide_fits(expected, high))
		calltree_weight_out_of_range();
	if (expected != open->running)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("malformed calltree: inconsistent running weight at character %d",
						open->position),
				 errdetail("Func %d has running weight " INT64_FORMAT
						   " but self plus children make " INT64_FORMAT ".",
						   open->func, open->running, expected)));
}

/* `min..max[bucket:count,...]` after a node's call count */
static void
parse_latency(TextParser *parser, TreeBuilder *builder, int32 node)
{
	int64		min = parse_integer(parser, PG_INT64_MIN, PG_INT64_MAX, "shortest call");
	int64		max;

	expect(parser, '.', "\"..\" and the longest call");
	expect(parser, '.', "\"..\" and the longest call");
	max = parse_integer(parser, min, PG_INT64_MAX, "longest call");
	expect(parser, '[', "\"[\" and histogram buckets");
	if (accept(parser, ']'))
		return;
	do
	{
		uint64		bucket;
		int32		index = (int32) parse_integer(parser, 0, LATENCY_MAX_INDEX, "histogram bucket");

		expect(parser, ':', "\":\" and a bucket count");
		bucket = MAKE_BUCKET(index, parse_integer(parser, 1, BUCKET_MAX_COUNT, "bucket count"));
		tree_builder_add_latency(builder, node, min, max, &bucket, 1);
	} while (accept(parser, ','));
	expect(parser, ']', "\",\" or \"]\"");
}

/* Parses a text calltree into `builder`; iterative, since trees can be deep. */
static void
parse_calltree_text(TextParser *parser, TreeBuilder *builder)
{
	int			capacity = 64;
	OpenNode   *open = palloc(sizeof(OpenNode) * capacity);
	int			depth = 0;		/* open nodes whose child list we are in */

	expect(parser, '{', "\"{\"");
	if (accept(parser, '}'))
		goto done;

	for (;;)
	{
		OpenNode	node;

		CHECK_FOR_INTERRUPTS();
		skip_space(parser);
		node.position = (int) (parser->pos - parser->input) + 1;
		node.func = (int32) parse_integer(parser, PG_INT32_MIN, PG_INT32_MAX, "func id");
		expect(parser, ':', "\":\" and a running weight");
		node.running = parse_integer(parser, PG_INT64_MIN, PG_INT64_MAX, "running weight");
		expect(parser, '/', "\"/\" and a self weight");
		node.self = parse_integer(parser, PG_INT64_MIN, PG_INT64_MAX, "self weight");
		node.children_low = 0;
		node.children_high = 0;
		node.node = tree_builder_child(builder, depth > 0 ? open[depth - 1].node : -1, node.func);
		tree_builder_add_self(builder, node.node, node.self);
		if (accept(parser, '#'))
		{
			tree_builder_add_calls(builder, node.node,
								   parse_integer(parser, 0, PG_INT64_MAX, "call count"));
			if (accept(parser, '@'))
				parse_latency(parser, builder, node.node);
		}

		if (accept(parser, '{') && !accept(parser, '}'))
		{
			/* descend into the children */
			if (depth == capacity)
			{
				capacity *= 2;
				open = repalloc_huge(open, sizeof(OpenNode) * (Size) capacity);
			}
			open[depth++] = node;
			continue;
		}
		check_running(parser, &node);
		if (depth > 0)
			calltree_wide_add(&open[depth - 1].children_low, &open[depth - 1].children_high,
							  node.running);

		/* after a node: a sibling, or the end of one or more child lists */
		while (!accept(parser, ','))
		{
			expect(parser, '}', depth > 0 ? "\",\" or \"}\"" : "\",\" or the final \"}\"");
			if (depth == 0)
				goto done;
			depth--;
			check_running(parser, &open[depth]);
			if (depth > 0)
				calltree_wide_add(&open[depth - 1].children_low, &open[depth - 1].children_high,
								  open[depth].running);
		}
	}

done:
	skip_space(parser);
	if (*parser->pos != '\0')
		syntax_error(parser, "end of input after the final \"}\"");
	pfree(open);
}

Datum
calltree_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	TextParser	parser = {str, str};
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);
	CallTree   *tree;

	parse_calltree_text(&parser, builder);
	tree = tree_builder_finish(builder);
	calltree_check_value(tree);
	PG_RETURN_CALLTREE_P(tree);
}

static void
append_latency(StringInfo buf, const CallTree *tree, int32 i)
{
	const int32 *start = calltree_bucket_start(tree);
	const uint64 *buckets = calltree_buckets(tree);

	appendStringInfo(buf, "@" INT64_FORMAT ".." INT64_FORMAT "[",
					 calltree_latency_min(tree)[i], calltree_latency_max(tree)[i]);
	for (int32 b = start[i]; b < start[i + 1]; b++)
		appendStringInfo(buf, "%s%d:" INT64_FORMAT, b > start[i] ? "," : "",
						 BUCKET_INDEX(buckets[b]), BUCKET_COUNT(buckets[b]));
	appendStringInfoChar(buf, ']');
}

Datum
calltree_out(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	const int64 *self = calltree_self(tree);
	const int64 *calls = calltree_calls(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int64	   *running = calltree_running(tree);
	const int32 *bucket_start = calltree_bucket_start(tree);
	int32		n = tree->nnodes;
	int32	   *open = palloc(sizeof(int32) * Max(n, 1));
	int32		depth = 0;
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int32 i = 0; i < n; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		/* close the child lists of the nodes this one is not below */
		while (depth > 0 && open[depth - 1] != parent[i])
		{
			appendStringInfoChar(&buf, '}');
			depth--;
		}
		if (i > 0 && (depth == 0 || open[depth - 1] != i - 1))
			appendStringInfoString(&buf, ", ");
		appendStringInfo(&buf, "%d:" INT64_FORMAT "/" INT64_FORMAT, func[i], running[i], self[i]);
		if (calls)
			appendStringInfo(&buf, "#" INT64_FORMAT, calls[i]);
		if (bucket_start && bucket_start[i + 1] > bucket_start[i])
			append_latency(&buf, tree, i);
		if (i + 1 < n && parent[i + 1] == i)
		{
			appendStringInfoString(&buf, " {");
			open[depth++] = i;
		}
	}
	while (depth-- > 0)
		appendStringInfoChar(&buf, '}');
	appendStringInfoChar(&buf, '}');
	PG_RETURN_CSTRING(buf.data);
}

/* A node's call count: refused below zero, as calltree_in refuses it */
static void
recv_calls(StringInfo buf, TreeBuilder *builder, int32 node, int32 i)
{
	int64		calls = pq_getmsgint64(buf);

	if (calls < 0)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("call count out of range in node %d of binary calltree", i),
				 errdetail("Value " INT64_FORMAT " is outside 0..%lld.", calls, (long long) PG_INT64_MAX)));
	tree_builder_add_calls(builder, node, calls);
}

static void
recv_latency(StringInfo buf, TreeBuilder *builder, int32 node, int32 i)
{
	int64		min = pq_getmsgint64(buf);
	int64		max = pq_getmsgint64(buf);
	int32		nbuckets = pq_getmsgint(buf, 4);

	if (nbuckets < 0 || (int64) nbuckets * 12 > buf->len - buf->cursor || min > max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid latency histogram of node %d in binary calltree", i)));
	for (int32 b = 0; b < nbuckets; b++)
	{
		int32		index = pq_getmsgint(buf, 4);
		int64		count = pq_getmsgint64(buf);
		uint64		bucket;

		if (index < 0 || index > LATENCY_MAX_INDEX || count < 1 || count > BUCKET_MAX_COUNT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid latency bucket %d of node %d in binary calltree", b, i)));
		bucket = MAKE_BUCKET(index, count);
		tree_builder_add_latency(builder, node, min, max, &bucket, 1);
	}
}

Datum
calltree_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);
	int			version = pq_getmsgbyte(buf);
	int			flags = pq_getmsgbyte(buf);
	int32		n = pq_getmsgint(buf, 4);
	/* the least bytes a node takes in the message */
	int			node_size = 16 + ((flags & CALLTREE_HAS_CALLS) ? 8 : 0) +
		((flags & CALLTREE_HAS_LATENCY) ? 20 : 0);
	int32	   *mapped;
	CallTree   *tree;

	if (version != CALLTREE_VERSION || (flags & ~CALLTREE_KNOWN_FLAGS) != 0 ||
		((flags & CALLTREE_HAS_LATENCY) && !(flags & CALLTREE_HAS_CALLS)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported binary calltree version %d with flags 0x%02x",
						version, flags),
				 errhint("This server reads binary calltree version %d.", CALLTREE_VERSION)));
	/* check the count against the message before allocating for it */
	if (n < 0 || (int64) n * node_size > buf->len - buf->cursor)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid node count %d in binary calltree", n),
				 errdetail("The message has %d bytes left.", buf->len - buf->cursor)));

	mapped = palloc(sizeof(int32) * Max(n, 1));
	for (int32 i = 0; i < n; i++)
	{
		int32		func = pq_getmsgint(buf, 4);
		int32		parent = pq_getmsgint(buf, 4);
		int64		self = pq_getmsgint64(buf);

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (parent < -1 || parent >= i)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("invalid parent %d of node %d in binary calltree", parent, i),
					 errdetail("A node's parent must come before it, or be -1 for a root.")));
		mapped[i] = tree_builder_child(builder, parent < 0 ? -1 : mapped[parent], func);
		tree_builder_add_self(builder, mapped[i], self);
		if (flags & CALLTREE_HAS_CALLS)
			recv_calls(buf, builder, mapped[i], i);
		if (flags & CALLTREE_HAS_LATENCY)
			recv_latency(buf, builder, mapped[i], i);
	}
	pq_getmsgend(buf);
	tree = tree_builder_finish(builder);
	calltree_check_value(tree);
	PG_RETURN_CALLTREE_P(tree);
}

Datum
calltree_send(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	const int64 *self = calltree_self(tree);
	const int64 *calls = calltree_calls(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, tree->version);
	pq_sendbyte(&buf, tree->flags);
	pq_sendint32(&buf, tree->nnodes);
	for (int32 i = 0; i < tree->nnodes; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		pq_sendint32(&buf, func[i]);
		pq_sendint32(&buf, parent[i]);
		pq_sendint64(&buf, self[i]);
		if (calls)
			pq_sendint64(&buf, calls[i]);
		if (tree->flags & CALLTREE_HAS_LATENCY)
		{
			const int32 *start = calltree_bucket_start(tree);

			pq_sendint64(&buf, calltree_latency_min(tree)[i]);
			pq_sendint64(&buf, calltree_latency_max(tree)[i]);
			pq_sendint32(&buf, start[i + 1] - start[i]);
			for (int32 b = start[i]; b < start[i + 1]; b++)
			{
				pq_sendint32(&buf, BUCKET_INDEX(calltree_buckets(tree)[b]));
				pq_sendint64(&buf, BUCKET_COUNT(calltree_buckets(tree)[b]));
			}
		}
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
