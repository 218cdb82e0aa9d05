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
 * path of node i is the path of its parent plus its func.  One int4[] as
 * deep as the tree holds the path of the current node in its data area:
 * each row sets its length and its last func, and the tuplestore copies it,
 * so a row costs no allocation.
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
	int32		max_depth = 0;
	int32		no_func = 0;
	ArrayType  *path;
	int32	   *path_funcs;

	InitMaterializedSRF(fcinfo, 0);
	if (tree->nnodes == 0)
		return (Datum) 0;
	for (int32 i = 0; i < tree->nnodes; i++)
	{
		depth[i] = parent[i] < 0 ? 0 : depth[parent[i]] + 1;
		max_depth = Max(max_depth, depth[i]);
	}
	path = int4_array(&no_func, 1); /* the shape of a one-dimensional int4[] */
	path = repalloc(path, ARR_OVERHEAD_NONULLS(1) + sizeof(int32) * ((Size) max_depth + 1));
	path_funcs = (int32 *) ARR_DATA_PTR(path);

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		Datum		values[8];
		bool		nulls[8] = {false};

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		path_funcs[depth[i]] = func[i];
		SET_VARSIZE(path, ARR_OVERHEAD_NONULLS(1) + sizeof(int32) * (depth[i] + 1));
		ARR_DIMS(path)[0] = depth[i] + 1;

		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(parent[i] + 1);
		nulls[1] = parent[i] < 0;
		values[2] = Int32GetDatum(depth[i]);
		values[3] = Int32GetDatum(func[i]);
		values[4] = PointerGetDatum(path);
		values[5] = Int64GetDatum(running[i]);
		values[6] = Int64GetDatum(self[i]);
		values[7] = calls ? Int64GetDatum(calls[i]) : (Datum) 0;
		nulls[7] = calls == NULL;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
