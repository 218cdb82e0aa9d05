/*
 * builder.c
 *	  The tree builder (builder.h): a trie of func paths, and its turning
 *	  into the canonical stored tree.  No fmgr code here.
 *
 * The builder is a trie of func paths.  Its nodes live in one array in
 * creation order (a parent is always created before its children).  Each
 * node links its children in a list, and finding a child walks that list:
 * most nodes have one child or a few, and a short walk through the node
 * array is cheaper than a probe of a hash table as big as the tree (a cache
 * miss each, and megabytes to allocate and clear per query).  A node whose
 * list grows past WIDE_CHILDREN is "wide": its children also go in a hash
 * table keyed by (parent index, func), made on first need, so a node with
 * thousands of children costs a probe per look-up, not a walk.
 *
 * tree_builder_finish() turns the trie into the canonical stored form:
 * preorder, siblings by running weight descending and func ascending.
 */
#include "postgres.h"

#include "common/int.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "tree/builder.h"
#include "tree/hash64.h"
#include "tree/latency.h"

typedef struct BuildNode
{
	int64		self;
	int32		func;
	int32		parent;			/* -1 for a root */
	int32		first_child;	/* -1: none */
	int32		next_sibling;	/* -1: the last */
} BuildNode;

/* builder->flags[node] */
#define NODE_WEIGHED	0x01	/* the node was given a weight (maybe 0) */
#define NODE_WIDE		0x02	/* its children are in builder->children too */

/* a node with more children than this is wide */
#define WIDE_CHILDREN	8

/* (parent, func) -> child node */
typedef struct ChildEntry
{
	uint64		key;
	int32		node;
	char		status;
} ChildEntry;

#define SH_PREFIX		childmap
#define SH_ELEMENT_TYPE ChildEntry
#define SH_KEY_TYPE		uint64
#define SH_KEY			key
#define SH_HASH_KEY(tb, k)	calltree_hash64(k)
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* The durations of a node's calls: exact extremes, log buckets by index */
typedef struct NodeLatency
{
	int64		min;
	int64		max;
	int32		nbuckets;
	int32		capacity;
	uint64	   *buckets;
} NodeLatency;

struct TreeBuilder
{
	MemoryContext cxt;
	BuildNode  *nodes;
	uint8	   *flags;			/* NODE_* per node */
	int64	   *calls;			/* per node, once any node has calls */
	NodeLatency *latency;		/* per node, once any node has latency */
	int32		nnodes;
	int32		capacity;
	bool		has_calls;
	int32		first_root;		/* the roots' list, as first_child */
	bool		roots_wide;
	childmap_hash *children;	/* children of wide nodes; NULL until one is */
};

static inline uint64
child_key(int32 parent, int32 func)
{
	return ((uint64) (uint32) parent << 32) | (uint32) func;
}

TreeBuilder *
tree_builder_create(MemoryContext cxt)
{
	TreeBuilder *builder = MemoryContextAllocZero(cxt, sizeof(TreeBuilder));

	builder->cxt = cxt;
	builder->capacity = 256;
	builder->nodes = MemoryContextAlloc(cxt, sizeof(BuildNode) * builder->capacity);
	builder->flags = MemoryContextAlloc(cxt, sizeof(uint8) * builder->capacity);
	builder->first_root = -1;
	return builder;
}

/* Room for `capacity` nodes in every per-node array */
static void
grow_node_arrays(TreeBuilder *builder, int32 capacity)
{
	builder->nodes = repalloc_huge(builder->nodes, sizeof(BuildNode) * (Size) capacity);
	builder->flags = repalloc_huge(builder->flags, sizeof(uint8) * (Size) capacity);
	if (builder->calls)
		builder->calls = repalloc_huge(builder->calls, sizeof(int64) * (Size) capacity);
	if (builder->latency)
		builder->latency = repalloc_huge(builder->latency, sizeof(NodeLatency) * (Size) capacity);
	builder->capacity = capacity;
}

