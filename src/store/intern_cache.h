/*
 * intern_cache.h
 *	  The ids of interned funcs, frames, stacks and label sets, remembered by
 *	  the backend from one import to the next.
 *
 * A fleet uploads profiles of the same few builds: after the first, every
 * key an import looks up is known.  The cache answers those look-ups
 * without reading an index; what it does not hold, the writer finds as
 * before.  See intern_cache.c for when an entry can be trusted.
 */
#ifndef CALLTREE_INTERN_CACHE_H
#define CALLTREE_INTERN_CACHE_H

#include "postgres.h"

#include "fmgr.h"

/* Keys of bytes, encoded by the writer; stacks have keys of their own. */
typedef enum InternKind
{
	INTERN_FUNC,
	INTERN_FRAME,
	INTERN_LABELS,
	INTERN_KINDS
} InternKind;

/*
 * Makes the cache usable by an import: takes the locks that hold off the
 * changes it could miss (the caller already holds the stacks), reads the
 * invalidations sent so far, and empties the cache if one concerned the
 * interned tables.  Call before any other function below, in each import.
 */
extern void intern_cache_open(void);

/* True, with *id, when the key's row is known; only rows that exist. */
extern bool intern_cache_get(InternKind kind, const char *key, int len, int64 *id);
extern bool intern_cache_get_stack(int64 prefix, int64 frame, int64 *id);

/*
 * Remembers a row that exists now (found, or written by this transaction:
 * an abort empties the cache).  Real ids only, never provisional ones.
 */
extern void intern_cache_put(InternKind kind, const char *key, int len, int64 id);
extern void intern_cache_put_stack(int64 prefix, int64 frame, int64 id);

/* the trigger that tells every backend that interned rows changed */
extern Datum calltree_intern_cache_invalidate(PG_FUNCTION_ARGS);

#endif							/* CALLTREE_INTERN_CACHE_H */
