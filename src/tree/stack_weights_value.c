/*
 * stack_weights_value.c
 *	  The stack_weights value (stack_weights.h): its flat form, and the
 *	  expanded object an aggregate keeps its state in.  No fmgr functions
 *	  here; the type's input and output are in stack_weights_io.c.
 *
 * An aggregate's state lives in the aggregate's memory context from the
 * first row to the last.  As an expanded object whose context is a child of
 * that one, the transition function updates it in place and returns the
 * same read-write pointer, which the executor (and Citus, on a worker)
 * keeps without copying.  The flat form is made only when the state leaves
 * the process: a parallel worker's state going to the leader, a Citus
 * worker's printed for the coordinator, a value stored in a table.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "tree/stack_weights.h"

static Size stack_weights_get_flat_size(ExpandedObjectHeader *eohptr);
static void stack_weights_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size);

static const ExpandedObjectMethods stack_weights_methods = {
	stack_weights_get_flat_size,
	stack_weights_flatten_into
};

/* A zeroed flat value for `count` pairs, with its header filled in */
FlatStackWeights *
stack_weights_new_flat(int32 count)
{
	Size		size = stack_weights_flat_size(count);
	FlatStackWeights *flat = palloc_extended(size, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	SET_VARSIZE(flat, size);
	flat->version = STACK_WEIGHTS_VERSION;
	flat->count = count;
	return flat;
}

/*
 * Checks that `size` bytes hold a flat value of our format: the version,
 * the count against the size, ids strictly ascending.  For values from
 * outside this process, so it trusts nothing.
 */
void
stack_weights_check_flat(const FlatStackWeights *flat, Size size)
{
	bool		valid = size >= STACK_WEIGHTS_HEADER_SIZE &&
		flat->version == STACK_WEIGHTS_VERSION &&
		flat->count >= 0 && flat->count <= STACK_WEIGHTS_MAX &&
		stack_weights_flat_size(flat->count) == size;

	if (valid)
	{
		const int64 *ids = flat_stack_ids(flat);

		for (int32 i = 1; valid && i < flat->count; i++)
			valid = ids[i - 1] < ids[i];
	}
	if (!valid)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid stack_weights value"),
				 errdetail("Version %d, %d stacks in %zu bytes, or stack ids out of order.",
						   flat->version, flat->count, size)));
}

/* A new, empty expanded value in a context of its own below `parent` */
ExpandedStackWeights *
stack_weights_expanded_create(MemoryContext parent)
{
	/* small at first: a hash aggregation keeps one per group */
	MemoryContext cxt = AllocSetContextCreate(parent, "stack_weights", ALLOCSET_START_SMALL_SIZES);
	ExpandedStackWeights *expanded = MemoryContextAlloc(cxt, sizeof(ExpandedStackWeights));

	EOH_init_header(&expanded->hdr, &stack_weights_methods, cxt);
	expanded->weights = stack_weights_create(cxt);
	return expanded;
}

/* The expanded value a datum points to (read-write or read-only), or NULL */
ExpandedStackWeights *
stack_weights_expanded_of(Datum d)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	return eoh->eoh_methods == &stack_weights_methods ? (ExpandedStackWeights *) eoh : NULL;
}

/* The expanded value a read-write pointer points to, or NULL */
ExpandedStackWeights *
stack_weights_expanded_rw(Datum d)
{
	if (!VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
		return NULL;
	return stack_weights_expanded_of(d);
}

/* The number of pairs of an expanded value, which must fit in a flat one */
static int32
expanded_count(const ExpandedStackWeights *expanded)
{
	int64		count = stack_weights_count(expanded->weights);

	if (count > STACK_WEIGHTS_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("stack_weights value of " INT64_FORMAT " stacks is too large", count),
				 errdetail("A stack_weights value holds at most %d stacks.", STACK_WEIGHTS_MAX),
				 errhint("Aggregate fewer profiles at a time, or run the aggregate without parallel workers.")));
	return (int32) count;
}

static Size
stack_weights_get_flat_size(ExpandedObjectHeader *eohptr)
{
	return stack_weights_flat_size(expanded_count((ExpandedStackWeights *) eohptr));
}

static void
stack_weights_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	ExpandedStackWeights *expanded = (ExpandedStackWeights *) eohptr;
	FlatStackWeights *flat = result;
	int32		count = expanded_count(expanded);

	Assert(allocated_size == stack_weights_flat_size(count));
	memset(flat, 0, STACK_WEIGHTS_HEADER_SIZE);
	SET_VARSIZE(flat, allocated_size);
	flat->version = STACK_WEIGHTS_VERSION;
	flat->count = count;
	stack_weights_sorted(expanded->weights, flat_stack_ids(flat), flat_stack_sums(flat));
}

/* Adds the sums of a stack_weights datum, flat or expanded. */
void
stack_weights_add_datum(StackWeights *weights, Datum d)
{
	ExpandedStackWeights *expanded = stack_weights_expanded_of(d);
	FlatStackWeights *flat;

	if (expanded)
	{
		stack_weights_add_all(weights, expanded->weights);
		return;
	}
	flat = (FlatStackWeights *) PG_DETOAST_DATUM(d);
	stack_weights_check_flat(flat, VARSIZE(flat));
	stack_weights_add_pairs(weights, flat_stack_ids(flat), flat_stack_sums(flat), flat->count);
}

int64
stack_weights_pairs(Datum d, const int64 **ids, const int64 **sums)
{
	ExpandedStackWeights *expanded = stack_weights_expanded_of(d);
	FlatStackWeights *flat;

	if (expanded)
	{
		int32		count = expanded_count(expanded);
		int64	   *sorted_ids = palloc_extended(sizeof(int64) * Max(count, 1), MCXT_ALLOC_HUGE);
		int64	   *sorted_sums = palloc_extended(sizeof(int64) * Max(count, 1), MCXT_ALLOC_HUGE);

		stack_weights_sorted(expanded->weights, sorted_ids, sorted_sums);
		*ids = sorted_ids;
		*sums = sorted_sums;
		return count;
	}
	flat = (FlatStackWeights *) PG_DETOAST_DATUM(d);
	stack_weights_check_flat(flat, VARSIZE(flat));
	*ids = flat_stack_ids(flat);
	*sums = flat_stack_sums(flat);
	return flat->count;
}
