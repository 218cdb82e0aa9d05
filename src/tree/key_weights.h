/*
 * key_weights.h
 *	  A tree's weights summed per key, each sample counted once per key even
 *	  under recursion (key_weights.c).  functions(), callers() and callees()
 *	  are this with different keys, and regressions() compares two trees'
 *	  functions() through it.
 *
 * A walk gives some nodes a key (a func, a caller ...).  A key's self weight
 * sums its nodes' self weights, and its running weight sums the running
 * weights of its outermost nodes only, those with no ancestor of the same
 * key: a sample is counted once per key.
 */
#ifndef CALLTREE_KEY_WEIGHTS_H
#define CALLTREE_KEY_WEIGHTS_H

#include "postgres.h"

#include "tree/calltree.h"

/* what a NodeKey returns for a node that has no key */
#define KEY_WEIGHTS_NO_KEY	PG_INT64_MIN

/* The key of node i (given the caller's argument), or KEY_WEIGHTS_NO_KEY */
typedef int64 (*NodeKey) (const CallTree *tree, int32 i, int32 arg);

typedef struct KeyWeight
{
	int64		key;
	int64		running;
	int64		self;
} KeyWeight;

/* Every key's weights, hottest first: running descending, then key ascending */
extern KeyWeight *calltree_key_weights(const CallTree *tree, NodeKey node_key, int32 arg,
									   int32 *nkeys);

/* functions(): the key of a node is its func */
extern KeyWeight *calltree_func_weights(const CallTree *tree, int32 *nfuncs);

#endif							/* CALLTREE_KEY_WEIGHTS_H */
