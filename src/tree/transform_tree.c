/*
 * transform_tree.c
 *	  The call-tree transforms applied to stored trees (calltree → calltree),
 *	  and the bottom-up tree; their SQL functions are in query/transform.c.
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

#include "tree/builder.h"
#include "tree/path.h"
#include "tree/transform.h"

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
		if (calltree_holds_samples(tree, i) && transform_keeps(state, &sink))
			tree_builder_add_self(builder, state->out, self[i]);
	}
	pfree(states);
	return tree_builder_finish(builder);
}

/*
 * The bottom-up tree: every node's path read from the node up to its root.
 * The roots are the functions that held samples, each with running weight
 * equal to its self weight in the original tree.
 *
 * The inverted tree is built a level at a time rather than path by path:
 * each node that holds samples is an entry whose cursor starts at the node;
 * a group of entries (all under one inverted node) is sorted by the func at
 * their cursors, each run of equal funcs becomes one new child, and the
 * entries move their cursors to their parents and go on below that child,
 * until a cursor passes a root, where the entry's weight lands.  Each child
 * is made once, so no lookups are needed; and the work stack, not the C
 * stack, holds the groups, since trees can be 10,000s deep.
 */
typedef struct InvertEntry
{
	int32		cursor;			/* a node of the original tree */
	int32		func;			/* its func, the sort key */
	int64		weight;
} InvertEntry;

#define ST_SORT sort_invert_entries
#define ST_ELEMENT_TYPE InvertEntry
#define ST_COMPARE(a, b) (((a)->func > (b)->func) - ((a)->func < (b)->func))
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

typedef struct InvertGroup
{
	int64		start;
	int64		end;
	int32		parent;			/* the inverted node the group hangs from */
} InvertGroup;

CallTree *
invert_tree(const CallTree *tree)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);
	InvertEntry *entries = palloc_extended(sizeof(InvertEntry) * Max(n, 1), MCXT_ALLOC_HUGE);
	InvertGroup *groups = palloc_extended(sizeof(InvertGroup) * Max(n, 1), MCXT_ALLOC_HUGE);
	int64		nentries = 0;
	int64		ngroups = 0;

	/* each sample's path is read back to its root, one level per step */
	calltree_check_path_elements("invert()",
								 calltree_path_elements(tree, calltree_depths(tree), true));
	for (int32 i = 0; i < n; i++)
		if (calltree_holds_samples(tree, i))
		{
			entries[nentries].cursor = i;
			entries[nentries].func = func[i];
			entries[nentries].weight = self[i];
			nentries++;
		}
	if (nentries > 0)
		groups[ngroups++] = (InvertGroup) {0, nentries, -1};

	/* a group's subgroups come from its own range: at most one per entry */
	while (ngroups > 0)
	{
		InvertGroup group = groups[--ngroups];

		CHECK_FOR_INTERRUPTS();
		sort_invert_entries(entries + group.start, group.end - group.start);
		for (int64 i = group.start; i < group.end;)
		{
			int32		run_func = entries[i].func;
			int32		node = tree_builder_new_child(builder, group.parent, run_func);
			int64		kept = i;
			int64		j = i;

			/* the run: entries ending here weigh on the node, the others move up */
			for (; j < group.end && entries[j].func == run_func; j++)
			{
				int32		up = parent[entries[j].cursor];

				if (up < 0)
					tree_builder_add_self(builder, node, entries[j].weight);
				else
				{
					entries[kept].cursor = up;
					entries[kept].func = func[up];
					entries[kept].weight = entries[j].weight;
					kept++;
				}
			}
			if (kept > i)
				groups[ngroups++] = (InvertGroup) {i, kept, node};
			i = j;
		}
	}
	pfree(entries);
	pfree(groups);
	return tree_builder_finish(builder);
}
