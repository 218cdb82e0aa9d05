/*
 * id_maps.h: the two in-memory maps from interned keys to row ids that the
 * import writer and the per-backend intern cache both keep.
 *
 *   idcache     an encoded key (bytes) -> id: funcs, frames, label sets
 *   stackcache  (prefix, frame) -> stack id
 *
 * simplehash tables, static inline in every file that includes this.  Pure
 * maps, with no table behind them, so they sit here below both (the pprof
 * importer keeps one too, of label sets).
 */
#ifndef CALLTREE_ID_MAPS_H
#define CALLTREE_ID_MAPS_H

#include "common/hashfn.h"

#include "tree/hash64.h"

typedef struct BytesKey
{
	const char *data;
	int32		len;
} BytesKey;

typedef struct CachedId
{
	BytesKey	key;
	uint32		hash;
	int64		id;
	char		status;
} CachedId;

#define SH_PREFIX		idcache
#define SH_ELEMENT_TYPE CachedId
#define SH_KEY_TYPE		BytesKey
#define SH_KEY			key
#define SH_HASH_KEY(tb, k)	calltree_hash_bytes((k).data, (k).len)
#define SH_EQUAL(tb, a, b)	((a).len == (b).len && memcmp((a).data, (b).data, (a).len) == 0)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a)	((a)->hash)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

typedef struct StackKey
{
	int64		prefix;
	int64		frame;
} StackKey;

typedef struct CachedStack
{
	StackKey	key;
	int64		id;
	char		status;
} CachedStack;

#define SH_PREFIX		stackcache
#define SH_ELEMENT_TYPE CachedStack
#define SH_KEY_TYPE		StackKey
#define SH_KEY			key
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k).prefix * UINT64CONST(0x9E3779B97F4A7C15) ^ (uint64) (k).frame)
#define SH_EQUAL(tb, a, b)	((a).prefix == (b).prefix && (a).frame == (b).frame)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

#endif							/* CALLTREE_ID_MAPS_H */
