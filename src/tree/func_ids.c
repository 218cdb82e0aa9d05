/*
 * func_ids.c
 *	  Sorted sets of func ids (func_ids.h), one order for every sort
 *	  and search of them.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "tree/func_ids.h"

/*
 * The sort of a tree's func ids, one per node: millions for a large tree,
 * a second or more of sorting, so it answers a cancel as it goes.
 */
#define ST_SORT sort_func_ids
#define ST_ELEMENT_TYPE int32
#define ST_COMPARE(a, b) ((*(a) > *(b)) - (*(a) < *(b)))
#define ST_CHECK_FOR_INTERRUPTS
#define ST_SCOPE static
#define ST_DECLARE
#define ST_DEFINE
#include "lib/sort_template.h"

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

	sort_func_ids(ids, n);
	for (int32 i = 0; i < n; i++)
	{
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (distinct == 0 || ids[distinct - 1] != ids[i])
			ids[distinct++] = ids[i];
	}
	return distinct;
}

int32
func_ids_find(const int32 *ids, int32 n, int32 func)
{
	const int32 *found = bsearch(&func, ids, n, sizeof(int32), func_id_compare);

	return found ? (int32) (found - ids) : -1;
}
