/*
 * intern_probe.h
 *	  Interned funcs, frames and stacks looked up by their keys, straight in
 *	  the unique indexes that define them.
 *
 * An import meets the same few thousand funcs and the same stacks again and
 * again, across imports.  Asking the executor for each (one SQL statement
 * per key) costs tens of microseconds; an index probe costs one or two.
 * Probes only find rows: writing new ones stays in SQL (INSERT ... ON
 * CONFLICT), which handles concurrent imports.
 */
#ifndef CALLTREE_INTERN_PROBE_H
#define CALLTREE_INTERN_PROBE_H

#include "postgres.h"

#include "utils/snapshot.h"

#include "store/optional_int.h"

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

#endif							/* CALLTREE_INTERN_PROBE_H */
