/*
 * func_names.c
 *	  The names of a tree's funcs, for the exporters.
 *
 * One query fetches every name (WHERE id = ANY($1) over the tree's distinct
 * func ids), so exporting a tree costs one round trip to calltree.func
 * however many nodes it has.  Lookups are a binary search over the sorted
 * ids.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "tree/calltree.h"
#include "tree/path.h"
#include "store/func_names.h"

struct FuncNames
{
	int32		count;
	int32	   *ids;			/* sorted, distinct */
	char	  **names;			/* names[i] for ids[i]; NULL if unknown */
};

static int
compare_int32(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return (x > y) - (x < y);
}

/* The distinct func ids of a tree, sorted; their number in *count. */
static int32 *
distinct_funcs(const CallTree *tree, int32 *count)
{
	int32		n = tree->nnodes;
	int32	   *ids = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	int32		distinct = 0;

	memcpy(ids, calltree_func(tree), sizeof(int32) * n);
	qsort(ids, n, sizeof(int32), compare_int32);
	for (int32 i = 0; i < n; i++)
		if (distinct == 0 || ids[distinct - 1] != ids[i])
			ids[distinct++] = ids[i];
	*count = distinct;
	return ids;
}

/* The index of a func among the tree's distinct funcs (sorted), or -1 */
int32
func_names_index(const FuncNames *names, int32 func)
{
	const int32 *found = bsearch(&func, names->ids, names->count, sizeof(int32),
								 compare_int32);

	return found ? (int32) (found - names->ids) : -1;
}

/*
 * The names are copied into the caller's memory context: SPI_finish frees
 * everything that was allocated while connected.
 */
FuncNames *
func_names_fetch(const CallTree *tree)
{
	MemoryContext caller_cxt = CurrentMemoryContext;
	FuncNames  *names = palloc0(sizeof(FuncNames));
	Oid			argtypes[1] = {INT4ARRAYOID};
	Datum		args[1];
	int			ret;

	names->ids = distinct_funcs(tree, &names->count);
	names->names = palloc_extended(sizeof(char *) * Max(names->count, 1),
								   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	if (names->count == 0)
		return names;

	args[0] = PointerGetDatum(int4_array(names->ids, names->count));
	SPI_connect();
	ret = SPI_execute_with_args("SELECT id, name FROM calltree.func WHERE id OPERATOR(pg_catalog.=) ANY ($1)",
								1, argtypes, args, NULL, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "fetching func names failed: %s", SPI_result_code_string(ret));

	for (uint64 row = 0; row < SPI_processed; row++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[row];
		bool		isnull;
		int32		id = DatumGetInt32(SPI_getbinval(tuple, SPI_tuptable->tupdesc, 1, &isnull));
		Datum		name = SPI_getbinval(tuple, SPI_tuptable->tupdesc, 2, &isnull);
		int32		index = func_names_index(names, id);
		MemoryContext old;

		if ((row & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (index < 0 || isnull)
			continue;
		old = MemoryContextSwitchTo(caller_cxt);
		names->names[index] = TextDatumGetCString(name);
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return names;
}

const char *
func_names_get(const FuncNames *names, int32 func)
{
	int32		index = func_names_index(names, func);

	return index < 0 ? NULL : names->names[index];
}

/* The number of distinct funcs of the tree */
int32
func_names_count(const FuncNames *names)
{
	return names->count;
}

/* The func at an index of func_names_index() */
int32
func_names_id(const FuncNames *names, int32 index)
{
	return names->ids[index];
}
