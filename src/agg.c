/*
 * agg.c
 *	  The aggregates: calltree_agg, calltree_merge and stack_agg, each with
 *	  transition, combine, serialize, deserialize and final functions.
 *
 * calltree_agg and calltree_merge share one state, a TreeBuilder.
 *
 * stack_agg is the fast path over calltree.sample: its transition only sums
 * weights per stack id in a hash table; the final function resolves each
 * distinct stack to its func path once (stack_resolve.c).  Sums are exact
 * int64 arithmetic with overflow checks, so any split of the input (parallel
 * workers, shards) gives the same tree.
 *
 * States live in the aggregate's memory context; per-row work allocates
 * nothing that outlives the row.
 */
#include "postgres.h"

#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "calltree.h"

PG_FUNCTION_INFO_V1(calltree_agg_transfn);
PG_FUNCTION_INFO_V1(calltree_agg_transfn_unit);
PG_FUNCTION_INFO_V1(calltree_merge_transfn);
PG_FUNCTION_INFO_V1(calltree_agg_combinefn);
PG_FUNCTION_INFO_V1(calltree_agg_serialfn);
PG_FUNCTION_INFO_V1(calltree_agg_deserialfn);
PG_FUNCTION_INFO_V1(calltree_agg_finalfn);
PG_FUNCTION_INFO_V1(stack_agg_transfn);
PG_FUNCTION_INFO_V1(stack_agg_transfn_unit);
PG_FUNCTION_INFO_V1(stack_agg_combinefn);
PG_FUNCTION_INFO_V1(stack_agg_serialfn);
PG_FUNCTION_INFO_V1(stack_agg_deserialfn);
PG_FUNCTION_INFO_V1(stack_agg_finalfn);

static MemoryContext
aggregate_context(FunctionCallInfo fcinfo, const char *name)
{
	MemoryContext aggcxt;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "%s called in non-aggregate context", name);
	return aggcxt;
}

/*
 * The transition functions check their context only when they make the
 * state: a state of type internal cannot come from anywhere but the
 * aggregate, and the check is not free on a per-row path.
 */
static Datum
calltree_agg_add(FunctionCallInfo fcinfo, int64 weight)
{
	TreeBuilder *builder = PG_ARGISNULL(0) ? NULL : (TreeBuilder *) PG_GETARG_POINTER(0);
	const int32 *funcs;
	int32		len;

	if (PG_ARGISNULL(1))
		goto skip;
	funcs = path_argument(PG_GETARG_ARRAYTYPE_P(1), "func path", &len);
	if (len == 0)
		goto skip;
	if (builder == NULL)
		builder = tree_builder_create(aggregate_context(fcinfo, "calltree_agg_transfn"));
	tree_builder_add_path(builder, funcs, len, weight);

skip:
	if (builder == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(builder);
}

/* calltree_agg(path int4[], weight bigint); a NULL weight skips the row */
Datum
calltree_agg_transfn(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(2))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
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
	MemoryContext aggcxt = aggregate_context(fcinfo, "calltree_merge_transfn");
	TreeBuilder *builder = PG_ARGISNULL(0) ? NULL : (TreeBuilder *) PG_GETARG_POINTER(0);

	if (!PG_ARGISNULL(1))
	{
		if (builder == NULL)
			builder = tree_builder_create(aggcxt);
		tree_builder_add_tree(builder, PG_GETARG_CALLTREE_P(1));
	}
	if (builder == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(builder);
}

Datum
calltree_agg_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = aggregate_context(fcinfo, "calltree_agg_combinefn");
	TreeBuilder *state = PG_ARGISNULL(0) ? NULL : (TreeBuilder *) PG_GETARG_POINTER(0);
	TreeBuilder *other = PG_ARGISNULL(1) ? NULL : (TreeBuilder *) PG_GETARG_POINTER(1);

	if (other == NULL)
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	if (state == NULL)
		state = tree_builder_create(aggcxt);
	tree_builder_add_builder(state, other);
	PG_RETURN_POINTER(state);
}

/* A state travels as a stored calltree: it is a valid bytea as it is. */
Datum
calltree_agg_serialfn(PG_FUNCTION_ARGS)
{
	TreeBuilder *builder = (TreeBuilder *) PG_GETARG_POINTER(0);

	aggregate_context(fcinfo, "calltree_agg_serialfn");
	PG_RETURN_POINTER(tree_builder_finish(builder));
}

Datum
calltree_agg_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = aggregate_context(fcinfo, "calltree_agg_deserialfn");
	CallTree   *tree = (CallTree *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	TreeBuilder *builder = tree_builder_create(aggcxt);

	calltree_check_header(tree, VARSIZE(tree));
	tree_builder_add_tree(builder, tree);
	PG_RETURN_POINTER(builder);
}

Datum
calltree_agg_finalfn(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	PG_RETURN_CALLTREE_P(tree_builder_finish((TreeBuilder *) PG_GETARG_POINTER(0)));
}

/*
 * stack_agg state: stack id -> summed weight.
 */
typedef struct StackWeight
{
	int64		stack_id;
	int64		weight;
	char		status;
} StackWeight;

#define SH_PREFIX		stackweights
#define SH_ELEMENT_TYPE StackWeight
#define SH_KEY_TYPE		int64
#define SH_KEY			stack_id
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

static stackweights_hash *
stack_weights_create(MemoryContext aggcxt)
{
	return stackweights_create(aggcxt, 1024, NULL);
}

