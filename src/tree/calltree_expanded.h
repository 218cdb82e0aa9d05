/*
 * calltree_expanded.h
 *	  A calltree value as an expanded object: a tree builder (builder.h) in
 *	  a memory context of its own.  It is the state of calltree_agg and
 *	  calltree_merge (calltree_expanded.c).
 *
 * An aggregate keeps its state in the aggregate's memory context from the
 * first row to the last.  As an expanded object whose context is a child
 * of that one, the transition function adds each row to the builder in
 * place and returns the same read-write pointer, which the executor (and
 * Citus, on a worker) keeps without copying.  Flattening the object gives
 * the stored tree the builder finishes into, in canonical order: it is
 * made only when the state leaves the process (a parallel worker's state
 * going to the leader, a Citus worker's printed for the coordinator), and
 * then it is exactly the calltree the final function would return.
 *
 * Every reader of a calltree detoasts its argument, which flattens an
 * expanded one, so an expanded tree is a calltree to all of them.
 */
#ifndef CALLTREE_EXPANDED_H
#define CALLTREE_EXPANDED_H

#include "postgres.h"

#include "utils/expandeddatum.h"

#include "tree/builder.h"
#include "tree/calltree.h"

typedef struct ExpandedCallTree
{
	ExpandedObjectHeader hdr;
	TreeBuilder *builder;
	CallTree   *flat;			/* the finished tree, once asked for; NULL when stale */
} ExpandedCallTree;

extern ExpandedCallTree *calltree_expanded_create(MemoryContext parent);
extern ExpandedCallTree *calltree_expanded_of(Datum d);
extern ExpandedCallTree *calltree_expanded_rw(Datum d);
extern void calltree_expanded_add_datum(TreeBuilder *builder, Datum d);
extern CallTree *calltree_expanded_finish(ExpandedCallTree *expanded);
extern CallTree *calltree_expanded_result(const ExpandedCallTree *expanded);

/* The builder, to add to: the finished tree kept so far is stale then. */
static inline TreeBuilder *
calltree_expanded_builder(ExpandedCallTree *expanded)
{
	if (unlikely(expanded->flat != NULL))
	{
		pfree(expanded->flat);
		expanded->flat = NULL;
	}
	return expanded->builder;
}

#endif							/* CALLTREE_EXPANDED_H */
