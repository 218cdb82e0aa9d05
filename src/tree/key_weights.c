/*
 * key_weights.c
 *	  A tree's weights per key (key_weights.h): one preorder walk that keeps
 *	  the keys on the path to the current node, so that a key's running
 *	  weight takes only its outermost nodes.  No fmgr code here.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "tree/hash64.h"
#include "tree/key_weights.h"

typedef struct KeyEntry
{
	int64		key;
	int32		on_path;		/* nodes of this key on the current path */
	int64		running;
	int64		self;
	char		status;
} KeyEntry;

#define SH_PREFIX		keyweights
#define SH_ELEMENT_TYPE KeyEntry
#define SH_KEY_TYPE		int64
#define SH_KEY			key
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

static int
compare_key_weights(const void *a, const void *b)
{
	const KeyWeight *x = a;
	const KeyWeight *y = b;

	if (x->running != y->running)
		return x->running > y->running ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

/* The entries of the table as a sorted array */
static KeyWeight *
sorted_weights(keyweights_hash *weights, int32 *nkeys)
{
	KeyWeight  *sorted = palloc_extended(sizeof(KeyWeight) * Max(weights->members, 1), MCXT_ALLOC_HUGE);
	keyweights_iterator it;
	KeyEntry   *entry;
	int32		count = 0;

	keyweights_start_iterate(weights, &it);
	while ((entry = keyweights_iterate(weights, &it)) != NULL)
	{
		sorted[count].key = entry->key;
		sorted[count].running = entry->running;
		sorted[count++].self = entry->self;
	}
	qsort(sorted, count, sizeof(KeyWeight), compare_key_weights);
	*nkeys = count;
	return sorted;
}

KeyWeight *
calltree_key_weights(const CallTree *tree, NodeKey node_key, int32 arg, int32 *nkeys)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *parent = calltree_parent(tree);
	int64	   *running = calltree_running(tree);

	/*
	 * The keys on the path, not pointers to their entries: inserting a key
	 * can grow the hash table and move every entry.
	 */
	int64	   *key_at = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32	   *path_nodes = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32		depth = 0;
	keyweights_hash *weights = keyweights_create(CurrentMemoryContext, 256, NULL);
	KeyWeight  *sorted;

	for (int32 i = 0; i < n; i++)
	{
		int64		key = node_key(tree, i, arg);
		KeyEntry   *entry;
		bool		found;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		/* leave the nodes this one is not below */
		while (depth > 0 && path_nodes[depth - 1] != parent[i])
			if (key_at[--depth] != KEY_WEIGHTS_NO_KEY)
				keyweights_lookup(weights, key_at[depth])->on_path--;

		if (key != KEY_WEIGHTS_NO_KEY)
		{
			entry = keyweights_insert(weights, key, &found);
			if (!found)
			{
				entry->on_path = 0;
				entry->running = 0;
				entry->self = 0;
			}
			if (entry->on_path == 0)
				entry->running = calltree_add_weight(entry->running, running[i]);
			entry->self = calltree_add_weight(entry->self, self[i]);
			entry->on_path++;
		}
		key_at[depth] = key;
		path_nodes[depth++] = i;
	}
	sorted = sorted_weights(weights, nkeys);
	keyweights_destroy(weights);
	pfree(key_at);
	pfree(path_nodes);
	pfree(running);
	return sorted;
}

static int64
key_func(const CallTree *tree, int32 i, int32 arg)
{
	return calltree_func(tree)[i];
}

KeyWeight *
calltree_func_weights(const CallTree *tree, int32 *nfuncs)
{
	return calltree_key_weights(tree, key_func, 0, nfuncs);
}
