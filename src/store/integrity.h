/*
 * integrity.h
 *	  What the import writer tells the reference checks of integrity.c:
 *	  that it holds the stacks against deletes, and that it vouches for the
 *	  references of the rows it writes itself, whose checks are skipped.
 *
 * The checks are triggers, called by SQL; these are the C calls only, for
 * the writer.  Everything else reads the tables through store.h.
 */
#ifndef CALLTREE_INTEGRITY_H
#define CALLTREE_INTEGRITY_H

#include "postgres.h"

#include "executor/spi.h"

#include "store/store.h"

/*
 * Holds off deletes of stacks until the transaction ends (they wait for
 * this lock, see integrity.c); taken by a writer before it looks any stack
 * up, and by the checks of samples.
 */
extern void integrity_hold_stacks(void);

/*
 * Whether the writer may vouch for the rows it writes now: then it may
 * also write them straight into a partition, where no check fires.
 */
extern bool integrity_writer_can_vouch(void);

/*
 * Takes the label-set hold for the writer, which then need not lock the
 * label sets it uses row by row, and says so; false when the writer must
 * lock them (see integrity.c).  Call after integrity_hold_stacks and
 * before any label set is looked up, in the intern cache too.
 */
extern bool integrity_writer_holds_labels(void);

/*
 * Runs one of the writer's INSERTs, of interned rows or samples, whose
 * references it vouches for: frames and stacks found while holding the
 * stacks, or written by itself; its own profile; label sets it holds.  The
 * statement's checks are skipped.  The vouch ends with the statement, also
 * on error.
 */
extern int	integrity_execute_vouched(SPIPlanPtr plan, Datum *values, const char *nulls);

/*
 * The same for rows the writer COPYs into `relid` (copy_rows_insert).
 * With a valid `partition` of `relid`, the rows go straight into it when
 * the writer may vouch for them: no statement trigger of `relid` fires
 * there, and COPY writes many rows at a time (into a partitioned table
 * whose statement triggers keep transition tables, it writes one at a
 * time).  Otherwise they go through `relid`, and its checks run.
 */
extern uint64 integrity_copy_vouched(CopyRows *rows, Oid relid, Oid partition, List *columns);

#endif
