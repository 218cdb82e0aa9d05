/*
 * intern_lock.h
 *	  The one lock that every writer of interned rows (funcs, frames,
 *	  stacks, label sets) holds until its transaction ends.
 */
#ifndef CALLTREE_INTERN_LOCK_H
#define CALLTREE_INTERN_LOCK_H

#include "postgres.h"

/*
 * Waits for and takes the intern lock, for the rest of the transaction.
 * For C callers about to write interned rows, whose statements check
 * their privileges.
 */
extern void intern_lock_acquire(void);

/*
 * The same, for a caller acting for an SQL function: first checks that the
 * current user may write an interned row at all (INSERT on one of the
 * interned tables), so that a role without that privilege never holds the
 * lock, nor queues for it.
 */
extern void intern_lock_acquire_checked(void);

#endif							/* CALLTREE_INTERN_LOCK_H */
