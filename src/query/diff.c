/*
 * diff.c
 *	  diff(base, test, normalize): the CallNodes of two trees side by side,
 *	  one row per node of either tree, in the union's order (tree/compare.h).
 *
 * The rows are materialized in a tuplestore that keeps each at its own size
 * (query/result_rows.h): they are most of diff()'s cost, and wide enough
 * that rounding them up to a power of two would cost a third more memory.
 * They are written in one pass over the union, which is already in the
 * promised order, as the walk hands out its nodes (tree/compare.h), so that
 * no array per union node is made.  As in nodes(), one int4[] holds the
 * current node's path, and the func path elements of all rows are bounded
 * by calltree.max_path_output before any row is written.
 */
#include "postgres.h"

#include "common/int.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/tuplestore.h"

#include "module.h"
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

/*
 * The current row's path, in one int4[] that grows with the deepest node
 * seen: each row sets its length and its last func, and the tuplestore
 * copies it.
 */
typedef struct PathBuffer
{
	ArrayType  *array;
	int32		capacity;		/* funcs it has room for */
} PathBuffer;

static void
path_buffer_init(PathBuffer *path)
{
	int32		no_func = 0;

	path->array = int4_array(&no_func, 1);	/* the shape of a one-dimensional int4[] */
	path->capacity = 1;
}

/* The path of a node at `depth` whose parent's path is in the buffer */
static ArrayType *
path_buffer_set(PathBuffer *path, int32 depth, int32 func)
{
	if (depth >= path->capacity)
	{
		path->capacity = Max(depth + 1, 2 * path->capacity);
		path->array = repalloc(path->array,
							   ARR_OVERHEAD_NONULLS(1) + sizeof(int32) * (Size) path->capacity);
	}
	((int32 *) ARR_DATA_PTR(path->array))[depth] = func;
	SET_VARSIZE(path->array, ARR_OVERHEAD_NONULLS(1) + sizeof(int32) * (depth + 1));
	ARR_DIMS(path->array)[0] = depth + 1;
	return path->array;
}

static void
write_diff_row(ReturnSetInfo *rsinfo, PathBuffer *path, const UnionNode *node,
			   int64 base_total, int64 test_total)
{
	Datum		values[DIFF_COLUMNS];
	bool		nulls[DIFF_COLUMNS] = {false};

	values[0] = Int32GetDatum(node->index + 1);
	values[1] = Int32GetDatum(node->parent + 1);
	nulls[1] = node->parent < 0;
	values[2] = Int32GetDatum(node->depth);
	values[3] = Int32GetDatum(node->func);
	values[4] = PointerGetDatum(path_buffer_set(path, node->depth, node->func));
	values[5] = Int64GetDatum(node->base_running);
	values[6] = Int64GetDatum(node->base_self);
	values[7] = Int64GetDatum(node->test_running);
	values[8] = Int64GetDatum(node->test_self);
	values[9] = Int64GetDatum(weight_delta(node->test_running, node->base_running));
	values[10] = Int64GetDatum(weight_delta(node->test_self, node->base_self));
	nulls[11] = !share_of(node->base_running, base_total, &values[11]);
	nulls[12] = !share_of(node->test_running, test_total, &values[12]);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* The rows straight from the walk: nothing is kept per union node */
static void
write_walked_rows(ReturnSetInfo *rsinfo, TreeUnion *walk, int64 base_total, int64 test_total)
{
	PathBuffer	path;
	UnionNode	node;

	path_buffer_init(&path);
	while (tree_union_next(walk, &node))
		write_diff_row(rsinfo, &path, &node, base_total, test_total);
}

/* The rows of a pair whose base has been scaled */
static void
write_pair_rows(ReturnSetInfo *rsinfo, const TreePair *pair)
{
	PathBuffer	path;

	path_buffer_init(&path);
	for (int32 i = 0; i < pair->nnodes; i++)
	{
		UnionNode	node = {
			.index = i,
			.func = pair->func[i],
			.parent = pair->parent[i],
			.depth = pair->depth[i],
			.base_self = pair->base_self[i],
			.test_self = pair->test_self[i],
			.base_running = pair->base_running[i],
			.test_running = pair->test_running[i],
		};

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		write_diff_row(rsinfo, &path, &node, pair->base_total, pair->test_total);
	}
}

/*
 * diff(base, test, normalize) → (node, parent, depth, func, path,
 * base_running, base_self, test_running, test_self, delta_running,
 * delta_self, base_share, test_share).  node and parent are 1-based union
 * indexes; a side that lacks a node has weights 0 there; the deltas are
 * test minus base; a share is NULL when its side's total is zero.  With
 * normalize, base is first scaled to test's total (tree_pair_normalize_base),
 * which needs the whole union in arrays; without, the rows are written as
 * the union is walked.
 */
Datum
calltree_diff(PG_FUNCTION_ARGS)
{
	CallTree   *base = PG_GETARG_CALLTREE_P(0);
	CallTree   *test = PG_GETARG_CALLTREE_P(1);
	bool		normalize = PG_GETARG_BOOL(2);
	TreeUnion  *walk = tree_union_begin(base, test);
	int64		elements = tree_union_path_elements_bound(walk);

	if (elements > calltree_max_path_output)
		elements = tree_union_path_elements(walk);
	calltree_check_path_elements("diff()", elements);
	if (normalize)
	{
		TreePair   *pair = tree_pair_collect(walk);

		tree_union_end(walk);
		tree_pair_normalize_base(pair);
		result_rows_init(fcinfo);
		write_pair_rows((ReturnSetInfo *) fcinfo->resultinfo, pair);
	}
	else
	{
		result_rows_init(fcinfo);
		write_walked_rows((ReturnSetInfo *) fcinfo->resultinfo, walk,
						  calltree_total_weight(base), calltree_total_weight(test));
		tree_union_end(walk);
	}
	return (Datum) 0;
}
