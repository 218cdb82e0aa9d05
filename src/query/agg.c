/*
 * agg.c
 *	  The aggregates: calltree_agg, calltree_merge and stack_agg, each with
 *	  transition, combine and final functions.
 *
 * Each state is a value of a real type, kept as an expanded object in the
 * aggregate's memory context and updated in place row by row:
 *
 * - calltree_agg and calltree_merge build a calltree: an expanded calltree
 *   is a tree builder (tree/calltree_expanded.h), and flattened it is the
 *   finished tree;
 *
 * - stack_agg only sums weights per stack id (tree/stack_weights.h) while
 *   it reads samples, as rows or as packed samples values; the final
 *   function resolves each distinct stack to its func path once
 *   (stack_resolve.c), on the node that runs it.
 *
 * samples_agg is the other way round: it packs rows into a samples value
 * (tree/samples.h), its state the rows gathered so far.
 *
 * A state of a real type can leave the process as a value: parallel workers
 * hand theirs to the leader flattened, and Citus workers print theirs with
 * the type's output function, for the coordinator to read back with its
 * input function, combine and finish.  Sums are exact int64 arithmetic with
 * overflow checks, so any split of the input gives the same tree.
 *
 * The final functions only read the state (FINALFUNC_MODIFY = READ_ONLY):
 * the executor may share one state between aggregates, or finish it more
 * than once in a window.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "tree/builder.h"
#include "tree/calltree.h"
#include "tree/calltree_expanded.h"
#include "tree/path.h"
#include "tree/samples.h"
#include "tree/stack_weights.h"
#include "query/stack_resolve.h"

PG_FUNCTION_INFO_V1(calltree_agg_transfn);
PG_FUNCTION_INFO_V1(calltree_agg_transfn_unit);
PG_FUNCTION_INFO_V1(calltree_merge_transfn);
PG_FUNCTION_INFO_V1(calltree_agg_combinefn);
PG_FUNCTION_INFO_V1(calltree_agg_finalfn);
PG_FUNCTION_INFO_V1(stack_agg_transfn);
PG_FUNCTION_INFO_V1(stack_agg_transfn_unit);
PG_FUNCTION_INFO_V1(stack_agg_samples_transfn);
PG_FUNCTION_INFO_V1(stack_agg_combinefn);
PG_FUNCTION_INFO_V1(stack_agg_finalfn);
PG_FUNCTION_INFO_V1(samples_agg_transfn);
PG_FUNCTION_INFO_V1(samples_agg_finalfn);

/* The aggregate's memory context; an error when not called by an aggregate */
static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *function, const char *aggregate)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s called outside an aggregate", function),
				 errdetail("It is the transition or combine function of %s.", aggregate),
				 errhint("Call the aggregate %s instead.", aggregate)));
	return aggcxt;
}

/*
 * The state to add to, from argument 0: the read-write expanded tree the
 * aggregate keeps, or else a new one in the aggregate's context, holding
 * argument 0's tree when it is a flat one.  The context is only checked
 * when a state is made: a read-write pointer comes from no one but the
 * aggregate, and the check is not free on a per-row path.
 */
static ExpandedCallTree *
tree_state(FunctionCallInfo fcinfo, const char *function, const char *aggregate)
{
	ExpandedCallTree *state;

	if (!PG_ARGISNULL(0))
	{
		state = calltree_expanded_rw(PG_GETARG_DATUM(0));
		if (likely(state != NULL))
			return state;
	}
	state = calltree_expanded_create(aggregate_context(fcinfo, function, aggregate));
	if (!PG_ARGISNULL(0))
		calltree_expanded_add_datum(state->builder, PG_GETARG_DATUM(0));
	return state;
}

/* Argument 0 as it came, or NULL: the row adds nothing */
static Datum
unchanged_state(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}

