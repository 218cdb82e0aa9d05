/*
 * sample_partitions.h
 *	  The partition of calltree.sample that holds a profile's samples
 *	  (sample_partitions.c).
 */
#ifndef CALLTREE_SAMPLE_PARTITIONS_H
#define CALLTREE_SAMPLE_PARTITIONS_H

#include "postgres.h"

/*
 * The partition of the partitioned table `sample` that holds the rows of
 * `profile_id`, or InvalidOid when none does.  Takes no lock on the
 * partition: the caller locks it before writing.
 */
extern Oid	sample_partition_of(Oid sample, int64 profile_id);

#endif							/* CALLTREE_SAMPLE_PARTITIONS_H */
