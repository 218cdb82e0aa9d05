/*
 * integrity.c
 *	  The references of interned stacks, checked a statement at a time.
 *
 * A stack row refers to its prefix stack and to its frame.  Declared as
 * foreign keys, those references cost two row-level checks per new stack,
 * each a query that also locks the referenced row: over half the time of a
 * first import, which writes a million stack rows for a big profile.  These
 * triggers keep the same guarantees with a query or two per statement:
 *
 *	- after an INSERT into stack, every new row's prefix and frame exist;
 *	- after a DELETE from stack or frame, no stack refers to a deleted row;
 *	- UPDATE of a stack, or of a frame's id, and TRUNCATE of frame while
 *	  stacks exist, are refused.
 *
 * Concurrency takes the place of the row locks: a DELETE first takes SHARE
 * ROW EXCLUSIVE on stack, so it waits for the transactions inserting stacks
 * and they wait for it, and both sides check with the latest snapshot (not
 * the transaction's), so each sees what the other committed, at any
 * isolation level.  Like foreign keys, the triggers do not fire under
 * session_replication_role = replica.
 *
 * Samples are kept packed, a row of calltree.sample_set holding many of
 * one profile (src/tree/samples.h): the stacks and label sets a row refers
 * to are read from its value's dictionaries (stack_ids, label_set_ids), and
 * the checks below treat each as a reference of the row.  The rows of
 * sample_row, samples not packed yet, are checked column by column.
 *
 * A sample refers to its profile and its label set, one of each for a whole
 * import: foreign keys would check and lock that same row for every sample.
 * Here the statement locks the distinct rows it refers to, FOR KEY SHARE as
 * a foreign key's check does, so the guarantees are the foreign keys' own:
 *
 *	- after an INSERT or UPDATE of samples, their profiles and label sets
 *	  exist (and stay, until the transaction ends);
 *	- deleting a profile deletes its samples (with the rows that concurrent
 *	  imports committed meanwhile: they held the lock the DELETE waited for);
 *	- deleting a label set some sample uses is refused, also when that
 *	  sample committed while the DELETE waited for its lock;
 *	- UPDATE of a profile's or label set's id is refused, and TRUNCATE of
 *	  profile or labels while samples exist.
 *
 * An import's writer holds its label sets another way, by a lock of its
 * own: the label-set hold, an object lock whose class is the OID of
 * calltree.labels (locktype "object", classid 'calltree.labels'::regclass,
 * objid 0 in pg_locks; no SQL command takes it, as for the intern lock of
 * intern_lock.c).  An import takes it in ROW SHARE mode after its lock on
 * stack and before it looks up a label set, and keeps it until it ends; a
 * DELETE from labels takes it in EXCLUSIVE mode before it deletes a row
 * (labels_delete_hold, a BEFORE statement trigger), so it waits for the
 * imports under way and holds off new ones, and its check then sees what
 * they committed.  The writer then locks no label set row: row locks by
 * concurrent imports of the same label sets each made a MultiXact and a
 * WAL record per row.  Why no wait cycle forms: a DELETE waits for imports
 * only there, before it holds any row, and an import waits for a DELETE
 * only there, before it holds a label set; two DELETEs take turns there.
 * (A transaction that imports and then deletes label sets waits there for
 * the other imports, as collect_garbage() does for the stacks.)  A role
 * that may delete from labels can so hold off imports, as one that may
 * delete from stack can.
 *
 * The writer still locks its label sets FOR KEY SHARE, as before, where the
 * trigger is missing or would not fire (a catalog of 0.2 before ALTER
 * EXTENSION UPDATE; Citus; the trigger disabled or set to fire on replicas
 * only), under REPEATABLE READ, where it found them in an older snapshot,
 * and where its role could not read and lock them itself (no SELECT or
 * UPDATE on labels, or row-level security there): the lock statement is
 * then what checks the role's rights, also for a label set the backend's
 * intern cache knew (integrity_writer_holds_labels).

 * A sample also refers to its stack, a different one for most samples: a
 * foreign key would probe and lock a stack row per sample, most of the time
 * of a repeat import.  The checks instead work like those of stack rows:
 *
 *	- a statement inserting samples takes ROW EXCLUSIVE on stack and checks
 *	  with the latest snapshot that their stacks exist;
 *	- a DELETE from stack takes SHARE ROW EXCLUSIVE on stack, so it waits
 *	  for the transactions inserting samples and they wait for it, and then
 *	  checks with the latest snapshot that no sample refers to a deleted
 *	  stack.
 *
 * An import's writer takes the same lock before it looks up any frame or
 * stack, with a snapshot taken after the lock, so every one it finds stays
 * until the transaction ends; its own INSERTs of stacks and samples are
 * vouched for and skip the checks (integrity_execute_vouched and
 * integrity_copy_vouched).
 *
 * Every check's query runs as PostgreSQL runs the check of a foreign key,
 * see run_check:
 *
 *	- as the owner of the table it reads, with row-level security off: the
 *	  caller's policies may hide the rows that refer to the ones it
 *	  deletes, and the caller needs no privilege on the tables a check
 *	  reads or locks (no UPDATE on the profile a new sample locks).  The
 *	  checks only find, lock or (for a profile) delete rows, and their
 *	  errors name no row that the caller could not read;
 *	- a query looking for rows that refer to deleted ones, or for rows that
 *	  only the lock on stack protects, reads the latest snapshot: it must
 *	  see what committed while the statement waited for a lock, after the
 *	  statement's snapshot (and, under REPEATABLE READ, the transaction's)
 *	  was taken.
 *
 * calltree.sample_set is partitioned (src/install/schema/37_sample_set.sql);
 * its statement triggers fire for rows written through it, among them
 * those written through the view calltree.sample (sample_face.c).  Rows
 * written straight into a partition skip them: pg_restore's, and those of
 * expire().  So do the rows a restore loads through the parent
 * (restoring_as_owner).  Only the owner of the partitions may write into
 * them directly: their row-level security, with no policy, keeps every
 * other role out.  The library also serves the catalog of version 0.2
 * until ALTER EXTENSION calltree UPDATE, whose samples are rows of its
 * table sample (sample_tables).
 *
 * On Citus these triggers are gone: calltree.distribute() replaces them with
 * the foreign keys they stand for, which Citus checks on every node
 * (src/install/functions/95_citus.sql), and the writer's vouching has nothing to skip.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "parser/parse_func.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "store/store.h"
#include "store/integrity.h"

PG_FUNCTION_INFO_V1(calltree_stack_insert_check);
PG_FUNCTION_INFO_V1(calltree_interned_delete_check);
PG_FUNCTION_INFO_V1(calltree_interned_refuse);
PG_FUNCTION_INFO_V1(calltree_sample_refs_check);
PG_FUNCTION_INFO_V1(calltree_sample_set_refs_check);
PG_FUNCTION_INFO_V1(calltree_profile_delete_cascade);
PG_FUNCTION_INFO_V1(calltree_labels_delete_check);
PG_FUNCTION_INFO_V1(calltree_labels_delete_hold);

/*
 * True while one of the ProfileWriter's own INSERTs runs.  The writer
 * vouches for the references of the stacks and samples it writes: it found
 * their frames and stacks while holding the stacks (integrity_hold_stacks),
 * or wrote them itself; it inserted the profile in this transaction; it
 * holds its label sets (the label-set hold, or FOR KEY SHARE).  Nothing else
 * inserts stacks or samples meanwhile, unless a user's trigger does; its
 * rows would then skip the checks too.
 */
