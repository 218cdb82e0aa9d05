/*
 * calltree.h
 *	  The calltree value: its stored layout, the accessors of its arrays, and
 *	  the readers of a stored tree (checks, running weights, depths) that
 *	  calltree.c defines.  Trees are built with builder.h.
 *
 * A call tree is the multiset {func path -> self weight}.  Every CallNode is
 * a func path; its running weight is the sum of self weights over the paths
 * it prefixes.  The stored value keeps only self weights: running weights
 * follow from them in one backward pass, so a stored tree can never hold
 * running weights that disagree with its self weights.
 *
 * On-disk layout (version 1).  All fields are in native byte order; the
 * binary send/receive format (calltree_io.c) is separate and in network order.
 *
 *	offset	size	field
 *	0		4		varlena header
 *	4		1		format version, CALLTREE_VERSION
 *	5		1		flags: CALLTREE_HAS_CALLS, CALLTREE_HAS_LATENCY
 *	6		2		reserved, zero
 *	8		4		number of nodes, n
 *	12		4		reserved, zero (keeps the arrays below 8-byte aligned)
 *	16		8 n		self weight of each node (int64)
 *	...		8 n		calls of each node (int64), only with CALLTREE_HAS_CALLS
 *	...		8 n		shortest call of each node (int64), only with CALLTREE_HAS_LATENCY
 *	...		8 n		longest call of each node (int64), only with CALLTREE_HAS_LATENCY
 *	...		4 n		func id of each node (int32)
 *	...		4 n		index of each node's parent (int32), -1 for a root
 *	...		4 (n+1)	with CALLTREE_HAS_LATENCY: node i's histogram buckets are
 *					buckets[start[i] .. start[i+1]), start[n] = b; then
 *					padding to 8 bytes
 *	...		8 b		the buckets: (bucket index << 48) | count, by index
 *
 * That is 16 bytes per node (24 for trees from instrumented traces, plus
 * 20 and 8 per histogram bucket with latency) and 16 bytes of header; TOAST
 * may compress it further.  Latency histograms are log-bucketed (latency.h):
 * every value is known within 1%.
 *
 * The nodes are always in canonical order: depth-first preorder, siblings
 * by running weight descending, then func id ascending.  Hence parent[i] < i,
 * nodes() is a straight scan, and two equal trees have equal bytes, so
 * equality and hashing work on the bytes.  The reserved bytes are zero.
 */
#ifndef CALLTREE_H
#define CALLTREE_H

#include "postgres.h"

#include "common/int.h"
#include "fmgr.h"

#define CALLTREE_VERSION	1
#define CALLTREE_HAS_CALLS	0x01
#define CALLTREE_HAS_LATENCY	0x02	/* only with CALLTREE_HAS_CALLS */
#define CALLTREE_KNOWN_FLAGS	(CALLTREE_HAS_CALLS | CALLTREE_HAS_LATENCY)

/* Largest tree we build: the value must stay below MaxAllocSize. */
#define CALLTREE_MAX_NODES	((int32) ((MaxAllocSize - 64) / 24))

typedef struct CallTree
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	uint8		version;
	uint8		flags;
	uint16		reserved1;
	int32		nnodes;
	int32		reserved2;
	/* arrays follow, see above */
} CallTree;

#define CALLTREE_HEADER_SIZE	MAXALIGN(sizeof(CallTree))

static inline int64 *
calltree_self(const CallTree *tree)
{
	return (int64 *) ((char *) tree + CALLTREE_HEADER_SIZE);
}

static inline int
calltree_int64_arrays(uint8 flags)
{
	return 1 + ((flags & CALLTREE_HAS_CALLS) ? 1 : 0) + ((flags & CALLTREE_HAS_LATENCY) ? 2 : 0);
}

/* NULL unless the tree carries call counts */
static inline int64 *
calltree_calls(const CallTree *tree)
{
	if (!(tree->flags & CALLTREE_HAS_CALLS))
		return NULL;
	return calltree_self(tree) + tree->nnodes;
}

/* shortest and longest call per node: NULL unless the tree has latency */
static inline int64 *
calltree_latency_min(const CallTree *tree)
{
	if (!(tree->flags & CALLTREE_HAS_LATENCY))
		return NULL;
	return calltree_self(tree) + (Size) 2 * tree->nnodes;
}

static inline int64 *
calltree_latency_max(const CallTree *tree)
{
	if (!(tree->flags & CALLTREE_HAS_LATENCY))
		return NULL;
	return calltree_self(tree) + (Size) 3 * tree->nnodes;
}

