/*
 * nodes.c
 *	  Reading a tree as rows: nodes().
 *
 * The result is materialized (InitMaterializedSRF): the tree is walked
 * once, in stored order, which is already the order nodes() promises.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "calltree.h"

PG_FUNCTION_INFO_V1(calltree_nodes);

/*
 * nodes(tree) → (node, parent, depth, func, path, running, self, calls)
 *
 * node and parent are 1-based preorder indexes; depth is 0 for roots.  The
 * path of node i is the path of its parent plus its func, kept in one array
 * indexed by depth.
 */
Datum
calltree_nodes(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const int64 *self = calltree_self(tree);
	const int64 *calls = calltree_calls(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int64	   *running = calltree_running(tree);
	int32	   *depth = palloc_extended(sizeof(int32) * Max(tree->nnodes, 1), MCXT_ALLOC_HUGE);
	int32	   *path = palloc(sizeof(int32) * 64);
	int32		path_capacity = 64;
	MemoryContext row_cxt;

	InitMaterializedSRF(fcinfo, 0);
	row_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree nodes row",
									ALLOCSET_SMALL_SIZES);

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		Datum		values[8];
		bool		nulls[8] = {false};
		MemoryContext old;

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		depth[i] = parent[i] < 0 ? 0 : depth[parent[i]] + 1;
		if (depth[i] >= path_capacity)
		{
			path_capacity *= 2;
			path = repalloc(path, sizeof(int32) * path_capacity);
		}
		path[depth[i]] = func[i];

		old = MemoryContextSwitchTo(row_cxt);
		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(parent[i] + 1);
		nulls[1] = parent[i] < 0;
		values[2] = Int32GetDatum(depth[i]);
		values[3] = Int32GetDatum(func[i]);
		values[4] = PointerGetDatum(int4_array(path, depth[i] + 1));
		values[5] = Int64GetDatum(running[i]);
		values[6] = Int64GetDatum(self[i]);
		values[7] = calls ? Int64GetDatum(calls[i]) : (Datum) 0;
		nulls[7] = calls == NULL;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		MemoryContextSwitchTo(old);
		MemoryContextReset(row_cxt);
	}
	return (Datum) 0;
}