static bool writer_vouches = false;

void
integrity_hold_stacks(void)
{
	/* the control file fixes the schema: the extension is not relocatable */
	Oid			namespace = calltree_namespace();

	LockRelationOid(calltree_relation(namespace, "stack"), RowExclusiveLock);
}

/* The label-set hold (see the top), in `mode` until the transaction ends */
static void
hold_label_sets(Oid labels, LOCKMODE mode)
{
	LockDatabaseObject(labels, 0, 0, mode);
}

/*
 * Whether labels has labels_delete_hold, enabled as the integrity checks
 * are (a DELETE under session_replication_role = replica skips those too)
 */
static bool
labels_trigger_fires(Relation labels, Oid hold)
{
	if (labels->trigdesc == NULL)
		return false;
	for (int i = 0; i < labels->trigdesc->numtriggers; i++)
	{
		Trigger    *t = &labels->trigdesc->triggers[i];

		if (t->tgfoid == hold && TRIGGER_FOR_BEFORE(t->tgtype) && TRIGGER_FOR_DELETE(t->tgtype) &&
			!TRIGGER_FOR_ROW(t->tgtype) &&
			(t->tgenabled == TRIGGER_FIRES_ON_ORIGIN || t->tgenabled == TRIGGER_FIRES_ALWAYS))
			return true;
	}
	return false;
}

