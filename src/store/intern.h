/*
 * intern.h
 *	  Interned funcs, frames, stacks and label sets, as the writer finds
 *	  and writes them: the intern lock, the per-backend cache of their ids,
 *	  and the probes of their unique indexes.  For the writer and store/
 *	  only; everything else reads the tables through store.h.
 *
 *   intern_lock.c   the one lock that every writer of interned rows holds
 *                   until its transaction ends
 *   intern_cache.c  the ids remembered by the backend from one import to
 *                   the next
 *   intern_probe.c  rows looked up by their keys, straight in the indexes
 */
#ifndef CALLTREE_INTERN_H
#define CALLTREE_INTERN_H

#include "postgres.h"

#include "fmgr.h"
#include "utils/snapshot.h"

#include "store/store.h"

/*
 * The intern lock.  Waits for and takes it, for the rest of the
 * transaction.  For C callers about to write interned rows, whose
 * statements check their privileges.
 */
extern void intern_lock_acquire(void);

/*
 * The same, for a caller acting for an SQL function: first checks that the
 * current user may write an interned row at all (INSERT on one of the
 * interned tables), so that a role without that privilege never holds the
 * lock, nor queues for it.
 */
extern void intern_lock_acquire_checked(void);


/*
 * The intern cache.  A fleet uploads profiles of the same few builds: after
 * the first, every key an import looks up is known.  The cache answers
 * those look-ups without reading an index; what it does not hold, the
 * writer finds as before.  See intern_cache.c for when an entry can be
 * trusted.
 */

/* Keys of bytes, encoded by the writer; stacks have keys of their own. */
typedef enum InternKind
{
	INTERN_FUNC,
	INTERN_FRAME,
	INTERN_FUNC_FRAME,			/* a frame by its func's fields and its own */
	INTERN_LABELS,
	INTERN_PATH,				/* a whole stack: its frame ids, root first, coded */
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
 * The key the cache tries first for `kind` (the one after the key found
 * last: a repeat import meets its keys in the order the first put them),
 * its bytes followed by 8 that may be read but not compared, or NULL; and
 * its id, once the caller has found the key equal to its own.
 */
extern const char *intern_cache_next(InternKind kind, int *len);
extern int64 intern_cache_take_next(InternKind kind);

/*
 * Remembers a row that exists now (found, or written by this transaction:
 * an abort empties the cache).  Real ids only, never provisional ones.
 */
extern void intern_cache_put(InternKind kind, const char *key, int len, int64 id);
extern void intern_cache_put_stack(int64 prefix, int64 frame, int64 id);

/* the trigger that tells every backend that interned rows changed */
extern Datum calltree_intern_cache_invalidate(PG_FUNCTION_ARGS);


/*
 * The intern probes: interned funcs, frames and stacks looked up by their
 * keys, straight in the unique indexes that define them.
 *
 * An import meets the same few thousand funcs and the same stacks again and
 * again, across imports.  Asking the executor for each (one SQL statement
 * per key) costs tens of microseconds; an index probe costs one or two.
 * Probes only find rows: writing new ones stays in SQL (INSERT ... ON
 * CONFLICT), which handles concurrent imports.
 */
typedef struct InternProbe InternProbe;

/*
 * Opens the three tables and their key indexes in the current memory
 * context, which must outlive the probe; probes of funcs see
 * `func_snapshot`, probes of frames and stacks `snapshot`.
 */
extern InternProbe *intern_probe_begin(Snapshot func_snapshot, Snapshot snapshot);
extern void intern_probe_end(InternProbe *probe);

/* Each returns the id, or 0 when no row with that key is visible. */
extern int32 intern_probe_func(InternProbe *probe, const char *name,
							   const char *file, const char *resource);
extern int64 intern_probe_frame(InternProbe *probe, int32 func, OptionalInt address,
								OptionalInt line, OptionalInt col, const char *implementation);
extern int64 intern_probe_stack(InternProbe *probe, int64 prefix, int64 frame);
extern int	intern_probe_children(InternProbe *probe, int64 prefix, int64 *frames,
								  int64 *ids, int max);
extern int64 intern_probe_address(InternProbe *probe, const char *resource, int64 address);

/* The stack table read whole: about its size, and its rows */
typedef void (*EachStack) (void *arg, int64 id, int64 prefix, int64 frame);
extern double intern_probe_stack_rows(InternProbe *probe);
extern void intern_probe_all_stacks(InternProbe *probe, EachStack each, void *arg);

#endif							/* CALLTREE_INTERN_H */
