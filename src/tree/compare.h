/*
 * compare.h
 *	  Two call trees side by side: the union of their CallNodes, each with
 *	  its weights in both trees (compare.c).  diff(), regressions() and the
 *	  differential flame graph read a pair of trees through it.
 *
 * The union.  A CallNode is a func path; the union holds every func path
 * that is a node of base or of test, once.  A node that one side lacks has
 * weights 0 on that side and node index -1 there.  No node of either side is
 * lost, not even one whose weights cancel out (5 in base and -5 in test, or
 * a sample of weight 0): every node that a tree holds is in the union.
 *
 * The union's order.  The union's nodes are in the canonical order
 * (calltree.h) of the tree base + test: depth-first preorder, siblings by
 * combined running weight (base running + test running) descending, then
 * by func id ascending.  So a union node's index is its index in
 * nodes(base + test), minus one.  With signed trees the combined weight may
 * be negative or zero: negative siblings come after the ones of weight
 * zero, and siblings of equal combined weight go by func id.  Parents come
 * before their children (parent[i] < i).
 *
 * The union is made as base + test is, and fails where that would: when a
 * combined running weight, or the combined total, does not fit in bigint
 * ("call tree weight out of range").
 *
 * The union is read in two ways: walked one node at a time (TreeUnion),
 * which stores nothing per union node, or as arrays (TreePair), which the
 * functions that look at a node more than once need.
 *
 * Call counts and latency histograms are not compared: a pair holds the
 * weights only.
 */
#ifndef CALLTREE_COMPARE_H
#define CALLTREE_COMPARE_H

#include "postgres.h"

#include "tree/calltree.h"

/* One node of the union, as the walk hands it out */
typedef struct UnionNode
{
	int32		index;			/* in the union's order, from 0 */
	int32		func;
	int32		parent;			/* the parent's union index, -1 for a root */
	int32		depth;			/* 0 for a root */
	int32		base_node;		/* the node's index in base, -1 if base lacks it */
	int32		test_node;		/* the same in test */
	int64		base_self;		/* 0 where base lacks the node */
	int64		test_self;
	int64		base_running;
	int64		test_running;
} UnionNode;

/* A walk over the union in its order, in a memory context of its own */
typedef struct TreeUnion TreeUnion;

extern TreeUnion *tree_union_begin(const CallTree *base, const CallTree *test);
extern bool tree_union_next(TreeUnion *walk, UnionNode *node);
extern void tree_union_end(TreeUnion *walk);

/*
 * The union's func path elements (calltree.max_path_output): the exact
 * count walks the whole union, the bound (both trees' together) is known
 * from the start.
 */
extern int64 tree_union_path_elements_bound(const TreeUnion *walk);
extern int64 tree_union_path_elements(TreeUnion *walk);

/* The union as arrays, one element per union node */
typedef struct TreePair
{
	int32		nnodes;			/* of the union */
	int32	   *func;			/* per union node */
	int32	   *parent;			/* the parent's union index, -1 for a root */
	int32	   *depth;			/* 0 for a root */
	int64	   *base_self;		/* 0 where base lacks the node */
	int64	   *test_self;
	int64	   *base_running;
	int64	   *test_running;
	int64		base_total;		/* total() of each tree */
	int64		test_total;
} TreePair;

/*
 * The union of two trees' nodes, in the current memory context: all of it,
 * or what a walk has not yet handed out.
 */
extern TreePair *tree_pair_make(const CallTree *base, const CallTree *test);
extern TreePair *tree_pair_collect(TreeUnion *walk);

/*
 * Scales base's weights to test's total, as pprof's -normalize does: each
 * self weight s becomes s * test_total / base_total, rounded by the largest
 * remainder method, so that the scaled self weights still sum to test's
 * total exactly and each is within 1 of its exact value:
 *	- every scaled weight is first rounded down (towards minus infinity);
 *	- the k weights left short by the most then get 1 more each, where k
 *	  is what the rounded weights miss of test's total; among equal
 *	  remainders, the node earlier in the union's order gets it first.
 * Running weights are then summed again from the scaled self weights, so
 * the scaled base is a consistent tree.  A base whose total is zero cannot
 * be scaled: an error.  A node that base lacks keeps weight 0.
 */
extern void tree_pair_normalize_base(TreePair *pair);

#endif							/* CALLTREE_COMPARE_H */
