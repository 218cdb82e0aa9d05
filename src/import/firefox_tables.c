/*
 * firefox_tables.c
 *	  The tables of a Firefox Profiler profile in either layout, its string
 *	  tables, and the error of a malformed profile.
 *
 * A Gecko table is {"schema": {"prefix": 0, "frame": 1}, "data": [[null,
 * 0], ...]}, rows of cells placed by the schema; a processed table is
 * {"prefix": [null, ...], "frame": [0, ...], "length": n}, one array per
 * column.  The accessor here hides the two, so that the frame, stack and
 * sample passes are written once.  A row of a Gecko table may be shorter
 * than its schema: the cells past its end are null.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"

#include "formats/json_reader.h"
#include "import/firefox_profile.h"

static const char *
format_name(const FirefoxImport *imp)
{
	return imp->format == FORMAT_GECKO ? "Gecko" : "processed";
}

/*
 * Raises the error for a malformed profile: the message says what is wrong,
 * the detail where (thread, table, row).
 */
void
firefox_malformed(const FirefoxImport *imp, const char *table, int64 row, const char *fmt,...)
{
	char		what[512];
	va_list		args;
	char	   *where;

	va_start(args, fmt);
	vsnprintf(what, sizeof(what), fmt, args);
	va_end(args);
	if (imp->thread_index < 0)
		where = psprintf("At the profile's top level%s%s.",
						 table ? ", in " : "", table ? table : "");
	else if (row >= 0)
		where = psprintf("In thread %d (\"%s\"), %s row " INT64_FORMAT ".",
						 imp->thread_index, imp->thread_name ? imp->thread_name : "?",
						 table, row);
	else
		where = psprintf("In thread %d (\"%s\")%s%s.",
						 imp->thread_index, imp->thread_name ? imp->thread_name : "?",
						 table ? ", " : "", table ? table : "");
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("malformed Firefox %s profile: %s", format_name(imp), what),
			 errdetail_internal("%s", where),
			 errhint("import_firefox reads Gecko profiles as Firefox writes them and "
					 "profiles saved by profiler.firefox.com; the file may be truncated or damaged.")));
}

/* ---------------------------------------------------------------------
 * jsonb access
 * ---------------------------------------------------------------------
 */

const char *
firefox_type_name(const JsonbValue *v)
{
	return v == NULL ? "nothing" : json_value_type_name(v);
}

/* A member that must be an object or an array; an error naming it if not. */
JsonbContainer *
firefox_required_container(const FirefoxImport *imp, JsonbContainer *object, const char *key,
				   bool array, const char *where)
{
	JsonbValue *v = json_find_member(object, key);

	if (!json_is_container(v, array))
		firefox_malformed(imp, where, -1, "\"%s\" must be %s, found %s",
				  key, array ? "an array" : "an object", firefox_type_name(v));
	return v->val.binary.data;
}

/* ---------------------------------------------------------------------
 * Tables in either layout
 * ---------------------------------------------------------------------
 */

/* Opens table `name` of a thread (or, processed, of the shared object). */
void
firefox_table_open(const FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
		   const char *name, Table *table)
{
	JsonbValue *v = json_find_member(thread, name);

	if (v == NULL && shared != NULL)
		v = json_find_member(shared, name);
	if (!json_is_container(v, false))
		firefox_malformed(imp, name, -1, "table \"%s\" must be an object, found %s", name, firefox_type_name(v));
	memset(table, 0, sizeof(Table));
	table->name = name;
	table->object = v->val.binary.data;
	table->cached_row = -1;
	if (imp->format == FORMAT_GECKO)
	{
		table->data = firefox_required_container(imp, table->object, "data", true, name);
		table->nrows = JsonContainerSize(table->data);
		(void) firefox_required_container(imp, table->object, "schema", false, name);
	}
	else
	{
		double		length = json_optional_float8(table->object, "length");

		if (isnan(length))
			firefox_malformed(imp, name, -1, "\"length\" of %s must be a number", name);
		if (length < 0 || length > PG_INT32_MAX || length != floor(length))
			firefox_malformed(imp, name, -1, "\"length\" of %s is %g, not a row count", name, length);
		table->nrows = (int64) length;
	}
}

