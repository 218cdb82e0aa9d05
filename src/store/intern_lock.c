/*
 * intern_lock.c
 *	  The intern lock: at most one transaction at a time has interned rows
 *	  (funcs, frames, stacks, label sets) that it has not committed.
 *
 * Interned rows are unique by key.  A transaction that inserts a key which
 * another, still open, transaction has inserted waits for that one to end.
 * Two imports that meet the same new funcs in different orders (a fleet of
 * hosts uploading profiles of a fresh build) each insert some first and
 * then wait for the other's: a deadlock.  Sorting each statement's rows
 * would not prevent it, since an import writes in several statements
 * (funcs, then frames, then stacks a level at a time, again at every batch
 * of samples), and the rows of a later statement may sort before those of
 * an earlier one.
 *
 * So every writer of interned rows takes one exclusive lock before it
 * writes its first one, and keeps it until its transaction ends.  Why no
 * wait cycle can form between calltree's writers:
 *
 *	- a writer waits on an uncommitted interned row only while it writes one
 *	  itself, so while holding the lock; the row's writer holds the lock too,
 *	  as long as its transaction runs.  Two transactions cannot both hold it,
 *	  so that wait never happens;
 *	- what remains is waiting for the lock itself, for its one holder, which
 *	  waits for no writer (above), and ends, and lets the next one in.
 *
 * A writer that waited for the lock then meets rows that the previous
 * holder committed meanwhile, after its statements' snapshots: INSERT ...
 * ON CONFLICT DO NOTHING skips them and the writer looks them up again in
 * a new snapshot (write_set in writer/writer_flush.c, the intern_*
 * functions' loops).
 * Imports that find every row known never take the lock and run side by
 * side.
 *
 * Who takes it: the import's writer, before it writes its first pending
 * row and before it names a new address frame (writer_hold_intern_lock
 * in writer/writer.c); symbolicate(),
 * first thing, since it renames and inserts funcs and moves frames: an
 * address frame is either made before it runs, and moved by it, or named
 * from the symbols it stored; intern_address() through intern_lock(), for
 * the same reason; and
 * a BEFORE INSERT OR UPDATE statement trigger on func, frame, stack and
 * labels for every other statement (the intern_* functions, a user's own
 * INSERT).  Under session_replication_role = replica the triggers do not
 * fire, as for the integrity checks.
 *
 * The lock must not be one that a role without privileges could take and
 * hold: an advisory lock, whose keys anyone can compute and take, would let
 * such a role block every import.  It is an object lock whose class is the
 * OID of the calltree.func table (locktype "object", classid
 * 'calltree.func'::regclass, objid 0 in pg_locks).  PostgreSQL's own object
 * locks name a system catalog as their class, so no SQL command takes this
 * one; only this file does: for an import, which has inserted its profile
 * row by then, and for the other callers once they checked that the role
 * may insert interned rows (intern_lock_acquire_checked), which such a
 * role could hold to block imports anyway.
 *
 * One lock, whatever the profile holds: an import takes at most this one
 * beside its tables' (perf script used to take one per library).
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"

#include "store/store.h"
#include "store/intern.h"

PG_FUNCTION_INFO_V1(calltree_intern_lock);
PG_FUNCTION_INFO_V1(calltree_intern_lock_trigger);

/* the tables whose rows are interned: INSERT on one lets a role take the lock */
static const char *const interned_tables[] = {"func", "frame", "stack", "labels"};

void
intern_lock_acquire(void)
{
	/* the control file fixes the schema: the extension is not relocatable */
	Oid			func = calltree_relation(calltree_namespace(), "func");

	/*
	 * The lock's class found again once it is taken, which accepts the
	 * invalidations come meanwhile: the extension dropped and made again
	 * by another session, the lock keyed by the dropped func table would
	 * hold off no writer of the new one.
	 */
	for (;;)
	{
		Oid			again;

		LockDatabaseObject(func, 0, 0, ExclusiveLock);
		again = calltree_relation(calltree_namespace(), "func");
		if (again == func)
			return;
		UnlockDatabaseObject(func, 0, 0, ExclusiveLock);
		func = again;
	}
}

void
intern_lock_acquire_checked(void)
{
	Oid			namespace = calltree_namespace();
	Oid			func = calltree_relation(namespace, "func");

	for (int i = 0; i < lengthof(interned_tables); i++)
		if (pg_class_aclcheck(calltree_relation(namespace, interned_tables[i]),
							  GetUserId(), ACL_INSERT) == ACLCHECK_OK)
		{
			intern_lock_acquire();
			return;
		}
	/* the same error as an INSERT INTO calltree.func would give */
	aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(func));
}

/* intern_lock() → void: for SQL code that writes interned rows */
Datum
calltree_intern_lock(PG_FUNCTION_ARGS)
{
	intern_lock_acquire_checked();
	PG_RETURN_VOID();
}

/*
 * BEFORE INSERT OR UPDATE ... FOR EACH STATEMENT on the interned tables.
 * The statement's privileges were checked before it fires.
 */
Datum
calltree_intern_lock_trigger(PG_FUNCTION_ARGS)
{
	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("intern_lock_trigger() was not called as a trigger")));
	intern_lock_acquire();
	return PointerGetDatum(NULL);
}
