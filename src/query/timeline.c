/*
 * timeline.c
 *	  estimated_calls(profile, thread): the calls of a sampled profile,
 *	  estimated from time-ordered samples, as Chrome DevTools turns samples
 *	  into ProfileCalls.  This is the data of
 *	  a flame chart.
 *
 * The samples of a thread are read in time order and compared with the
 * stack of open calls, func by func from the root: the calls they share
 * extend to the new sample; the open calls past the shared prefix end at the
 * last sample that saw them; the sample's remaining funcs start new calls.
 * At the end of a thread every open call ends at the last sample that saw it.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "tree/builder.h"
#include "tree/path.h"
#include "store/store.h"
#include "query/stack_resolve.h"

PG_FUNCTION_INFO_V1(calltree_estimated_calls);

#define FETCH_BATCH 10000

typedef struct OpenCall
{
	int32		func;
	int64		start;
	int64		last_seen;
} OpenCall;

typedef struct Timeline
{
	ReturnSetInfo *rsinfo;
	OpenCall   *open;
	int32		depth;
	int32		capacity;
	char	   *thread;			/* the current thread, NULL for samples without one */
	int32	   *path;			/* funcs of the open calls, for the path column */
	int64		path_elements;	/* read from samples and written, so far */
	MemoryContext row_cxt;
	/* reading the samples */
	int64		profile_id;
	MemoryContext fn_cxt;
	TreeBuilder *builder;
	StackResolver *resolver;
	int32	   *sample;			/* the current sample's funcs, root first */
	int32		sample_capacity;
	bool		started;		/* a sample has been read */
} Timeline;

/*
 * Each sample's path is read whole, and each call is written with its
 * path: deep stacks make that grow with the square of their depth, so it
 * counts against calltree.max_path_output.
 */
static void
count_path_elements(Timeline *timeline, int32 elements)
{
	timeline->path_elements += elements;
	calltree_check_path_elements("estimated_calls()", timeline->path_elements);
}

static void
emit_call(Timeline *timeline, int32 depth)
{
	const OpenCall *call = &timeline->open[depth];
	Datum		values[6];
	bool		nulls[6] = {false};
	MemoryContext old;

	count_path_elements(timeline, depth + 1);
	old = MemoryContextSwitchTo(timeline->row_cxt);
	values[0] = timeline->thread ? CStringGetTextDatum(timeline->thread) : (Datum) 0;
	nulls[0] = timeline->thread == NULL;
	values[1] = Int32GetDatum(call->func);
	values[2] = Int32GetDatum(depth);
	values[3] = PointerGetDatum(int4_array(timeline->path, depth + 1));
	values[4] = Int64GetDatum(call->start);
	values[5] = Int64GetDatum(call->last_seen);
	tuplestore_putvalues(timeline->rsinfo->setResult, timeline->rsinfo->setDesc, values, nulls);
	MemoryContextSwitchTo(old);
	MemoryContextReset(timeline->row_cxt);
}

/* Ends the open calls from `depth` down, innermost first. */
static void
close_calls(Timeline *timeline, int32 depth)
{
	while (timeline->depth > depth)
	{
		timeline->depth--;
		emit_call(timeline, timeline->depth);
	}
}

/* One sample: its funcs, root first, at time ts. */
static void
add_sample(Timeline *timeline, const int32 *funcs, int32 len, int64 ts)
{
	int32		shared = 0;

	while (shared < len && shared < timeline->depth && timeline->open[shared].func == funcs[shared])
		shared++;
	close_calls(timeline, shared);
	if (len > timeline->capacity)
	{
		timeline->capacity = Max(len, timeline->capacity * 2);
		timeline->open = repalloc_huge(timeline->open, sizeof(OpenCall) * (Size) timeline->capacity);
		timeline->path = repalloc_huge(timeline->path, sizeof(int32) * (Size) timeline->capacity);
	}
	for (int32 d = 0; d < shared; d++)
		timeline->open[d].last_seen = ts;
	for (int32 d = shared; d < len; d++)
	{
		timeline->open[d].func = funcs[d];
		timeline->open[d].start = ts;
		timeline->open[d].last_seen = ts;
		timeline->path[d] = funcs[d];
	}
	timeline->depth = len;
}

/* The func path of a stack, root first, into *path (grown as needed). */
static int32
stack_funcs(StackResolver *resolver, TreeBuilder *builder, int64 stack_id,
			int32 **path, int32 *capacity)
{
	int32		node = stack_resolver_node(resolver, stack_id);
	int32		len = 0;

	for (int32 n = node; n >= 0; n = tree_builder_parent(builder, n))
		len++;
	if (len > *capacity)
	{
		*capacity = Max(len, *capacity * 2);
		*path = repalloc_huge(*path, sizeof(int32) * (Size) *capacity);
	}
	for (int32 n = node, i = len - 1; n >= 0; n = tree_builder_parent(builder, n), i--)
		(*path)[i] = tree_builder_func(builder, n);
	return len;
}

