/*
 * hash64.h
 *	  A 64-bit to 32-bit hash for the simplehash tables keyed by two packed
 *	  ids: (parent, func) pairs in the builder, stack ids in stack
 *	  resolution and in the import's caches.
 *
 * It is the finalizer of MurmurHash3: every bit of the key moves every bit
 * of the hash, so keys that differ only in their high half (the parent of a
 * pair) spread as well as keys that differ in their low half.
 */
#ifndef CALLTREE_HASH64_H
#define CALLTREE_HASH64_H

#include "postgres.h"

static inline uint32
calltree_hash64(uint64 k)
{
	k ^= k >> 33;
	k *= UINT64CONST(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64CONST(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return (uint32) k;
}

#endif							/* CALLTREE_HASH64_H */
