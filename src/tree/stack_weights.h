/*
 * stack_weights.h
 *	  Weights summed per stack id: the state of stack_agg, and the SQL type
 *	  stack_weights that carries it between processes and nodes.
 *
 * stack_agg only sums weights per stack id while it reads samples; the
 * stacks are resolved to func paths once, at the end, on the node that has
 * the stack table.  So the state is a set of (stack id, weight) pairs,
 * which needs no interned table to build, combine or ship.
 *
 * Three forms of one value:
 *
 * - the accumulator (stack_weights.c), where rows are added: the weights of
 *   compact ids in an array indexed by id, the others in a hash table;
 *
 * - the flat value (stack_weights_value.c), version 1, native byte order:
 *
 *	offset	size	field
 *	0		4		varlena header
 *	4		1		format version, STACK_WEIGHTS_VERSION
 *	5		3		reserved, zero
 *	8		4		number of stacks, n
 *	12		4		reserved, zero (keeps the arrays 8-byte aligned)
 *	16		8 n		stack ids (int64), strictly ascending
 *	...		8 n		the weight of each (int64)
 *
 *   16 bytes per stack: the stored form, and what parallel workers hand to
 *   their leader;
 *
 * - the expanded object (stack_weights_value.c): an accumulator inside a
 *   memory context of its own, which is how an aggregate keeps its state,
 *   so that each row updates it in place and flattening happens only when
 *   the state leaves the process.
 *
 * The text form (stack_weights_io.c) lists the pairs in id order:
 * {id:weight,id:weight,...}, {} when empty.  It is what Citus ships from
 * workers to the coordinator.  The binary form is a version byte, the
 * count (4 bytes) and the pairs (8 + 8 bytes), in network byte order.
 */
#ifndef CALLTREE_STACK_WEIGHTS_H
#define CALLTREE_STACK_WEIGHTS_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/expandeddatum.h"

#include "tree/calltree.h"

/* ---------------------------------------------------------------- accumulator */

struct stackweights_hash;

/*
 * Stack ids come from a sequence, so a profile's ids are usually compact:
 * then the weights live in an array indexed by id, one cache miss per row
 * at most and no hashing (this is the per-row path of stack_agg).  The
 * fields are here so that this path can be inlined; use the functions.
 */
typedef struct StackWeights
{
	MemoryContext cxt;
	/* the array: ids base .. base + capacity - 1 */
	int64		base;
	int64		capacity;		/* 0: no array */
	int64	   *dense_weight;
	bool	   *dense_seen;
	int64		dense_count;
	/* the ids outside it */
	struct stackweights_hash *hash;
	int64		hash_min;
	int64		hash_max;
	uint32		next_check;		/* hash size at which to try the array */
} StackWeights;

extern StackWeights *stack_weights_create(MemoryContext cxt);
extern void stack_weights_add_slow(StackWeights *weights, int64 stack_id, int64 weight);
extern int64 stack_weights_count(const StackWeights *weights);
extern void stack_weights_sorted(const StackWeights *weights, int64 *ids, int64 *sums);
extern void stack_weights_add_pairs(StackWeights *weights, const int64 *ids, const int64 *sums,
									int64 count);
extern void stack_weights_add_all(StackWeights *weights, const StackWeights *other);

/*
 * The array's slot of `stack_id`, which is in the array when it is below
 * the capacity: computed unsigned, an id below the array's base wraps to a
 * slot far above any capacity (the array only holds ids within +-2^62).
 */
static inline uint64
stack_weights_slot(const StackWeights *weights, int64 stack_id)
{
	return (uint64) stack_id - (uint64) weights->base;
}

/* Adds `weight` to the sum of `stack_id`, exactly (an error on overflow). */
static inline void
stack_weights_add(StackWeights *weights, int64 stack_id, int64 weight)
{
	uint64		slot = stack_weights_slot(weights, stack_id);

	if (likely(slot < (uint64) weights->capacity && weights->dense_seen[slot]))
	{
		weights->dense_weight[slot] = calltree_add_weight(weights->dense_weight[slot], weight);
		return;
	}
	stack_weights_add_slow(weights, stack_id, weight);
}

/* ---------------------------------------------------------------- the flat value */

#define STACK_WEIGHTS_VERSION	1

typedef struct FlatStackWeights
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint8		version;
	uint8		reserved1[3];
	int32		count;
	int32		reserved2;
	/* ids, then weights */
} FlatStackWeights;

#define STACK_WEIGHTS_HEADER_SIZE	MAXALIGN(sizeof(FlatStackWeights))
/* the most pairs a value holds: it must stay below MaxAllocSize */
#define STACK_WEIGHTS_MAX	((int32) ((MaxAllocSize - STACK_WEIGHTS_HEADER_SIZE) / 16))

static inline int64 *
flat_stack_ids(const FlatStackWeights *flat)
{
	return (int64 *) ((char *) flat + STACK_WEIGHTS_HEADER_SIZE);
}

static inline int64 *
flat_stack_sums(const FlatStackWeights *flat)
{
	return flat_stack_ids(flat) + flat->count;
}

static inline Size
stack_weights_flat_size(int64 count)
{
	return STACK_WEIGHTS_HEADER_SIZE + (Size) count * 16;
}

extern FlatStackWeights *stack_weights_new_flat(int32 count);
extern void stack_weights_check_flat(const FlatStackWeights *flat, Size size);

/* ---------------------------------------------------------------- the expanded object */

typedef struct ExpandedStackWeights
{
	ExpandedObjectHeader hdr;
	StackWeights *weights;
} ExpandedStackWeights;

extern ExpandedStackWeights *stack_weights_expanded_create(MemoryContext parent);
extern ExpandedStackWeights *stack_weights_expanded_of(Datum d);
extern ExpandedStackWeights *stack_weights_expanded_rw(Datum d);
extern void stack_weights_add_datum(StackWeights *weights, Datum d);

/*
 * Every (stack id, weight) pair of a stack_weights datum, flat or expanded,
 * in id order.  The arrays are the value's own for a flat datum, new ones
 * for an expanded one.
 */
extern int64 stack_weights_pairs(Datum d, const int64 **ids, const int64 **sums);

#endif							/* CALLTREE_STACK_WEIGHTS_H */
