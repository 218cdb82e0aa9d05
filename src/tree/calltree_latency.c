/*
 * calltree_latency.c
 *	  latency(calltree): the distribution of the calls of every node of a
 *	  tree from an instrumented trace, read from its histograms (latency.h).
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "tree/calltree.h"
#include "tree/latency.h"
#include "tree/path.h"

PG_FUNCTION_INFO_V1(calltree_latency);

#define LATENCY_COLUMNS 12

/* Node i's row, with path[0 .. depth[i]] its func path */
static void
put_latency_row(ReturnSetInfo *rsinfo, const CallTree *tree, int32 i, const int32 *depth,
				const int32 *path, const int64 *running)
{
	const int32 *start = calltree_bucket_start(tree);
	const uint64 *buckets = calltree_buckets(tree) + start[i];
	int32		nbuckets = start[i + 1] - start[i];
	int32		parent = calltree_parent(tree)[i];
	int64		count = 0;
	int64		min = calltree_latency_min(tree)[i];
	int64		max = calltree_latency_max(tree)[i];
	Datum		values[LATENCY_COLUMNS];
	bool		nulls[LATENCY_COLUMNS] = {false};

	for (int32 b = 0; b < nbuckets; b++)
		count += BUCKET_COUNT(buckets[b]);
	values[0] = Int32GetDatum(i + 1);
	values[1] = Int32GetDatum(parent + 1);
	nulls[1] = parent < 0;
	values[2] = Int32GetDatum(depth[i]);
	values[3] = Int32GetDatum(calltree_func(tree)[i]);
	values[4] = PointerGetDatum(int4_array(path, depth[i] + 1));
	values[5] = Int64GetDatum(count);
	values[6] = Int64GetDatum(min);
	values[7] = Int64GetDatum(max);
	values[8] = Float8GetDatum(count > 0 ? (double) running[i] / (double) count : 0);
	values[9] = Int64GetDatum(latency_quantile(buckets, nbuckets, count, 0.50, min, max));
	values[10] = Int64GetDatum(latency_quantile(buckets, nbuckets, count, 0.90, min, max));
	values[11] = Int64GetDatum(latency_quantile(buckets, nbuckets, count, 0.99, min, max));
	for (int c = 6; c < LATENCY_COLUMNS && count == 0; c++)
		nulls[c] = true;
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
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
	const int32 *func = calltree_func(tree);
	int64	   *running;
	int32	   *depth;
	int32	   *path;

	if (calltree_bucket_start(tree) == NULL)
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
		CHECK_FOR_INTERRUPTS();
		path[depth[i]] = func[i];
		put_latency_row(rsinfo, tree, i, depth, path, running);
	}
	return (Datum) 0;
}