static void
stack_weights_add(stackweights_hash *weights, int64 stack_id, int64 weight)
{
	bool		found;
	StackWeight *entry = stackweights_insert(weights, stack_id, &found);

	entry->weight = found ? calltree_add_weight(entry->weight, weight) : weight;
}

static Datum
stack_agg_add(FunctionCallInfo fcinfo, int64 weight)
{
	stackweights_hash *weights = PG_ARGISNULL(0) ? NULL : (stackweights_hash *) PG_GETARG_POINTER(0);

	if (!PG_ARGISNULL(1))
	{
		if (weights == NULL)
			weights = stack_weights_create(aggregate_context(fcinfo, "stack_agg_transfn"));
		stack_weights_add(weights, PG_GETARG_INT64(1), weight);
	}
	if (weights == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(weights);
}

/* stack_agg(stack_id bigint, weight bigint); a NULL weight skips the row */
Datum
stack_agg_transfn(PG_FUNCTION_ARGS)
{
	if (PG_ARGISNULL(2))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	}
	return stack_agg_add(fcinfo, PG_GETARG_INT64(2));
}

Datum
stack_agg_transfn_unit(PG_FUNCTION_ARGS)
{
	return stack_agg_add(fcinfo, 1);
}

Datum
stack_agg_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = aggregate_context(fcinfo, "stack_agg_combinefn");
	stackweights_hash *state = PG_ARGISNULL(0) ? NULL : (stackweights_hash *) PG_GETARG_POINTER(0);
	stackweights_hash *other = PG_ARGISNULL(1) ? NULL : (stackweights_hash *) PG_GETARG_POINTER(1);
	stackweights_iterator it;
	StackWeight *entry;

	if (other == NULL)
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	if (state == NULL)
		state = stack_weights_create(aggcxt);
	stackweights_start_iterate(other, &it);
	while ((entry = stackweights_iterate(other, &it)) != NULL)
		stack_weights_add(state, entry->stack_id, entry->weight);
	PG_RETURN_POINTER(state);
}

/* Serialized: a bytea of (stack id, weight) pairs in native byte order. */
Datum
stack_agg_serialfn(PG_FUNCTION_ARGS)
{
	stackweights_hash *weights = (stackweights_hash *) PG_GETARG_POINTER(0);
	Size		size = VARHDRSZ + (Size) weights->members * 2 * sizeof(int64);
	bytea	   *result = palloc_extended(size, MCXT_ALLOC_HUGE);
	int64	   *out = (int64 *) VARDATA(result);
	stackweights_iterator it;
	StackWeight *entry;

	aggregate_context(fcinfo, "stack_agg_serialfn");
	SET_VARSIZE(result, size);
	stackweights_start_iterate(weights, &it);
	while ((entry = stackweights_iterate(weights, &it)) != NULL)
	{
		*out++ = entry->stack_id;
		*out++ = entry->weight;
	}
	PG_RETURN_BYTEA_P(result);
}

Datum
stack_agg_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = aggregate_context(fcinfo, "stack_agg_deserialfn");
	bytea	   *data = PG_GETARG_BYTEA_P(0);
	Size		count = VARSIZE(data) - VARHDRSZ;
	const char *in = VARDATA(data);
	stackweights_hash *weights = stack_weights_create(aggcxt);

	if (count % (2 * sizeof(int64)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid stack_agg state of %zu bytes", count)));
	count /= 2 * sizeof(int64);
	for (Size i = 0; i < count; i++)
	{
		int64		pair[2];

		memcpy(pair, in + i * sizeof(pair), sizeof(pair));
		stack_weights_add(weights, pair[0], pair[1]);
	}
	PG_RETURN_POINTER(weights);
}

static int
compare_stack_weights(const void *a, const void *b)
{
	int64		x = ((const StackWeight *) a)->stack_id;
	int64		y = ((const StackWeight *) b)->stack_id;

	return (x > y) - (x < y);
}

/*
 * The tree: every distinct stack resolved to its node once.  Stacks are
 * taken in id order, so that a stack's prefixes (smaller ids) tend to be
 * resolved just before it, and so that any error names the same stack
 * whatever the hash table's order.
 */
Datum
stack_agg_finalfn(PG_FUNCTION_ARGS)
{
	stackweights_hash *weights;
	StackWeight *sorted;
	StackWeight *entry;
	stackweights_iterator it;
	TreeBuilder *builder;
	StackResolver *resolver;
	uint32		n = 0;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	weights = (stackweights_hash *) PG_GETARG_POINTER(0);

	sorted = palloc_extended(sizeof(StackWeight) * Max(weights->members, 1), MCXT_ALLOC_HUGE);
	stackweights_start_iterate(weights, &it);
	while ((entry = stackweights_iterate(weights, &it)) != NULL)
		sorted[n++] = *entry;
	qsort(sorted, n, sizeof(StackWeight), compare_stack_weights);

	builder = tree_builder_create(CurrentMemoryContext);
	resolver = stack_resolver_begin(builder);
	stack_resolver_preload(resolver, n);
	for (uint32 i = 0; i < n; i++)
		tree_builder_add_self(builder, stack_resolver_node(resolver, sorted[i].stack_id),
							  sorted[i].weight);
	stack_resolver_end(resolver);

	PG_RETURN_CALLTREE_P(tree_builder_finish(builder));
}
