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

#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "tree/calltree.h"
#include "tree/builder.h"
#include "tree/hash64.h"
#include "tree/path.h"
#include "query/stack_resolve.h"

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
 *
 * Stack ids come from a sequence, so a profile's ids are usually compact:
 * then the weights live in an array indexed by id, one cache miss per row
 * at most and no hashing (this is the per-row path of stack_agg).  A state
 * starts as a hash table and moves to the array once its ids prove compact
 * (a range at most four times their number), which also bounds its memory;
 * ids that stray far from the array's range go to a hash table again.
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

#define DENSE_MAX_SLOTS		(INT64CONST(64) * 1024 * 1024)

typedef struct StackWeights
{
	MemoryContext cxt;
	/* the array: ids base .. base + capacity - 1 */
	int64		base;
	int64		capacity;		/* 0: no array */
	int64	   *dense_weight;
	bool	   *dense_seen;
	int64		dense_count;
	/* the ids outside it */
	stackweights_hash *hash;
	int64		hash_min;
	int64		hash_max;
	uint32		next_check;		/* hash size at which to try the array */
} StackWeights;

static StackWeights *
stack_weights_create(MemoryContext cxt)
{
	StackWeights *weights = MemoryContextAllocZero(cxt, sizeof(StackWeights));

	weights->cxt = cxt;
	weights->next_check = 1024;
	return weights;
}

static int64
stack_weights_count(const StackWeights *weights)
{
	return weights->dense_count + (weights->hash ? weights->hash->members : 0);
}

/* whether ids over [lo, hi] are compact enough for the array */
static bool
compact_range(const StackWeights *weights, int64 lo, int64 hi)
{
	int64		slots = hi - lo + 1;

	return slots > 0 && slots <= DENSE_MAX_SLOTS &&
		slots <= 4 * (stack_weights_count(weights) + 1) + 4096;
}

