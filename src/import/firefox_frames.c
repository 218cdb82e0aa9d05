/*
 * firefox_frames.c
 *	  The frame table of a thread, one calltree frame per row, in the two
 *	  formats: a Gecko frame names its func by a location string
 *	  (firefox_location.c), a processed frame points into a funcTable of
 *	  (name, fileName or source, resource, line, column).  Unnamed JS
 *	  functions are named by where they start in both (js_names.h).
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "formats/json_reader.h"
#include "import/firefox_profile.h"
#include "import/js_names.h"

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

/* A Gecko frame table: one calltree frame per row, funcs from locations */
int64 *
firefox_gecko_frames(FirefoxImport *imp, JsonbContainer *thread, const StringTable *st, int64 *count)
{
	Table		t;
	Column		location,
				implementation,
				line,
				column;
	int64	   *frames;

	firefox_table_open(imp, thread, NULL, "frameTable", &t);
	location = firefox_table_column(imp, &t, "location", true);
	implementation = firefox_table_column(imp, &t, "implementation", false);
	line = firefox_table_column(imp, &t, "line", false);
	column = firefox_table_column(imp, &t, "column", false);
	frames = palloc(sizeof(int64) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		const char *where = firefox_cell_string(imp, &t, &location, row, st);
		const char *impl = firefox_cell_string(imp, &t, &implementation, row, st);
		OptionalInt frame_line = firefox_cell_int4(imp, &t, &line, row);
		OptionalInt frame_col = firefox_cell_int4(imp, &t, &column, row);
		Location	loc;
		int32		func;

		CHECK_FOR_INTERRUPTS();
		if (where == NULL)
			firefox_malformed(imp, t.name, row, "\"location\" must be a string index, found null");
		gecko_parse_location(where, &loc);
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
	firefox_table_open(imp, thread, shared, table_name, &t);
	col = firefox_table_column(imp, &t, column_name, true);
	strings = palloc0(sizeof(char *) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		const char *s = firefox_cell_string(imp, &t, &col, row, st);

		strings[row] = s ? pstrdup(s) : NULL;
		if ((row & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	*count = t.nrows;
	return strings;
}

/*
 * The name of a func of the processed format.  An unnamed JS function is
 * named by where it starts (js_names.h), as in a Gecko profile: the
 * Firefox Profiler writes it as "(root scope) file" (from a Gecko
 * profile), "(anonymous)" (from a Chrome one) or "".
 */
static const char *
processed_func_name(const char *name, const char *file, OptionalInt line, OptionalInt col)
{
	static const char root_scope[] = "(root scope) ";

	if (file != NULL && strncmp(name, root_scope, sizeof(root_scope) - 1) == 0 &&
		strcmp(name + sizeof(root_scope) - 1, file) == 0)
		name = NULL;
	return js_function_name(name, file, line, col);
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

	firefox_table_open(imp, thread, shared, "funcTable", &t);
	name = firefox_table_column(imp, &t, "name", true);
	file = firefox_table_column(imp, &t, "fileName", false);
	resource = firefox_table_column(imp, &t, "resource", false);
	line = firefox_table_column(imp, &t, "lineNumber", false);
	column = firefox_table_column(imp, &t, "columnNumber", false);
	/* newer versions name files through a shared "sources" table */
	source = firefox_table_column(imp, &t, "source", false);
	if (!firefox_column_present(&file) && firefox_column_present(&source))
		sources = processed_string_column(imp, thread, shared, "sources", "filename", st, &nsources);
	funcs = palloc(sizeof(ProcessedFunc) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		const char *func_name = firefox_cell_string(imp, &t, &name, row, st);
		const char *file_name = firefox_cell_string(imp, &t, &file, row, st);
		int64		r = firefox_cell_index(imp, &t, &resource, row, nresources, "the resourceTable", true);

		if (sources != NULL)
		{
			int64		src = firefox_cell_index(imp, &t, &source, row, nsources, "the sources table", true);

			file_name = src >= 0 ? sources[src] : NULL;
		}

		CHECK_FOR_INTERRUPTS();
		if (func_name == NULL)
			firefox_malformed(imp, t.name, row, "\"name\" must be a string index, found null");
		funcs[row].line = firefox_cell_int4(imp, &t, &line, row);
		funcs[row].col = firefox_cell_int4(imp, &t, &column, row);
		funcs[row].id = profile_writer_func(imp->writer,
											processed_func_name(func_name, file_name,
																funcs[row].line, funcs[row].col),
											file_name, r >= 0 ? resources[r] : NULL);
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->row_cxt);
	}
	*count = t.nrows;
	return funcs;
}

/* A processed frame table: frames of the funcs above */
int64 *
firefox_processed_frames(FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
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

	firefox_table_open(imp, thread, shared, "frameTable", &t);
	func = firefox_table_column(imp, &t, "func", true);
	address = firefox_table_column(imp, &t, "address", false);
	line = firefox_table_column(imp, &t, "line", false);
	column = firefox_table_column(imp, &t, "column", false);
	implementation = firefox_table_column(imp, &t, "implementation", false);
	frames = palloc(sizeof(int64) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		int64		f = firefox_cell_index(imp, &t, &func, row, nfuncs, "the funcTable", false);
		double		addr = firefox_cell_number(imp, &t, &address, row);
		OptionalInt frame_line = firefox_cell_int4(imp, &t, &line, row);
		OptionalInt frame_col = firefox_cell_int4(imp, &t, &column, row);

		CHECK_FOR_INTERRUPTS();
		if (f < 0)
			firefox_malformed(imp, t.name, row, "\"func\" must be an index into the funcTable, found null");
		if (!isnan(addr) && (addr != floor(addr) || addr >= 9.2e18))
			firefox_malformed(imp, t.name, row, "\"address\" is %g, not an address", addr);
		/*
		 * The processed format says -1 for "no address".  As for Gecko
		 * frames, a frame without a line of its own gets its func's.
		 */
		frames[row] = profile_writer_frame(imp->writer, funcs[f].id,
										   isnan(addr) || addr < 0 ? NO_INT : SOME_INT((int64) addr),
										   frame_line.present ? frame_line : funcs[f].line,
										   frame_col.present ? frame_col : funcs[f].col,
										   firefox_cell_string(imp, &t, &implementation, row, st));
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->row_cxt);
	}
	*count = t.nrows;
	return frames;
}
