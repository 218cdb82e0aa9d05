/*
 * import_firefox.c
 *	  Firefox Profiler profiles: the Gecko format (what Firefox writes, also
 *	  wrapped in a DevTools "Recorded Performance Data" file) and the
 *	  processed format (what profiler.firefox.com saves).
 *
 * Both formats hold, per thread, a string table and three tables that map
 * onto calltree's almost one to one: a frame table, a stack table whose rows
 * are (prefix row, frame row) with the prefix always an earlier row, and a
 * samples table of (stack row, time, optional weight).  They differ in how a
 * table is laid out and where funcs come from:
 *
 *	Gecko:		{"schema": {"prefix": 0, "frame": 1}, "data": [[null, 0], ...]}
 *				funcs are implied by each frame's location string,
 *				"name (file:line)", "name (in lib)", "0x1a2b" or a bare name;
 *				sub-processes are nested profiles in "processes", their
 *				times relative to their own meta.startTime.
 *	processed:	{"prefix": [null, ...], "frame": [0, ...], "length": n}
 *				frames point into a funcTable (name, fileName, resource),
 *				strings live in shared.stringArray (or per thread in older
 *				versions), samples have "time" or "timeDeltas" and maybe
 *				"weight".
 *
 * The text is checked with PostgreSQL's JSON parser first, so a syntax error
 * names its byte offset, then converted to jsonb and walked with
 * findJsonbValueFromContainer / getIthJsonbValueFromContainer.  A table is
 * read through a small accessor that hides the two layouts, so the frame,
 * stack and sample passes are shared.  Every structural problem is an ERROR
 * naming the format, the thread, the table and the row.
 */
#include "postgres.h"

#include <math.h>

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "formats/json_reader.h"
#include "module.h"
#include "import/importer.h"

PG_FUNCTION_INFO_V1(calltree_import_firefox);

static void check_json_syntax(char *data, int len, const char *inside);

/* The hint of errors in the JSON itself */
#define DAMAGED_HINT "The file may be truncated or damaged."

/* Times beyond this many ms (about 285 years) cannot become int64 ns. */
#define MAX_ABS_MS 9.0e12

typedef enum FirefoxFormat
{
	FORMAT_GECKO,
	FORMAT_PROCESSED
} FirefoxFormat;

/* A shared library of a Gecko process: where its code was mapped */
typedef struct GeckoLib
{
	double		start;
	double		end;
	char	   *name;
} GeckoLib;

/* What an import is doing now, for error messages, and its output. */
typedef struct FirefoxImport
{
	ProfileWriter *writer;
	FirefoxFormat format;
	MemoryContext main_cxt;		/* lives for the whole import */
	MemoryContext row_cxt;		/* reset after each row */
	/*
	 * Reset after each Gecko thread: the thread's tables, and the jsonb of a
	 * thread written as a JSON string, whose reading was measured against
	 * calltree.import_work_mem alone and must not add up over the threads
	 */
	MemoryContext thread_cxt;
	int			thread_index;	/* -1 outside threads */
	const char *thread_name;
	bool		multi_process;
	double		start_time;		/* meta.startTime of the outermost profile */
	const char *weight_unit;	/* NULL until a thread says */
	int64		skipped;		/* samples without a stack */
	GeckoLib   *libs;			/* the current Gecko process's libraries */
	int			nlibs;
	int64	   *shared_stacks;	/* processed: stacks of the shared tables */
	int64		shared_nstacks;
} FirefoxImport;

/* A column of a table: a schema index (Gecko) or an array (processed). */
typedef struct Column
{
	const char *name;
	int			index;			/* Gecko; -1 if absent */
	JsonbContainer *array;		/* processed; NULL if absent */
} Column;

typedef struct Table
{
	const char *name;
	JsonbContainer *data;		/* Gecko: the "data" array of rows */
	JsonbContainer *object;		/* the table object itself */
	int64		nrows;
	int64		cached_row;		/* Gecko: the row in row_container */
	JsonbContainer *row_container;
} Table;

static const char *
format_name(const FirefoxImport *imp)
{
	return imp->format == FORMAT_GECKO ? "Gecko" : "processed";
}

/*
 * Raises the error for a malformed profile: the message says what is wrong,
 * the detail where (thread, table, row).
 */
static void
pg_attribute_noreturn()
pg_attribute_printf(4, 5)
malformed(const FirefoxImport *imp, const char *table, int64 row, const char *fmt,...)
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

static const char *
type_name(const JsonbValue *v)
{
	return v == NULL ? "nothing" : json_value_type_name(v);
}

/* A member that must be an object or an array; an error naming it if not. */
static JsonbContainer *
required_container(const FirefoxImport *imp, JsonbContainer *object, const char *key,
				   bool array, const char *where)
{
	JsonbValue *v = json_find_member(object, key);

	if (!json_is_container(v, array))
		malformed(imp, where, -1, "\"%s\" must be %s, found %s",
				  key, array ? "an array" : "an object", type_name(v));
	return v->val.binary.data;
}

/* ---------------------------------------------------------------------
 * Tables in either layout
 * ---------------------------------------------------------------------
 */