/* Makes the array cover [lo, hi] (with room to grow), keeping its entries. */
static void
dense_cover(StackWeights *weights, int64 lo, int64 hi)
{
	int64		capacity = Min(Max(hi - lo + 1 + (hi - lo + 1) / 4, weights->capacity * 2), DENSE_MAX_SLOTS);
	int64	   *dense_weight = MemoryContextAllocExtended(weights->cxt, sizeof(int64) * capacity,
														  MCXT_ALLOC_HUGE);
	bool	   *dense_seen = MemoryContextAllocExtended(weights->cxt, sizeof(bool) * capacity,
													   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int64		base = (hi - lo + 1 < capacity && weights->capacity > 0 && lo < weights->base)
		? hi - capacity + 1 : lo;	/* growing downwards: room below */

	if (weights->capacity > 0)
	{
		int64		shift = weights->base - base;

		memcpy(dense_weight + shift, weights->dense_weight, sizeof(int64) * weights->capacity);
		memcpy(dense_seen + shift, weights->dense_seen, sizeof(bool) * weights->capacity);
		pfree(weights->dense_weight);
		pfree(weights->dense_seen);
	}
	weights->base = base;
	weights->capacity = capacity;
	weights->dense_weight = dense_weight;
	weights->dense_seen = dense_seen;
}

static inline void
dense_add(StackWeights *weights, int64 slot, int64 weight)
{
	if (weights->dense_seen[slot])
		weights->dense_weight[slot] = calltree_add_weight(weights->dense_weight[slot], weight);
	else
	{
		weights->dense_seen[slot] = true;
		weights->dense_weight[slot] = weight;
		weights->dense_count++;
	}
}

/* Moves the hash table's entries into the array, when they are compact. */
static void
try_dense(StackWeights *weights)
{
	int64		lo = weights->hash_min;
	int64		hi = weights->hash_max;
	stackweights_iterator it;
	StackWeight *entry;

	if (weights->capacity > 0)
	{
		lo = Min(lo, weights->base);
		hi = Max(hi, weights->base + weights->capacity - 1);
	}
	if (!compact_range(weights, lo, hi))
		return;
	dense_cover(weights, lo, hi);
	stackweights_start_iterate(weights->hash, &it);
	while ((entry = stackweights_iterate(weights->hash, &it)) != NULL)
		dense_add(weights, entry->stack_id - weights->base, entry->weight);
	stackweights_destroy(weights->hash);
	weights->hash = NULL;
}

static void
stack_weights_add(StackWeights *weights, int64 stack_id, int64 weight)
{
	bool		found;
	StackWeight *entry;

	if (weights->capacity > 0)
	{
		int64		slot = stack_id - weights->base;

		if (slot >= 0 && slot < weights->capacity)
		{
			dense_add(weights, slot, weight);
			return;
		}
		if (compact_range(weights, Min(stack_id, weights->base),
						  Max(stack_id, weights->base + weights->capacity - 1)))
		{
			dense_cover(weights, Min(stack_id, weights->base),
						Max(stack_id, weights->base + weights->capacity - 1));
			dense_add(weights, stack_id - weights->base, weight);
			return;
		}
	}
	if (weights->hash == NULL)
	{
		weights->hash = stackweights_create(weights->cxt, 1024, NULL);
		weights->hash_min = weights->hash_max = stack_id;
	}
	entry = stackweights_insert(weights->hash, stack_id, &found);
	entry->weight = found ? calltree_add_weight(entry->weight, weight) : weight;
	weights->hash_min = Min(weights->hash_min, stack_id);
	weights->hash_max = Max(weights->hash_max, stack_id);
	if (weights->hash->members >= weights->next_check)
	{
		weights->next_check += weights->next_check / 4;
		try_dense(weights);
	}
}

static int
compare_stack_weights(const void *a, const void *b)
{
	int64		x = ((const StackWeight *) a)->stack_id;
	int64		y = ((const StackWeight *) b)->stack_id;

	return (x > y) - (x < y);
}

/* All (id, weight) pairs, in id order; the array's are in order already. */
static StackWeight *
stack_weights_sorted(const StackWeights *weights, int64 *count)
{
	StackWeight *pairs = palloc_extended(sizeof(StackWeight) * Max(stack_weights_count(weights), 1),
										 MCXT_ALLOC_HUGE);
	int64		n = 0;

	for (int64 slot = 0; slot < weights->capacity; slot++)
		if (weights->dense_seen[slot])
		{
			pairs[n].stack_id = weights->base + slot;
			pairs[n].weight = weights->dense_weight[slot];
			n++;
		}
	if (weights->hash)
	{
		stackweights_iterator it;
		StackWeight *entry;

		stackweights_start_iterate(weights->hash, &it);
		while ((entry = stackweights_iterate(weights->hash, &it)) != NULL)
			pairs[n++] = *entry;
		qsort(pairs, n, sizeof(StackWeight), compare_stack_weights);
	}
	*count = n;
	return pairs;
}

static Datum
stack_agg_add(FunctionCallInfo fcinfo, int64 weight)
{
	StackWeights *weights = PG_ARGISNULL(0) ? NULL : (StackWeights *) PG_GETARG_POINTER(0);

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
	StackWeights *state = PG_ARGISNULL(0) ? NULL : (StackWeights *) PG_GETARG_POINTER(0);
	StackWeights *other = PG_ARGISNULL(1) ? NULL : (StackWeights *) PG_GETARG_POINTER(1);
	StackWeight *pairs;
	int64		count;

	if (other == NULL)
	{
		if (state == NULL)
			PG_RETURN_NULL();
		PG_RETURN_POINTER(state);
	}
	if (state == NULL)
		state = stack_weights_create(aggcxt);
	pairs = stack_weights_sorted(other, &count);
	for (int64 i = 0; i < count; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		stack_weights_add(state, pairs[i].stack_id, pairs[i].weight);
	}
	pfree(pairs);
	PG_RETURN_POINTER(state);
}

/* Serialized: a bytea of (stack id, weight) pairs in native byte order. */
Datum
stack_agg_serialfn(PG_FUNCTION_ARGS)
{
	StackWeights *weights = (StackWeights *) PG_GETARG_POINTER(0);
	int64		count;
	StackWeight *pairs;
	Size		size;
	bytea	   *result;
	int64	   *out;

	aggregate_context(fcinfo, "stack_agg_serialfn");
	pairs = stack_weights_sorted(weights, &count);
	size = VARHDRSZ + (Size) count * 2 * sizeof(int64);
	result = palloc_extended(size, MCXT_ALLOC_HUGE);
	out = (int64 *) VARDATA(result);
	SET_VARSIZE(result, size);
	for (int64 i = 0; i < count; i++)
	{
		*out++ = pairs[i].stack_id;
		*out++ = pairs[i].weight;
	}
	pfree(pairs);
	PG_RETURN_BYTEA_P(result);
}

Datum
stack_agg_deserialfn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt = aggregate_context(fcinfo, "stack_agg_deserialfn");
	bytea	   *data = PG_GETARG_BYTEA_P(0);
	Size		count = VARSIZE(data) - VARHDRSZ;
	const char *in = VARDATA(data);
	StackWeights *weights = stack_weights_create(aggcxt);

	if (count % (2 * sizeof(int64)) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid stack_agg state of %zu bytes", count)));
	count /= 2 * sizeof(int64);
	for (Size i = 0; i < count; i++)
	{
		int64		pair[2];

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		memcpy(pair, in + i * sizeof(pair), sizeof(pair));
		stack_weights_add(weights, pair[0], pair[1]);
	}
	PG_RETURN_POINTER(weights);
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
	StackWeights *weights;
	StackWeight *sorted;
	TreeBuilder *builder;
	StackResolver *resolver;
	int64		n;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	weights = (StackWeights *) PG_GETARG_POINTER(0);
	sorted = stack_weights_sorted(weights, &n);

	builder = tree_builder_create(CurrentMemoryContext);
	resolver = stack_resolver_begin(builder);
	stack_resolver_preload(resolver, n);
	for (int64 i = 0; i < n; i++)
		tree_builder_add_self(builder, stack_resolver_node(resolver, sorted[i].stack_id),
							  sorted[i].weight);
	stack_resolver_end(resolver);

	PG_RETURN_CALLTREE_P(tree_builder_finish(builder));
}