/*
 * Makes room for `expected` nodes at once, when the caller knows about how
 * many the tree will have: no regrowth of the arrays.
 */
void
tree_builder_reserve(TreeBuilder *builder, int64 expected)
{
	int32		capacity = (int32) Min(expected, (int64) CALLTREE_MAX_NODES);

	if (capacity > builder->capacity)
		grow_node_arrays(builder, capacity);
}

static int32
tree_builder_new_node(TreeBuilder *builder, int32 parent, int32 func)
{
	BuildNode  *node;

	if (builder->nnodes == builder->capacity)
	{
		int32		capacity;

		if (builder->capacity >= CALLTREE_MAX_NODES)
			calltree_too_many_nodes();
		capacity = Min((int64) builder->capacity * 2, CALLTREE_MAX_NODES);
		grow_node_arrays(builder, capacity);
	}
	node = &builder->nodes[builder->nnodes];
	node->self = 0;
	node->func = func;
	node->parent = parent;
	node->first_child = -1;
	node->next_sibling = -1;
	builder->flags[builder->nnodes] = 0;
	if (builder->calls)
		builder->calls[builder->nnodes] = 0;
	if (builder->latency)
		memset(&builder->latency[builder->nnodes], 0, sizeof(NodeLatency));
	return builder->nnodes++;
}

static inline int32 *
children_head(TreeBuilder *builder, int32 parent)
{
	return parent < 0 ? &builder->first_root : &builder->nodes[parent].first_child;
}

static inline int32
first_child(const TreeBuilder *builder, int32 parent)
{
	return parent < 0 ? builder->first_root : builder->nodes[parent].first_child;
}

static inline bool
is_wide(const TreeBuilder *builder, int32 parent)
{
	return parent < 0 ? builder->roots_wide : (builder->flags[parent] & NODE_WIDE) != 0;
}

/* Enters the children of `parent` in the hash table, which from now on has all. */
static void
make_wide(TreeBuilder *builder, int32 parent)
{
	if (builder->children == NULL)
		builder->children = childmap_create(builder->cxt, 256, NULL);
	for (int32 c = first_child(builder, parent); c >= 0; c = builder->nodes[c].next_sibling)
	{
		bool		found;
		ChildEntry *entry = childmap_insert(builder->children, child_key(parent, builder->nodes[c].func),
											&found);

		entry->node = c;
	}
	if (parent < 0)
		builder->roots_wide = true;
	else
		builder->flags[parent] |= NODE_WIDE;
}

/*
 * The child of a parent that is not wide for `func`, by its list, or -1;
 * *walked counts the siblings passed.
 */
static inline int32
listed_child(const TreeBuilder *builder, int32 parent, int32 func, int32 *walked)
{
	for (int32 c = first_child(builder, parent); c >= 0; c = builder->nodes[c].next_sibling)
	{
		if (builder->nodes[c].func == func)
			return c;
		(*walked)++;
	}
	return -1;
}

/* A new node, first in its parent's list of children */
static int32
tree_builder_linked_node(TreeBuilder *builder, int32 parent, int32 func)
{
	int32		node = tree_builder_new_node(builder, parent, func);
	int32	   *head = children_head(builder, parent);	/* after a repalloc */

	builder->nodes[node].next_sibling = *head;
	*head = node;
	return node;
}

/* The child of `parent` (-1: the forest's root level) for `func`, made if new. */
int32
tree_builder_child(TreeBuilder *builder, int32 parent, int32 func)
{
	ChildEntry *entry;
	bool		found;
	int32		walked = 0;
	int32		node;

	if (is_wide(builder, parent))
	{
		entry = childmap_insert(builder->children, child_key(parent, func), &found);
		if (!found)
			entry->node = tree_builder_linked_node(builder, parent, func);
		return entry->node;
	}
	node = listed_child(builder, parent, func, &walked);
	if (node >= 0)
		return node;
	node = tree_builder_linked_node(builder, parent, func);
	if (walked >= WIDE_CHILDREN)
		make_wide(builder, parent);
	return node;
}

