/*
 * sample_partitions.c
 *	  The partition of calltree.sample that holds a profile's samples.
 *
 * calltree.sample is partitioned by ranges of profile ids, one partition a
 * time window (src/install/77_retention.sql says why).  The writer COPYs
 * an import's samples straight into the partition of its profile: COPY
 * into the partitioned table itself would write them one row at a time,
 * since its statement triggers keep transition tables (PostgreSQL's
 * CopyFrom), about twice as slow.
 */
#include "postgres.h"

#include "access/table.h"
#include "partitioning/partbounds.h"
#include "partitioning/partdesc.h"
#include "utils/partcache.h"
#include "utils/rel.h"

#include "store/store.h"

Oid
sample_partition_of(Oid sample, int64 profile_id)
{
	Relation	rel = table_open(sample, AccessShareLock);
	Oid			partition = InvalidOid;

	if (rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
	{
		PartitionKey key = RelationGetPartitionKey(rel);
		PartitionDesc desc = RelationGetPartitionDesc(rel, true);
		PartitionBoundInfo bounds = desc->boundinfo;
		Datum		value = Int64GetDatum(profile_id);
		bool		equal;
		int			offset;
		int			index;

		if (key->strategy != PARTITION_STRATEGY_RANGE || key->partnatts != 1 || bounds == NULL)
			elog(ERROR, "calltree.sample is not partitioned by a range of profile ids");
		offset = partition_range_datum_bsearch(key->partsupfunc, key->partcollation, bounds, 1, &value, &equal);
		index = bounds->indexes[offset + 1];
		if (index < 0)
			index = bounds->default_index;
		if (index >= 0)
			partition = desc->oids[index];
	}
	table_close(rel, NoLock);
	return partition;
}
