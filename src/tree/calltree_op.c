/*
 * calltree_op.c
 *	  The calltree type's operators and simple functions: equality,
 *	  hashing, merging (+), the difference (-) and total().
 *
 * Stored trees are canonical (calltree.h), so equal trees have equal bytes
 * and both equality and hashing work on the bytes.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "common/int.h"
#include "miscadmin.h"
#include "fmgr.h"

#include "tree/builder.h"
#include "tree/calltree.h"

PG_FUNCTION_INFO_V1(calltree_eq);
PG_FUNCTION_INFO_V1(calltree_ne);
PG_FUNCTION_INFO_V1(calltree_hash);
PG_FUNCTION_INFO_V1(calltree_add);
PG_FUNCTION_INFO_V1(calltree_subtract);
PG_FUNCTION_INFO_V1(calltree_total);

static bool
calltree_equal(const CallTree *a, const CallTree *b)
{
	return VARSIZE(a) == VARSIZE(b) && memcmp(a, b, VARSIZE(a)) == 0;
}

Datum
calltree_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(calltree_equal(PG_GETARG_CALLTREE_P(0), PG_GETARG_CALLTREE_P(1)));
}

Datum
calltree_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!calltree_equal(PG_GETARG_CALLTREE_P(0), PG_GETARG_CALLTREE_P(1)));
}

Datum
calltree_hash(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);

	PG_RETURN_DATUM(hash_any((const unsigned char *) VARDATA(tree), VARSIZE(tree) - VARHDRSZ));
}

/* tree + tree: the tree of the union of both trees' samples */
Datum
calltree_add(PG_FUNCTION_ARGS)
{
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);

	tree_builder_add_tree(builder, PG_GETARG_CALLTREE_P(0));
	tree_builder_add_tree(builder, PG_GETARG_CALLTREE_P(1));
	PG_RETURN_CALLTREE_P(tree_builder_finish(builder));
}

/*
 * Adds every node of `tree` to the builder with its self weight, negated
 * with `negate`.  Call counts and latency are left out.
 */
static void
add_weights(TreeBuilder *builder, const CallTree *tree, bool negate)
{
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int32	   *built = palloc_extended(sizeof(int32) * Max(tree->nnodes, 1), MCXT_ALLOC_HUGE);

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		int64		weight = self[i];

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (negate && pg_sub_s64_overflow(0, self[i], &weight))
			calltree_weight_out_of_range();
		built[i] = tree_builder_child(builder, parent[i] < 0 ? -1 : built[parent[i]], func[i]);
		tree_builder_add_self(builder, built[i], weight);
	}
	pfree(built);
}

/*
 * tree - tree: a signed tree, the first tree's samples minus the second's.
 * It has every node of both trees, even where the weights cancel out (a
 * node of self weight 0 is kept, as a sample of weight 0 is), so that the
 * difference still shows which CallNodes each side had.  Call counts and
 * latency histograms do not subtract and are dropped.
 */
Datum
calltree_subtract(PG_FUNCTION_ARGS)
{
	CallTree   *a = PG_GETARG_CALLTREE_P(0);
	CallTree   *b = PG_GETARG_CALLTREE_P(1);
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);

	tree_builder_reserve(builder, (int64) a->nnodes + b->nnodes);
	add_weights(builder, a, false);
	add_weights(builder, b, true);
	PG_RETURN_CALLTREE_P(tree_builder_finish(builder));
}

Datum
calltree_total(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(calltree_total_weight(PG_GETARG_CALLTREE_P(0)));
}
