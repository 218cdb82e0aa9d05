/*
 * func_names.c
 *	  What calltree.func says about the funcs of a tree (store.h): for
 *	  nodes() and every exporter.
 *
 * One query fetches every row (WHERE id = ANY($1) over the tree's distinct
 * func ids), so naming a tree's funcs costs one round trip to calltree.func
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
#include "tree/func_ids.h"
#include "store/store.h"

/* What calltree.func holds of one func; NULL where it holds nothing */
typedef struct FuncRow
{
	const char *name;
	const char *file;
	const char *resource;
} FuncRow;

struct FuncNames
{
	int32		count;
	int32	   *ids;			/* sorted, distinct */
	FuncRow    *rows;			/* rows[i] for ids[i] */
};

/* The distinct func ids of a tree, sorted; their number in *count. */
static int32 *
distinct_funcs(const CallTree *tree, int32 *count)
{
	int32		n = tree->nnodes;
	int32	   *ids = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);

	memcpy(ids, calltree_func(tree), sizeof(int32) * n);
	*count = func_ids_sort_distinct(ids, n);
	return ids;
}

/* The index of a func among the tree's distinct funcs (sorted), or -1 */
int32
func_names_index(const FuncNames *names, int32 func)
{
	return func_ids_find(names->ids, names->count, func);
}

/* A text column of an SPI row, copied into `cxt`; NULL stays NULL */
static const char *
text_column(HeapTuple tuple, TupleDesc desc, int column, MemoryContext cxt)
{
	bool		isnull;
	Datum		value = SPI_getbinval(tuple, desc, column, &isnull);
	MemoryContext old;
	char	   *copy;

	if (isnull)
		return NULL;
	old = MemoryContextSwitchTo(cxt);
	copy = TextDatumGetCString(value);
	MemoryContextSwitchTo(old);
	return copy;
}

/* Fills names->rows from the rows of calltree.func that SPI holds */
static void
take_func_rows(FuncNames *names, MemoryContext cxt)
{
	TupleDesc	desc = SPI_tuptable->tupdesc;

	for (uint64 row = 0; row < SPI_processed; row++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[row];
		bool		isnull;
		int32		id = DatumGetInt32(SPI_getbinval(tuple, desc, 1, &isnull));
		int32		index = func_names_index(names, id);

		if ((row & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (index < 0)
			continue;
		names->rows[index].name = text_column(tuple, desc, 2, cxt);
		names->rows[index].file = text_column(tuple, desc, 3, cxt);
		names->rows[index].resource = text_column(tuple, desc, 4, cxt);
	}
}

/*
 * The rows of names->ids, fetched in one query.  They are copied into the
 * caller's memory context: SPI_finish frees everything that was allocated
 * while connected.
 */
static FuncNames *
fetch_func_rows(FuncNames *names)
{
	MemoryContext caller_cxt = CurrentMemoryContext;
	Oid			argtypes[1] = {INT4ARRAYOID};
	Datum		args[1];
	int			ret;

	names->rows = palloc_extended(sizeof(FuncRow) * Max(names->count, 1),
								  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	if (names->count == 0)
		return names;

	args[0] = PointerGetDatum(int4_array(names->ids, names->count));
	SPI_connect();
	/*
	 * A join with the ids rather than = ANY ($1): the planner estimates = ANY
	 * element by element, which for the millions of funcs of a large tree
	 * takes seconds that no cancel interrupts.
	 */
	ret = SPI_execute_with_args("SELECT f.id, f.name, f.file, f.resource "
								"FROM pg_catalog.unnest($1) AS u(id) "
								"JOIN calltree.func f ON f.id OPERATOR(pg_catalog.=) u.id",
								1, argtypes, args, NULL, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "fetching func names failed: %s", SPI_result_code_string(ret));
	take_func_rows(names, caller_cxt);
	SPI_finish();
	return names;
}

FuncNames *
func_names_fetch(const CallTree *tree)
{
	FuncNames  *names = palloc0(sizeof(FuncNames));

	names->ids = distinct_funcs(tree, &names->count);
	return fetch_func_rows(names);
}

FuncNames *
func_names_fetch_funcs(const int32 *funcs, int32 count)
{
	FuncNames  *names = palloc0(sizeof(FuncNames));

	names->ids = palloc_extended(sizeof(int32) * Max(count, 1), MCXT_ALLOC_HUGE);
	memcpy(names->ids, funcs, sizeof(int32) * count);
	names->count = func_ids_sort_distinct(names->ids, count);
	return fetch_func_rows(names);
}

static const FuncRow *
func_row(const FuncNames *names, int32 func)
{
	int32		index = func_names_index(names, func);

	return index < 0 ? NULL : &names->rows[index];
}

const char *
func_names_get(const FuncNames *names, int32 func)
{
	const FuncRow *row = func_row(names, func);

	return row ? row->name : NULL;
}

const char *
func_names_file(const FuncNames *names, int32 func)
{
	const FuncRow *row = func_row(names, func);

	return row ? row->file : NULL;
}

const char *
func_names_resource(const FuncNames *names, int32 func)
{
	const FuncRow *row = func_row(names, func);

	return row ? row->resource : NULL;
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