/* Whether the user could SELECT ... FOR KEY SHARE labels, with no policy applying */
static bool
may_lock_labels(Oid labels)
{
	return pg_class_aclcheck(labels, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
		(pg_class_aclcheck(labels, GetUserId(), ACL_UPDATE) == ACLCHECK_OK ||
		 pg_attribute_aclcheck_all(labels, GetUserId(), ACL_UPDATE, ACLMASK_ANY) == ACLCHECK_OK) &&
		check_enable_rls(labels, InvalidOid, true) != RLS_ENABLED;
}

bool
integrity_writer_holds_labels(void)
{
	Oid			namespace = calltree_namespace();
	Oid			hold = calltree_function_noargs("labels_delete_hold", namespace);
	Oid			relid = calltree_relation(namespace, "labels");
	Relation	labels;
	bool		held;

	if (!integrity_writer_can_vouch() || !OidIsValid(hold) || !may_lock_labels(relid))
		return false;
	labels = table_open(relid, AccessShareLock);
	held = labels_trigger_fires(labels, hold);
	table_close(labels, NoLock);
	if (held)
		hold_label_sets(relid, RowShareLock);
	return held;
}

/*
 * Under REPEATABLE READ and SERIALIZABLE, the SQL functions the writer
 * calls (intern_address) read in the transaction's snapshot, older than the
 * writer's lock: there the checks run as for anyone.
 */
bool
integrity_writer_can_vouch(void)
{
	return !IsolationUsesXactSnapshot();
}

int
integrity_execute_vouched(SPIPlanPtr plan, Datum *values, const char *nulls)
{
	int			ret;

	writer_vouches = integrity_writer_can_vouch();
	PG_TRY();
	{
		ret = SPI_execute_plan(plan, values, nulls, false, 0);
	}
	PG_FINALLY();
	{
		writer_vouches = false;
	}
	PG_END_TRY();
	return ret;
}

uint64
integrity_copy_vouched(CopyRows *rows, Oid relid, Oid partition, List *columns)
{
	uint64		count;

	writer_vouches = integrity_writer_can_vouch();
	PG_TRY();
	{
		count = copy_rows_insert(rows, relid,
								 writer_vouches && OidIsValid(partition) ? partition : relid,
								 columns);
	}
	PG_FINALLY();
	{
		writer_vouches = false;
	}
	PG_END_TRY();
	return count;
}

static TriggerData *
trigger_data(FunctionCallInfo fcinfo, const char *name)
{
	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("%s() was not called as a trigger", name)));
	return (TriggerData *) fcinfo->context;
}

/* Connects to SPI with the statement's transition tables visible to queries. */
static void
connect_with_transition_tables(TriggerData *trigdata)
{
	SPI_connect();
	if (SPI_register_trigger_data(trigdata) != SPI_OK_TD_REGISTER)
		elog(ERROR, "could not register the transition tables");
}

/* The extension's table `name`, beside the trigger's own table. */
static Oid
table_of(TriggerData *trigdata, const char *name)
{
	return calltree_relation(RelationGetNamespace(trigdata->tg_relation), name);
}

/*
 * The tables of samples: sample_set and sample_row, or, for the catalog of
 * version 0.2 that this library serves until ALTER EXTENSION calltree
 * UPDATE, its one table of rows, sample (*sets NULL).
 */
static void
sample_tables(TriggerData *trigdata, const char **sets, const char **rows)
{
	bool		packed = OidIsValid(get_relname_relid("sample_set", RelationGetNamespace(trigdata->tg_relation)));

	*sets = packed ? "sample_set" : NULL;
	*rows = packed ? "sample_row" : "sample";
}

