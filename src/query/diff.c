/*
 * diff.c
 *	  diff(base, test, normalize): the CallNodes of two trees side by side,
 *	  one row per node of either tree, in the union's order (tree/compare.h).
 *
 * The rows are materialized in a tuplestore that keeps each at its own size
 * (query/result_rows.h): they are most of diff()'s cost, and wide enough
 * that rounding them up to a power of two would cost a third more memory.
 * They are written in one pass over the union, which is already in the
 * promised order.  As in nodes(),
 * one int4[] as deep as the union holds the current node's path, and the
 * func path elements of all rows are bounded by calltree.max_path_output
 * before any row is written.
 */
#include "postgres.h"

#include "common/int.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/tuplestore.h"

#include "query/result_rows.h"
#include "tree/calltree.h"
#include "tree/compare.h"
#include "tree/path.h"

PG_FUNCTION_INFO_V1(calltree_diff);

#define DIFF_COLUMNS	13

/* test - base, or an error if it does not fit in bigint */
static int64
weight_delta(int64 test, int64 base)
{
	int64		delta;

	if (pg_sub_s64_overflow(test, base, &delta))
		calltree_weight_out_of_range();
	return delta;
}

/* running over total as float8, NULL (false returned) when the total is zero */
static bool
share_of(int64 running, int64 total, Datum *value)
{
	if (total == 0)
		return false;
	*value = Float8GetDatum((double) running / (double) total);
	return true;
}

static int64
union_path_elements(const TreePair *pair)
{
	int64		elements = 0;

	for (int32 i = 0; i < pair->nnodes; i++)
		elements += (int64) pair->depth[i] + 1;
	return elements;
}

/* An int4[] with room for a path of max_depth + 1 funcs */
static ArrayType *
path_buffer(const TreePair *pair)
{
	int32		max_depth = 0;
	int32		no_func = 0;

	for (int32 i = 0; i < pair->nnodes; i++)
		max_depth = Max(max_depth, pair->depth[i]);
	return repalloc(int4_array(&no_func, 1),
					ARR_OVERHEAD_NONULLS(1) + sizeof(int32) * ((Size) max_depth + 1));
}

static void
write_diff_rows(ReturnSetInfo *rsinfo, const TreePair *pair)
{
	ArrayType  *path = path_buffer(pair);
	int32	   *path_funcs = (int32 *) ARR_DATA_PTR(path);

	for (int32 i = 0; i < pair->nnodes; i++)
	{
		Datum		values[DIFF_COLUMNS];
		bool		nulls[DIFF_COLUMNS] = {false};
		int32		depth = pair->depth[i];

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		path_funcs[depth] = pair->func[i];
		SET_VARSIZE(path, ARR_OVERHEAD_NONULLS(1) + sizeof(int32) * (depth + 1));
		ARR_DIMS(path)[0] = depth + 1;

		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(pair->parent[i] + 1);
		nulls[1] = pair->parent[i] < 0;
		values[2] = Int32GetDatum(depth);
		values[3] = Int32GetDatum(pair->func[i]);
		values[4] = PointerGetDatum(path);
		values[5] = Int64GetDatum(pair->base_running[i]);
		values[6] = Int64GetDatum(pair->base_self[i]);
		values[7] = Int64GetDatum(pair->test_running[i]);
		values[8] = Int64GetDatum(pair->test_self[i]);
		values[9] = Int64GetDatum(weight_delta(pair->test_running[i], pair->base_running[i]));
		values[10] = Int64GetDatum(weight_delta(pair->test_self[i], pair->base_self[i]));
		nulls[11] = !share_of(pair->base_running[i], pair->base_total, &values[11]);
		nulls[12] = !share_of(pair->test_running[i], pair->test_total, &values[12]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * diff(base, test, normalize) → (node, parent, depth, func, path,
 * base_running, base_self, test_running, test_self, delta_running,
 * delta_self, base_share, test_share).  node and parent are 1-based union
 * indexes; a side that lacks a node has weights 0 there; the deltas are
 * test minus base; a share is NULL when its side's total is zero.  With
 * normalize, base is first scaled to test's total (tree_pair_normalize_base).
 */
Datum
calltree_diff(PG_FUNCTION_ARGS)
{
	CallTree   *base = PG_GETARG_CALLTREE_P(0);
	CallTree   *test = PG_GETARG_CALLTREE_P(1);
	bool		normalize = PG_GETARG_BOOL(2);
	TreePair   *pair = tree_pair_make(base, test);

	calltree_check_path_elements("diff()", union_path_elements(pair));
	if (normalize)
		tree_pair_normalize_base(pair);
	result_rows_init(fcinfo);
	write_diff_rows((ReturnSetInfo *) fcinfo->resultinfo, pair);
	return (Datum) 0;
}
