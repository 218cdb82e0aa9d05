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
	pfree(tree_builder_add_weights(builder, a, false));
	pfree(tree_builder_add_weights(builder, b, true));
	PG_RETURN_CALLTREE_P(tree_builder_finish(builder));
}

Datum
calltree_total(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(calltree_total_weight(PG_GETARG_CALLTREE_P(0)));
}
