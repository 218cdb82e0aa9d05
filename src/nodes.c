/*
 * nodes.c
 *	  Reading trees as rows: nodes() and functions().
 *
 * Both materialize their result (InitMaterializedSRF): a tree is walked
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
PG_FUNCTION_INFO_V1(calltree_functions);

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
	Datum	   *path = palloc(sizeof(Datum) * 64);
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
			path = repalloc(path, sizeof(Datum) * path_capacity);
		}
		path[depth[i]] = Int32GetDatum(func[i]);

		old = MemoryContextSwitchTo(row_cxt);
		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(parent[i] + 1);
		nulls[1] = parent[i] < 0;
		values[2] = Int32GetDatum(depth[i]);
		values[3] = Int32GetDatum(func[i]);
		values[4] = PointerGetDatum(construct_array(path, depth[i] + 1, INT4OID,
													sizeof(int32), true, TYPALIGN_INT));
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

/*
 * functions(tree) → (func, running, self), hottest first.
 *
 * A func's self weight is the sum over its nodes.  Its running weight sums
 * only its outermost nodes, those with no ancestor of the same func, so a
 * sample under a recursion counts once.  The walk keeps, per func, how many
 * nodes of that func are on the path to the current node.
 */
typedef struct FuncTotals
{
	int32		func;
	int32		on_path;
	int64		running;
	int64		self;
	char		status;
} FuncTotals;

#define SH_PREFIX		functotals
#define SH_ELEMENT_TYPE FuncTotals
#define SH_KEY_TYPE		int32
#define SH_KEY			func
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (uint32) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

static int
compare_func_totals(const void *a, const void *b)
{
	const FuncTotals *x = *(FuncTotals *const *) a;
	const FuncTotals *y = *(FuncTotals *const *) b;

	if (x->running != y->running)
		return x->running > y->running ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

Datum
calltree_functions(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int64	   *running = calltree_running(tree);
	FuncTotals **on_path = palloc_extended(sizeof(FuncTotals *) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32	   *path_nodes = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32		depth = 0;
	functotals_hash *totals = functotals_create(CurrentMemoryContext, 256, NULL);
	functotals_iterator it;
	FuncTotals *entry;
	FuncTotals **sorted;
	uint32		nfuncs = 0;

	InitMaterializedSRF(fcinfo, 0);

	for (int32 i = 0; i < n; i++)
	{
		bool		found;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		/* leave the nodes this one is not below */
		while (depth > 0 && path_nodes[depth - 1] != parent[i])
			on_path[--depth]->on_path--;

		entry = functotals_insert(totals, func[i], &found);
		if (!found)
		{
			entry->on_path = 0;
			entry->running = 0;
			entry->self = 0;
		}
		if (entry->on_path == 0)
			entry->running = calltree_add_weight(entry->running, running[i]);
		entry->self = calltree_add_weight(entry->self, self[i]);
		entry->on_path++;
		on_path[depth] = entry;
		path_nodes[depth++] = i;
	}

	sorted = palloc(sizeof(FuncTotals *) * Max(totals->members, 1));
	functotals_start_iterate(totals, &it);
	while ((entry = functotals_iterate(totals, &it)) != NULL)
		sorted[nfuncs++] = entry;
	qsort(sorted, nfuncs, sizeof(FuncTotals *), compare_func_totals);

	for (uint32 k = 0; k < nfuncs; k++)
	{
		Datum		values[3];
		bool		nulls[3] = {false};

		values[0] = Int32GetDatum(sorted[k]->func);
		values[1] = Int64GetDatum(sorted[k]->running);
		values[2] = Int64GetDatum(sorted[k]->self);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