static Datum
calltree_agg_add(FunctionCallInfo fcinfo, int64 weight)
{
	ExpandedCallTree *state;
	const int32 *funcs;
	int32		len;

	if (PG_ARGISNULL(1))
		return unchanged_state(fcinfo);
	funcs = path_argument(PG_GETARG_ARRAYTYPE_P(1), "func path", &len);
	if (len == 0)
		return unchanged_state(fcinfo);
	state = tree_state(fcinfo, "calltree_agg_transfn", "calltree_agg");
	tree_builder_add_path(calltree_expanded_builder(state), funcs, len, weight);
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}

/* calltree_agg(path int4[], weight bigint); a NULL weight skips the row */
Datum
calltree_agg_transfn(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(2))
		return unchanged_state(fcinfo);
	return calltree_agg_add(fcinfo, PG_GETARG_INT64(2));
}

/* calltree_agg(path int4[]): weight 1 */
Datum
calltree_agg_transfn_unit(PG_FUNCTION_ARGS)
{
	return calltree_agg_add(fcinfo, 1);
}

/* calltree_merge(calltree) */
Datum
calltree_merge_transfn(PG_FUNCTION_ARGS)
{
	ExpandedCallTree *state;

	if (PG_ARGISNULL(1))
		return unchanged_state(fcinfo);
	state = tree_state(fcinfo, "calltree_merge_transfn", "calltree_merge");
	calltree_expanded_add_datum(calltree_expanded_builder(state), PG_GETARG_DATUM(1));
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}

/*
 * Two states of calltree_agg or calltree_merge: argument 1 comes flat from
 * a parallel worker or from a Citus worker's text, or expanded.
 */
Datum
calltree_agg_combinefn(PG_FUNCTION_ARGS)
{
	ExpandedCallTree *state;

	if (PG_ARGISNULL(1))
		return unchanged_state(fcinfo);
	state = tree_state(fcinfo, "calltree_agg_combinefn", "calltree_agg or calltree_merge");
	calltree_expanded_add_datum(calltree_expanded_builder(state), PG_GETARG_DATUM(1));
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}

/* The finished tree; a flat state is one already (a calltree value). */
Datum
calltree_agg_finalfn(PG_FUNCTION_ARGS)
{
	ExpandedCallTree *state;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	state = calltree_expanded_of(PG_GETARG_DATUM(0));
	if (state != NULL)
		PG_RETURN_CALLTREE_P(calltree_expanded_result(state));
	PG_RETURN_POINTER(PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0)));
}

/* As tree_state, for stack_agg's state */
static ExpandedStackWeights *
weights_state(FunctionCallInfo fcinfo, const char *function)
{
	ExpandedStackWeights *state;

	if (!PG_ARGISNULL(0))
	{
		state = stack_weights_expanded_rw(PG_GETARG_DATUM(0));
		if (likely(state != NULL))
			return state;
	}
	state = stack_weights_expanded_create(aggregate_context(fcinfo, function, "stack_agg"));
	if (!PG_ARGISNULL(0))
		stack_weights_add_datum(state->weights, PG_GETARG_DATUM(0));
	return state;
}

/* The per-row path of stack_agg */
static Datum
stack_agg_add(FunctionCallInfo fcinfo, int64 weight)
{
	ExpandedStackWeights *state;

	if (PG_ARGISNULL(1))
		return unchanged_state(fcinfo);
	state = weights_state(fcinfo, "stack_agg_transfn");
	stack_weights_add(state->weights, PG_GETARG_INT64(1), weight);
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}

/* stack_agg(stack_id bigint, weight bigint); a NULL weight skips the row */
Datum
stack_agg_transfn(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(2))
		return unchanged_state(fcinfo);
	return stack_agg_add(fcinfo, PG_GETARG_INT64(2));
}

Datum
stack_agg_transfn_unit(PG_FUNCTION_ARGS)
{
	return stack_agg_add(fcinfo, 1);
}

/*
 * The call site's scratch for samples_stack_sums, in the memory of the
 * call site (the query's): the columns of every value read there reuse it.
 */
static SamplesScratch *
call_site_scratch(FunctionCallInfo fcinfo)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;

	if (flinfo->fn_extra == NULL)
	{
		SamplesScratch *scratch = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(SamplesScratch));

		scratch->context = flinfo->fn_mcxt;
		flinfo->fn_extra = scratch;
	}
	return (SamplesScratch *) flinfo->fn_extra;
}