/* whether a sample's thread (a text datum, or NULL) is the current one */
static bool
same_thread(const Timeline *timeline, bool thread_null, Datum thread)
{
	text	   *name;

	if (thread_null || timeline->thread == NULL)
		return thread_null && timeline->thread == NULL;
	name = DatumGetTextPP(thread);
	return VARSIZE_ANY_EXHDR(name) == strlen(timeline->thread) &&
		memcmp(VARDATA_ANY(name), timeline->thread, VARSIZE_ANY_EXHDR(name)) == 0;
}

/* One row of (thread, ts, stack_id), in order of thread and time */
static void
take_sample_row(Timeline *timeline, HeapTuple row, TupleDesc desc)
{
	bool		thread_null;
	bool		ts_null;
	bool		stack_null;
	Datum		thread = SPI_getbinval(row, desc, 1, &thread_null);
	int64		ts = DatumGetInt64(SPI_getbinval(row, desc, 2, &ts_null));
	int64		stack_id = DatumGetInt64(SPI_getbinval(row, desc, 3, &stack_null));
	MemoryContext old = MemoryContextSwitchTo(timeline->fn_cxt);
	int32		len;

	if (ts_null)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("profile " INT64_FORMAT " has samples without a timestamp", timeline->profile_id),
				 errhint("Calls can only be estimated from time-ordered samples; this profile's format has no times.")));
	if (!timeline->started || !same_thread(timeline, thread_null, thread))
	{
		close_calls(timeline, 0);
		timeline->thread = thread_null ? NULL : TextDatumGetCString(thread);
		timeline->started = true;
	}
	len = stack_funcs(timeline->resolver, timeline->builder, stack_id,
					  &timeline->sample, &timeline->sample_capacity);
	count_path_elements(timeline, len);
	add_sample(timeline, timeline->sample, len, ts);
	MemoryContextSwitchTo(old);
}

/* A timeline in the current memory context, before any sample */
static void
timeline_init(Timeline *timeline, ReturnSetInfo *rsinfo, int64 profile_id)
{
	timeline->rsinfo = rsinfo;
	timeline->profile_id = profile_id;
	timeline->fn_cxt = CurrentMemoryContext;
	timeline->capacity = 64;
	timeline->open = palloc(sizeof(OpenCall) * timeline->capacity);
	timeline->path = palloc(sizeof(int32) * timeline->capacity);
	timeline->row_cxt = AllocSetContextCreate(timeline->fn_cxt, "estimated_calls row", ALLOCSET_SMALL_SIZES);
	timeline->sample_capacity = 64;
	timeline->sample = palloc(sizeof(int32) * timeline->sample_capacity);
	timeline->builder = tree_builder_create(timeline->fn_cxt);
	timeline->resolver = stack_resolver_begin(timeline->builder);
}

/*
 * estimated_calls(profile bigint, thread text DEFAULT NULL)
 *	→ (thread_name, func, depth, path, start_ts, end_ts)
 */
Datum
calltree_estimated_calls(PG_FUNCTION_ARGS)
{
	Timeline	timeline = {0};
	Portal		cursor;
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		args[2];
	char		nulls[2] = {' ', ' '};
	bool		any_sample = false;

	InitMaterializedSRF(fcinfo, 0);
	timeline_init(&timeline, (ReturnSetInfo *) fcinfo->resultinfo, PG_GETARG_INT64(0));
	args[0] = PG_GETARG_DATUM(0);
	args[1] = PG_ARGISNULL(1) ? (Datum) 0 : PG_GETARG_DATUM(1);
	nulls[1] = PG_ARGISNULL(1) ? 'n' : ' ';
	SPI_connect();
	cursor = SPI_cursor_open_with_args(NULL,
									   "SELECT thread, ts, stack_id FROM calltree.sample "
									   "WHERE profile_id OPERATOR(pg_catalog.=) $1 "
									   "AND ($2 IS NULL OR thread OPERATOR(pg_catalog.=) $2) "
									   "ORDER BY thread, ts",
									   2, types, args, nulls, true, 0);
	for (;;)
	{
		SPI_cursor_fetch(cursor, true, FETCH_BATCH);
		if (SPI_processed == 0)
			break;
		any_sample = true;
		for (uint64 r = 0; r < SPI_processed; r++)
			take_sample_row(&timeline, SPI_tuptable->vals[r], SPI_tuptable->tupdesc);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(cursor);
	SPI_finish();
	/* no samples: an empty profile or thread, or an id that names nothing */
	if (!any_sample && !PG_ARGISNULL(0))
		profile_lookup_check(PG_GETARG_INT64(0), "estimated_calls()");
	close_calls(&timeline, 0);
	stack_resolver_end(timeline.resolver);
	return (Datum) 0;
}
