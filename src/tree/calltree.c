/*
 * calltree.c
 *	  Reading stored calltree values (calltree.h): the checks of a value
 *	  from outside, running weights, the total, depths.  No fmgr code here.
 *
 * Every reader of a tree's weights sums them exactly (calltree_wide_add), so
 * that a value either reads the same way whatever the order of the sums or
 * is refused as out of range.
 */
#include "postgres.h"

#include "common/int.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "tree/calltree.h"

void
calltree_weight_out_of_range(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("call tree weight out of range"),
			 errdetail("A sum of weights does not fit in bigint."),
			 errhint("Scale the weights down, for example from nanoseconds to microseconds.")));
}

/* A tree would have more than CALLTREE_MAX_NODES nodes. */
void
calltree_too_many_nodes(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("call tree has too many nodes"),
			 errdetail("A call tree holds at most %d nodes.", CALLTREE_MAX_NODES),
			 errhint("Merge or drop functions before aggregating, or aggregate fewer samples.")));
}

/*
 * Checks that `size` bytes hold a tree of our format: the version, the
 * flags and the node count against the size.  Used on values that come
 * from outside a builder (aggregate states handed between processes).
 */
void
calltree_check_header(const CallTree *tree, Size size)
{
	bool		valid = size >= CALLTREE_HEADER_SIZE &&
		tree->version == CALLTREE_VERSION &&
		(tree->flags & ~CALLTREE_KNOWN_FLAGS) == 0 &&
		(!(tree->flags & CALLTREE_HAS_LATENCY) || (tree->flags & CALLTREE_HAS_CALLS)) &&
		tree->nnodes >= 0 && tree->nnodes <= CALLTREE_MAX_NODES &&
		calltree_buckets_offset(tree->nnodes, tree->flags) <= size;

	if (valid && (tree->flags & CALLTREE_HAS_LATENCY))
	{
		const int32 *start = calltree_bucket_start(tree);

		valid = start[0] == 0;
		for (int32 i = 0; valid && i < tree->nnodes; i++)
			valid = start[i + 1] >= start[i];
		valid = valid && calltree_size(tree->nnodes, tree->flags, start[tree->nnodes]) == size;
	}
	else if (valid)
		valid = calltree_size(tree->nnodes, tree->flags, 0) == size;
	if (!valid)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid calltree value"),
				 errdetail("Version %d, flags 0x%02x, %d nodes in %zu bytes.",
						   tree->version, tree->flags, tree->nnodes, size)));
}

/*
 * Running weight of every node of a stored tree, in a new array.  The sums
 * are exact (calltree_wide_add): a tree built here always has them in range,
 * whatever the order of its nodes; a value that does not is refused.
 */
int64 *
calltree_running(const CallTree *tree)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *parent = calltree_parent(tree);
	int64	   *running = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int32	   *high = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	for (int32 i = 0; i < n; i++)
		calltree_wide_add(&running[i], &high[i], self[i]);
	for (int32 i = n - 1; i >= 0; i--)
	{
		if ((i & 0xFFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!calltree_wide_fits(running[i], high[i]))
			calltree_weight_out_of_range();
		if (parent[i] >= 0)
			calltree_wide_add(&running[parent[i]], &high[parent[i]], running[i]);
	}
	pfree(high);
	return running;
}

/* The sum of all self weights: the running weight of the whole forest. */
int64
calltree_total_weight(const CallTree *tree)
{
	const int64 *self = calltree_self(tree);
	int64		total = 0;
	int32		high = 0;

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		if ((i & 0xFFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		calltree_wide_add(&total, &high, self[i]);
	}
	if (!calltree_wide_fits(total, high))
		calltree_weight_out_of_range();
	return total;
}

static pg_attribute_noreturn() void
invalid_node(int32 i, const CallTree *tree, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("invalid calltree: node %d (func %d) has %s", i + 1, calltree_func(tree)[i], what),
			 errhint("Call counts are zero or more; a histogram has buckets 0..%d in order, with counts of 1 or more.",
					 LATENCY_MAX_INDEX)));
}

/*
 * What makes a value of the calltree type, beyond its layout: every value
 * that passes prints, sends and reads back.  calltree_in and calltree_recv
 * both check what they build here, so that they accept the same values.
 *
 * The nodes are in canonical order with parent[i] < i (the builder's
 * work); call counts are zero or more; every running weight and the total
 * fit in bigint, summed exactly; a histogram has its buckets in index
 * order, in range, with counts of 1 or more, and min <= max; a node
 * without one has min = max = 0.
 */
void
calltree_check_value(const CallTree *tree)
{
	const int64 *calls = calltree_calls(tree);
	const int32 *start = calltree_bucket_start(tree);

	pfree(calltree_running(tree));
	(void) calltree_total_weight(tree);
	for (int32 i = 0; i < tree->nnodes; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (calls && calls[i] < 0)
			invalid_node(i, tree, "a negative call count");
		if (start)
		{
			const uint64 *buckets = calltree_buckets(tree);
			int64		min = calltree_latency_min(tree)[i];
			int64		max = calltree_latency_max(tree)[i];

			if (start[i + 1] == start[i] ? (min != 0 || max != 0) : min > max)
				invalid_node(i, tree, "an invalid shortest or longest call");
			for (int32 b = start[i]; b < start[i + 1]; b++)
				if (BUCKET_INDEX(buckets[b]) > LATENCY_MAX_INDEX || BUCKET_COUNT(buckets[b]) < 1 ||
					(b > start[i] && BUCKET_INDEX(buckets[b]) <= BUCKET_INDEX(buckets[b - 1])))
					invalid_node(i, tree, "an invalid histogram bucket");
		}
	}
}

/*
 * Depth of every node of a stored tree (0 for roots), in a new array.
 * parent[i] < i in the stored order, so one forward pass suffices.
 */
int32 *
calltree_depths(const CallTree *tree)
{
	const int32 *parent = calltree_parent(tree);
	int32	   *depth = palloc_extended(sizeof(int32) * Max(tree->nnodes, 1), MCXT_ALLOC_HUGE);

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		if ((i & 0xFFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		depth[i] = parent[i] < 0 ? 0 : depth[parent[i]] + 1;
	}
	return depth;
}
