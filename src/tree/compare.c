/*
 * compare.c
 *	  Two call trees side by side (compare.h): the union of their nodes in
 *	  the order of base + test, and the scaling of base to test's total.
 *	  No fmgr code here.
 *
 * The union is made by walking both trees at once, down from the roots.
 * Both are stored in canonical order (calltree.h): a node's first child
 * comes right after it, each next sibling after the subtree of the one
 * before.  At each union node, the children of its node in base and of its
 * node in test are matched by func, put in the union's sibling order
 * (combined running weight descending, then func ascending) and visited in
 * that order, depth first, so the union's nodes come out in preorder:
 * the order of base + test.  Nothing is hashed or built on the way: the
 * walk hands out each union node once, in order, and keeps only the nodes
 * still to visit.  tree_pair_make stores what it hands out in arrays.
 */
#include "postgres.h"

#include "common/int.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "tree/compare.h"

#ifndef HAVE_INT128
#error "scaling weights exactly (tree_pair_normalize_base) needs a 128-bit integer type"
#endif

/* One tree of the pair, as the walk reads it */
typedef struct Side
{
	int32		nnodes;
	const int32 *func;
	const int32 *parent;
	const int64 *self;
	int64	   *running;		/* calltree_running */
	int32	   *size;			/* the nodes of each node's subtree, itself included */
	int64		path_elements;	/* the sizes summed (tree_union_path_elements_bound) */
} Side;

/* A child of a union node: a func path of base, of test or of both */
typedef struct Sibling
{
	int64		running;		/* base's running weight plus test's */
	int32		func;
	int32		base;			/* its node in base, -1 if base lacks it */
	int32		test;			/* the same in test */
} Sibling;

/* A union node still to be visited: its nodes in both trees, its parent and depth */
typedef struct Visit
{
	int32		base;
	int32		test;
	int32		parent;
	int32		depth;
} Visit;

/*
 * The walk (compare.h): the union nodes still to visit (a stack), one
 * sibling group, and the count of the nodes visited, which is the next
 * one's index.
 */
struct TreeUnion
{
	MemoryContext cxt;			/* holds the walk and all of its arrays */
	Side		base;
	Side		test;
	int64		base_total;
	int64		test_total;
	Visit	   *pending;
	int32		npending;
	int32		pending_capacity;
	Sibling    *siblings;
	int32		nsiblings;
	int32		siblings_capacity;
	int32		nvisited;
};

/* A sibling group larger than this is matched by sorting and searching, not pair by pair */
#define MATCH_BY_SEARCH		16

/* The node -1 stands for the forest's root level, whose children are the roots */
#define ROOT_LEVEL			(-1)

static void
read_side(Side *side, const CallTree *tree)
{
	int32		n = tree->nnodes;

	side->nnodes = n;
	side->func = calltree_func(tree);
	side->parent = calltree_parent(tree);
	side->self = calltree_self(tree);
	side->running = calltree_running(tree);
	side->size = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	side->path_elements = 0;
	for (int32 i = n - 1; i >= 0; i--)
	{
		side->size[i]++;
		side->path_elements += side->size[i];
		if (side->parent[i] >= 0)
			side->size[side->parent[i]] += side->size[i];
	}
}

/* The first child of `node` (ROOT_LEVEL: the first root), or -1 */
static inline int32
first_child(const Side *side, int32 node)
{
	return node + 1 < side->nnodes && side->parent[node + 1] == node ? node + 1 : -1;
}

/* The sibling after `child`, a child of `node`, or -1 */
static inline int32
next_sibling(const Side *side, int32 node, int32 child)
{
	int32		next = child + side->size[child];

	return next < side->nnodes && side->parent[next] == node ? next : -1;
}

/*
 * Room for one more element in a growing array.  Neither array can outgrow
 * the two trees' nodes together, far below PG_INT32_MAX.
 */
static void *
room_for_one(void *array, int32 used, int32 *capacity, Size elem_size)
{
	if (used < *capacity)
		return array;
	*capacity = *capacity * 2;
	return repalloc_huge(array, elem_size * (Size) *capacity);
}

static Sibling *
new_sibling(TreeUnion *walk, int32 func)
{
	Sibling    *sibling;

	walk->siblings = room_for_one(walk->siblings, walk->nsiblings, &walk->siblings_capacity,
								  sizeof(Sibling));
	sibling = &walk->siblings[walk->nsiblings++];
	sibling->running = 0;
	sibling->func = func;
	sibling->base = -1;
	sibling->test = -1;
	return sibling;
}

