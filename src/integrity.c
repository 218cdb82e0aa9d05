/*
 * integrity.c
 *	  The references of interned stacks, checked a statement at a time.
 *
 * A stack row refers to its prefix stack and to its frame.  Declared as
 * foreign keys, those references cost two row-level checks per new stack,
 * each a query that also locks the referenced row: over half the time of a
 * first import, which writes a million stack rows for a big profile.  These
 * triggers keep the same guarantees with one query per statement:
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
 */
#include "postgres.h"

#include "access/xact.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "utils/builtins.h"
#include "utils/snapmgr.h"

#include "calltree.h"

PG_FUNCTION_INFO_V1(calltree_stack_insert_check);
PG_FUNCTION_INFO_V1(calltree_interned_delete_check);
PG_FUNCTION_INFO_V1(calltree_interned_refuse);

static TriggerData *
trigger_data(FunctionCallInfo fcinfo, const char *name)
{
	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("%s() was not called as a trigger", name)));
	return (TriggerData *) fcinfo->context;
}

/*
 * Runs a query over the statement's transition tables with the latest
 * snapshot, after making this statement's own changes visible; the first
 * row of at most one, or NULL.
 */
static HeapTuple
first_violation(TriggerData *trigdata, const char *query, TupleDesc *desc)
{
	SPIPlanPtr	plan;

	if (SPI_register_trigger_data(trigdata) != SPI_OK_TD_REGISTER)
		elog(ERROR, "could not register the transition tables");
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare(\"%s\") failed: %s", query, SPI_result_code_string(SPI_result));
	CommandCounterIncrement();
	if (SPI_execute_snapshot(plan, NULL, NULL, GetLatestSnapshot(), InvalidSnapshot,
							 false, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "integrity check of calltree.%s failed to run",
			 RelationGetRelationName(trigdata->tg_relation));
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
	char	   *query = psprintf("SELECT n.id FROM new_stacks n WHERE n.%s = " INT64_FORMAT " LIMIT 1",
								 column, value);

	if (SPI_execute(query, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "could not find the new stack with %s " INT64_FORMAT, column, value);
	return column_int8(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
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
	TupleDesc	desc;
	HeapTuple	bad;

	SPI_connect();
	bad = first_violation(trigdata,
						  "SELECT true, p.id FROM (SELECT DISTINCT prefix_id AS id FROM new_stacks "
						  "                        WHERE prefix_id IS NOT NULL) p "
						  "WHERE NOT EXISTS (SELECT FROM calltree.stack s WHERE s.id = p.id) "
						  "UNION ALL "
						  "SELECT false, f.id FROM (SELECT DISTINCT frame_id AS id FROM new_stacks) f "
						  "WHERE NOT EXISTS (SELECT FROM calltree.frame fr WHERE fr.id = f.id) "
						  "LIMIT 1", &desc);
	if (bad != NULL)
	{
		bool		isnull;
		bool		missing_prefix = DatumGetBool(SPI_getbinval(bad, desc, 1, &isnull));
		int64		missing = column_int8(bad, desc, 2);

		if (missing_prefix)
			ereport(ERROR,
					(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
					 errmsg("stack " INT64_FORMAT " refers to prefix stack " INT64_FORMAT ", which does not exist",
							new_stack_with("prefix_id", missing), missing),
					 errhint("A stack's prefix is written before it, by intern_stack() or an import.")));
		ereport(ERROR,
				(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
				 errmsg("stack " INT64_FORMAT " refers to frame " INT64_FORMAT ", which does not exist",
						new_stack_with("frame_id", missing), missing),
				 errhint("Intern the frame first, with intern_frame() or intern_address().")));
	}
	SPI_finish();
	return PointerGetDatum(NULL);
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
	TupleDesc	desc;
	HeapTuple	bad;

	SPI_connect();
	/* wait for the transactions writing stacks, and hold them off */
	if (SPI_execute("LOCK TABLE calltree.stack IN SHARE ROW EXCLUSIVE MODE", false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not lock calltree.stack");
	bad = first_violation(trigdata,
						  stacks
						  ? "SELECT s.id, o.id FROM old_rows o JOIN calltree.stack s ON s.prefix_id = o.id LIMIT 1"
						  : "SELECT s.id, o.id FROM old_rows o JOIN calltree.stack s ON s.frame_id = o.id LIMIT 1",
						  &desc);
	if (bad != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
				 errmsg("%s " INT64_FORMAT " is still referred to by stack " INT64_FORMAT,
						stacks ? "stack" : "frame", column_int8(bad, desc, 2), column_int8(bad, desc, 1)),
				 errdetail("Stacks refer to their prefix stack and to their frame."),
				 errhint("Delete the stacks that refer to it first (and their samples).")));
	SPI_finish();
	return PointerGetDatum(NULL);
}

/*
 * BEFORE UPDATE ON stack, BEFORE UPDATE OF id ON frame, and BEFORE TRUNCATE
 * ON frame (while stacks exist), FOR EACH STATEMENT: refused.
 */
Datum
calltree_interned_refuse(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = trigger_data(fcinfo, "calltree_interned_refuse");
	const char *table = RelationGetRelationName(trigdata->tg_relation);

	if (TRIGGER_FIRED_BY_TRUNCATE(trigdata->tg_event))
	{
		bool		stacks_exist;
		bool		isnull;

		SPI_connect();
		if (SPI_execute("SELECT EXISTS (SELECT FROM calltree.stack)", true, 1) != SPI_OK_SELECT)
			elog(ERROR, "could not read calltree.stack");
		stacks_exist = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		SPI_finish();
		if (!stacks_exist)
			return PointerGetDatum(NULL);
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot truncate calltree.%s while stacks refer to it", table),
				 errhint("Truncate calltree.stack first, in its own statement.")));
	}
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot update %s of calltree.%s", strcmp(table, "stack") == 0 ? "rows" : "the id",
					table),
			 errdetail("Interned rows are shared by every profile that refers to them."),
			 errhint("Intern a new row instead.")));
	return PointerGetDatum(NULL);
}
