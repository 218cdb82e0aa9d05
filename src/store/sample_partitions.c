/*
 * sample_partitions.c
 *	  The refusal of sample sets beyond the last time window.
 *
 * calltree.sample_set is partitioned by ranges of profile ids, one
 * partition a time window (src/install/functions/77_retention.sql says
 * why).  sample_set_default holds the sets of ids that no window holds:
 * those of windows dropped already, which no window will hold again.  A
 * set of an id past the last window would be in the way of the window that
 * opens next: ATTACH PARTITION refuses a range of which the default
 * partition holds rows.  So sample_set_default's trigger refuses such rows.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/partition.h"
#include "commands/trigger.h"
#include "fmgr.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/rel.h"

#include "store/store.h"

PG_FUNCTION_INFO_V1(calltree_sample_window_check);

/* The partition bounds of `rel`, checked to be ranges of one bigint column */
static PartitionBoundInfo
profile_id_bounds(Relation rel, PartitionDesc *desc)
{
	PartitionKey key = RelationGetPartitionKey(rel);

	*desc = RelationGetPartitionDesc(rel, true);
	if (key->strategy != PARTITION_STRATEGY_RANGE || key->partnatts != 1 || (*desc)->boundinfo == NULL)
		elog(ERROR, "calltree.%s is not partitioned by a range of profile ids", RelationGetRelationName(rel));
	return (*desc)->boundinfo;
}

/*
 * The first profile id past every window of the partitioned table
 * `parent`: the upper bound of its last range partition.  False when
 * there is none (no range partition, or the last one has no upper bound).
 * The largest bound of a range partitioning is always an upper bound.
 */
static bool
windows_end(Oid parent, int64 *end)
{
	Relation	rel = table_open(parent, AccessShareLock);
	PartitionDesc desc;
	PartitionBoundInfo bounds = profile_id_bounds(rel, &desc);
	int			last = bounds->ndatums - 1;
	bool		bounded = last >= 0 && bounds->kind[last][0] == PARTITION_RANGE_DATUM_VALUE;

	if (bounded)
		*end = DatumGetInt64(bounds->datums[last][0]);
	table_close(rel, NoLock);
	return bounded;
}

/* The profile id of a row of a partition */
static int64
row_profile_id(Relation rel, HeapTuple row)
{
	TupleDesc	desc = RelationGetDescr(rel);
	AttrNumber	attnum = InvalidAttrNumber;
	bool		isnull;
	Datum		value;

	for (int i = 0; i < desc->natts && attnum == InvalidAttrNumber; i++)
		if (!TupleDescAttr(desc, i)->attisdropped && strcmp(NameStr(TupleDescAttr(desc, i)->attname), "profile_id") == 0)
			attnum = i + 1;
	if (attnum == InvalidAttrNumber)
		elog(ERROR, "\"%s\" has no column profile_id", RelationGetRelationName(rel));
	value = heap_getattr(row, attnum, desc, &isnull);
	/* NOT NULL is checked after the BEFORE triggers */
	return isnull ? PG_INT64_MIN : DatumGetInt64(value);
}

/*
 * BEFORE INSERT OR UPDATE OF profile_id ON sample_set_default, FOR EACH
 * ROW: refuses a row whose profile id lies past the last window.  It reads
 * the partitions of its table as the row's routing did: a window attached
 * meanwhile is seen once its ATTACH committed, since the row waited for
 * the lock that ATTACH held on this partition.
 */
Datum
calltree_sample_window_check(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	Relation	rel;
	HeapTuple	row;
	int64		profile_id;
	int64		end;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BEFORE(trigdata->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("calltree_sample_window_check() must fire BEFORE, FOR EACH ROW")));
	rel = trigdata->tg_relation;
	row = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ? trigdata->tg_newtuple : trigdata->tg_trigtuple;
	profile_id = row_profile_id(rel, row);
	if (rel->rd_rel->relispartition &&
		windows_end(get_partition_parent(RelationGetRelid(rel), false), &end) && profile_id >= end)
		ereport(ERROR,
				(errcode(ERRCODE_CHECK_VIOLATION),
				 errmsg("profile id " INT64_FORMAT " lies past the last time window of calltree.sample_set", profile_id),
				 errdetail("The last window ends before profile id " INT64_FORMAT ".  A sample of a later id "
						   "would go to %s and stop the next window from opening.",
						   end, RelationGetRelationName(rel)),
				 errhint("Let calltree.profile.id take its default value.  To keep ids of your own, "
						 "open windows up to them first with calltree.new_sample_partition().")));
	return PointerGetDatum(row);
}
