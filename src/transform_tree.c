/*
 * transform_tree.c
 *	  The call-tree transforms applied to stored trees (calltree → calltree).
 *
 * A tree is the multiset {func path → self weight}, so transforming a tree
 * is transforming the path of every node and adding its self weight where
 * the path lands.  The rewriters of transform.c are stepped along the tree
 * in preorder: a node's state is its parent's state stepped with the node's
 * func, so each node costs one step, not one walk of its path.
 *
 * Trees that come out of a transform have no call counts: a count belongs to
 * a CallNode, and merged or cut nodes have no count of their own.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "transform.h"

/* The builder sink: positions are builder nodes, -1 the root level. */
static int32
builder_append(void *arg, int32 out, int32 func)
{
	return tree_builder_child((TreeBuilder *) arg, out, func);
}

static int32
builder_last(void *arg, int32 out)
{
	return tree_builder_func((TreeBuilder *) arg, out);
}

/*
 * A node stands for samples of its own when it has self weight, or when it
 * is a leaf (a sample of weight 0 still makes a node).  An inner node with
 * no self weight only stands for its descendants' samples.
 */
static inline bool
holds_samples(const CallTree *tree, int32 i)
{
	return calltree_self(tree)[i] != 0 ||
		i + 1 == tree->nnodes || calltree_parent(tree)[i + 1] != i;
}

CallTree *
transform_tree(const CallTree *tree, const Transform *transform)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);
	PathSink	sink = {-1, builder_append, builder_last, builder};
	PathState  *states = palloc_extended(sizeof(PathState) * Max(n, 1), MCXT_ALLOC_HUGE);
	PathState	start;

	transform_init(transform, &sink, &start);
	for (int32 i = 0; i < n; i++)
	{
		PathState  *state = &states[i];

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		*state = parent[i] < 0 ? start : states[parent[i]];
		transform_step(transform, &sink, state, func[i]);
		if (holds_samples(tree, i) && transform_keeps(state, &sink))
			tree_builder_add_self(builder, state->out, self[i]);
	}
	pfree(states);
	return tree_builder_finish(builder);
}

/*
 * The bottom-up tree: every node's path read from the node up to its root.
 * The roots are the functions that held samples, each with running weight
 * equal to its self weight in the original tree.
 */
CallTree *
invert_tree(const CallTree *tree)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);
	int32	   *depth = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32	   *path = palloc(sizeof(int32) * 64);
	int32		path_capacity = 64;

	for (int32 i = 0; i < n; i++)
	{
		int32		node = -1;

		CHECK_FOR_INTERRUPTS();
		depth[i] = parent[i] < 0 ? 0 : depth[parent[i]] + 1;
		if (depth[i] >= path_capacity)
		{
			path_capacity *= 2;
			path = repalloc_huge(path, sizeof(int32) * (Size) path_capacity);
		}
		path[depth[i]] = func[i];
		if (!holds_samples(tree, i))
			continue;
		for (int32 d = depth[i]; d >= 0; d--)
			node = tree_builder_child(builder, node, path[d]);
		tree_builder_add_self(builder, node, self[i]);
	}
	return tree_builder_finish(builder);
}

/* The SQL functions on trees: transform(tree calltree, ...) → calltree */
#define TREE_TRANSFORM(sqlname, kind) \
PG_FUNCTION_INFO_V1(sqlname##_tree); \
Datum \
sqlname##_tree(PG_FUNCTION_ARGS) \
{ \
	Transform	transform; \
\
	transform_from_args(fcinfo, kind, &transform); \
	PG_RETURN_CALLTREE_P(transform_tree(PG_GETARG_CALLTREE_P(0), &transform)); \
}

TREE_TRANSFORM(merge_call_node, TRANSFORM_MERGE_CALL_NODE)
TREE_TRANSFORM(merge_function, TRANSFORM_MERGE_FUNCTION)
TREE_TRANSFORM(merge_functions, TRANSFORM_MERGE_FUNCTIONS)
TREE_TRANSFORM(merge_subtree, TRANSFORM_MERGE_SUBTREE)
TREE_TRANSFORM(collapse_function_subtree, TRANSFORM_COLLAPSE_FUNCTION_SUBTREE)
TREE_TRANSFORM(hide_call_node, TRANSFORM_HIDE_CALL_NODE)
TREE_TRANSFORM(drop_function, TRANSFORM_DROP_FUNCTION)
TREE_TRANSFORM(focus_subtree, TRANSFORM_FOCUS_SUBTREE)
TREE_TRANSFORM(focus_function, TRANSFORM_FOCUS_FUNCTION)
TREE_TRANSFORM(collapse_direct_recursion, TRANSFORM_COLLAPSE_DIRECT_RECURSION)
TREE_TRANSFORM(collapse_recursion, TRANSFORM_COLLAPSE_RECURSION)
TREE_TRANSFORM(remap_functions, TRANSFORM_REMAP_FUNCTIONS)

PG_FUNCTION_INFO_V1(invert_tree_sql);
Datum
invert_tree_sql(PG_FUNCTION_ARGS)
{
	PG_RETURN_CALLTREE_P(invert_tree(PG_GETARG_CALLTREE_P(0)));
}
