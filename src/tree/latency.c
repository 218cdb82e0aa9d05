/*
 * latency.c
 *	  Log-bucketed histograms of call durations, and latency(calltree).
 *
 * A duration d >= 1 falls in bucket 1 + ceil(log(d) / log(GAMMA)), which
 * holds the durations in (GAMMA^(i-2), GAMMA^(i-1)]; 0 and below fall in
 * bucket 0.  A bucket stands for the value 2 GAMMA^(i-1) / (GAMMA + 1),
 * within (GAMMA - 1) / (GAMMA + 1) < 1% of every duration in it, so every
 * quantile read from the histogram is within 1% of a duration that was
 * really seen at that rank (and is clamped to the exact min and max).
 * Histograms merge by adding counts bucket by bucket, so merged trees keep
 * the same error.  2^63 ns falls in bucket 2207.
 */
#include "postgres.h"

#include <math.h>

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "tree/calltree.h"

PG_FUNCTION_INFO_V1(calltree_latency);

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

/* The duration at quantile q (0 < q <= 1) of a node's histogram. */
static int64
quantile(const uint64 *buckets, int32 nbuckets, int64 count, double q, int64 min, int64 max)
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

/*
 * latency(tree) → (node, parent, depth, func, path, calls, min, max, mean,
 * p50, p90, p99): per CallNode, the distribution of the running time of its
 * calls.  The mean is exact (running weight / calls).
 */
Datum
calltree_latency(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const int32 *start = calltree_bucket_start(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int64	   *running;
	int32	   *depth;
	int32	   *path;

	if (start == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("call tree has no latency histograms"),
				 errhint("Trees built by trace_agg() from enter/exit events have them; sampled trees do not.")));
	depth = calltree_depths(tree);
	calltree_check_path_elements("latency()", calltree_path_elements(tree, depth, false));
	InitMaterializedSRF(fcinfo, 0);
	running = calltree_running(tree);
	path = palloc_extended(sizeof(int32) * Max(tree->nnodes, 1), MCXT_ALLOC_HUGE);
	for (int32 i = 0; i < tree->nnodes; i++)
	{
		const uint64 *buckets = calltree_buckets(tree) + start[i];
		int32		nbuckets = start[i + 1] - start[i];
		int64		count = 0;
		int64		min = calltree_latency_min(tree)[i];
		int64		max = calltree_latency_max(tree)[i];
		Datum		values[12];
		bool		nulls[12] = {false};

		CHECK_FOR_INTERRUPTS();
		path[depth[i]] = func[i];
		for (int32 b = 0; b < nbuckets; b++)
			count += BUCKET_COUNT(buckets[b]);
		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(parent[i] + 1);
		nulls[1] = parent[i] < 0;
		values[2] = Int32GetDatum(depth[i]);
		values[3] = Int32GetDatum(func[i]);
		values[4] = PointerGetDatum(int4_array(path, depth[i] + 1));
		values[5] = Int64GetDatum(count);
		values[6] = Int64GetDatum(min);
		values[7] = Int64GetDatum(max);
		values[8] = Float8GetDatum(count > 0 ? (double) running[i] / (double) count : 0);
		values[9] = Int64GetDatum(quantile(buckets, nbuckets, count, 0.50, min, max));
		values[10] = Int64GetDatum(quantile(buckets, nbuckets, count, 0.90, min, max));
		values[11] = Int64GetDatum(quantile(buckets, nbuckets, count, 0.99, min, max));
		for (int c = 6; c < 12 && count == 0; c++)
			nulls[c] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