static int
compare_funcs(const void *a, const void *b)
{
	int32		x = ((const Sibling *) a)->func;
	int32		y = ((const Sibling *) b)->func;

	return (x > y) - (x < y);
}

/* The union's sibling order: combined running weight descending, then func ascending */
static int
compare_union_siblings(const void *a, const void *b)
{
	const Sibling *x = a;
	const Sibling *y = b;

	if (x->running != y->running)
		return x->running > y->running ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

/* Among the first `count` siblings (in func order if `sorted`), the one of `func`, or NULL */
static Sibling *
find_sibling(Sibling *siblings, int32 count, bool sorted, int32 func)
{
	Sibling		key = {0, func, -1, -1};

	if (sorted)
		return bsearch(&key, siblings, count, sizeof(Sibling), compare_funcs);
	for (int32 k = 0; k < count; k++)
		if (siblings[k].func == func)
			return &siblings[k];
	return NULL;
}

/*
 * The children of a union node, from its node in base and its node in test
 * (-1 where a side lacks it; ROOT_LEVEL on both sides for the roots), into
 * walk->siblings in the union's sibling order.  A child of both sides is one
 * sibling with both sides' weights: their sums must fit in bigint, as they
 * must in base + test.
 */
static void
union_children(TreeUnion *walk, int32 base_node, int32 test_node, bool roots)
{
	const Side *base = &walk->base;
	const Side *test = &walk->test;
	int32		nbase;
	int32		ntest = 0;
	bool		sorted = false;

	walk->nsiblings = 0;
	if (roots || base_node >= 0)
		for (int32 c = first_child(base, base_node); c >= 0; c = next_sibling(base, base_node, c))
		{
			Sibling    *sibling = new_sibling(walk, base->func[c]);

			sibling->running = base->running[c];
			sibling->base = c;
		}
	nbase = walk->nsiblings;
	if (roots || test_node >= 0)
		for (int32 c = first_child(test, test_node); c >= 0; c = next_sibling(test, test_node, c))
		{
			Sibling    *sibling;
			int64		self;

			if (!sorted && nbase > MATCH_BY_SEARCH)
			{
				qsort(walk->siblings, nbase, sizeof(Sibling), compare_funcs);
				sorted = true;
			}
			sibling = find_sibling(walk->siblings, nbase, sorted, test->func[c]);
			if (sibling == NULL)
				sibling = new_sibling(walk, test->func[c]);
			else if (pg_add_s64_overflow(base->self[sibling->base], test->self[c], &self))
				calltree_weight_out_of_range();
			sibling->test = c;
			if (pg_add_s64_overflow(sibling->running, test->running[c], &sibling->running))
				calltree_weight_out_of_range();
			ntest++;
		}
	/* one side's children alone are in that side's order, which is the union's */
	if (nbase > 0 && ntest > 0)
		qsort(walk->siblings, walk->nsiblings, sizeof(Sibling), compare_union_siblings);
}

/* The siblings of walk->siblings to visit next, first sibling on top */
static void
push_siblings(TreeUnion *walk, int32 parent, int32 depth)
{
	for (int32 k = walk->nsiblings - 1; k >= 0; k--)
	{
		Visit	   *visit;

		walk->pending = room_for_one(walk->pending, walk->npending, &walk->pending_capacity,
									 sizeof(Visit));
		visit = &walk->pending[walk->npending++];
		visit->base = walk->siblings[k].base;
		visit->test = walk->siblings[k].test;
		visit->parent = parent;
		visit->depth = depth;
	}
}

/*
 * The union's nodes, walked from the start again.  The walk's arrays grow
 * by repalloc, so they stay in its context whatever the current one is.
 */
static void
walk_start(TreeUnion *walk)
{
	walk->npending = 0;
	walk->nvisited = 0;
	union_children(walk, ROOT_LEVEL, ROOT_LEVEL, true);
	push_siblings(walk, -1, 0);
}

TreeUnion *
tree_union_begin(const CallTree *base, const CallTree *test)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree union walk",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	TreeUnion  *walk = palloc(sizeof(TreeUnion));
	int64		total;

	walk->cxt = cxt;
	walk->base_total = calltree_total_weight(base);
	walk->test_total = calltree_total_weight(test);
	if (pg_add_s64_overflow(walk->base_total, walk->test_total, &total))
		calltree_weight_out_of_range();
	read_side(&walk->base, base);
	read_side(&walk->test, test);
	walk->pending_capacity = 256;
	walk->pending = palloc(sizeof(Visit) * walk->pending_capacity);
	walk->siblings_capacity = 64;
	walk->siblings = palloc(sizeof(Sibling) * walk->siblings_capacity);
	walk_start(walk);
	MemoryContextSwitchTo(old);
	return walk;
}