/*
 * stack_agg(samples): a packed value's weights summed per distinct stack,
 * read from its stack and weight columns only, then added to the state
 * once per stack rather than once per sample.
 */
Datum
stack_agg_samples_transfn(PG_FUNCTION_ARGS)
{
	ExpandedStackWeights *state;
	struct varlena *value;
	int64	   *ids;
	int64	   *sums;
	int64		count;

	if (PG_ARGISNULL(1))
		return unchanged_state(fcinfo);
	state = weights_state(fcinfo, "stack_agg_samples_transfn");
	value = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(1));
	count = samples_stack_sums((const uint8 *) VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value),
							   call_site_scratch(fcinfo), &ids, &sums);
	stack_weights_add_pairs(state->weights, ids, sums, count);
	pfree(ids);
	pfree(sums);
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}

Datum
stack_agg_combinefn(PG_FUNCTION_ARGS)
{
	ExpandedStackWeights *state;

	if (PG_ARGISNULL(1))
		return unchanged_state(fcinfo);
	state = weights_state(fcinfo, "stack_agg_combinefn");
	stack_weights_add_datum(state->weights, PG_GETARG_DATUM(1));
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}

/*
 * The tree: every distinct stack resolved to its node once.  Stacks are
 * taken in id order, so that a stack's prefixes (smaller ids) tend to be
 * resolved just before it, and so that any error names the same stack
 * whatever the state's layout.
 */
Datum
stack_agg_finalfn(PG_FUNCTION_ARGS)
{
	const int64 *ids;
	const int64 *sums;
	int64		n;
	TreeBuilder *builder;
	StackResolver *resolver;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	n = stack_weights_pairs(PG_GETARG_DATUM(0), &ids, &sums);

	builder = tree_builder_create(CurrentMemoryContext);
	resolver = stack_resolver_begin(builder);
	stack_resolver_preload(resolver, n);
	for (int64 i = 0; i < n; i++)
		tree_builder_add_self(builder, stack_resolver_node(resolver, ids[i]), sums[i]);
	stack_resolver_end(resolver);

	PG_RETURN_CALLTREE_P(tree_builder_finish(builder));
}

/*
 * samples_agg's state: the rows gathered so far, in the aggregate's
 * context.  Its size is bounded by SAMPLES_MAX rows, which is what one
 * value may hold.
 */
typedef struct SamplesState
{
	Sample	   *samples;
	int64		count;
	int64		capacity;
} SamplesState;

static Sample *
samples_state_next(SamplesState *state)
{
	if (state->count == state->capacity)
	{
		if (state->capacity >= SAMPLES_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("too many samples for one samples value"),
					 errdetail("A samples value holds at most " INT64_FORMAT " samples.", SAMPLES_MAX),
					 errhint("Pack a large set into several values, for example GROUP BY thread or by batches of rows.")));
		state->capacity = Min(state->capacity * 2, SAMPLES_MAX);
		state->samples = repalloc_huge(state->samples, sizeof(Sample) * (Size) state->capacity);
	}
	return &state->samples[state->count++];
}

/*
 * samples_agg(stack_id, weight [, ts [, labels_id]]): a NULL time or label
 * set is a sample without one; a sample without a stack or a weight is an
 * error, as it is in the sample table.
 */
