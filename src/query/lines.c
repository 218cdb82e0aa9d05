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
	Oid			types[1] = {INT8OID};
	Datum		arg = Int64GetDatum(profile_id);
	int64	   *stacks;
	int64	   *sums;
	int32	   *nodes;
	uint64		nstacks;
	int32		target;
	int32	   *below = NULL;
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
	if (SPI_execute_with_args("SELECT stack_id, pg_catalog.sum(weight)::bigint FROM calltree.sample "
							  "WHERE profile_id OPERATOR(pg_catalog.=) $1 GROUP BY stack_id",
							  1, types, &arg, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "reading samples failed");
	nstacks = SPI_processed;
	MemoryContextSwitchTo(fn_cxt);
	stacks = palloc_extended(sizeof(int64) * Max(nstacks, 1), MCXT_ALLOC_HUGE);
	sums = palloc_extended(sizeof(int64) * Max(nstacks, 1), MCXT_ALLOC_HUGE);
	nodes = palloc_extended(sizeof(int32) * Max(nstacks, 1), MCXT_ALLOC_HUGE);
	for (uint64 r = 0; r < nstacks; r++)
	{
		bool		isnull;

		stacks[r] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull));
		sums[r] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &isnull));
		nodes[r] = stack_resolver_node(resolver, stacks[r]);
		if ((r & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}

	target = find_node(builder, node_path, path_len);
	if (target >= 0)
	{
		/* each stack below the node is read from its leaf up to the node */
		int64		elements = 0;

		below = tree_builder_depths_below(builder, target);
		for (uint64 r = 0; r < nstacks; r++)
			if (below[nodes[r]] >= 0)
				elements += below[nodes[r]] + 1;
		calltree_check_path_elements("lines()", elements);
	}
	for (uint64 r = 0; target >= 0 && r < nstacks; r++)
	{
		FrameWeights *entry;
		bool		found;

		if ((r & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (below[nodes[r]] < 0)
			continue;
		entry = frameweights_insert(weights, stack_resolver_frame_at(resolver, stacks[r], path_len - 1), &found);
		if (!found)
			entry->running = entry->self = 0;
		entry->running = calltree_add_weight(entry->running, sums[r]);
		if (nodes[r] == target)
			entry->self = calltree_add_weight(entry->self, sums[r]);
	}
	if (weights->members > 0)
		emit_frames(rsinfo, weights);
	SPI_finish();
	stack_resolver_end(resolver);
	return (Datum) 0;
}