/* Opens table `name` of a thread (or, processed, of the shared object). */
static void
table_open(const FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
		   const char *name, Table *table)
{
	JsonbValue *v = json_find_member(thread, name);

	if (v == NULL && shared != NULL)
		v = json_find_member(shared, name);
	if (!json_is_container(v, false))
		malformed(imp, name, -1, "table \"%s\" must be an object, found %s", name, type_name(v));
	memset(table, 0, sizeof(Table));
	table->name = name;
	table->object = v->val.binary.data;
	table->cached_row = -1;
	if (imp->format == FORMAT_GECKO)
	{
		table->data = required_container(imp, table->object, "data", true, name);
		table->nrows = JsonContainerSize(table->data);
		(void) required_container(imp, table->object, "schema", false, name);
	}
	else
	{
		double		length = json_optional_float8(table->object, "length");

		if (isnan(length))
			malformed(imp, name, -1, "\"length\" of %s must be a number", name);
		if (length < 0 || length > PG_INT32_MAX || length != floor(length))
			malformed(imp, name, -1, "\"length\" of %s is %g, not a row count", name, length);
		table->nrows = (int64) length;
	}
}

/* Finds a column; a required one that is missing is an error. */
static Column
table_column(const FirefoxImport *imp, Table *table, const char *name, bool required)
{
	Column		col = {name, -1, NULL};

	if (imp->format == FORMAT_GECKO)
	{
		JsonbValue *v = json_find_member(required_container(imp, table->object, "schema", false, table->name),
								   name);

		if (v && v->type == jbvNumeric)
		{
			double		index = json_float8(v);

			if (index < 0 || index > 1000 || index != floor(index))
				malformed(imp, table->name, -1, "schema index of \"%s\" is %g", name, index);
			col.index = (int) index;
		}
		else if (v != NULL)
			malformed(imp, table->name, -1, "schema index of \"%s\" must be a number, found %s",
					  name, type_name(v));
	}
	else
	{
		JsonbValue *v = json_find_member(table->object, name);

		if (json_is_container(v, true))
		{
			col.array = v->val.binary.data;
			if (JsonContainerSize(col.array) < table->nrows)
				malformed(imp, table->name, -1, "column \"%s\" has %u entries, fewer than length " INT64_FORMAT,
						  name, JsonContainerSize(col.array), table->nrows);
		}
		else if (v != NULL && v->type != jbvNull)
			malformed(imp, table->name, -1, "column \"%s\" must be an array, found %s",
					  name, type_name(v));
	}
	if (required && col.index < 0 && col.array == NULL)
		malformed(imp, table->name, -1, "column \"%s\" is missing", name);
	return col;
}

static bool
column_present(const Column *col)
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
				malformed(imp, table->name, row, "a row must be an array, found %s", type_name(r));
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

static double
cell_number(const FirefoxImport *imp, Table *table, const Column *col, int64 row)
{
	JsonbValue *v = table_cell(imp, table, col, row);

	if (v == NULL)
		return NAN;
	if (v->type != jbvNumeric)
		malformed(imp, table->name, row, "\"%s\" must be a number, found %s", col->name, type_name(v));
	return json_float8(v);
}

/*
 * An index into something with `limit` entries, or -1 for null (and, where
 * `negative_is_null`, for the -1 the processed format uses for "none").
 */
static int64
cell_index(const FirefoxImport *imp, Table *table, const Column *col, int64 row,
		   int64 limit, const char *target, bool negative_is_null)
{
	double		x = cell_number(imp, table, col, row);

	if (isnan(x) || (negative_is_null && x < 0))
		return -1;
	if (x != floor(x) || x < 0 || x >= (double) limit)
		malformed(imp, table->name, row, "\"%s\" is %g, not an index into %s (" INT64_FORMAT " entries)",
				  col->name, x, target, limit);
	return (int64) x;
}

/* An integer that fits int4 (lines, columns), or not present */
static OptionalInt
cell_int4(const FirefoxImport *imp, Table *table, const Column *col, int64 row)
{
	double		x = cell_number(imp, table, col, row);

	if (isnan(x))
		return NO_INT;
	if (x != floor(x) || x < PG_INT32_MIN || x > PG_INT32_MAX)
		malformed(imp, table->name, row, "\"%s\" is %g, not an integer", col->name, x);
	return SOME_INT((int64) x);
}

/* ---------------------------------------------------------------------
 * Strings
 * ---------------------------------------------------------------------
 */

typedef struct StringTable
{
	char	  **strings;
	int64		count;
} StringTable;