static Oid
table_owner(Oid table)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(table));
	Oid			owner;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", table);
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	ReleaseSysCache(tuple);
	return owner;
}

/*
 * Runs a check's query, which reads, locks or deletes rows of `table` (and
 * reads the statement's transition tables), as a foreign key runs its own:
 *
 * - as the owner of `table`, with row-level security off even where the
 *   table forces it on its owner: the check sees every row, whatever the
 *   caller may read.  SECURITY_LOCAL_USERID_CHANGE keeps the query from
 *   changing roles; an error restores the caller's identity as the
 *   transaction or subtransaction aborts;
 * - with detect_new_rows, in the latest snapshot, after making the
 *   statement's own changes visible: it sees the rows committed while the
 *   statement waited for a lock.  Under REPEATABLE READ and SERIALIZABLE a
 *   row it deletes that the transaction's snapshot cannot see is a
 *   serialization failure (the crosscheck snapshot);
 * - without, in the snapshot SPI gives a statement: a new one under READ
 *   COMMITTED, the transaction's under REPEATABLE READ, where locking a row
 *   deleted since then is a serialization failure.
 *
 * Returns the SPI result code; the rows are in SPI_tuptable.
 */
static int
run_check(Oid table, const char *query, bool detect_new_rows, long limit)
{
	Oid			save_userid;
	int			save_sec_context;
	SPIPlanPtr	plan;
	Snapshot	test_snapshot = InvalidSnapshot;
	Snapshot	crosscheck_snapshot = InvalidSnapshot;
	int			ret;

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(table_owner(table),
						   save_sec_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_NOFORCE_RLS);
	/* planned as the owner too: the plan of a query under policies has their quals */
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare(\"%s\") failed: %s", query, SPI_result_code_string(SPI_result));
	if (detect_new_rows)
	{
		CommandCounterIncrement();
		test_snapshot = GetLatestSnapshot();
		if (IsolationUsesXactSnapshot())
			crosscheck_snapshot = GetTransactionSnapshot();
	}
	ret = SPI_execute_snapshot(plan, NULL, NULL, test_snapshot, crosscheck_snapshot,
							   false, false, limit);
	SetUserIdAndSecContext(save_userid, save_sec_context);
	return ret;
}

/*
 * Whether the caller may read every row of `table`.  A violation names a
 * row that the statement did not write only then, as a foreign key shows
 * the key in its error only to those who may read it.
 */
