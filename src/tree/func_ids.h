/*
 * func_ids.h
 *	  Sorted sets of func ids: the order, sorting without duplicates, and
 *	  finding an id (func_ids.c).
 *
 * The func names of a tree, the funcs a transform names and the funcs that
 * symbolication keeps are each such a set, searched by binary search.
 */
#ifndef CALLTREE_FUNC_IDS_H
#define CALLTREE_FUNC_IDS_H

#include "postgres.h"

/* qsort and bsearch order of int32 func ids, ascending */
extern int	func_id_compare(const void *a, const void *b);

/* Sorts ids[0 .. n) and removes duplicates: returns how many remain */
extern int32 func_ids_sort_distinct(int32 *ids, int32 n);

/* The index of `func` in the sorted ids[0 .. n), or -1 */
extern int32 func_ids_find(const int32 *ids, int32 n, int32 func);

#endif							/* CALLTREE_FUNC_IDS_H */