static void
read_strings(const FirefoxImport *imp, JsonbContainer *array, const char *name, StringTable *st)
{
	st->count = JsonContainerSize(array);
	st->strings = palloc(sizeof(char *) * Max(st->count, 1));
	for (int64 i = 0; i < st->count; i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(array, (uint32) i);

		if (v->type != jbvString)
			malformed(imp, name, i, "a string table entry must be a string, found %s", type_name(v));
		st->strings[i] = pnstrdup(v->val.string.val, v->val.string.len);
		pfree(v);
		if ((i & 0x3FFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/* A string-index cell: the string, or NULL for null */
static const char *
cell_string(const FirefoxImport *imp, Table *table, const Column *col, int64 row,
			const StringTable *st)
{
	int64		i = cell_index(imp, table, col, row, st->count, "the string table", false);

	return i < 0 ? NULL : st->strings[i];
}

/* ---------------------------------------------------------------------
 * Gecko location strings
 * ---------------------------------------------------------------------
 */

/* What a location string says about its func and frame */
typedef struct Location
{
	char	   *name;
	char	   *file;
	char	   *resource;
	OptionalInt address;
	OptionalInt line;
	OptionalInt col;
} Location;

/* Parses the digits in s[start, end) into *value; false if not all digits */
static bool
parse_digits(const char *s, int start, int end, int64 *value)
{
	int64		v = 0;

	if (end <= start || end - start > 9)
		return false;
	for (int i = start; i < end; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*value = v;
	return true;
}

/* "0x1a2b": an unsymbolicated address */
static bool
parse_address(const char *s, Location *loc)
{
	uint64		v = 0;
	int			len = strlen(s);

	if (len < 3 || len > 18 || s[0] != '0' || s[1] != 'x')
		return false;
	for (int i = 2; i < len; i++)
	{
		int			c = s[i];
		int			d = (c >= '0' && c <= '9') ? c - '0' :
			(c >= 'a' && c <= 'f') ? c - 'a' + 10 :
			(c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;

		if (d < 0)
			return false;
		v = v * 16 + d;
	}
	loc->address = SOME_INT((int64) v);
	return true;
}

/* The last occurrence of needle in s that starts before `before` (NULL: anywhere) */
static const char *
last_before(const char *s, const char *needle, const char *before)
{
	const char *last = NULL;

	for (const char *p = strstr(s, needle); p && (before == NULL || p < before); p = strstr(p + 1, needle))
		last = p;
	return last;
}

/* What may follow "(in library)": nothing, " + 123" or " (file:line)" */
static bool
cpp_suffix_ok(const char *rest)
{
	size_t		len = strlen(rest);

	if (len == 0)
		return true;
	if (strncmp(rest, " + ", 3) == 0)
		return len > 3 && strspn(rest + 3, "0123456789") == len - 3;
	return strncmp(rest, " (", 2) == 0 && rest[len - 1] == ')' && strchr(rest, ':') != NULL;
}

/*
 * "name (in library)", optionally followed by " + 123" or " (file:line)":
 * a C++ func of a library, the library as its resource.  The candidates
 * for " (in " are tried from the last one back, as the Firefox Profiler's
 * greedy regular expression does; a library name holds no ')'.
 */
static bool
parse_cpp(const char *s, Location *loc)
{
	static const char thunk[] = "non-virtual thunk to ";

	for (const char *in = last_before(s, " (in ", NULL); in; in = last_before(s, " (in ", in))
	{
		const char *lib = in + 5;
		const char *close = strchr(lib, ')');
		const char *name = s;

		if (in == s || close == NULL || !cpp_suffix_ok(close + 1))
			continue;
		if (strncmp(name, thunk, sizeof(thunk) - 1) == 0 && name + sizeof(thunk) - 1 < in)
			name += sizeof(thunk) - 1;
		loc->name = pnstrdup(name, in - name);
		loc->resource = pnstrdup(lib, close - lib);
		return true;
	}
	return false;
}

/* The origin (scheme://host) of web and extension URLs, else NULL */
static char *
url_origin(const char *url)
{
	static const char *const schemes[] = {"http://", "https://", "moz-extension://"};

	for (int i = 0; i < lengthof(schemes); i++)
	{
		int			n = strlen(schemes[i]);

		if (strncmp(url, schemes[i], n) == 0)
		{
			const char *end = url + n + strcspn(url + n, "/?#");

			return end > url + n ? pnstrdup(url, end - url) : NULL;
		}
	}
	return NULL;
}

/* The index of the last ':' in s[0, end), or -1 */
static int
last_colon(const char *s, int end)
{
	while (--end >= 0 && s[end] != ':')
		;
	return end;
}

/* Splits s[0, len), "file:line" or "file:line:col"; false without a line. */
static bool
split_file_line(const char *s, int len, Location *loc)
{
	int			colon = last_colon(s, len);
	int			colon2;
	int64		n;
	int64		m;
	char	   *file;
	char	   *arrow;

	if (colon <= 0 || !parse_digits(s, colon + 1, len, &n))
		return false;
	loc->line = SOME_INT(n);
	colon2 = last_colon(s, colon);
	if (colon2 > 0 && parse_digits(s, colon2 + 1, colon, &m))
	{
		loc->line = SOME_INT(m);
		loc->col = SOME_INT(n);
		colon = colon2;
	}
	file = pnstrdup(s, colon);
	/* a chain of loaders, "loader.js -> module.js": the code is in the last */
	while ((arrow = strstr(file, " -> ")) != NULL)
		file = arrow + 4;
	loc->file = file;
	loc->resource = url_origin(file);
	return true;
}

/*
 * "name (file:line)", "name (file:line:col)" or "file:line": a JS func.  As
 * in the Firefox Profiler, the name ends at the last " (", and a frame
 * without a name (a script's top level) is "(root scope) file".
 */
static bool
parse_js(const char *s, Location *loc)
{
	int			len = strlen(s);

	if (len > 0 && s[len - 1] == ')')
	{
		const char *open = last_before(s, " (", NULL);

		if (open == NULL || open == s ||
			!split_file_line(open + 2, len - (int) (open - s) - 3, loc))
			return false;
		loc->name = pnstrdup(s, open - s);
		return true;
	}
	if (!split_file_line(s, len, loc))
		return false;
	loc->name = psprintf("(root scope) %s", loc->file);
	return true;
}

/* A location string's func and frame; anything else is a bare name */
static void
parse_location(const char *s, Location *loc)
{
	memset(loc, 0, sizeof(Location));
	if (parse_address(s, loc))
		loc->name = pstrdup(s);
	else if (!parse_cpp(s, loc) && !parse_js(s, loc))
	{
		memset(loc, 0, sizeof(Location));
		loc->name = pstrdup(s);
	}
}

/* ---------------------------------------------------------------------
 * Frames, stacks and samples
 * ---------------------------------------------------------------------
 */

/*
 * An unsymbolicated address inside a known library becomes, as in the
 * Firefox Profiler, an offset into that library, which is its resource.
 */
static void
attribute_address(const FirefoxImport *imp, Location *loc)
{
	double		address = (double) (uint64) loc->address.value;

	for (int i = 0; i < imp->nlibs; i++)
	{
		const GeckoLib *lib = &imp->libs[i];

		if (address >= lib->start && address < lib->end)
		{
			loc->address = SOME_INT((int64) (address - lib->start));
			loc->resource = lib->name;
			return;
		}
	}
}

/* The "libs" of a Gecko profile: objects with start, end and a name */
static void
read_libs(FirefoxImport *imp, JsonbContainer *profile)
{
	JsonbContainer *libs = json_optional_container(profile, "libs", true);

	imp->nlibs = 0;
	if (libs == NULL)
		return;			/* absent, or a JSON string in old versions: no libs */
	imp->libs = palloc(sizeof(GeckoLib) * Max(JsonContainerSize(libs), 1));
	for (uint32 i = 0; i < JsonContainerSize(libs); i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(libs, i);
		JsonbValue *name;
		GeckoLib   *lib = &imp->libs[imp->nlibs];

		if (!json_is_container(v, false))
			malformed(imp, "libs", i, "a library must be an object, found %s", type_name(v));
		lib->start = json_optional_float8(v->val.binary.data, "start");
		lib->end = json_optional_float8(v->val.binary.data, "end");
		name = json_find_member(v->val.binary.data, "debugName");
		if (name == NULL || name->type != jbvString)
			name = json_find_member(v->val.binary.data, "name");
		if (isnan(lib->start) || isnan(lib->end) || name == NULL || name->type != jbvString)
			continue;			/* nothing to attribute addresses to */
		lib->name = pnstrdup(name->val.string.val, name->val.string.len);
		imp->nlibs++;
	}
}

/* A Gecko frame table: one calltree frame per row, funcs from locations */
static int64 *
gecko_frames(FirefoxImport *imp, JsonbContainer *thread, const StringTable *st, int64 *count)
{
	Table		t;
	Column		location,
				implementation,
				line,
				column;
	int64	   *frames;

	table_open(imp, thread, NULL, "frameTable", &t);
	location = table_column(imp, &t, "location", true);
	implementation = table_column(imp, &t, "implementation", false);
	line = table_column(imp, &t, "line", false);
	column = table_column(imp, &t, "column", false);
	frames = palloc(sizeof(int64) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		const char *where = cell_string(imp, &t, &location, row, st);
		const char *impl = cell_string(imp, &t, &implementation, row, st);
		OptionalInt frame_line = cell_int4(imp, &t, &line, row);
		OptionalInt frame_col = cell_int4(imp, &t, &column, row);
		Location	loc;
		int32		func;

		CHECK_FOR_INTERRUPTS();
		if (where == NULL)
			malformed(imp, t.name, row, "\"location\" must be a string index, found null");
		parse_location(where, &loc);
		if (loc.address.present)
			attribute_address(imp, &loc);
		func = profile_writer_func(imp->writer, loc.name, loc.file, loc.resource);
		/* the frame's own line and column win over the func's in the location */
		frames[row] = profile_writer_frame(imp->writer, func, loc.address,
										   frame_line.present ? frame_line : loc.line,
										   frame_col.present ? frame_col : loc.col, impl);
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->row_cxt);
	}
	*count = t.nrows;
	return frames;
}

/*
 * One string column of a processed table that may be absent (resourceTable,
 * sources): each row's string, NULL for none.
 */
static char **
processed_string_column(FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
						const char *table_name, const char *column_name,
						const StringTable *st, int64 *count)
{
	Table		t;
	Column		col;
	char	  **strings;

	*count = 0;
	if (json_find_member(thread, table_name) == NULL && json_find_member(shared, table_name) == NULL)
		return NULL;
	table_open(imp, thread, shared, table_name, &t);
	col = table_column(imp, &t, column_name, true);
	strings = palloc0(sizeof(char *) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		const char *s = cell_string(imp, &t, &col, row, st);

		strings[row] = s ? pstrdup(s) : NULL;
		if ((row & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	*count = t.nrows;
	return strings;
}

/* A func of a processed profile: its calltree id and its first line */
typedef struct ProcessedFunc
{
	int32		id;
	OptionalInt line;
	OptionalInt col;
} ProcessedFunc;

/* A processed func table: one calltree func per row */
static ProcessedFunc *
processed_funcs(FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
				const StringTable *st, int64 *count)
{
	Table		t;
	Column		name,
				file,
				source,
				resource,
				line,
				column;
	int64		nresources;
	int64		nsources = 0;
	char	  **resources = processed_string_column(imp, thread, shared, "resourceTable", "name",
													st, &nresources);
	char	  **sources = NULL;
	ProcessedFunc *funcs;

	table_open(imp, thread, shared, "funcTable", &t);
	name = table_column(imp, &t, "name", true);
	file = table_column(imp, &t, "fileName", false);
	resource = table_column(imp, &t, "resource", false);
	line = table_column(imp, &t, "lineNumber", false);
	column = table_column(imp, &t, "columnNumber", false);
	/* newer versions name files through a shared "sources" table */
	source = table_column(imp, &t, "source", false);
	if (!column_present(&file) && column_present(&source))
		sources = processed_string_column(imp, thread, shared, "sources", "filename", st, &nsources);
	funcs = palloc(sizeof(ProcessedFunc) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		const char *func_name = cell_string(imp, &t, &name, row, st);
		const char *file_name = cell_string(imp, &t, &file, row, st);
		int64		r = cell_index(imp, &t, &resource, row, nresources, "the resourceTable", true);

		if (sources != NULL)
		{
			int64		src = cell_index(imp, &t, &source, row, nsources, "the sources table", true);

			file_name = src >= 0 ? sources[src] : NULL;
		}

		CHECK_FOR_INTERRUPTS();
		if (func_name == NULL)
			malformed(imp, t.name, row, "\"name\" must be a string index, found null");
		funcs[row].line = cell_int4(imp, &t, &line, row);
		funcs[row].col = cell_int4(imp, &t, &column, row);
		funcs[row].id = profile_writer_func(imp->writer, func_name, file_name,
											r >= 0 ? resources[r] : NULL);
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->row_cxt);
	}
	*count = t.nrows;
	return funcs;
}

/* A processed frame table: frames of the funcs above */
static int64 *
processed_frames(FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
				 const StringTable *st, int64 *count)
{
	int64		nfuncs;
	ProcessedFunc *funcs = processed_funcs(imp, thread, shared, st, &nfuncs);
	Table		t;
	Column		func,
				address,
				line,
				column,
				implementation;
	int64	   *frames;

	table_open(imp, thread, shared, "frameTable", &t);
	func = table_column(imp, &t, "func", true);
	address = table_column(imp, &t, "address", false);
	line = table_column(imp, &t, "line", false);
	column = table_column(imp, &t, "column", false);
	implementation = table_column(imp, &t, "implementation", false);
	frames = palloc(sizeof(int64) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		int64		f = cell_index(imp, &t, &func, row, nfuncs, "the funcTable", false);
		double		addr = cell_number(imp, &t, &address, row);
		OptionalInt frame_line = cell_int4(imp, &t, &line, row);
		OptionalInt frame_col = cell_int4(imp, &t, &column, row);

		CHECK_FOR_INTERRUPTS();
		if (f < 0)
			malformed(imp, t.name, row, "\"func\" must be an index into the funcTable, found null");
		if (!isnan(addr) && (addr != floor(addr) || addr >= 9.2e18))
			malformed(imp, t.name, row, "\"address\" is %g, not an address", addr);
		/*
		 * The processed format says -1 for "no address".  As for Gecko
		 * frames, a frame without a line of its own gets its func's.
		 */
		frames[row] = profile_writer_frame(imp->writer, funcs[f].id,
										   isnan(addr) || addr < 0 ? NO_INT : SOME_INT((int64) addr),
										   frame_line.present ? frame_line : funcs[f].line,
										   frame_col.present ? frame_col : funcs[f].col,
										   cell_string(imp, &t, &implementation, row, st));
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->row_cxt);
	}
	*count = t.nrows;
	return frames;
}

/*
 * The stack table: row i is frame on top of prefix row, prefix < i, so one
 * pass in row order interns each stack after its prefix.
 */
static int64 *
read_stacks(FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
			const int64 *frames, int64 nframes, int64 *count)
{
	Table		t;
	Column		prefix,
				frame;
	int64	   *stacks;

	table_open(imp, thread, shared, "stackTable", &t);
	prefix = table_column(imp, &t, "prefix", true);
	frame = table_column(imp, &t, "frame", true);
	stacks = palloc(sizeof(int64) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		double		p = cell_number(imp, &t, &prefix, row);
		int64		f = cell_index(imp, &t, &frame, row, nframes, "the frameTable", false);

		CHECK_FOR_INTERRUPTS();
		if (f < 0)
			malformed(imp, t.name, row, "\"frame\" must be an index into the frameTable, found null");
		if (!isnan(p) && (p != floor(p) || p < 0 || p >= row))
			malformed(imp, t.name, row, "\"prefix\" is %g, not the index of an earlier row", p);
		stacks[row] = profile_writer_stack(imp->writer, isnan(p) ? 0 : stacks[(int64) p], frames[f]);
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->row_cxt);
	}
	*count = t.nrows;
	return stacks;
}

/* ms (relative to the profile start) to integer ns */
static int64
ms_to_ns(const FirefoxImport *imp, const Table *t, int64 row, const char *what, double ms)
{
	if (isnan(ms))
		malformed(imp, t->name, row, "\"%s\" is missing", what);
	if (fabs(ms) > MAX_ABS_MS)
		malformed(imp, t->name, row, "\"%s\" is %g, not a time in ms", what, ms);
	return (int64) llround(ms * 1.0e6);
}

/* The unit of sample weights: one per profile */
static void
set_weight_unit(FirefoxImport *imp, const char *weight_type)
{
	const char *unit;

	if (weight_type == NULL || strcmp(weight_type, "samples") == 0)
		unit = "samples";
	else if (strcmp(weight_type, "tracing-ms") == 0)
		unit = "nanoseconds";
	else if (strcmp(weight_type, "bytes") == 0)
		unit = "bytes";
	else
		malformed(imp, "samples", -1, "unknown weightType \"%s\"", weight_type);
	if (imp->weight_unit && strcmp(imp->weight_unit, unit) != 0)
		malformed(imp, "samples", -1, "weights in %s after weights in %s in an earlier thread",
				  unit, imp->weight_unit);
	imp->weight_unit = unit;
}

/* A sample's weight in the profile's unit; 1 when it has none. */
static int64
sample_weight(const FirefoxImport *imp, Table *t, const Column *weight, int64 row)
{
	double		w = cell_number(imp, t, weight, row);

	if (isnan(w))
		return 1;
	if (strcmp(imp->weight_unit, "nanoseconds") == 0)
		return ms_to_ns(imp, t, row, "weight", w);
	if (w != floor(w) || fabs(w) > 9.2e18)
		malformed(imp, t->name, row, "\"weight\" is %g, not an integer", w);
	return (int64) w;
}

/*
 * The samples table.  Times are ms relative to the profile start plus
 * `offset_ms` (a Gecko sub-process's start relative to the parent's); the
 * processed format may give "timeDeltas" instead, to be summed.
 */
static void
read_samples(FirefoxImport *imp, JsonbContainer *thread, const int64 *stacks,
			 int64 nstacks, double offset_ms, const char *thread_label)
{
	Table		t;
	Column		stack,
				time,
				deltas,
				weight;
	JsonbValue *wt;
	double		clock = 0;

	table_open(imp, thread, NULL, "samples", &t);
	stack = table_column(imp, &t, "stack", true);
	time = table_column(imp, &t, "time", false);
	deltas = table_column(imp, &t, "timeDeltas", false);
	weight = table_column(imp, &t, "weight", false);
	if (!column_present(&time) && !column_present(&deltas))
		malformed(imp, t.name, -1, "column \"time\" is missing");
	wt = json_find_member(t.object, "weightType");
	if (wt && wt->type != jbvNull && wt->type != jbvString)
		malformed(imp, t.name, -1, "\"weightType\" must be a string, found %s", type_name(wt));
	/* without weights, each sample counts 1 whatever weightType says */
	set_weight_unit(imp, wt && wt->type == jbvString && column_present(&weight) ?
					pnstrdup(wt->val.string.val, wt->val.string.len) : NULL);

	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		int64		s = cell_index(imp, &t, &stack, row, nstacks, "the stackTable", false);
		double		ms;

		CHECK_FOR_INTERRUPTS();
		if (column_present(&time))
			ms = cell_number(imp, &t, &time, row);
		else
			ms = clock += cell_number(imp, &t, &deltas, row);
		if (s < 0)
			imp->skipped++;		/* a sample with no stack: nothing to attribute */
		else
			profile_writer_sample(imp->writer, thread_label, true,
								  ms_to_ns(imp, &t, row, "time", ms + offset_ms),
								  stacks[s], sample_weight(imp, &t, &weight, row), 0);
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->row_cxt);
	}
}

/* "name", or "name (pid N)" when the profile has several processes */
static char *
thread_label(const FirefoxImport *imp, JsonbContainer *thread, const char *name)
{
	JsonbValue *pid = json_find_member(thread, "pid");
	char	   *pid_text = NULL;

	if (!imp->multi_process || pid == NULL)
		return pstrdup(name);
	if (pid->type == jbvString)
		pid_text = pnstrdup(pid->val.string.val, pid->val.string.len);
	else if (pid->type == jbvNumeric)
		pid_text = psprintf("%.0f", json_float8(pid));
	return pid_text ? psprintf("%s (pid %s)", name, pid_text) : pstrdup(name);
}

static const char *
thread_name(const FirefoxImport *imp, JsonbContainer *thread)
{
	JsonbValue *name = json_find_member(thread, "name");

	if (name == NULL || name->type != jbvString)
		malformed(imp, NULL, -1, "\"name\" must be a string, found %s", type_name(name));
	return pnstrdup(name->val.string.val, name->val.string.len);
}

/* The thread's own string table, or else the shared one */
static const StringTable *
thread_strings(FirefoxImport *imp, JsonbContainer *thread, const StringTable *shared_strings)
{
	JsonbContainer *own = json_optional_container(thread, "stringTable", true);
	StringTable *strings;

	if (own == NULL && imp->format == FORMAT_PROCESSED)
		own = json_optional_container(thread, "stringArray", true);
	if (own == NULL)
	{
		if (shared_strings == NULL)
			malformed(imp, NULL, -1, "the thread has no string table");
		return shared_strings;
	}
	strings = palloc(sizeof(StringTable));
	read_strings(imp, own, "stringTable", strings);
	return strings;
}

/* Whether a processed thread uses the tables of "shared" only */
static bool
uses_shared_tables(const FirefoxImport *imp, JsonbContainer *thread)
{
	static const char *const own_tables[] = {"stringTable", "stringArray", "stackTable",
	"frameTable", "funcTable", "resourceTable"};

	if (imp->format != FORMAT_PROCESSED)
		return false;
	for (int i = 0; i < lengthof(own_tables); i++)
		if (json_find_member(thread, own_tables[i]) != NULL)
			return false;
	return true;
}

/* One thread of either format; shared strings for the processed format. */
static void
import_thread(FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
			  const StringTable *shared_strings, double offset_ms)
{
	const StringTable *st;
	int64	   *frames;
	int64	   *stacks;
	int64		nframes;
	int64		nstacks;
	bool		shared_only = uses_shared_tables(imp, thread);

	imp->thread_name = NULL;	/* until known, errors say "?" */
	imp->thread_name = thread_name(imp, thread);
	st = thread_strings(imp, thread, shared_strings);
	if (shared_only && imp->shared_stacks)
	{
		/* the newest processed layout: threads share one set of tables */
		stacks = imp->shared_stacks;
		nstacks = imp->shared_nstacks;
	}
	else
	{
		if (imp->format == FORMAT_GECKO)
			frames = gecko_frames(imp, thread, st, &nframes);
		else
			frames = processed_frames(imp, thread, shared, st, &nframes);
		stacks = read_stacks(imp, thread, shared, frames, nframes, &nstacks);
		if (shared_only)
		{
			imp->shared_stacks = stacks;
			imp->shared_nstacks = nstacks;
		}
	}
	read_samples(imp, thread, stacks, nstacks, offset_ms,
				 thread_label(imp, thread, imp->thread_name));
}

/* ---------------------------------------------------------------------
 * The two formats
 * ---------------------------------------------------------------------
 */

/* Old Gecko profiles hold each thread (or process) as a JSON string of its own. */
static JsonbContainer *
gecko_thread_object(JsonbValue *v, const char *what)
{
	if (v->type == jbvString)
	{
		char	   *text = pnstrdup(v->val.string.val, v->val.string.len);
		Jsonb	   *jb;

		check_json_syntax(text, v->val.string.len,
						  psprintf(" inside the string of %s", what));
		jb = json_text_to_jsonb(text, CurrentMemoryContext, "malformed Firefox profile", DAMAGED_HINT);
		return JB_ROOT_IS_SCALAR(jb) ? NULL : &jb->root;
	}
	return json_is_container(v, false) ? v->val.binary.data : NULL;
}

static bool
gecko_has_subprocesses(JsonbContainer *profile)
{
	JsonbContainer *processes = json_optional_container(profile, "processes", true);

	return processes != NULL && JsonContainerSize(processes) > 0;
}

/* A Gecko profile and, recursively, its sub-process profiles */
static void
import_gecko(FirefoxImport *imp, JsonbContainer *profile, int depth)
{
	JsonbContainer *meta = required_container(imp, profile, "meta", false, NULL);
	JsonbContainer *threads = required_container(imp, profile, "threads", true, NULL);
	JsonbContainer *processes = json_optional_container(profile, "processes", true);
	double		start = json_optional_float8(meta, "startTime");
	double		offset_ms = 0;

	if (depth > 16)
		malformed(imp, "processes", -1, "sub-processes nest deeper than 16 levels");
	if (depth == 0)
		imp->start_time = start;
	else if (!isnan(start) && !isnan(imp->start_time))
		offset_ms = start - imp->start_time;
	read_libs(imp, profile);

	for (uint32 i = 0; i < JsonContainerSize(threads); i++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->thread_cxt);
		JsonbContainer *thread;

		imp->thread_index = i;
		thread = gecko_thread_object(getIthJsonbValueFromContainer(threads, i),
									 psprintf("thread %u", i));
		if (thread == NULL)
			malformed(imp, NULL, -1, "a thread must be an object");
		import_thread(imp, thread, NULL, NULL, offset_ms);
		imp->thread_name = NULL;
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->thread_cxt);
	}
	imp->thread_index = -1;
	for (uint32 i = 0; processes && i < JsonContainerSize(processes); i++)
	{
		JsonbValue *p = getIthJsonbValueFromContainer(processes, i);
		MemoryContext process_cxt = AllocSetContextCreate(CurrentMemoryContext, "import_firefox process",
														  ALLOCSET_DEFAULT_SIZES);
		MemoryContext old = MemoryContextSwitchTo(process_cxt);
		JsonbContainer *sub = gecko_thread_object(p, psprintf("process %u", i));

		if (sub == NULL)
			malformed(imp, "processes", -1, "process %u must be an object, found %s", i, type_name(p));
		import_gecko(imp, sub, depth + 1);
		imp->nlibs = 0;			/* the libs were the sub-process's */
		MemoryContextSwitchTo(old);
		MemoryContextDelete(process_cxt);
	}
}

static void
import_processed(FirefoxImport *imp, JsonbContainer *profile)
{
	JsonbContainer *meta = required_container(imp, profile, "meta", false, NULL);
	JsonbContainer *threads = required_container(imp, profile, "threads", true, NULL);
	JsonbContainer *shared = json_optional_container(profile, "shared", false);
	JsonbContainer *shared_array = json_optional_container(shared, "stringArray", true);
	StringTable shared_strings;
	char	   *first_pid = NULL;

	imp->start_time = json_optional_float8(meta, "startTime");
	if (shared_array)
		read_strings(imp, shared_array, "shared.stringArray", &shared_strings);
	/* several processes: thread labels carry the pid */
	for (uint32 i = 0; i < JsonContainerSize(threads); i++)
	{
		JsonbValue *t = getIthJsonbValueFromContainer(threads, i);
		JsonbValue *pid = json_is_container(t, false) ? json_find_member(t->val.binary.data, "pid") : NULL;
		char	   *text = pid && pid->type == jbvString ?
			pnstrdup(pid->val.string.val, pid->val.string.len) :
			pid && pid->type == jbvNumeric ? psprintf("%.0f", json_float8(pid)) : pstrdup("");

		if (first_pid == NULL)
			first_pid = text;
		else if (strcmp(first_pid, text) != 0)
			imp->multi_process = true;
	}
	for (uint32 i = 0; i < JsonContainerSize(threads); i++)
	{
		JsonbValue *t = getIthJsonbValueFromContainer(threads, i);

		imp->thread_index = i;
		if (!json_is_container(t, false))
			malformed(imp, NULL, -1, "a thread must be an object, found %s", type_name(t));
		import_thread(imp, t->val.binary.data, shared,
					  shared_array ? &shared_strings : NULL, 0);
	}
	imp->thread_index = -1;
}

/*
 * Checks the JSON syntax, naming the byte offset of an error (`inside` says
 * where the text came from when it is not the whole file).
 */
static void
check_json_syntax(char *data, int len, const char *inside)
{
	JsonLexContext *lex = makeJsonLexContextCstringLen(data, len, GetDatabaseEncoding(), false);
	JsonParseErrorType result = json_parse_within_limit(lex, "Firefox Profiler", calltree_import_work_mem);

	if (result != JSON_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("malformed Firefox profile: invalid JSON at byte offset %d (line %d)%s",
						json_error_offset(lex, data), lex->line_number, inside),
				 errdetail_internal("%s", json_errdetail(result, lex)),
				 errhint(DAMAGED_HINT)));
}

