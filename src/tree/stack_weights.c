/*
 * stack_weights.c
 *	  The accumulator of weights per stack id (stack_weights.h): the per-row
 *	  work of stack_agg and the merging of two states.  No fmgr code here.
 *
 * A state starts as a hash table and moves to an array indexed by id once
 * its ids prove compact (a range at most four times their number), which
 * also bounds its memory; ids that stray far from the array's range go to
 * a hash table again.  Sums are exact int64 arithmetic with overflow
 * checks, so any split of the input (parallel workers, shards) gives the
 * same sums.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "tree/hash64.h"
#include "tree/stack_weights.h"

typedef struct StackWeight
{
	int64		stack_id;
	int64		weight;
	char		status;
} StackWeight;

#define SH_PREFIX		stackweights
#define SH_ELEMENT_TYPE StackWeight
#define SH_KEY_TYPE		int64
#define SH_KEY			stack_id
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

#define DENSE_MAX_SLOTS		(INT64CONST(64) * 1024 * 1024)

/*
 * Only ids within +-2^62 go to the array, so that its bounds never leave
 * the int64 range.  Stack ids come from a sequence starting at 1; any other
 * id (a state typed by hand) still sums correctly, in the hash table.
 */
#define DENSE_ID_LIMIT		(INT64CONST(1) << 62)

StackWeights *
stack_weights_create(MemoryContext cxt)
{
	StackWeights *weights = MemoryContextAllocZero(cxt, sizeof(StackWeights));

	weights->cxt = cxt;
	weights->next_check = 1024;
	return weights;
}

int64
stack_weights_count(const StackWeights *weights)
{
	return weights->dense_count + (weights->hash ? weights->hash->members : 0);
}

/* whether ids over [lo, hi] are compact enough for the array */
static bool
compact_range(const StackWeights *weights, int64 lo, int64 hi)
{
	if (lo < -DENSE_ID_LIMIT || hi > DENSE_ID_LIMIT || hi < lo ||
		(uint64) hi - (uint64) lo >= (uint64) DENSE_MAX_SLOTS)
		return false;
	return hi - lo + 1 <= 4 * (stack_weights_count(weights) + 1) + 4096;
}

