/*
 * writer_set_row.c
 *	  A sample set of an import, written into its partition of
 *	  calltree.sample_set without a statement, where the INSERT of
 *	  writer_sets.c would do nothing more.
 *
 * An import writes a row of sample_set per thread, most of them one.  Its
 * INSERT through SPI (a kept plan) took some 41,000 instructions, half of
 * them the statement's: the plan cache checked, an executor started and
 * ended, the capture of the new rows for the statement trigger, which then
 * returns at once for the writer's rows (integrity.c: the writer vouches
 * for them).  Here the row is routed to its partition and written as the
 * executor's ModifyTable would, with the executor's own functions, as COPY
 * FROM routes and writes each of its rows: the user's privileges checked
 * as the INSERT's (INSERT on the three columns of sample_set), the
 * partition found by the executor's routing (whose errors are the
 * INSERT's), its NOT NULL and CHECK constraints, the heap tuple, its index
 * entries.
 *
 * This path is taken only where the INSERT would do nothing more: the
 * writer vouches for the row (not under REPEATABLE READ, where the
 * trigger checks it), sample_set's only INSERT trigger is the integrity
 * check, no rule, no row-level security applying to the user, not a
 * Citus table, its columns those the INSERT names, and the partition found
 * has no trigger an INSERT fires (sample_set_default's window check, a
 * DBA's) and the parent's row layout.  Else the caller runs its INSERT.
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/execPartition.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "store/integrity.h"
#include "store/store.h"
#include "writer/writer_internal.h"

#define SET_COLUMNS 3			/* profile_id, thread, samples */

/*
 * Whether every INSERT trigger of sample_set is the integrity check, which
 * returns at once for the writer's rows
 */
static bool
only_integrity_trigger(Relation rel)
{
	TriggerDesc *triggers = rel->trigdesc;
	Oid			check = calltree_function_noargs("sample_set_refs_check", calltree_namespace());

	if (triggers == NULL)
		return true;
	for (int i = 0; i < triggers->numtriggers; i++)
	{
		Trigger    *t = &triggers->triggers[i];

		if (TRIGGER_FOR_INSERT(t->tgtype) &&
			(t->tgfoid != check || TRIGGER_FOR_ROW(t->tgtype) || TRIGGER_FOR_BEFORE(t->tgtype)))
			return false;
	}
	return true;
}

/* Whether the columns of sample_set are those the INSERT names, of their types */
static bool
set_columns(Relation rel, Oid samples_type)
{
	static const char *const names[SET_COLUMNS] = {"profile_id", "thread", "samples"};
	TupleDesc	desc = RelationGetDescr(rel);
	Oid			types[SET_COLUMNS] = {INT8OID, TEXTOID, samples_type};

	if (desc->natts != SET_COLUMNS)
		return false;
	for (int i = 0; i < SET_COLUMNS; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped || att->atttypid != types[i] || att->atttypmod != -1 ||
			strcmp(NameStr(att->attname), names[i]) != 0)
			return false;
	}
	return true;
}

static bool
insert_is_plain(Relation rel, Oid samples_type)
{
	return integrity_writer_can_vouch() &&
		rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE &&
		only_integrity_trigger(rel) && set_columns(rel, samples_type) &&
		!writer_insert_needs_statement(rel);
}

/* What the INSERT checks: INSERT on the three columns */
static RangeTblEntry *
checked_rte(Relation rel)
{
	RangeTblEntry *rte = makeNode(RangeTblEntry);

	rte->rtekind = RTE_RELATION;
	rte->relid = RelationGetRelid(rel);
	rte->relkind = rel->rd_rel->relkind;
	rte->rellockmode = RowExclusiveLock;
	rte->requiredPerms = ACL_INSERT;
	for (int i = 1; i <= SET_COLUMNS; i++)
		rte->insertedCols = bms_add_member(rte->insertedCols, i - FirstLowInvalidHeapAttributeNumber);
	ExecCheckRTPerms(list_make1(rte), true);
	return rte;
}

/* Whether the partition takes the row as it is, with nothing fired */
static bool
partition_is_plain(ResultRelInfo *leaf)
{
	return leaf->ri_RootToPartitionMap == NULL && !writer_fires_on_insert(leaf->ri_TrigDesc);
}

/*
 * The row routed and written, as COPY FROM writes one (CopyFrom); false,
 * with nothing written, when its partition is not plain.
 */
static bool
route_and_write(Relation rel, Datum *values, bool *nulls)
{
	EState	   *estate = CreateExecutorState();
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
	ResultRelInfo *root = makeNode(ResultRelInfo);
	ModifyTableState *mtstate = makeNode(ModifyTableState);
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsVirtual);
	PartitionTupleRouting *proute;
	ResultRelInfo *leaf;
	bool		plain;

	/* as the executor refuses an INSERT (ExecCheckXactReadOnly) */
	PreventCommandIfReadOnly("INSERT");
	PreventCommandIfParallelMode("INSERT");
	ExecInitRangeTable(estate, list_make1(checked_rte(rel)));
	estate->es_output_cid = GetCurrentCommandId(true);
	ExecInitResultRelation(estate, root, 1);
	CheckValidResultRel(root, CMD_INSERT);
	mtstate->ps.state = estate;
	mtstate->operation = CMD_INSERT;
	mtstate->mt_nrels = 1;
	mtstate->resultRelInfo = root;
	mtstate->rootResultRelInfo = root;
	proute = ExecSetupPartitionTupleRouting(estate, rel);

	memcpy(slot->tts_values, values, sizeof(Datum) * SET_COLUMNS);
	memcpy(slot->tts_isnull, nulls, sizeof(bool) * SET_COLUMNS);
	ExecStoreVirtualTuple(slot);
	leaf = ExecFindPartition(mtstate, root, proute, slot, estate);
	plain = partition_is_plain(leaf);
	if (plain)
	{
		ExecConstraints(leaf, slot, estate);
		table_tuple_insert(leaf->ri_RelationDesc, slot, estate->es_output_cid, 0, NULL);
		/* a deferred unique constraint comes with its trigger, refused above */
		if (ExecInsertIndexTuples(leaf, slot, estate, false, false, NULL, NIL) != NIL)
			elog(ERROR, "a partition of calltree.sample_set has a deferred constraint the writer cannot check");
	}
	ExecDropSingleTupleTableSlot(slot);
	ExecCleanupTupleRouting(mtstate, proute);
	ExecCloseResultRelations(estate);
	ExecCloseRangeTableRelations(estate);
	MemoryContextSwitchTo(old);
	FreeExecutorState(estate);
	return plain;
}

/*
 * The row (profile_id, thread, samples) of `values` and `nulls`, written
 * as writer_sets.c's INSERT would write it, where that INSERT would do
 * nothing more (see the top); false, with nothing written, where it must
 * run instead.  `samples_type` is the type its $3 has.
 */
bool
writer_insert_set_row(Oid samples_type, Datum *values, bool *nulls)
{
	Oid			relid = calltree_locked_relation("sample_set", RowExclusiveLock);
	Relation	rel = table_open(relid, NoLock);
	bool		written = false;

	if (insert_is_plain(rel, samples_type))
	{
		/* as SPI runs a statement: after the commands before it, in a snapshot of its own */
		CommandCounterIncrement();
		PushActiveSnapshot(GetTransactionSnapshot());
		written = route_and_write(rel, values, nulls);
		PopActiveSnapshot();
		CommandCounterIncrement();
	}
	table_close(rel, NoLock);
	return written;
}
