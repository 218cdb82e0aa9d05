/*
 * calltree_expanded.c
 *	  The expanded calltree (calltree_expanded.h): a tree builder that the
 *	  aggregates add to in place, flattened into its finished tree.
 *
 * PostgreSQL asks for the flat size before it flattens, and asks twice when
 * it forms a tuple; the size of the finished tree is only known once the
 * builder has finished it, so the finished tree is kept (in the object's
 * context) until the builder changes again.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "tree/calltree_expanded.h"

static Size calltree_expanded_get_flat_size(ExpandedObjectHeader *eohptr);
static void calltree_expanded_flatten_into(ExpandedObjectHeader *eohptr, void *result,
										   Size allocated_size);

static const ExpandedObjectMethods calltree_expanded_methods = {
	calltree_expanded_get_flat_size,
	calltree_expanded_flatten_into
};

/* A new, empty expanded tree in a context of its own below `parent` */
ExpandedCallTree *
calltree_expanded_create(MemoryContext parent)
{
	/* small at first: a hash aggregation keeps one per group */
	MemoryContext cxt = AllocSetContextCreate(parent, "calltree", ALLOCSET_START_SMALL_SIZES);
	ExpandedCallTree *expanded = MemoryContextAlloc(cxt, sizeof(ExpandedCallTree));

	EOH_init_header(&expanded->hdr, &calltree_expanded_methods, cxt);
	expanded->builder = tree_builder_create(cxt);
	expanded->flat = NULL;
	return expanded;
}

/* The expanded tree a datum points to (read-write or read-only), or NULL */
ExpandedCallTree *
calltree_expanded_of(Datum d)
{
	ExpandedObjectHeader *eoh;

	if (!VARATT_IS_EXTERNAL_EXPANDED(DatumGetPointer(d)))
		return NULL;
	eoh = DatumGetEOHP(d);
	return eoh->eoh_methods == &calltree_expanded_methods ? (ExpandedCallTree *) eoh : NULL;
}

/* The expanded tree a read-write pointer points to, or NULL */
ExpandedCallTree *
calltree_expanded_rw(Datum d)
{
	if (!VARATT_IS_EXTERNAL_EXPANDED_RW(DatumGetPointer(d)))
		return NULL;
	return calltree_expanded_of(d);
}

/* Adds a calltree datum, flat or expanded, to a builder. */
void
calltree_expanded_add_datum(TreeBuilder *builder, Datum d)
{
	ExpandedCallTree *expanded = calltree_expanded_of(d);

	if (expanded)
		tree_builder_add_builder(builder, expanded->builder);
	else
		tree_builder_add_tree(builder, DatumGetCallTreeP(d));
}

/* The finished tree, kept in the object's context until the builder changes */
CallTree *
calltree_expanded_finish(ExpandedCallTree *expanded)
{
	if (expanded->flat == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(expanded->hdr.eoh_context);

		expanded->flat = tree_builder_finish(expanded->builder);
		MemoryContextSwitchTo(old);
	}
	return expanded->flat;
}

/* The finished tree in the current memory context, for a caller to keep */
CallTree *
calltree_expanded_result(const ExpandedCallTree *expanded)
{
	CallTree   *copy;

	if (expanded->flat == NULL)
		return tree_builder_finish(expanded->builder);
	copy = palloc_extended(VARSIZE(expanded->flat), MCXT_ALLOC_HUGE);
	memcpy(copy, expanded->flat, VARSIZE(expanded->flat));
	return copy;
}

static Size
calltree_expanded_get_flat_size(ExpandedObjectHeader *eohptr)
{
	return VARSIZE(calltree_expanded_finish((ExpandedCallTree *) eohptr));
}

static void
calltree_expanded_flatten_into(ExpandedObjectHeader *eohptr, void *result, Size allocated_size)
{
	CallTree   *flat = calltree_expanded_finish((ExpandedCallTree *) eohptr);

	Assert(allocated_size == VARSIZE(flat));
	memcpy(result, flat, allocated_size);
}