/* The child of `parent` for `func`, or -1 if there is none. */
int32
tree_builder_find_child(const TreeBuilder *builder, int32 parent, int32 func)
{
	int32		walked = 0;

	if (is_wide(builder, parent))
	{
		ChildEntry *entry = childmap_lookup(builder->children, child_key(parent, func));

		return entry ? entry->node : -1;
	}
	return listed_child(builder, parent, func, &walked);
}

void
tree_builder_add_self(TreeBuilder *builder, int32 node, int64 weight)
{
	BuildNode  *n = &builder->nodes[node];

	n->self = calltree_add_weight(n->self, weight);
	builder->flags[node] |= NODE_WEIGHED;
}

/*
 * Takes `weight` from the node's self weight in one step: negating it
 * first and adding would fail for the smallest int64, whose negation does
 * not fit, where the difference does (x - x is 0).
 */
static void
subtract_self(TreeBuilder *builder, int32 node, int64 weight)
{
	BuildNode  *n = &builder->nodes[node];

	if (unlikely(pg_sub_s64_overflow(n->self, weight, &n->self)))
		calltree_weight_out_of_range();
	builder->flags[node] |= NODE_WEIGHED;
}

void
tree_builder_add_calls(TreeBuilder *builder, int32 node, int64 calls)
{
	if (builder->calls == NULL)
		builder->calls = MemoryContextAllocExtended(builder->cxt, sizeof(int64) * (Size) builder->capacity,
													MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	builder->calls[node] = calltree_add_weight(builder->calls[node], calls);
	builder->has_calls = true;
}

static NodeLatency *
node_latency(TreeBuilder *builder, int32 node)
{
	if (builder->latency == NULL)
		builder->latency = MemoryContextAllocExtended(builder->cxt,
													  sizeof(NodeLatency) * (Size) builder->capacity,
													  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	return &builder->latency[node];
}

/* Adds `count` to the bucket `index` of a node's histogram. */
static void
add_to_bucket(TreeBuilder *builder, NodeLatency *latency, int32 index, int64 count)
{
	int32		lo = 0;
	int32		hi = latency->nbuckets;

	while (lo < hi)
	{
		int32		mid = (lo + hi) / 2;

		if (BUCKET_INDEX(latency->buckets[mid]) < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < latency->nbuckets && BUCKET_INDEX(latency->buckets[lo]) == index)
	{
		int64		sum = BUCKET_COUNT(latency->buckets[lo]) + count;

		if (sum > BUCKET_MAX_COUNT)
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("latency histogram count out of range")));
		latency->buckets[lo] = MAKE_BUCKET(index, sum);
		return;
	}
	if (latency->nbuckets == latency->capacity)
	{
		latency->capacity = Max(4, latency->capacity * 2);
		latency->buckets = latency->buckets
			? repalloc(latency->buckets, sizeof(uint64) * latency->capacity)
			: MemoryContextAlloc(builder->cxt, sizeof(uint64) * latency->capacity);
	}
	memmove(&latency->buckets[lo + 1], &latency->buckets[lo],
			sizeof(uint64) * (latency->nbuckets - lo));
	latency->buckets[lo] = MAKE_BUCKET(index, count);
	latency->nbuckets++;
}

static void
widen_extremes(NodeLatency *latency, int64 min, int64 max)
{
	if (latency->nbuckets == 0 || min < latency->min)
		latency->min = min;
	if (latency->nbuckets == 0 || max > latency->max)
		latency->max = max;
}

/* One call of the node that lasted `duration`. */
void
tree_builder_add_duration(TreeBuilder *builder, int32 node, int64 duration)
{
	NodeLatency *latency = node_latency(builder, node);

	widen_extremes(latency, duration, duration);
	add_to_bucket(builder, latency, latency_bucket(duration), 1);
}

/* A whole histogram for the node (merging trees); buckets in any order. */
void
tree_builder_add_latency(TreeBuilder *builder, int32 node, int64 min, int64 max,
						 const uint64 *buckets, int32 nbuckets)
{
	NodeLatency *latency = node_latency(builder, node);

	if (nbuckets == 0)
		return;
	widen_extremes(latency, min, max);
	for (int32 i = 0; i < nbuckets; i++)
		add_to_bucket(builder, latency, BUCKET_INDEX(buckets[i]), BUCKET_COUNT(buckets[i]));
}

/* One sample: `len` funcs, root first, with `weight`.  An empty path is dropped. */
void
tree_builder_add_path(TreeBuilder *builder, const int32 *funcs, int32 len, int64 weight)
{
	int32		node = -1;

	if (len == 0)
		return;
	for (int32 i = 0; i < len; i++)
		node = tree_builder_child(builder, node, funcs[i]);
	tree_builder_add_self(builder, node, weight);
}

/*
 * The child `func` of `parent`, made if new, for a node of a tree being
 * merged in, when the node merged just before became `previous`.  Merging
 * trees of one program, the builder's node right after `previous` is
 * usually the one wanted: the builder's nodes were created in the order of
 * the first tree merged, parents first, and the trees merged next mostly
 * share its shape.  A hit costs one sequential read instead of a walk
 * through the parent's children or a probe of their hash table.
 */
static inline int32
child_after(TreeBuilder *builder, int32 previous, int32 parent, int32 func)
{
	int32		guess = previous + 1;

	if (guess < builder->nnodes &&
		builder->nodes[guess].parent == parent && builder->nodes[guess].func == func)
		return guess;
	return tree_builder_child(builder, parent, func);
}

/* Adds every node of a stored tree (any order with parent[i] < i). */
void
tree_builder_add_tree(TreeBuilder *builder, const CallTree *tree)
{
	const int64 *self = calltree_self(tree);
	const int64 *calls = calltree_calls(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	const int32 *bucket_start = calltree_bucket_start(tree);
	int32	   *mapped = palloc(sizeof(int32) * Max(tree->nnodes, 1));

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		int32		p = parent[i] < 0 ? -1 : mapped[parent[i]];

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		mapped[i] = child_after(builder, i == 0 ? -1 : mapped[i - 1], p, func[i]);
		tree_builder_add_self(builder, mapped[i], self[i]);
		if (calls)
			tree_builder_add_calls(builder, mapped[i], calls[i]);
		if (bucket_start)
			tree_builder_add_latency(builder, mapped[i],
									 calltree_latency_min(tree)[i], calltree_latency_max(tree)[i],
									 calltree_buckets(tree) + bucket_start[i],
									 bucket_start[i + 1] - bucket_start[i]);
	}
	if (calls)
		builder->has_calls = true;
	pfree(mapped);
}

/*
 * Adds every node of a stored tree with its self weight only, or with
 * `subtract` takes it away (tree - tree); call counts and latency are left
 * out.  A node's weight is taken from what the builder holds in one step,
 * so a difference fails only if it does not fit in int64.  Returns, per
 * node of the tree, the builder node it went to.
 */
int32 *
tree_builder_add_weights(TreeBuilder *builder, const CallTree *tree, bool subtract)
{
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int32	   *mapped = palloc_extended(sizeof(int32) * Max(tree->nnodes, 1), MCXT_ALLOC_HUGE);

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		int32		p = parent[i] < 0 ? -1 : mapped[parent[i]];

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		mapped[i] = child_after(builder, i == 0 ? -1 : mapped[i - 1], p, func[i]);
		if (subtract)
			subtract_self(builder, mapped[i], self[i]);
		else
			tree_builder_add_self(builder, mapped[i], self[i]);
	}
	return mapped;
}