/*
 * The next union node in preorder, false after the last.  The union may
 * hold no more nodes than a tree: base + test could not be made otherwise.
 */
bool
tree_union_next(TreeUnion *walk, UnionNode *node)
{
	MemoryContext old;
	Visit		visit;

	if (walk->npending == 0)
		return false;
	if (walk->nvisited >= CALLTREE_MAX_NODES)
		calltree_too_many_nodes();
	if ((walk->nvisited & 0xFFFF) == 0)
		CHECK_FOR_INTERRUPTS();
	visit = walk->pending[--walk->npending];
	node->index = walk->nvisited++;
	node->func = visit.base >= 0 ? walk->base.func[visit.base] : walk->test.func[visit.test];
	node->parent = visit.parent;
	node->depth = visit.depth;
	node->base_node = visit.base;
	node->test_node = visit.test;
	node->base_self = visit.base >= 0 ? walk->base.self[visit.base] : 0;
	node->base_running = visit.base >= 0 ? walk->base.running[visit.base] : 0;
	node->test_self = visit.test >= 0 ? walk->test.self[visit.test] : 0;
	node->test_running = visit.test >= 0 ? walk->test.running[visit.test] : 0;

	old = MemoryContextSwitchTo(walk->cxt);
	union_children(walk, visit.base, visit.test, false);
	push_siblings(walk, node->index, visit.depth + 1);
	MemoryContextSwitchTo(old);
	return true;
}

/*
 * The path elements of both trees together, which the union's are at most
 * (each union node has the depth of its node in base or in test): a node's
 * path elements are its depth plus one, so a tree's are the sizes of all of
 * its nodes' subtrees summed, every node counted once in its own subtree
 * and once in each ancestor's.
 */
int64
tree_union_path_elements_bound(const TreeUnion *walk)
{
	return walk->base.path_elements + walk->test.path_elements;
}

/* The path elements of the union's nodes, counted by walking it (then started again) */
int64
tree_union_path_elements(TreeUnion *walk)
{
	int64		elements = 0;
	UnionNode	node;

	while (tree_union_next(walk, &node))
		elements += (int64) node.depth + 1;
	walk_start(walk);
	return elements;
}

void
tree_union_end(TreeUnion *walk)
{
	MemoryContextDelete(walk->cxt);
}

/* A per-node array of the union (`capacity` nodes at most), not zeroed */
static void *
union_array(int32 capacity, Size elem_size)
{
	return palloc_extended(elem_size * Max(capacity, 1), MCXT_ALLOC_HUGE);
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

/*
 * The nodes a walk has yet to hand out, from its start, in arrays with room
 * for every node of both trees: each union node holds a node of base or of
 * test or both, and each node of a tree is in one union node.
 */
TreePair *
tree_pair_collect(TreeUnion *walk)
{
	int32		capacity = walk->base.nnodes + walk->test.nnodes;	/* both at most CALLTREE_MAX_NODES */
	TreePair   *pair = palloc0(sizeof(TreePair));
	UnionNode	node;

	pair->base_total = walk->base_total;
	pair->test_total = walk->test_total;
	pair->func = union_array(capacity, sizeof(int32));
	pair->parent = union_array(capacity, sizeof(int32));
	pair->depth = union_array(capacity, sizeof(int32));
	pair->base_self = union_array(capacity, sizeof(int64));
	pair->test_self = union_array(capacity, sizeof(int64));
	pair->base_running = union_array(capacity, sizeof(int64));
	pair->test_running = union_array(capacity, sizeof(int64));
	while (tree_union_next(walk, &node))
	{
		int32		u = node.index;

		pair->func[u] = node.func;
		pair->parent[u] = node.parent;
		pair->depth[u] = node.depth;
		pair->base_self[u] = node.base_self;
		pair->test_self[u] = node.test_self;
		pair->base_running[u] = node.base_running;
		pair->test_running[u] = node.test_running;
	}
	pair->nnodes = walk->nvisited;
	return pair;
}

TreePair *
tree_pair_make(const CallTree *base, const CallTree *test)
{
	TreeUnion  *walk = tree_union_begin(base, test);
	TreePair   *pair = tree_pair_collect(walk);

	tree_union_end(walk);
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
