/*
 * trace.c
 *	  Instrumented traces: trace_agg(func, enter, ts ORDER BY ts), the
 *	  function call trie that LLVM XRay builds.
 *
 * The state is a shadow stack of open calls over a tree builder.  At every
 * event, the time since the previous event is charged to the call on top of
 * the stack: that is its cumulative local time (CLT), the node's self
 * weight.  Its cumulative tree time (CTT) is then the node's running
 * weight, since CTT(n) = CLT(n) + sum of CTT over n's callees, which is how
 * stored trees derive running weights.  An enter counts a call of the new
 * node.
 *
 *	- An exit of a function entered higher up unwinds every call above it at
 *	  that timestamp (as if they all exited then).
 *	- An exit with no matching entry on the stack is skipped and counted
 *	  (a NOTICE says how many).
 *	- Calls still open when the events end are closed at the last timestamp.
 *
 * Each call's duration (its tree time) also goes into its node's latency
 * histogram (latency.c).
 *	- A timestamp before the previous one is an error naming the event.
 *
 * The events of one thread form one group; per-thread trees merge with
 * calltree_merge, as XRay's central service merges per-thread tries.
 */
#include "postgres.h"

#include "common/int.h"
#include "utils/memutils.h"

#include "tree/calltree.h"
#include "tree/builder.h"

PG_FUNCTION_INFO_V1(trace_agg_transfn);
PG_FUNCTION_INFO_V1(trace_agg_finalfn);

typedef struct OpenCall
{
	int32		node;
	int32		func;
	int64		entered;
} OpenCall;

typedef struct TraceState
{
	TreeBuilder *builder;
	OpenCall   *stack;
	int32		depth;
	int32		capacity;
	int64		last_ts;
	int64		events;
	int64		unmatched_exits;
} TraceState;

static TraceState *
trace_state_create(MemoryContext cxt)
{
	TraceState *state = MemoryContextAllocZero(cxt, sizeof(TraceState));

	state->builder = tree_builder_create(cxt);
	state->capacity = 64;
	state->stack = MemoryContextAlloc(cxt, sizeof(OpenCall) * state->capacity);
	return state;
}

/* Charges the time since the last event to the call on top. */
static void
charge_elapsed(TraceState *state, int64 ts)
{
	if (state->events > 0 && ts < state->last_ts)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trace event " INT64_FORMAT " goes back in time", state->events + 1),
				 errdetail("Its timestamp " INT64_FORMAT " is before the previous event's, " INT64_FORMAT ".",
						   ts, state->last_ts),
				 errhint("Aggregate the events of one thread in time order: trace_agg(func, enter, ts ORDER BY ts).")));
	if (state->depth > 0)
	{
		int64		elapsed;

		if (pg_sub_s64_overflow(ts, state->last_ts, &elapsed))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("trace event " INT64_FORMAT " is too far from the previous one", state->events + 1),
					 errdetail("Its timestamp is " INT64_FORMAT ", the previous event's " INT64_FORMAT ".",
							   ts, state->last_ts),
					 errhint("Timestamps of one thread must lie within 2^63 of each other.")));
		tree_builder_add_self(state->builder, state->stack[state->depth - 1].node, elapsed);
	}
	state->last_ts = ts;
	state->events++;
}

static void
enter_call(TraceState *state, int32 func)
{
	int32		parent = state->depth > 0 ? state->stack[state->depth - 1].node : -1;
	int32		node = tree_builder_child(state->builder, parent, func);

	if (state->depth == state->capacity)
	{
		state->capacity *= 2;
		state->stack = repalloc_huge(state->stack, sizeof(OpenCall) * (Size) state->capacity);
	}
	state->stack[state->depth].node = node;
	state->stack[state->depth].func = func;
	state->stack[state->depth].entered = state->last_ts;
	state->depth++;
	tree_builder_add_self(state->builder, node, 0);
	tree_builder_add_calls(state->builder, node, 1);
}

/* Ends the open calls from `depth` up, at the last timestamp. */
static void
end_calls(TraceState *state, int32 depth)
{
	while (state->depth > depth)
	{
		OpenCall   *call = &state->stack[--state->depth];
		int64		duration;

		/* each step was checked, but a call can span many of them */
		if (pg_sub_s64_overflow(state->last_ts, call->entered, &duration))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("trace event " INT64_FORMAT " ends a call that lasts out of range", state->events),
					 errdetail("The call was entered at " INT64_FORMAT " and ends at " INT64_FORMAT
							   ": its duration does not fit in bigint.", call->entered, state->last_ts),
					 errhint("Timestamps of one thread must lie within 2^63 of each other.")));
		tree_builder_add_duration(state->builder, call->node, duration);
	}
}

/* Unwinds to the innermost open call of func, if there is one. */
static void
exit_call(TraceState *state, int32 func)
{
	for (int32 d = state->depth - 1; d >= 0; d--)
	{
		if (state->stack[d].func == func)
		{
			end_calls(state, d);
			return;
		}
	}
	state->unmatched_exits++;
}

/* trace_agg(func int4, enter boolean, ts bigint) */
Datum
trace_agg_transfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	TraceState *state;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "trace_agg_transfn called in non-aggregate context");
	state = PG_ARGISNULL(0) ? trace_state_create(aggcxt) : (TraceState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("trace event " INT64_FORMAT " has a null func, direction or timestamp",
						state->events + 1),
				 errhint("Every event needs a func id, enter (true) or exit (false), and a timestamp.")));

	charge_elapsed(state, PG_GETARG_INT64(3));
	if (PG_GETARG_BOOL(2))
		enter_call(state, PG_GETARG_INT32(1));
	else
		exit_call(state, PG_GETARG_INT32(1));
	PG_RETURN_POINTER(state);
}

/*
 * Open calls end at the last timestamp, which charge_elapsed already
 * reached.  Ending them changes the state: the aggregate says so
 * (FINALFUNC_MODIFY = READ_WRITE).
 */
Datum
trace_agg_finalfn(PG_FUNCTION_ARGS)
{
	TraceState *state;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	state = (TraceState *) PG_GETARG_POINTER(0);
	end_calls(state, 0);
	if (state->unmatched_exits > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " exit%s with no matching entry",
						state->unmatched_exits, state->unmatched_exits == 1 ? "" : "s")));
	if (tree_builder_count(state->builder) == 0)
		PG_RETURN_NULL();
	PG_RETURN_CALLTREE_P(tree_builder_finish(state->builder));
}