void
tree_builder_add_builder(TreeBuilder *builder, const TreeBuilder *other)
{
	int32	   *mapped = palloc(sizeof(int32) * Max(other->nnodes, 1));

	for (int32 i = 0; i < other->nnodes; i++)
	{
		const BuildNode *n = &other->nodes[i];
		int32		p = n->parent < 0 ? -1 : mapped[n->parent];

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		mapped[i] = child_after(builder, i == 0 ? -1 : mapped[i - 1], p, n->func);
		if (other->flags[i] & NODE_WEIGHED)
			tree_builder_add_self(builder, mapped[i], n->self);
		if (other->calls)
			tree_builder_add_calls(builder, mapped[i], other->calls[i]);
		if (other->latency)
			tree_builder_add_latency(builder, mapped[i], other->latency[i].min, other->latency[i].max,
									 other->latency[i].buckets, other->latency[i].nbuckets);
	}
	if (other->has_calls)
		builder->has_calls = true;
	pfree(mapped);
}

int32
tree_builder_count(const TreeBuilder *builder)
{
	return builder->nnodes;
}

int32
tree_builder_func(const TreeBuilder *builder, int32 node)
{
	return builder->nodes[node].func;
}

int32
tree_builder_parent(const TreeBuilder *builder, int32 node)
{
	return builder->nodes[node].parent;
}

