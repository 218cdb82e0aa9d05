/*
 * func_lookup.h
 *	  What SQL arguments name in calltree.func: the funcs of a name, the
 *	  ids it does not hold, and one representative func per name (or per
 *	  name and file) for unifying the funcs of several builds
 *	  (func_lookup.c).
 *
 * Each look-up is one query, whatever the number of ids, and runs with the
 * caller's privileges and row security on calltree.func: a func the caller
 * cannot see is a func that does not exist.
 */
#ifndef CALLTREE_FUNC_LOOKUP_H
#define CALLTREE_FUNC_LOOKUP_H

#include "postgres.h"

/* The ids of the funcs named exactly `name`, sorted; their number in *count */
extern int32 *func_lookup_by_name(const char *name, int32 *count);

/*
 * The ids among ids[0 .. n) that calltree.func does not hold, sorted and
 * distinct; their number in *count (0 when it holds them all).
 */
extern int32 *func_lookup_missing(const int32 *ids, int32 n, int32 *count);

/* How unify_funcs() groups funcs */
typedef enum FuncKey
{
	FUNC_KEY_NAME,				/* one func per name */
	FUNC_KEY_NAME_FILE			/* one func per name and file */
} FuncKey;

/*
 * For each of the sorted, distinct ids[0 .. n), the smallest id of
 * calltree.func with the same key, written to representative[i].  An id
 * that calltree.func does not hold is its own representative.
 */
extern void func_lookup_representatives(const int32 *ids, int32 n, FuncKey key,
										int32 *representative);

#endif							/* CALLTREE_FUNC_LOOKUP_H */