Datum
samples_agg_transfn(PG_FUNCTION_ARGS)
{
	SamplesState *state;
	Sample	   *sample;

	if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("samples_agg: a sample needs a stack id and a weight"),
				 errdetail("The %s is NULL.", PG_ARGISNULL(1) ? "stack id" : "weight"),
				 errhint("Filter out the rows without one, or give them a weight with coalesce().")));
	if (PG_ARGISNULL(0))
	{
		MemoryContext aggcxt = aggregate_context(fcinfo, "samples_agg_transfn", "samples_agg");

		state = MemoryContextAlloc(aggcxt, sizeof(SamplesState));
		state->capacity = 16;
		state->count = 0;
		state->samples = MemoryContextAlloc(aggcxt, sizeof(Sample) * state->capacity);
	}
	else
		state = (SamplesState *) PG_GETARG_POINTER(0);
	sample = samples_state_next(state);
	sample->stack_id = PG_GETARG_INT64(1);
	sample->weight = PG_GETARG_INT64(2);
	sample->has_ts = PG_NARGS() > 3 && !PG_ARGISNULL(3);
	sample->ts = sample->has_ts ? PG_GETARG_INT64(3) : 0;
	sample->has_labels = PG_NARGS() > 4 && !PG_ARGISNULL(4);
	sample->labels_id = sample->has_labels ? PG_GETARG_INT64(4) : 0;
	PG_RETURN_POINTER(state);
}

/*
 * The packed value.  Packing sorts the gathered rows in place, which
 * leaves the same multiset in the state: it may be finished again or take
 * more rows, so the final function counts as read-only.
 */
Datum
samples_agg_finalfn(PG_FUNCTION_ARGS)
{
	SamplesState *state;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	state = (SamplesState *) PG_GETARG_POINTER(0);
	PG_RETURN_POINTER(samples_encode(state->samples, state->count));
}

/*
 * Version 0.1 declared these aggregates with states of type internal,
 * handed between parallel workers through serialize and deserialize
 * functions.  Its install script still names them (an update from 0.1
 * starts from it), and a database not yet updated runs its aggregates
 * with this library: the states are the same expanded objects, so these
 * four only flatten a state into a bytea and expand it back.
 */
PG_FUNCTION_INFO_V1(calltree_agg_serialfn);
PG_FUNCTION_INFO_V1(calltree_agg_deserialfn);
PG_FUNCTION_INFO_V1(stack_agg_serialfn);
PG_FUNCTION_INFO_V1(stack_agg_deserialfn);

Datum
calltree_agg_serialfn(PG_FUNCTION_ARGS)
{
	ExpandedCallTree *state = calltree_expanded_of(PG_GETARG_DATUM(0));

	aggregate_context(fcinfo, "calltree_agg_serialfn", "calltree_agg or calltree_merge");
	if (state == NULL)
		PG_RETURN_POINTER(PG_DETOAST_DATUM_COPY(PG_GETARG_DATUM(0)));
	PG_RETURN_CALLTREE_P(calltree_expanded_result(state));
}

Datum
calltree_agg_deserialfn(PG_FUNCTION_ARGS)
{
	ExpandedCallTree *state;
	CallTree   *tree = DatumGetCallTreeP(PG_GETARG_DATUM(0));

	calltree_check_header(tree, VARSIZE(tree));
	state = calltree_expanded_create(aggregate_context(fcinfo, "calltree_agg_deserialfn",
													   "calltree_agg or calltree_merge"));
	tree_builder_add_tree(state->builder, tree);
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}

Datum
stack_agg_serialfn(PG_FUNCTION_ARGS)
{
	Datum		state = PG_GETARG_DATUM(0);
	Size		size;
	void	   *flat;

	aggregate_context(fcinfo, "stack_agg_serialfn", "stack_agg");
	if (stack_weights_expanded_of(state) == NULL)
		PG_RETURN_POINTER(PG_DETOAST_DATUM_COPY(state));
	size = EOH_get_flat_size(DatumGetEOHP(state));
	flat = palloc_extended(size, MCXT_ALLOC_HUGE);
	EOH_flatten_into(DatumGetEOHP(state), flat, size);
	PG_RETURN_POINTER(flat);
}

Datum
stack_agg_deserialfn(PG_FUNCTION_ARGS)
{
	ExpandedStackWeights *state =
		stack_weights_expanded_create(aggregate_context(fcinfo, "stack_agg_deserialfn", "stack_agg"));

	stack_weights_add_datum(state->weights, PG_GETARG_DATUM(0));
	PG_RETURN_DATUM(EOHPGetRWDatum(&state->hdr));
}