/*
 * The depth of every node at or below `target` (0 for the target), -1 for
 * the others: one pass, since a parent is made before its children.
 */
int32 *
tree_builder_depths_below(const TreeBuilder *builder, int32 target)
{
	int32		n = builder->nnodes;
	int32	   *depth = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);

	for (int32 i = 0; i < n; i++)
	{
		int32		parent = builder->nodes[i].parent;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i == target)
			depth[i] = 0;
		else
			depth[i] = parent >= 0 && depth[parent] >= 0 ? depth[parent] + 1 : -1;
	}
	return depth;
}

/* Sibling order: running descending, then func ascending. */
typedef struct SiblingOrder
{
	const BuildNode *nodes;
	const int64 *running;
} SiblingOrder;

static int
compare_siblings(const void *a, const void *b, void *arg)
{
	const SiblingOrder *order = arg;
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	if (order->running[x] != order->running[y])
		return order->running[x] > order->running[y] ? -1 : 1;
	if (order->nodes[x].func != order->nodes[y].func)
		return order->nodes[x].func < order->nodes[y].func ? -1 : 1;
	return 0;
}

/*
 * The canonical stored tree, allocated in the current memory context.
 *
 * Only nodes that were given a weight, and their ancestors, are kept: a
 * transform may walk into a path and then drop its sample (transform.h).
 * Children are gathered per parent in one counting pass (slot n is the
 * virtual parent of the roots) and each sibling group is sorted.  The
 * stored order is the preorder of that sorted tree, and a node's place in
 * it follows from subtree sizes: its first child comes right after it,
 * each next sibling after the subtree of the one before.  So the places
 * are worked out parents first, in creation order, and the nodes are then
 * written to their places in creation order too: no walk down the tree,
 * whose reads would jump around the node array (and trees can be 10,000s
 * deep).
 */
CallTree *
tree_builder_finish(const TreeBuilder *builder)
{
	return tree_builder_finish_mapped(builder, NULL);
}

/* Places the children of one sibling group after `place`, in group order. */
static inline void
place_group(const int32 *group, int32 count, const int32 *size, int32 place, int32 *placed)
{
	for (int32 c = 0; c < count; c++)
	{
		placed[group[c]] = place;
		place += size[group[c]];
	}
}

/*
 * The preorder place of every live node, from the sorted sibling groups
 * (children[first[g] .. first[g + 1]) for parent g, group n for the roots)
 * and the subtree sizes.  Parents come before their children in the
 * builder, so each group's parent is placed when the group is reached.
 */
