/*
 * lines.c
 *	  lines(profile, node_path): time per line inside a CallNode
 *	  ("which lines inside main() are expensive").
 *
 * The samples whose func path passes through the CallNode are those whose
 * stack, resolved to the tree, lies under the node.  Each such stack has, at
 * the node's depth, a frame of the node's function: an address or a line.
 * Per frame, running sums those samples' weights, and self those where the
 * CallNode is the leaf.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "tree/calltree.h"
#include "tree/builder.h"
#include "tree/hash64.h"
#include "tree/path.h"
#include "store/store.h"
#include "query/func_arg.h"
#include "query/stack_resolve.h"

PG_FUNCTION_INFO_V1(calltree_lines);

typedef struct FrameWeights
{
	int64		frame;
	int64		running;
	int64		self;
	char		status;
} FrameWeights;

#define SH_PREFIX		frameweights
#define SH_ELEMENT_TYPE FrameWeights
#define SH_KEY_TYPE		int64
#define SH_KEY			frame
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* The builder node of a func path, or -1 */
static int32
find_node(const TreeBuilder *builder, const int32 *path, int32 len)
{
	int32		node = -1;

	for (int32 i = 0; i < len && (i == 0 || node >= 0); i++)
		node = tree_builder_find_child(builder, node, path[i]);
	return node;
}

/*
 * Writes (frame, address, line, col, self, running) per frame, hottest
 * first, with the frames' columns read in one query.
 */
static void
emit_frames(ReturnSetInfo *rsinfo, frameweights_hash *weights)
{
	Oid			types[1] = {INT8ARRAYOID};
	Datum		ids_datum;
	Datum	   *ids = palloc(sizeof(Datum) * Max(weights->members, 1));
	frameweights_iterator it;
	FrameWeights *entry;
	int			n = 0;

	frameweights_start_iterate(weights, &it);
	while ((entry = frameweights_iterate(weights, &it)) != NULL)
		ids[n++] = Int64GetDatum(entry->frame);
	ids_datum = PointerGetDatum(construct_array(ids, n, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE));
	if (SPI_execute_with_args("SELECT id, address, line, col FROM calltree.frame "
							  "WHERE id OPERATOR(pg_catalog.=) ANY ($1)",
							  1, types, &ids_datum, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading frames failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	row = SPI_tuptable->vals[r];
		Datum		values[6];
		bool		nulls[6] = {false};

		for (int c = 0; c < 4; c++)
			values[c] = SPI_getbinval(row, SPI_tuptable->tupdesc, c + 1, &nulls[c]);
		entry = frameweights_lookup(weights, DatumGetInt64(values[0]));
		values[4] = Int64GetDatum(entry->self);
		values[5] = Int64GetDatum(entry->running);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* The samples of a profile, summed per stack, each stack resolved to its node */
typedef struct StackSums
{
	uint64		count;
	int64	   *stacks;
	int64	   *sums;
	int32	   *nodes;
} StackSums;

/*
 * Reads the profile's stack sums through SPI (connected by the caller) into
 * `cxt`, which is current on return.
 */
static void
read_stack_sums(int64 profile_id, StackResolver *resolver, MemoryContext cxt, StackSums *out)
{
	Oid			types[1] = {INT8OID};
	Datum		arg = Int64GetDatum(profile_id);
	TupleDesc	desc;

	if (SPI_execute_with_args("SELECT stack_id, pg_catalog.sum(weight)::bigint FROM calltree.sample "
							  "WHERE profile_id OPERATOR(pg_catalog.=) $1 GROUP BY stack_id",
							  1, types, &arg, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading samples failed");
	out->count = SPI_processed;
	desc = SPI_tuptable->tupdesc;
	MemoryContextSwitchTo(cxt);
	out->stacks = palloc_extended(sizeof(int64) * Max(out->count, 1), MCXT_ALLOC_HUGE);
	out->sums = palloc_extended(sizeof(int64) * Max(out->count, 1), MCXT_ALLOC_HUGE);
	out->nodes = palloc_extended(sizeof(int32) * Max(out->count, 1), MCXT_ALLOC_HUGE);
	for (uint64 r = 0; r < out->count; r++)
	{
		bool		isnull;

		out->stacks[r] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], desc, 1, &isnull));
		out->sums[r] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], desc, 2, &isnull));
		out->nodes[r] = stack_resolver_node(resolver, out->stacks[r]);
		if ((r & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Refuses the work before it is done: each stack below the node is read
 * from its leaf up to the node.
 */
static void
check_lines_work(const StackSums *sums, const int32 *below)
{
	int64		elements = 0;

	for (uint64 r = 0; r < sums->count; r++)
		if (below[sums->nodes[r]] >= 0)
			elements += below[sums->nodes[r]] + 1;
	calltree_check_path_elements("lines()", elements);
}

/*
 * The weights of the stacks below `target`, summed per frame of the node's
 * function (the frame at depth `depth` of each stack).
 */
static void
sum_frames(const StackSums *sums, StackResolver *resolver, int32 target, int32 depth,
		   const int32 *below, frameweights_hash *weights)
{
	for (uint64 r = 0; r < sums->count; r++)
	{
		FrameWeights *entry;
		bool		found;

		if ((r & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (below[sums->nodes[r]] < 0)
			continue;
		entry = frameweights_insert(weights, stack_resolver_frame_at(resolver, sums->stacks[r], depth), &found);
		if (!found)
			entry->running = entry->self = 0;
		entry->running = calltree_add_weight(entry->running, sums->sums[r]);
		if (sums->nodes[r] == target)
			entry->self = calltree_add_weight(entry->self, sums->sums[r]);
	}
}

/* lines(profile bigint, node_path int4[]) → (frame, address, line, col, self, running) */
Datum
calltree_lines(PG_FUNCTION_ARGS)
{
	int64		profile_id = PG_GETARG_INT64(0);
	int32		path_len;
	const int32 *node_path = path_argument(PG_GETARG_ARRAYTYPE_P(1), "node path", &path_len);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext fn_cxt;
	TreeBuilder *builder;
	StackResolver *resolver;
	StackSums	sums;
	int32		target;
	frameweights_hash *weights;

	if (path_len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node path must not be empty"),
				 errhint("A node path is the func path of a CallNode, root first, such as '{1,2,3}'.")));
	InitMaterializedSRF(fcinfo, 0);
	fn_cxt = CurrentMemoryContext;
	builder = tree_builder_create(fn_cxt);
	resolver = stack_resolver_begin(builder);
	weights = frameweights_create(fn_cxt, 64, NULL);

	SPI_connect();
	read_stack_sums(profile_id, resolver, fn_cxt, &sums);
	target = find_node(builder, node_path, path_len);
	/* nothing found: a profile or node path that names nothing is an error */
	if (sums.count == 0)
		profile_lookup_check(profile_id, "lines()");
	if (target < 0)
		func_arg_check(fcinfo, 1, "node path func", node_path, path_len, NULL, 0);
	if (target >= 0)
	{
		int32	   *below = tree_builder_depths_below(builder, target);

		check_lines_work(&sums, below);
		sum_frames(&sums, resolver, target, path_len - 1, below, weights);
	}
	if (weights->members > 0)
		emit_frames(rsinfo, weights);
	SPI_finish();
	stack_resolver_end(resolver);
	return (Datum) 0;
}
