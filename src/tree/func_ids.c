/*
 * func_ids.c
 *	  Sorted sets of func ids (func_ids.h), one comparison for every sort
 *	  and search of them.
 */
#include "postgres.h"

#include "tree/func_ids.h"

int
func_id_compare(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return (x > y) - (x < y);
}

int32
func_ids_sort_distinct(int32 *ids, int32 n)
{
	int32		distinct = 0;

	qsort(ids, n, sizeof(int32), func_id_compare);
	for (int32 i = 0; i < n; i++)
		if (distinct == 0 || ids[distinct - 1] != ids[i])
			ids[distinct++] = ids[i];
	return distinct;
}

int32
func_ids_find(const int32 *ids, int32 n, int32 func)
{
	const int32 *found = bsearch(&func, ids, n, sizeof(int32), func_id_compare);

	return found ? (int32) (found - ids) : -1;
}