/* Makes the array cover [lo, hi] (with room to grow), keeping its entries. */
static void
dense_cover(StackWeights *weights, int64 lo, int64 hi)
{
	int64		capacity = Min(Max(hi - lo + 1 + (hi - lo + 1) / 4, weights->capacity * 2), DENSE_MAX_SLOTS);
	int64	   *dense_weight = MemoryContextAllocExtended(weights->cxt, sizeof(int64) * capacity,
														  MCXT_ALLOC_HUGE);
	bool	   *dense_seen = MemoryContextAllocExtended(weights->cxt, sizeof(bool) * capacity,
													   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int64		base = (hi - lo + 1 < capacity && weights->capacity > 0 && lo < weights->base)
		? hi - capacity + 1 : lo;	/* growing downwards: room below */

	if (weights->capacity > 0)
	{
		int64		shift = weights->base - base;

		memcpy(dense_weight + shift, weights->dense_weight, sizeof(int64) * weights->capacity);
		memcpy(dense_seen + shift, weights->dense_seen, sizeof(bool) * weights->capacity);
		pfree(weights->dense_weight);
		pfree(weights->dense_seen);
	}
	weights->base = base;
	weights->capacity = capacity;
	weights->dense_weight = dense_weight;
	weights->dense_seen = dense_seen;
}

static inline void
dense_add(StackWeights *weights, int64 slot, int64 weight)
{
	if (weights->dense_seen[slot])
		weights->dense_weight[slot] = calltree_add_weight(weights->dense_weight[slot], weight);
	else
	{
		weights->dense_seen[slot] = true;
		weights->dense_weight[slot] = weight;
		weights->dense_count++;
	}
}

/* Moves the hash table's entries into the array, when they are compact. */
static void
try_dense(StackWeights *weights)
{
	int64		lo = weights->hash_min;
	int64		hi = weights->hash_max;
	stackweights_iterator it;
	StackWeight *entry;

	if (weights->capacity > 0)
	{
		lo = Min(lo, weights->base);
		hi = Max(hi, weights->base + weights->capacity - 1);
	}
	if (!compact_range(weights, lo, hi))
		return;
	dense_cover(weights, lo, hi);
	stackweights_start_iterate(weights->hash, &it);
	while ((entry = stackweights_iterate(weights->hash, &it)) != NULL)
		dense_add(weights, entry->stack_id - weights->base, entry->weight);
	stackweights_destroy(weights->hash);
	weights->hash = NULL;
}

/*
 * After the array grew: the hashed ids that it covers now move into it, so
 * that an id is never in both (the sorted pairs have each id once).
 */
static void
rehome_hashed(StackWeights *weights)
{
	stackweights_iterator it;
	StackWeight *entry;
	bool		first = true;

	stackweights_start_iterate(weights->hash, &it);
	while ((entry = stackweights_iterate(weights->hash, &it)) != NULL)
	{
		uint64		slot = stack_weights_slot(weights, entry->stack_id);

		if (slot < (uint64) weights->capacity)
		{
			dense_add(weights, (int64) slot, entry->weight);
			stackweights_delete_item(weights->hash, entry);
			continue;
		}
		weights->hash_min = first ? entry->stack_id : Min(weights->hash_min, entry->stack_id);
		weights->hash_max = first ? entry->stack_id : Max(weights->hash_max, entry->stack_id);
		first = false;
	}
	if (first)
	{
		stackweights_destroy(weights->hash);
		weights->hash = NULL;
	}
}

/* stack_weights_add, for an id that is not in the array yet */
void
stack_weights_add_slow(StackWeights *weights, int64 stack_id, int64 weight)
{
	bool		found;
	StackWeight *entry;

	if (weights->capacity > 0)
	{
		uint64		slot = stack_weights_slot(weights, stack_id);
		int64		lo = Min(stack_id, weights->base);
		int64		hi = Max(stack_id, weights->base + weights->capacity - 1);

		if (slot < (uint64) weights->capacity)
		{
			dense_add(weights, (int64) slot, weight);
			return;
		}
		if (compact_range(weights, lo, hi))
		{
			dense_cover(weights, lo, hi);
			if (weights->hash)
				rehome_hashed(weights);
			dense_add(weights, stack_id - weights->base, weight);
			return;
		}
	}
	if (weights->hash == NULL)
	{
		weights->hash = stackweights_create(weights->cxt, 1024, NULL);
		weights->hash_min = weights->hash_max = stack_id;
	}
	entry = stackweights_insert(weights->hash, stack_id, &found);
	entry->weight = found ? calltree_add_weight(entry->weight, weight) : weight;
	weights->hash_min = Min(weights->hash_min, stack_id);
	weights->hash_max = Max(weights->hash_max, stack_id);
	if (weights->hash->members >= weights->next_check)
	{
		weights->next_check += weights->next_check / 4;
		try_dense(weights);
	}
}

static int
compare_stack_weights(const void *a, const void *b)
{
	int64		x = ((const StackWeight *) a)->stack_id;
	int64		y = ((const StackWeight *) b)->stack_id;

	return (x > y) - (x < y);
}

/*
 * Every (id, sum) pair, in id order, into ids[] and sums[] (room for
 * stack_weights_count() each).  The array's pairs are in order already and
 * the hash table's are sorted; the two are merged.
 */
void
stack_weights_sorted(const StackWeights *weights, int64 *ids, int64 *sums)
{
	StackWeight *hashed = NULL;
	int64		nhashed = 0;
	int64		h = 0;
	int64		n = 0;

	if (weights->hash)
	{
		stackweights_iterator it;
		StackWeight *entry;

		hashed = palloc_extended(sizeof(StackWeight) * Max(weights->hash->members, 1), MCXT_ALLOC_HUGE);
		stackweights_start_iterate(weights->hash, &it);
		while ((entry = stackweights_iterate(weights->hash, &it)) != NULL)
			hashed[nhashed++] = *entry;
		qsort(hashed, nhashed, sizeof(StackWeight), compare_stack_weights);
	}
	for (int64 slot = 0; slot < weights->capacity; slot++)
	{
		if ((slot & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!weights->dense_seen[slot])
			continue;
		for (; h < nhashed && hashed[h].stack_id < weights->base + slot; h++, n++)
		{
			ids[n] = hashed[h].stack_id;
			sums[n] = hashed[h].weight;
		}
		ids[n] = weights->base + slot;
		sums[n] = weights->dense_weight[slot];
		n++;
	}
	for (; h < nhashed; h++, n++)
	{
		ids[n] = hashed[h].stack_id;
		sums[n] = hashed[h].weight;
	}
	if (hashed)
		pfree(hashed);
}

/*
 * Adds `count` pairs (in any order) to the sums.  A state still in its hash
 * table moves to the array at once when these ids and its own are compact:
 * packed sets bring hundreds of distinct stacks at a time, and a fleet's
 * sets the same few thousand again and again, which the array sums without
 * hashing.
 */
void
stack_weights_add_pairs(StackWeights *weights, const int64 *ids, const int64 *sums, int64 count)
{
	if (count > 0 && weights->capacity == 0)
	{
		int64		lo = ids[0];
		int64		hi = ids[0];

		for (int64 i = 1; i < count; i++)
		{
			lo = Min(lo, ids[i]);
			hi = Max(hi, ids[i]);
		}
		if (weights->hash)
		{
			lo = Min(lo, weights->hash_min);
			hi = Max(hi, weights->hash_max);
		}
		if (compact_range(weights, lo, hi))
		{
			dense_cover(weights, lo, hi);
			if (weights->hash)
				rehome_hashed(weights);
		}
	}
	for (int64 i = 0; i < count; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		stack_weights_add(weights, ids[i], sums[i]);
	}
}

/*
 * Adds another state's sums.  Its pairs are taken in id order, so that the
 * array of `weights` grows in one direction rather than back and forth.
 */
void
stack_weights_add_all(StackWeights *weights, const StackWeights *other)
{
	int64		count = stack_weights_count(other);
	int64	   *ids = palloc_extended(sizeof(int64) * Max(count, 1), MCXT_ALLOC_HUGE);
	int64	   *sums = palloc_extended(sizeof(int64) * Max(count, 1), MCXT_ALLOC_HUGE);

	stack_weights_sorted(other, ids, sums);
	stack_weights_add_pairs(weights, ids, sums, count);
	pfree(ids);
	pfree(sums);
}