static bool
caller_reads_all_of(Oid table)
{
	return pg_class_aclcheck(table, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
		check_enable_rls(table, InvalidOid, true) != RLS_ENABLED;
}

/*
 * Runs a check over `table` and the statement's transition tables
 * (registered by the caller), in the latest snapshot; the first row of at
 * most one, or NULL.  The checks of deletions have no LIMIT in their SQL:
 * the execution stops at the first row anyway, and a LIMIT makes the
 * planner bet on an early match (a nested loop over the deleted rows for
 * each referring row), which is quadratic when there is none, the usual
 * case.
 */
static HeapTuple
first_violation(Oid table, const char *query, TupleDesc *desc)
{
	if (run_check(table, query, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "integrity check on calltree.%s failed to run", get_rel_name(table));
	*desc = SPI_tuptable->tupdesc;
	return SPI_processed > 0 ? SPI_tuptable->vals[0] : NULL;
}

static int64
column_int8(HeapTuple row, TupleDesc desc, int column)
{
	bool		isnull;
	Datum		value = SPI_getbinval(row, desc, column, &isnull);

	return isnull ? 0 : DatumGetInt64(value);
}

/* The id of a new stack whose `column` is `value` (for error messages). */
static int64
new_stack_with(const char *column, int64 value)
{
	char	   *query = psprintf("SELECT n.id FROM new_stacks n WHERE n.%s OPERATOR(pg_catalog.=) $1 LIMIT 1",
								 column);
	Oid			type = INT8OID;
	Datum		arg = Int64GetDatum(value);

	if (SPI_execute_with_args(query, 1, &type, &arg, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not find the new stack with %s " INT64_FORMAT, column, value);
	return column_int8(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
}

/*
 * Fails if a new stack's prefix does not exist, neither before the
 * statement nor among its own new rows.
 */
static void
check_new_stack_prefixes(TriggerData *trigdata)
{
	TupleDesc	desc;
	HeapTuple	bad = first_violation(table_of(trigdata, "stack"),
									  "SELECT p.id FROM (SELECT DISTINCT n.prefix_id AS id FROM new_stacks n "
									  "                  WHERE n.prefix_id IS NOT NULL) p "
									  "WHERE NOT EXISTS (SELECT FROM calltree.stack s "
									  "                  WHERE s.id OPERATOR(pg_catalog.=) p.id) "
									  "LIMIT 1", &desc);
	int64		missing;

	if (bad == NULL)
		return;
	missing = column_int8(bad, desc, 1);
	ereport(ERROR,
			(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
			 errmsg("stack " INT64_FORMAT " refers to prefix stack " INT64_FORMAT ", which does not exist",
					new_stack_with("prefix_id", missing), missing),
			 errhint("A stack's prefix is written before it, by intern_stack() or an import.")));
}

/* Fails if a new stack's frame does not exist. */
static void
check_new_stack_frames(TriggerData *trigdata)
{
	TupleDesc	desc;
	HeapTuple	bad = first_violation(table_of(trigdata, "frame"),
									  "SELECT f.id FROM (SELECT DISTINCT n.frame_id AS id FROM new_stacks n) f "
									  "WHERE NOT EXISTS (SELECT FROM calltree.frame fr "
									  "                  WHERE fr.id OPERATOR(pg_catalog.=) f.id) "
									  "LIMIT 1", &desc);
	int64		missing;

	if (bad == NULL)
		return;
	missing = column_int8(bad, desc, 1);
	ereport(ERROR,
			(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
			 errmsg("stack " INT64_FORMAT " refers to frame " INT64_FORMAT ", which does not exist",
					new_stack_with("frame_id", missing), missing),
			 errhint("Intern the frame first, with intern_frame() or intern_address().")));
}

/*
 * AFTER INSERT ON stack FOR EACH STATEMENT, with the new rows as new_stacks.
 * Siblings share their prefix and most stacks share a few frames, so the
 * distinct references are checked, each with an index probe (the SQL
 * declaration turns hash and merge joins off: the referenced tables may be
 * huge next to the new rows).
 */
Datum
calltree_stack_insert_check(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = trigger_data(fcinfo, "calltree_stack_insert_check");

	if (writer_vouches)
		return PointerGetDatum(NULL);
	connect_with_transition_tables(trigdata);
	check_new_stack_prefixes(trigdata);
	check_new_stack_frames(trigdata);
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * Fails if a sample refers to a deleted stack: one pass over the sample
 * sets, reading the stack dictionary of each value, and one over the rows
 * not packed yet (neither has an index on stacks).
 */
static void
check_deleted_stacks_unsampled(TriggerData *trigdata)
{
	const char *sets;
	const char *rows;
	TupleDesc	desc;
	HeapTuple	bad = NULL;

	sample_tables(trigdata, &sets, &rows);
	if (sets != NULL)
		bad = first_violation(table_of(trigdata, sets),
							  "SELECT u.id FROM calltree.sample_set s, "
							  "pg_catalog.unnest(calltree.stack_ids(s.samples)) AS u(id) "
							  "WHERE u.id OPERATOR(pg_catalog.=) ANY (SELECT o.id FROM old_rows o)",
							  &desc);
	if (bad == NULL)
		bad = first_violation(table_of(trigdata, rows),
							  psprintf("SELECT s.stack_id FROM calltree.%s s "
									   "WHERE s.stack_id OPERATOR(pg_catalog.=) ANY (SELECT o.id FROM old_rows o)", rows),
							  &desc);
	if (bad != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
				 errmsg("stack " INT64_FORMAT " is still referred to by samples", column_int8(bad, desc, 1)),
				 errhint("Delete the profiles of those samples first.")));
}

/*
 * AFTER DELETE ON stack or frame FOR EACH STATEMENT, with the deleted rows
 * as old_rows: no stack left may refer to one of them.
 */
Datum
calltree_interned_delete_check(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = trigger_data(fcinfo, "calltree_interned_delete_check");
	bool		stacks = strcmp(RelationGetRelationName(trigdata->tg_relation), "stack") == 0;
	const char *deleted = stacks ? "stack" : "frame";
	Oid			stack = table_of(trigdata, "stack");
	TupleDesc	desc;
	HeapTuple	bad;

	connect_with_transition_tables(trigdata);
	/* wait for the transactions writing stacks, and hold them off */
	LockRelationOid(stack, ShareRowExclusiveLock);
	bad = first_violation(stack,
						  stacks
						  ? "SELECT s.id, o.id FROM old_rows o JOIN calltree.stack s "
						  "ON s.prefix_id OPERATOR(pg_catalog.=) o.id"
						  : "SELECT s.id, o.id FROM old_rows o JOIN calltree.stack s "
						  "ON s.frame_id OPERATOR(pg_catalog.=) o.id",
						  &desc);
	if (bad != NULL)
	{
		int64		referred = column_int8(bad, desc, 2);

		/* the referring stack's id only to those who may read it */
		if (caller_reads_all_of(stack))
			ereport(ERROR,
					(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
					 errmsg("%s " INT64_FORMAT " is still referred to by stack " INT64_FORMAT,
							deleted, referred, column_int8(bad, desc, 1)),
					 errdetail("Stacks refer to their prefix stack and to their frame."),
					 errhint("Delete the stacks that refer to it first (and their samples).")));
		ereport(ERROR,
				(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
				 errmsg("%s " INT64_FORMAT " is still referred to by a stack", deleted, referred),
				 errdetail("Stacks refer to their prefix stack and to their frame."),
				 errhint("Delete the stacks that refer to it first (and their samples).")));
	}
	if (stacks)
		check_deleted_stacks_unsampled(trigdata);
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * BEFORE UPDATE ON stack, BEFORE UPDATE OF id ON frame, profile and labels,
 * and BEFORE TRUNCATE ON frame, profile and labels (while the rows that
 * refer to them exist), FOR EACH STATEMENT: refused.
 */
Datum
calltree_interned_refuse(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = trigger_data(fcinfo, "calltree_interned_refuse");
	/* on Citus, it fires on the tables' placements */
	const char *table = calltree_table_name(trigdata->tg_relation);
	bool		of_frame = strcmp(table, "frame") == 0;
	const char *sets;
	const char *rows;
	const char *referring;

	sample_tables(trigdata, &sets, &rows);
	referring = of_frame ? "stack" : sets ? sets : rows;

	if (TRIGGER_FIRED_BY_TRUNCATE(trigdata->tg_event))
	{
		bool		referred;
		bool		isnull;

		/*
		 * The latest snapshot: the TRUNCATE took its snapshot before it waited
		 * for its lock, and so for the transactions that wrote referring rows
		 */
		SPI_connect();
		if (run_check(table_of(trigdata, referring),
					  of_frame ? "SELECT EXISTS (SELECT FROM calltree.stack)"
					  : sets ? "SELECT EXISTS (SELECT FROM calltree.sample_set) OR EXISTS (SELECT FROM calltree.sample_row)"
					  : "SELECT EXISTS (SELECT FROM calltree.sample)",
					  true, 1) != SPI_OK_SELECT)
			elog(ERROR, "could not read calltree.%s", referring);
		referred = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		SPI_finish();
		if (!referred)
			return PointerGetDatum(NULL);
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot truncate calltree.%s while rows of calltree.%s refer to it", table, referring),
				 errhint("Truncate calltree.%s first, in its own statement.", referring)));
	}
	if (strcmp(table, "stack") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot update rows of calltree.stack"),
				 errdetail("Stacks are interned: samples and longer stacks refer to them, and a stack's prefix and frame are its key."),
				 errhint("Intern a new stack instead.")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot update the id of calltree.%s", table),
			 errdetail("Rows of calltree.%s refer to it by id.", referring),
			 errhint("Insert a new row instead.")));
	return PointerGetDatum(NULL);
}

/*
 * Locks FOR KEY SHARE the rows of calltree.`table` whose ids the query
 * `ids` gives (from the statement's new rows), and fails if one is
 * missing: a foreign key's check, in the statement's snapshot, so that
 * under REPEATABLE READ a row deleted since the transaction's snapshot is
 * a serialization failure.
 */
static void
lock_references(TriggerData *trigdata, const char *ids, const char *table,
				const char *what, const char *hint)
{
	Oid			relid = table_of(trigdata, table);
	char	   *lock = psprintf("SELECT t.id FROM calltree.%s t "
								"WHERE t.id OPERATOR(pg_catalog.=) ANY (%s) "
								"FOR KEY SHARE OF t",
								table, ids);
	char	   *count = psprintf("SELECT pg_catalog.count(DISTINCT x.id) FROM (%s) AS x(id)", ids);
	char	   *missing = psprintf("SELECT x.id FROM (%s) AS x(id) WHERE x.id IS NOT NULL "
								   "AND NOT EXISTS (SELECT FROM calltree.%s t "
								   "                WHERE t.id OPERATOR(pg_catalog.=) x.id) LIMIT 1",
								   ids, table);
	uint64		locked;
	int64		wanted;

	if (run_check(relid, lock, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not lock the rows of calltree.%s that new samples refer to", table);
	locked = SPI_processed;
	if (SPI_execute(count, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not count the rows new samples refer to");
	wanted = column_int8(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	if ((int64) locked == wanted)
		return;
	/* a new snapshot under READ COMMITTED: it sees what the lock waited for */
	if (run_check(relid, missing, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the new samples");
	ereport(ERROR,
			(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
			 errmsg("a new sample refers to %s " INT64_FORMAT ", which does not exist", what,
					SPI_processed > 0 ? column_int8(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1) : 0),
			 errhint("%s", hint)));
}

/*
 * Fails if a stack that the query `ids` gives (from the new rows) does not
 * exist; holds the stacks first, so that the ones found stay.
 */
static void
check_sample_stacks(TriggerData *trigdata, const char *ids)
{
	TupleDesc	desc;
	HeapTuple	bad;

	integrity_hold_stacks();
	bad = first_violation(table_of(trigdata, "stack"),
						  psprintf("SELECT x.id FROM (%s) AS x(id) "
								   "WHERE NOT EXISTS (SELECT FROM calltree.stack s "
								   "                  WHERE s.id OPERATOR(pg_catalog.=) x.id) LIMIT 1", ids),
						  &desc);
	if (bad != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
				 errmsg("a new sample refers to stack " INT64_FORMAT ", which does not exist",
						column_int8(bad, desc, 1)),
				 errhint("Intern the stack first, with intern_stack().")));
}

/*
 * Whether the statement is a restore's: the session has the settings that
 * every script of pg_dump starts with (check_function_bodies and
 * row_security off), and its role may write straight into the partitions of
 * sample (it has the privileges of their owner), where no check fires.  A
 * restore loads the rows of sample_0 and sample_default into them, and
 * those of the other partitions after the stacks; but a dump made with
 * --load-via-partition-root loads them all through sample, before the
 * stacks they refer to.  Their checks are skipped there too: the rows are
 * those of a database whose references held.  Any other role, and any
 * session without both settings, is checked as always.
 */
static bool
restoring_as_owner(TriggerData *trigdata)
{
	return !check_function_bodies && !row_security &&
		has_privs_of_role(GetUserId(), table_owner(RelationGetRelid(trigdata->tg_relation)));
}

static const char *const PROFILE_HINT = "Samples are written by an import, into the profile it creates.";
static const char *const LABELS_HINT = "Intern the label set first, with intern_labels().";

/*
 * AFTER INSERT and AFTER UPDATE ON sample_row FOR EACH STATEMENT, with the
 * new rows as new_samples.
 */
Datum
calltree_sample_refs_check(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = trigger_data(fcinfo, "calltree_sample_refs_check");

	if (TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) && (writer_vouches || restoring_as_owner(trigdata)))
		return PointerGetDatum(NULL);
	connect_with_transition_tables(trigdata);
	check_sample_stacks(trigdata, "SELECT DISTINCT n.stack_id FROM new_samples n");
	lock_references(trigdata, "SELECT n.profile_id FROM new_samples n", "profile", "profile", PROFILE_HINT);
	lock_references(trigdata, "SELECT n.labels_id FROM new_samples n", "labels", "label set", LABELS_HINT);
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * AFTER INSERT and AFTER UPDATE ON sample_set FOR EACH STATEMENT, with the
 * new rows as new_sets: the references inside each value are read from its
 * dictionaries (stack_ids, label_set_ids), without unpacking its samples.
 */
Datum
calltree_sample_set_refs_check(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = trigger_data(fcinfo, "calltree_sample_set_refs_check");

	if (TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) && (writer_vouches || restoring_as_owner(trigdata)))
		return PointerGetDatum(NULL);
	connect_with_transition_tables(trigdata);
	check_sample_stacks(trigdata,
						"SELECT DISTINCT u.id FROM new_sets n, "
						"pg_catalog.unnest(calltree.stack_ids(n.samples)) AS u(id)");
	lock_references(trigdata, "SELECT n.profile_id FROM new_sets n", "profile", "profile", PROFILE_HINT);
	lock_references(trigdata,
					"SELECT u.id FROM new_sets n, pg_catalog.unnest(calltree.label_set_ids(n.samples)) AS u(id)",
					"labels", "label set", LABELS_HINT);
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * AFTER DELETE ON profile FOR EACH STATEMENT (old_rows): their samples go,
 * also those committed while the DELETE waited for their lock.  The range
 * of their ids lets the executor skip the partitions of samples that hold
 * none of them (a join alone would read them all).
 */
Datum
calltree_profile_delete_cascade(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = trigger_data(fcinfo, "calltree_profile_delete_cascade");
	const char *tables[2];

	sample_tables(trigdata, &tables[0], &tables[1]);
	connect_with_transition_tables(trigdata);
	for (int i = 0; i < lengthof(tables); i++)
		if (tables[i] != NULL &&
			run_check(table_of(trigdata, tables[i]),
					  psprintf("DELETE FROM calltree.%s s USING old_rows o "
							   "WHERE s.profile_id OPERATOR(pg_catalog.=) o.id "
							   "AND s.profile_id OPERATOR(pg_catalog.>=) (SELECT pg_catalog.min(m.id) FROM old_rows m) "
							   "AND s.profile_id OPERATOR(pg_catalog.<=) (SELECT pg_catalog.max(m.id) FROM old_rows m)",
							   tables[i]),
					  true, 0) != SPI_OK_DELETE)
			elog(ERROR, "could not delete the samples of deleted profiles");
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * BEFORE DELETE ON labels FOR EACH STATEMENT: waits for the imports under
 * way and holds off new ones, before any row is deleted (see the top).
 */
Datum
calltree_labels_delete_hold(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = trigger_data(fcinfo, "calltree_labels_delete_hold");

	hold_label_sets(RelationGetRelid(trigdata->tg_relation), ExclusiveLock);
	return PointerGetDatum(NULL);
}

/*
 * AFTER DELETE ON labels FOR EACH STATEMENT (old_rows): unless used, also by
 * samples committed while the DELETE waited for their lock.
 */
Datum
calltree_labels_delete_check(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = trigger_data(fcinfo, "calltree_labels_delete_check");
	TupleDesc	desc;
	HeapTuple	bad;
	const char *sets;
	const char *rows;

	sample_tables(trigdata, &sets, &rows);
	connect_with_transition_tables(trigdata);
	bad = sets == NULL ? NULL
		: first_violation(table_of(trigdata, sets),
						  "SELECT u.id FROM calltree.sample_set s, "
						  "pg_catalog.unnest(calltree.label_set_ids(s.samples)) AS u(id) "
						  "WHERE u.id OPERATOR(pg_catalog.=) ANY (SELECT o.id FROM old_rows o)",
						  &desc);
	if (bad == NULL)
		bad = first_violation(table_of(trigdata, rows),
							  psprintf("SELECT o.id FROM old_rows o "
									   "WHERE EXISTS (SELECT FROM calltree.%s s "
									   "              WHERE s.labels_id OPERATOR(pg_catalog.=) o.id)", rows),
							  &desc);
	if (bad != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
				 errmsg("label set " INT64_FORMAT " is still referred to by samples",
						column_int8(bad, desc, 1)),
				 errhint("Delete the profiles of those samples first.")));
	SPI_finish();
	return PointerGetDatum(NULL);
}