/* Finds a column; a required one that is missing is an error. */
Column
firefox_table_column(const FirefoxImport *imp, Table *table, const char *name, bool required)
{
	Column		col = {name, -1, NULL};

	if (imp->format == FORMAT_GECKO)
	{
		JsonbValue *v = json_find_member(firefox_required_container(imp, table->object, "schema", false, table->name),
								   name);

		if (v && v->type == jbvNumeric)
		{
			double		index = json_float8(v);

			if (index < 0 || index > 1000 || index != floor(index))
				firefox_malformed(imp, table->name, -1, "schema index of \"%s\" is %g", name, index);
			col.index = (int) index;
		}
		else if (v != NULL)
			firefox_malformed(imp, table->name, -1, "schema index of \"%s\" must be a number, found %s",
					  name, firefox_type_name(v));
	}
	else
	{
		JsonbValue *v = json_find_member(table->object, name);

		if (json_is_container(v, true))
		{
			col.array = v->val.binary.data;
			if (JsonContainerSize(col.array) < table->nrows)
				firefox_malformed(imp, table->name, -1, "column \"%s\" has %u entries, fewer than length " INT64_FORMAT,
						  name, JsonContainerSize(col.array), table->nrows);
		}
		else if (v != NULL && v->type != jbvNull)
			firefox_malformed(imp, table->name, -1, "column \"%s\" must be an array, found %s",
					  name, firefox_type_name(v));
	}
	if (required && col.index < 0 && col.array == NULL)
		firefox_malformed(imp, table->name, -1, "column \"%s\" is missing", name);
	return col;
}

bool
firefox_column_present(const Column *col)
{
	return col->index >= 0 || col->array != NULL;
}

/* The cell at (row, col); NULL when absent or JSON null. */
static JsonbValue *
table_cell(const FirefoxImport *imp, Table *table, const Column *col, int64 row)
{
	JsonbValue *v;

	if (col->array)
		v = getIthJsonbValueFromContainer(col->array, (uint32) row);
	else if (col->index >= 0)
	{
		if (table->cached_row != row)
		{
			JsonbValue *r = getIthJsonbValueFromContainer(table->data, (uint32) row);

			if (!json_is_container(r, true))
				firefox_malformed(imp, table->name, row, "a row must be an array, found %s", firefox_type_name(r));
			table->row_container = r->val.binary.data;
			table->cached_row = row;
		}
		/* Gecko rows may be shorter than the schema: the rest is null */
		if ((uint32) col->index >= JsonContainerSize(table->row_container))
			return NULL;
		v = getIthJsonbValueFromContainer(table->row_container, col->index);
	}
	else
		return NULL;
	return v && v->type == jbvNull ? NULL : v;
}

double
firefox_cell_number(const FirefoxImport *imp, Table *table, const Column *col, int64 row)
{
	JsonbValue *v = table_cell(imp, table, col, row);

	if (v == NULL)
		return NAN;
	if (v->type != jbvNumeric)
		firefox_malformed(imp, table->name, row, "\"%s\" must be a number, found %s", col->name, firefox_type_name(v));
	return json_float8(v);
}

/*
 * An index into something with `limit` entries, or -1 for null (and, where
 * `negative_is_null`, for the -1 the processed format uses for "none").
 */
int64
firefox_cell_index(const FirefoxImport *imp, Table *table, const Column *col, int64 row,
		   int64 limit, const char *target, bool negative_is_null)
{
	double		x = firefox_cell_number(imp, table, col, row);

	if (isnan(x) || (negative_is_null && x < 0))
		return -1;
	if (x != floor(x) || x < 0 || x >= (double) limit)
		firefox_malformed(imp, table->name, row, "\"%s\" is %g, not an index into %s (" INT64_FORMAT " entries)",
				  col->name, x, target, limit);
	return (int64) x;
}

/* An integer that fits int4 (lines, columns), or not present */
OptionalInt
firefox_cell_int4(const FirefoxImport *imp, Table *table, const Column *col, int64 row)
{
	double		x = firefox_cell_number(imp, table, col, row);

	if (isnan(x))
		return NO_INT;
	if (x != floor(x) || x < PG_INT32_MIN || x > PG_INT32_MAX)
		firefox_malformed(imp, table->name, row, "\"%s\" is %g, not an integer", col->name, x);
	return SOME_INT((int64) x);
}

/* ---------------------------------------------------------------------
 * Strings
 * ---------------------------------------------------------------------
 */

void
firefox_read_strings(const FirefoxImport *imp, JsonbContainer *array, const char *name, StringTable *st)
{
	st->count = JsonContainerSize(array);
	st->strings = palloc(sizeof(char *) * Max(st->count, 1));
	for (int64 i = 0; i < st->count; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(array, (uint32) i);

		if (v->type != jbvString)
			firefox_malformed(imp, name, i, "a string table entry must be a string, found %s", firefox_type_name(v));
		st->strings[i] = pnstrdup(v->val.string.val, v->val.string.len);
		pfree(v);
		if ((i & 0x3FFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/* A string-index cell: the string, or NULL for null */
const char *
firefox_cell_string(const FirefoxImport *imp, Table *table, const Column *col, int64 row,
			const StringTable *st)
{
	int64		i = firefox_cell_index(imp, table, col, row, st->count, "the string table", false);

	return i < 0 ? NULL : st->strings[i];
}

