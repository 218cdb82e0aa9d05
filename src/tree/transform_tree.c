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
 * The inverted tree is written straight into a stored tree, in its stored
 * order, without a builder.  It can have many times the nodes of the
 * original (7.7 times on the benchmark's tree), none of them ever looked up
 * again, and a builder would hold each in a node of its own, then weigh,
 * sort and copy them all once more to finish (on the benchmark's tree, the
 * finish alone was half of the instructions of invert()).
 *
 * Each node that holds samples is an entry whose cursor starts at the node.
 * An inverted node owns the entries of the samples below it; they are
 * sorted by the func at their cursors, each run of equal funcs becomes one
 * child, and the entries of a child move their cursors to their parents,
 * until a cursor passes a root, where the entry's weight lands as self
 * weight.  A run's entries also give the child's running weight, so the
 * children are put in sibling order at once, and popping them from a work
 * stack (not the C stack: trees can be 10,000s deep) writes each node at
 * its preorder place.  A node left with one entry heads a chain, written
 * as its entry's cursor walks up: one chain per sample, below the point
 * where its path parts from all others, and 93% of the nodes on the
 * benchmark's tree.
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

/* An inverted node not yet written, and the entries that go on below it */
typedef struct InvertNode
{
	int64		running;		/* the sort key, with func */
	int64		self;
	int32		func;
	int32		parent;			/* its parent's place in the output, -1 for a root */
	int32		start;			/* entries[start .. end) */
	int32		end;
} InvertNode;

/*
 * Reverse sibling order (running ascending, then func descending): the
 * siblings are pushed on the work stack together, so the last is popped
 * first.
 */
#define ST_SORT sort_invert_siblings
#define ST_ELEMENT_TYPE InvertNode
#define ST_COMPARE(a, b) ((a)->running != (b)->running ? \
						  ((a)->running > (b)->running) - ((a)->running < (b)->running) : \
						  ((a)->func < (b)->func) - ((a)->func > (b)->func))
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

typedef struct Inversion
{
	const int32 *func;			/* the original tree's */
	const int32 *parent;
	InvertEntry *entries;
	InvertNode *stack;			/* pending nodes: at most one per entry */
	int32		nstack;
	CallTree   *out;			/* the output, with room for out->nnodes */
	int64	   *out_self;		/* its arrays, at their places for that room */
	int32	   *out_func;
	int32	   *out_parent;
	int32		nout;			/* the nodes written */
} Inversion;

/*
 * The entries[start .. end) under the inverted node at `parent` become its
 * children, pushed on the stack in reverse sibling order.  Each run of one
 * func is a child; its entries that passed a root weigh on it, the others
 * move up and stay in the run's range, at its start.  A child's running
 * weight is the exact sum of its entries' weights, which must fit as it
 * must in every stored tree.
 */
static void
push_children(Inversion *inv, int32 start, int32 end, int32 parent)
{
	InvertEntry *entries = inv->entries;
	int32		first = inv->nstack;

	sort_invert_entries(entries + start, end - start);
	for (int32 i = start; i < end;)
	{
		InvertNode *child = &inv->stack[inv->nstack++];
		int32		kept = i;
		int32		high = 0;

		*child = (InvertNode) {0, 0, entries[i].func, parent, i, i};
		for (; i < end && entries[i].func == child->func; i++)
		{
			int32		up = inv->parent[entries[i].cursor];
			int64		weight = entries[i].weight;

			calltree_wide_add(&child->running, &high, weight);
			if (up < 0)
				child->self = calltree_add_weight(child->self, weight);
			else
				entries[kept++] = (InvertEntry) {up, inv->func[up], weight};
		}
		if (!calltree_wide_fits(child->running, high))
			calltree_weight_out_of_range();
		child->end = kept;
	}
	sort_invert_siblings(inv->stack + first, inv->nstack - first);
}

/* The output's arrays, at their places for its room */
static void
locate_output(Inversion *inv)
{
	inv->out_self = calltree_self(inv->out);
	inv->out_func = calltree_func(inv->out);
	inv->out_parent = calltree_parent(inv->out);
}

/*
 * An empty stored tree without calls, whose node count is its room while it
 * is written: `capacity` nodes, written on in place.
 */
