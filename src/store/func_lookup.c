/*
 * func_lookup.c
 *	  Look-ups in calltree.func for what SQL arguments name (store.h):
 *	  funcs by name, ids it does not hold, representatives by key.
 *
 * The queries qualify every operator and function, so that they mean the
 * same whatever the caller's search_path.  Results are copied into the
 * caller's memory context: SPI_finish frees what was allocated while
 * connected.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "tree/path.h"
#include "tree/func_ids.h"
#include "store/store.h"

/* Runs a read-only query of one argument; SPI must be connected. */
static void
run_query(const char *query, Oid argtype, Datum arg)
{
	int			ret = SPI_execute_with_args(query, 1, &argtype, &arg, NULL, true, 0);

	if (ret != SPI_OK_SELECT)
		elog(ERROR, "looking up calltree.func failed: %s", SPI_result_code_string(ret));
}

/* int4 column `column` of SPI result row `row` (never NULL in these queries) */
static int32
int4_column(uint64 row, int column)
{
	bool		isnull;

	return DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc,
									   column, &isnull));
}

int32 *
func_lookup_by_name(const char *name, int32 *count)
{
	int32	   *ids;

	SPI_connect();
	run_query("SELECT id FROM calltree.func WHERE name OPERATOR(pg_catalog.=) $1 ORDER BY id",
			  TEXTOID, CStringGetTextDatum(name));
	ids = SPI_palloc(sizeof(int32) * Max(SPI_processed, 1));
	for (uint64 row = 0; row < SPI_processed; row++)
		ids[row] = int4_column(row, 1);
	*count = (int32) SPI_processed;
	SPI_finish();
	return ids;
}

int32 *
func_lookup_missing(const int32 *ids, int32 n, int32 *count)
{
	int32	   *missing;

	*count = 0;
	if (n == 0)
		return NULL;
	SPI_connect();
	run_query("SELECT DISTINCT u.id FROM pg_catalog.unnest($1) AS u(id) "
			  "WHERE NOT EXISTS (SELECT FROM calltree.func f WHERE f.id OPERATOR(pg_catalog.=) u.id) "
			  "ORDER BY u.id",
			  INT4ARRAYOID, PointerGetDatum(int4_array(ids, n)));
	missing = SPI_palloc(sizeof(int32) * Max(SPI_processed, 1));
	for (uint64 row = 0; row < SPI_processed; row++)
		missing[row] = int4_column(row, 1);
	*count = (int32) SPI_processed;
	SPI_finish();
	return missing;
}

/*
 * Per func of the argument that calltree.func holds, the smallest id of
 * its name (and file): a probe of the name's index per func.  A NULL file
 * groups with NULL files.
 */
static const char *const representative_queries[] = {
	[FUNC_KEY_NAME] =
	"SELECT f.id, (SELECT pg_catalog.min(g.id) FROM calltree.func g "
	"               WHERE g.name OPERATOR(pg_catalog.=) f.name) "
	"  FROM calltree.func f WHERE f.id OPERATOR(pg_catalog.=) ANY ($1)",
	[FUNC_KEY_NAME_FILE] =
	"SELECT f.id, (SELECT pg_catalog.min(g.id) FROM calltree.func g "
	"               WHERE g.name OPERATOR(pg_catalog.=) f.name "
	"                 AND (g.file OPERATOR(pg_catalog.=) f.file OR (g.file IS NULL AND f.file IS NULL))) "
	"  FROM calltree.func f WHERE f.id OPERATOR(pg_catalog.=) ANY ($1)",
};

void
func_lookup_representatives(const int32 *ids, int32 n, FuncKey key, int32 *representative)
{
	memcpy(representative, ids, sizeof(int32) * n);
	if (n == 0)
		return;
	SPI_connect();
	run_query(representative_queries[key], INT4ARRAYOID, PointerGetDatum(int4_array(ids, n)));
	for (uint64 row = 0; row < SPI_processed; row++)
	{
		int32		index = func_ids_find(ids, n, int4_column(row, 1));

		if ((row & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (index >= 0)
			representative[index] = int4_column(row, 2);
	}
	SPI_finish();
}