static inline int32 *
calltree_func(const CallTree *tree)
{
	return (int32 *) (calltree_self(tree) + (Size) calltree_int64_arrays(tree->flags) * tree->nnodes);
}

static inline int32 *
calltree_parent(const CallTree *tree)
{
	return calltree_func(tree) + tree->nnodes;
}

/* histogram bucket offsets (n + 1 of them): NULL unless the tree has latency */
static inline int32 *
calltree_bucket_start(const CallTree *tree)
{
	if (!(tree->flags & CALLTREE_HAS_LATENCY))
		return NULL;
	return calltree_parent(tree) + tree->nnodes;
}

static inline Size
calltree_buckets_offset(int32 nnodes, uint8 flags)
{
	Size		offset = CALLTREE_HEADER_SIZE + (Size) nnodes * (8 * calltree_int64_arrays(flags) + 8);

	if (flags & CALLTREE_HAS_LATENCY)
		offset = TYPEALIGN(8, offset + 4 * ((Size) nnodes + 1));
	return offset;
}

static inline uint64 *
calltree_buckets(const CallTree *tree)
{
	return (uint64 *) ((char *) tree + calltree_buckets_offset(tree->nnodes, tree->flags));
}

static inline Size
calltree_size(int32 nnodes, uint8 flags, int64 nbuckets)
{
	return calltree_buckets_offset(nnodes, flags) + 8 * (Size) nbuckets;
}

/* a histogram bucket: its index in the high 16 bits, its count below */
#define BUCKET_INDEX(b)		((int32) ((b) >> 48))
#define BUCKET_COUNT(b)		((int64) ((b) & UINT64CONST(0xFFFFFFFFFFFF)))
#define MAKE_BUCKET(i, c)	(((uint64) (i) << 48) | (uint64) (c))
#define BUCKET_MAX_COUNT	INT64CONST(0xFFFFFFFFFFFF)
/* the largest bucket index a stored histogram may hold (latency.h) */
#define LATENCY_MAX_INDEX	2300

/*
 * Whether node i stands for samples of its own: it has self weight, or it
 * is a leaf (a sample of weight 0 still makes a node).  An inner node with
 * no self weight only stands for its descendants' samples.
 */
static inline bool
calltree_holds_samples(const CallTree *tree, int32 i)
{
	return calltree_self(tree)[i] != 0 ||
		i + 1 == tree->nnodes || calltree_parent(tree)[i + 1] != i;
}

#define DatumGetCallTreeP(X)	((CallTree *) PG_DETOAST_DATUM(X))
#define PG_GETARG_CALLTREE_P(n) DatumGetCallTreeP(PG_GETARG_DATUM(n))
#define PG_RETURN_CALLTREE_P(x) PG_RETURN_POINTER(x)

/*
 * Exact sums of weights.  A running weight is a sum of int64 weights that
 * may leave the int64 range midway and come back (weights can be
 * negative), so whether it fits must not depend on the order of the terms.
 * The sum is kept as high * 2^64 + low, with low read as unsigned: adding a
 * term moves high by at most one, so an int32 high holds the sum of any
 * tree's weights.
 */
static inline void
calltree_wide_add(int64 *low, int32 *high, int64 term)
{
	uint64		before = (uint64) *low;
	uint64		after = before + (uint64) term;

	*high += (term < 0 ? -1 : 0) + (after < before ? 1 : 0);
	*low = (int64) after;
}

/* Whether the exact sum (low, high) is an int64, which is then `low` */
static inline bool
calltree_wide_fits(int64 low, int32 high)
{
	return high == (low < 0 ? -1 : 0);
}

extern pg_attribute_noreturn() void calltree_weight_out_of_range(void);

/* a + b, or the error of a weight beyond the bigint range (inline: summing loops call it per sample) */
static inline int64
calltree_add_weight(int64 a, int64 b)
{
	int64		sum;

	if (unlikely(pg_add_s64_overflow(a, b, &sum)))
		calltree_weight_out_of_range();
	return sum;
}

/* calltree.c: reading stored trees */
extern void calltree_check_header(const CallTree *tree, Size size);
extern void calltree_check_value(const CallTree *tree);
extern int64 *calltree_running(const CallTree *tree);
extern int64 calltree_total_weight(const CallTree *tree);
extern pg_attribute_noreturn() void calltree_too_many_nodes(void);
extern int32 *calltree_depths(const CallTree *tree);

#endif							/* CALLTREE_H */
