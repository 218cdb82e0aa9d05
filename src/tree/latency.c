/*
 * latency.c
 *	  Log-bucketed histograms of call durations (latency.h).  No fmgr code
 *	  here: latency() is in calltree_latency.c.
 *
 * A duration d >= 1 falls in bucket 1 + ceil(log(d) / log(GAMMA)), which
 * holds the durations in (GAMMA^(i-2), GAMMA^(i-1)]; 0 and below fall in
 * bucket 0.  A bucket stands for the value 2 GAMMA^(i-1) / (GAMMA + 1),
 * within (GAMMA - 1) / (GAMMA + 1) < 1% of every duration in it, so every
 * quantile read from the histogram is within 1% of a duration that was
 * really seen at that rank (and is clamped to the exact min and max).
 * Histograms merge by adding counts bucket by bucket, so merged trees keep
 * the same error.  2^63 ns falls in bucket 2207, below LATENCY_MAX_INDEX.
 */
#include "postgres.h"

#include <math.h>

#include "tree/calltree.h"
#include "tree/latency.h"

#define GAMMA 1.02

int32
latency_bucket(int64 duration)
{
	if (duration <= 0)
		return 0;
	return 1 + (int32) ceil(log((double) duration) / log(GAMMA));
}

int64
latency_bucket_value(int32 index)
{
	if (index <= 0)
		return 0;
	return (int64) llround(2.0 * pow(GAMMA, index - 1) / (GAMMA + 1.0));
}

/*
 * The duration at quantile q (0 < q <= 1) of a histogram of `count` calls,
 * its buckets in index order, clamped to the exact extremes.
 */
int64
latency_quantile(const uint64 *buckets, int32 nbuckets, int64 count, double q, int64 min, int64 max)
{
	int64		rank = (int64) ceil(q * (double) count);
	int64		seen = 0;
	int64		value = max;

	for (int32 b = 0; b < nbuckets; b++)
	{
		seen += BUCKET_COUNT(buckets[b]);
		if (seen >= rank)
		{
			value = latency_bucket_value(BUCKET_INDEX(buckets[b]));
			break;
		}
	}
	return Min(Max(value, min), max);
}
