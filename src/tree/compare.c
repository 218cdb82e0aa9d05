/*
 * compare.c
 *	  Two call trees side by side (compare.h): the union of their nodes in
 *	  the order of base + test, and the scaling of base to test's total.
 *	  No fmgr code here.
 *
 * The union is the trie of both trees' nodes, built by the tree builder
 * and put in canonical order by it, as base + test would be: the builder
 * tells where each of its nodes lands in that order, and each side's
 * weights are then written to their node's place.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "tree/builder.h"
#include "tree/compare.h"

#ifndef HAVE_INT128
#error "scaling weights exactly (tree_pair_normalize_base) needs a 128-bit integer type"
#endif

/* A per-node array of the union, zeroed */
static void *
union_array(int32 nnodes, Size elem_size)
{
	return palloc_extended(elem_size * Max(nnodes, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
}

/*
 * One side's nodes and self weights at their union places: node i of
 * `tree` went to builder node built[i], which the union holds at
 * placed[built[i]].
 */
static void
place_side(const CallTree *tree, const int32 *built, const int32 *placed, int32 *node, int64 *self)
{
	const int64 *tree_self = calltree_self(tree);

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		int32		u = placed[built[i]];

		node[u] = i;
		self[u] = tree_self[i];
	}
}

/*
 * Running weights summed from the self weights, children before their
 * parents (parent[i] < i).  The sums are exact (calltree_wide_add), as
 * calltree_running's are: a signed tree's partial sums may leave bigint and
 * come back, and only a running weight that does not fit is an error.
 */
static void
sum_running(const TreePair *pair, const int64 *self, int64 *running)
{
	int32	   *high = palloc_extended(sizeof(int32) * Max(pair->nnodes, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	for (int32 i = 0; i < pair->nnodes; i++)
	{
		running[i] = 0;
		calltree_wide_add(&running[i], &high[i], self[i]);
	}
	for (int32 i = pair->nnodes - 1; i >= 0; i--)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!calltree_wide_fits(running[i], high[i]))
			calltree_weight_out_of_range();
		if (pair->parent[i] >= 0)
			calltree_wide_add(&running[pair->parent[i]], &high[pair->parent[i]], running[i]);
	}
	pfree(high);
}

/* A per-node array of the union, of -1 in every element */
static int32 *
no_nodes(int32 nnodes)
{
	int32	   *array = palloc_extended(sizeof(int32) * Max(nnodes, 1), MCXT_ALLOC_HUGE);

	memset(array, -1, sizeof(int32) * (Size) nnodes);
	return array;
}

TreePair *
tree_pair_make(const CallTree *base, const CallTree *test)
{
	MemoryContext build_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree pair union",
													ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(build_cxt);
	TreeBuilder *builder = tree_builder_create(build_cxt);
	int32	   *base_built;
	int32	   *test_built;
	int32	   *placed;
	CallTree   *both;
	TreePair   *pair;
	int32		n;

	tree_builder_reserve(builder, (int64) base->nnodes + test->nnodes);
	base_built = tree_builder_add_weights(builder, base, false);
	test_built = tree_builder_add_weights(builder, test, false);
	placed = palloc_extended(sizeof(int32) * Max(tree_builder_count(builder), 1), MCXT_ALLOC_HUGE);
	/* the union as a tree, in the caller's context: its funcs and parents are the pair's */
	MemoryContextSwitchTo(old);
	both = tree_builder_finish_mapped(builder, placed);

	n = both->nnodes;
	pair = palloc0(sizeof(TreePair));
	pair->nnodes = n;
	pair->func = calltree_func(both);
	pair->parent = calltree_parent(both);
	pair->depth = calltree_depths(both);
	pair->base_node = no_nodes(n);
	pair->test_node = no_nodes(n);
	pair->base_self = union_array(n, sizeof(int64));
	pair->test_self = union_array(n, sizeof(int64));
	pair->base_running = union_array(n, sizeof(int64));
	pair->test_running = union_array(n, sizeof(int64));
	place_side(base, base_built, placed, pair->base_node, pair->base_self);
	place_side(test, test_built, placed, pair->test_node, pair->test_self);
	/* a side's nodes are closed under parents, so its running weights are its own */
	sum_running(pair, pair->base_self, pair->base_running);
	sum_running(pair, pair->test_self, pair->test_running);
	pair->base_total = calltree_total_weight(base);
	pair->test_total = calltree_total_weight(test);

	MemoryContextDelete(build_cxt);
	return pair;
}

/* The scaling's remainder at one node, for choosing who gets rounded up */
typedef struct Remainder
{
	int32		node;
	uint64		remainder;		/* in [0, |base total|) */
} Remainder;

static int
compare_remainders(const void *a, const void *b)
{
	const Remainder *x = a;
	const Remainder *y = b;

	if (x->remainder != y->remainder)
		return x->remainder > y->remainder ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

static int64
scaled_in_range(int128 value)
{
	if (value < PG_INT64_MIN || value > PG_INT64_MAX)
		calltree_weight_out_of_range();
	return (int64) value;
}

/*
 * With B = |base total| and each self weight s read with base total's sign
 * (s * T / base total = s' * T / B), every weight is floor(s' T / B) with a
 * remainder r in [0, B).  The floors sum to T - (sum of r) / B, so the
 * remainders sum to a multiple k of B, k below the number of nonzero
 * remainders: the k largest are rounded up.
 */
void
tree_pair_normalize_base(TreePair *pair)
{
	int128		total = pair->test_total;
	int128		divisor = pair->base_total < 0 ? -(int128) pair->base_total : pair->base_total;
	int32		n = pair->nnodes;
	Remainder  *remainders = palloc_extended(sizeof(Remainder) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32		nremainders = 0;
	int128		remainder_sum = 0;
	int64		round_up;

	if (pair->base_total == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DIVISION_BY_ZERO),
				 errmsg("cannot normalize a base tree whose total weight is zero"),
				 errdetail("Normalizing scales the base tree's weights by the test tree's total over the base tree's."),
				 errhint("Compare without normalize, or the shares of the total that diff() returns.")));
	for (int32 i = 0; i < n; i++)
	{
		int128		s = pair->base_total < 0 ? -(int128) pair->base_self[i] : pair->base_self[i];
		int128		product = s * total;
		int128		quotient = product / divisor;
		int128		remainder = product % divisor;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (remainder < 0)		/* C division truncates: make it a floor */
		{
			quotient--;
			remainder += divisor;
		}
		pair->base_self[i] = scaled_in_range(quotient);
		if (remainder > 0)
		{
			remainders[nremainders].node = i;
			remainders[nremainders++].remainder = (uint64) remainder;
			remainder_sum += remainder;
		}
	}
	round_up = (int64) (remainder_sum / divisor);
	Assert(remainder_sum % divisor == 0 && round_up <= nremainders);
	if (round_up > 0)
		qsort(remainders, nremainders, sizeof(Remainder), compare_remainders);
	for (int64 k = 0; k < round_up; k++)
		pair->base_self[remainders[k].node] =
			calltree_add_weight(pair->base_self[remainders[k].node], 1);
	sum_running(pair, pair->base_self, pair->base_running);
	pair->base_total = pair->test_total;
	pfree(remainders);
}