static void
import_profile_json(FirefoxImport *imp, JsonbContainer *root)
{
	JsonbContainer *profile = root;
	JsonbContainer *meta;
	double		start;

	/* DevTools' "Recorded Performance Data" wraps a Gecko profile */
	if (json_find_member(root, "meta") == NULL && json_optional_container(root, "profile", false))
		profile = json_optional_container(root, "profile", false);
	meta = json_optional_container(profile, "meta", false);
	if (meta == NULL || json_find_member(profile, "threads") == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("not a Firefox profile: no \"meta\" object and \"threads\" array at the top level"),
				 errhint("import_firefox reads Gecko profiles and profiles saved by profiler.firefox.com.")));
	imp->format = json_find_member(meta, "preprocessedProfileVersion") ? FORMAT_PROCESSED : FORMAT_GECKO;
	imp->multi_process = imp->format == FORMAT_GECKO && gecko_has_subprocesses(profile);
	if (imp->format == FORMAT_GECKO)
		import_gecko(imp, profile, 0);
	else
		import_processed(imp, profile);

	start = imp->start_time;
	if (!isnan(start) && fabs(start) < 1.0e14)
		profile_writer_set_started_at(imp->writer,
									  (TimestampTz) llround(start * 1000.0) -
									  (TimestampTz) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
	profile_writer_set_unit(imp->writer, imp->weight_unit ? imp->weight_unit : "samples");
}

