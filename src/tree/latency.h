/*
 * latency.h
 *	  Log-bucketed histograms of call durations: the bucket of a duration,
 *	  the value a bucket stands for, and a quantile of a histogram.
 *
 * The builder files each call's duration in its node's histogram; the
 * latency() function reads the quantiles back.  The bucket encoding of a
 * stored histogram (BUCKET_INDEX, BUCKET_COUNT) is part of the value's
 * layout, in calltree.h.
 */
#ifndef CALLTREE_LATENCY_H
#define CALLTREE_LATENCY_H

#include "postgres.h"

extern int32 latency_bucket(int64 duration);
extern int64 latency_bucket_value(int32 index);
extern int64 latency_quantile(const uint64 *buckets, int32 nbuckets, int64 count, double q,
							  int64 min, int64 max);

#endif							/* CALLTREE_LATENCY_H */