static void
place_in_preorder(const bool *live, int32 n, const int32 *first, const int32 *children,
				  const int32 *size, int32 *placed)
{
	place_group(children + first[n], first[n + 1] - first[n], size, 0, placed);
	for (int32 g = 0; g < n; g++)
	{
		if ((g & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (live[g] && first[g + 1] > first[g])
			place_group(children + first[g], first[g + 1] - first[g], size, placed[g] + 1, placed);
	}
}

/*
 * The latency histograms, each at its node's place: the bucket counts per
 * place, summed into start offsets, then the buckets copied.
 */
static void
write_latency(const TreeBuilder *builder, const bool *live, const int32 *placed, CallTree *tree)
{
	int32	   *bucket_start = calltree_bucket_start(tree);
	int64		offset = 0;

	for (int32 i = 0; i < builder->nnodes; i++)
	{
		if (!live[i])
			continue;
		calltree_latency_min(tree)[placed[i]] = builder->latency[i].min;
		calltree_latency_max(tree)[placed[i]] = builder->latency[i].max;
		bucket_start[placed[i]] = builder->latency[i].nbuckets;
	}
	for (int32 p = 0; p < tree->nnodes; p++)
	{
		int32		count = bucket_start[p];

		bucket_start[p] = (int32) offset;
		offset += count;
	}
	bucket_start[tree->nnodes] = (int32) offset;
	for (int32 i = 0; i < builder->nnodes; i++)
		if (live[i] && builder->latency[i].nbuckets > 0)
			memcpy(calltree_buckets(tree) + bucket_start[placed[i]], builder->latency[i].buckets,
				   sizeof(uint64) * builder->latency[i].nbuckets);
}

/*
 * Which nodes are kept (those given a weight, and their ancestors), with
 * running weights and subtree sizes, children before their parents:
 * children come after their parents in the builder.  Running weights and
 * the total are summed exactly and must end in range: then every reader's
 * sums fit, whatever their order (calltree_running).  Returns how many
 * nodes are kept.
 */
static int32
weigh_nodes(const TreeBuilder *builder, bool *live, int64 *running, int32 *size)
{
	int32		n = builder->nnodes;
	const BuildNode *nodes = builder->nodes;
	int32	   *running_high = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int32		nlive = 0;
	int64		total = 0;
	int32		total_high = 0;

	for (int32 i = 0; i < n; i++)
	{
		live[i] = (builder->flags[i] & NODE_WEIGHED) != 0;
		running[i] = 0;
		calltree_wide_add(&running[i], &running_high[i], nodes[i].self);
	}
	for (int32 i = n - 1; i >= 0; i--)
	{
		if (!live[i])
			continue;
		if (!calltree_wide_fits(running[i], running_high[i]))
			calltree_weight_out_of_range();
		nlive++;
		size[i]++;
		if (nodes[i].parent >= 0)
		{
			live[nodes[i].parent] = true;
			calltree_wide_add(&running[nodes[i].parent], &running_high[nodes[i].parent], running[i]);
			size[nodes[i].parent] += size[i];
		}
		else
			calltree_wide_add(&total, &total_high, running[i]);
	}
	if (!calltree_wide_fits(total, total_high))
		calltree_weight_out_of_range(); /* total() must never overflow */
	pfree(running_high);
	return nlive;
}

/*
 * The kept children grouped by parent, each group in sibling order: group
 * g is children[first[g] .. first[g + 1]), group n holds the roots.  A
 * counting sort, with `fill` (n + 1 slots) as the next free slot per group.
 */
static void
group_children(const TreeBuilder *builder, const bool *live, const int64 *running,
			   int32 *first, int32 *children, int32 *fill)
{
	int32		n = builder->nnodes;
	const BuildNode *nodes = builder->nodes;
	SiblingOrder order = {nodes, running};

	for (int32 i = 0; i < n; i++)
		if (live[i])
			first[(nodes[i].parent < 0 ? n : nodes[i].parent) + 1]++;
	for (int32 g = 0; g <= n; g++)
		first[g + 1] += first[g];
	memcpy(fill, first, sizeof(int32) * ((Size) n + 1));
	for (int32 i = 0; i < n; i++)
		if (live[i])
			children[fill[nodes[i].parent < 0 ? n : nodes[i].parent]++] = i;
	for (int32 g = 0; g <= n; g++)
	{
		int32		count = first[g + 1] - first[g];

		if (count > 1)
			qsort_arg(children + first[g], count, sizeof(int32), compare_siblings, &order);
	}
}

/*
 * The stored tree's flags, and its number of histogram buckets.  A tree has
 * latency when a kept node of it has a histogram bucket: the flag follows
 * from the nodes, so that equal trees have equal bytes (a histogram without
 * buckets is not written in the text form).
 */
static uint8
stored_flags(const TreeBuilder *builder, const bool *live, int64 *nbuckets)
{
	uint8		flags = (builder->has_calls || builder->latency) ? CALLTREE_HAS_CALLS : 0;

	*nbuckets = 0;
	if (builder->latency)
	{
		for (int32 i = 0; i < builder->nnodes; i++)
			if (live[i])
				*nbuckets += builder->latency[i].nbuckets;
		if (*nbuckets > 0)
			flags |= CALLTREE_HAS_LATENCY;
	}
	return flags;
}

/* A zeroed stored tree with its header filled in */
static CallTree *
new_stored_tree(int32 nnodes, uint8 flags, int64 nbuckets)
{
	Size		size = calltree_size(nnodes, flags, nbuckets);
	CallTree   *tree = palloc_extended(size, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	SET_VARSIZE(tree, size);
	tree->version = CALLTREE_VERSION;
	tree->flags = flags;
	tree->nnodes = nnodes;
	return tree;
}

/* Every kept node to its place, read in creation order */
static void
write_nodes(const TreeBuilder *builder, const bool *live, const int32 *placed, CallTree *tree)
{
	const BuildNode *nodes = builder->nodes;
	int64	   *out_self = calltree_self(tree);
	int64	   *out_calls = calltree_calls(tree);
	int32	   *out_func = calltree_func(tree);
	int32	   *out_parent = calltree_parent(tree);

	for (int32 i = 0; i < builder->nnodes; i++)
	{
		int32		p;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!live[i])
			continue;
		p = placed[i];
		out_self[p] = nodes[i].self;
		out_func[p] = nodes[i].func;
		out_parent[p] = nodes[i].parent < 0 ? -1 : placed[nodes[i].parent];
		if (builder->calls)
			out_calls[p] = builder->calls[i];
	}
}

/*
 * tree_builder_finish, and if `placed` is not NULL, it receives for each
 * builder node its index in the stored tree (-1 for a node not kept).
 */
CallTree *
tree_builder_finish_mapped(const TreeBuilder *builder, int32 *placed_out)
{
	int32		n = builder->nnodes;
	bool	   *live = palloc_extended(sizeof(bool) * Max(n, 1), MCXT_ALLOC_HUGE);
	int64	   *running = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32	   *size = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int32	   *first = palloc_extended(sizeof(int32) * ((Size) n + 2), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int32	   *children = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32	   *placed = palloc_extended(sizeof(int32) * ((Size) n + 1), MCXT_ALLOC_HUGE);
	int32		nlive = weigh_nodes(builder, live, running, size);
	CallTree   *tree;
	uint8		flags;
	int64		nbuckets;

	/* `placed` serves as group_children's scratch before it is filled */
	group_children(builder, live, running, first, children, placed);
	place_in_preorder(live, n, first, children, size, placed);
	flags = stored_flags(builder, live, &nbuckets);
	tree = new_stored_tree(nlive, flags, nbuckets);
	write_nodes(builder, live, placed, tree);
	if (flags & CALLTREE_HAS_LATENCY)
		write_latency(builder, live, placed, tree);
	if (placed_out)
		for (int32 i = 0; i < n; i++)
			placed_out[i] = live[i] ? placed[i] : -1;

	pfree(live);
	pfree(running);
	pfree(size);
	pfree(first);
	pfree(children);
	pfree(placed);
	return tree;
}