static void
new_output(Inversion *inv, int32 capacity)
{
	inv->out = palloc_extended(calltree_size(capacity, 0, 0), MCXT_ALLOC_HUGE);
	memset(inv->out, 0, CALLTREE_HEADER_SIZE);
	inv->out->version = CALLTREE_VERSION;
	inv->out->nnodes = capacity;
	inv->nout = 0;
	locate_output(inv);
}

/*
 * Twice the room: the func and parent arrays move up to their places for
 * the new room, parents first, since they lie above.
 */
static void
grow_output(Inversion *inv)
{
	int32		capacity;
	Size		func_offset = (char *) inv->out_func - (char *) inv->out;
	Size		parent_offset = (char *) inv->out_parent - (char *) inv->out;

	if (inv->nout >= CALLTREE_MAX_NODES)
		calltree_too_many_nodes();
	capacity = (int32) Min(Max((int64) inv->nout * 2, 1024), (int64) CALLTREE_MAX_NODES);
	inv->out = repalloc_huge(inv->out, calltree_size(capacity, 0, 0));
	inv->out->nnodes = capacity;
	locate_output(inv);
	memmove(inv->out_parent, (char *) inv->out + parent_offset, sizeof(int32) * (Size) inv->nout);
	memmove(inv->out_func, (char *) inv->out + func_offset, sizeof(int32) * (Size) inv->nout);
}

/* Writes a node at the next place in preorder, which it returns. */
static inline int32
write_node(Inversion *inv, int64 self, int32 func, int32 parent)
{
	int32		place = inv->nout;

	if (unlikely(place == inv->out->nnodes))
		grow_output(inv);
	if ((place & 0xFFFF) == 0)
		CHECK_FOR_INTERRUPTS();
	inv->out_self[place] = self;
	inv->out_func[place] = func;
	inv->out_parent[place] = parent;
	inv->nout = place + 1;
	return place;
}

/* The output cut to the nodes written: func and parent move down to their places. */
static CallTree *
finish_output(Inversion *inv)
{
	Size		size = calltree_size(inv->nout, 0, 0);

	inv->out->nnodes = inv->nout;
	memmove(calltree_func(inv->out), inv->out_func, sizeof(int32) * (Size) inv->nout);
	memmove(calltree_parent(inv->out), inv->out_parent, sizeof(int32) * (Size) inv->nout);
	SET_VARSIZE(inv->out, size);
	return repalloc_huge(inv->out, size);
}

/*
 * The rest of one sample's path, below the inverted node at `parent`: a
 * chain, each node the only child of the one before, so written in
 * preorder as it is walked, with no sort and no stack.
 */
static void
write_chain(Inversion *inv, const InvertEntry *entry, int32 parent)
{
	for (int32 node = entry->cursor; node >= 0; node = inv->parent[node])
		parent = write_node(inv, inv->parent[node] < 0 ? entry->weight : 0, inv->func[node], parent);
}

CallTree *
invert_tree(const CallTree *tree)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	int32	   *depths = calltree_depths(tree);
	int64		elements = calltree_path_elements(tree, depths, true);
	Inversion	inv = {calltree_func(tree), calltree_parent(tree)};
	int32		nentries = 0;
	int64		total = 0;
	int32		total_high = 0;

	/* each sample's path is read back to its root, one level per step */
	calltree_check_path_elements("invert()", elements);
	pfree(depths);
	inv.entries = palloc_extended(sizeof(InvertEntry) * Max(n, 1), MCXT_ALLOC_HUGE);
	for (int32 i = 0; i < n; i++)
		if (calltree_holds_samples(tree, i))
		{
			inv.entries[nentries++] = (InvertEntry) {i, inv.func[i], self[i]};
			calltree_wide_add(&total, &total_high, self[i]);
		}
	if (!calltree_wide_fits(total, total_high))
		calltree_weight_out_of_range(); /* total() must never overflow */
	inv.stack = palloc_extended(sizeof(InvertNode) * Max(nentries, 1), MCXT_ALLOC_HUGE);

	new_output(&inv, (int32) Min(elements, (int64) Max(n, 1024)));
	push_children(&inv, 0, nentries, -1);
	while (inv.nstack > 0)
	{
		InvertNode	node = inv.stack[--inv.nstack];
		int32		place = write_node(&inv, node.self, node.func, node.parent);

		if (node.end - node.start == 1)
			write_chain(&inv, &inv.entries[node.start], place);
		else if (node.end > node.start)
			push_children(&inv, node.start, node.end, place);
	}
	pfree(inv.entries);
	pfree(inv.stack);
	return finish_output(&inv);
}