/* The text as jsonb, in cxt; an error unless it is a JSON object */
static Jsonb *
read_document(const char *data, size_t len, MemoryContext cxt)
{
	char	   *text = pnstrdup(data, len);
	Jsonb	   *jb;

	check_json_syntax(text, strlen(text), "");
	jb = json_text_to_jsonb(text, cxt, "malformed Firefox profile", DAMAGED_HINT);
	pfree(text);
	if (JB_ROOT_IS_SCALAR(jb) || !JsonContainerIsObject(&jb->root))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("not a Firefox profile: the JSON value is not an object")));
	return jb;
}

static int64
firefox_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "import_firefox", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Jsonb	   *jb = read_document(data, len, cxt);
	FirefoxImport imp;
	int64		id;

	memset(&imp, 0, sizeof(imp));
	imp.thread_index = -1;
	imp.main_cxt = cxt;
	imp.row_cxt = AllocSetContextCreate(cxt, "import_firefox row", ALLOCSET_SMALL_SIZES);
	imp.thread_cxt = AllocSetContextCreate(cxt, "import_firefox thread", ALLOCSET_DEFAULT_SIZES);
	imp.writer = profile_writer_begin(info);
	import_profile_json(&imp, &jb->root);
	if (imp.skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " sample%s without a stack",
						imp.skipped, imp.skipped == 1 ? "" : "s")));
	id = profile_writer_finish(imp.writer);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return id;
}

const Importer firefox_importer = {
	.name = "firefox",
	.format = "firefox",
	.import = firefox_import,
};

/* import_firefox(data text, name text, meta jsonb) → profile id */
Datum
calltree_import_firefox(PG_FUNCTION_ARGS)
{
	return import_sql_call(fcinfo, &firefox_importer, 1, NULL);
}
