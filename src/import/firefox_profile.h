/*
 * firefox_profile.h
 *	  What the files of the Firefox Profiler importer share (see
 *	  import_firefox.c for the two formats they read):
 *
 *	  import_firefox.c		the envelope: the document, its format, the
 *							profile's meta, libs, threads and sub-processes
 *	  firefox_thread.c		one thread: its name, its strings, its stack
 *							table and its samples
 *	  firefox_frames.c		the frame tables of both formats, and the func
 *							table of the processed format
 *	  firefox_location.c	the Gecko form of a frame: its location string
 *	  firefox_tables.c		tables in either layout, string tables, and the
 *							error of a malformed profile
 */
#ifndef CALLTREE_FIREFOX_PROFILE_H
#define CALLTREE_FIREFOX_PROFILE_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "store/store.h"
#include "writer/writer.h"

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
typedef struct StringTable
{
	char	  **strings;
	int64		count;
} StringTable;
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

/* firefox_tables.c: the error of a malformed profile, naming where */
extern void firefox_malformed(const FirefoxImport *imp, const char *table, int64 row,
							  const char *fmt,...) pg_attribute_printf(4, 5) pg_attribute_noreturn();
/* a JSON value's type for messages, "nothing" for NULL */
extern const char *firefox_type_name(const JsonbValue *v);
/* a member that must be an object or an array; an error naming it if not */
extern JsonbContainer *firefox_required_container(const FirefoxImport *imp, JsonbContainer *object,
												  const char *key, bool array, const char *where);

/* firefox_tables.c: table `name` of a thread (or, processed, of the shared object) */
extern void firefox_table_open(const FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
							   const char *name, Table *table);
/* a column; a required one that is missing is an error */
extern Column firefox_table_column(const FirefoxImport *imp, Table *table, const char *name,
								   bool required);
extern bool firefox_column_present(const Column *col);
/* the cell at (row, col) as a number; NaN when absent or null */
extern double firefox_cell_number(const FirefoxImport *imp, Table *table, const Column *col, int64 row);
/* an index into something with `limit` entries, or -1 for null */
extern int64 firefox_cell_index(const FirefoxImport *imp, Table *table, const Column *col, int64 row,
								int64 limit, const char *target, bool negative_is_null);
/* an integer that fits int4 (lines, columns), or not present */
extern OptionalInt firefox_cell_int4(const FirefoxImport *imp, Table *table, const Column *col,
									 int64 row);
/* a JSON array of strings, as a string table */
extern void firefox_read_strings(const FirefoxImport *imp, JsonbContainer *array, const char *name,
								 StringTable *st);
/* a string-index cell: the string, or NULL for null */
extern const char *firefox_cell_string(const FirefoxImport *imp, Table *table, const Column *col,
									   int64 row, const StringTable *st);

/* firefox_location.c: a location string's func and frame; anything else is a bare name */
extern void gecko_parse_location(const char *s, Location *loc);

/* firefox_frames.c: the frame table of a thread, as calltree frame ids (count: its rows) */
extern int64 *firefox_gecko_frames(FirefoxImport *imp, JsonbContainer *thread, const StringTable *st,
								   int64 *count);
extern int64 *firefox_processed_frames(FirefoxImport *imp, JsonbContainer *thread,
									   JsonbContainer *shared, const StringTable *st, int64 *count);

/*
 * firefox_thread.c: one thread of either format, its times offset_ms after
 * the profile's start; shared strings for the processed format.
 */
extern void firefox_import_thread(FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
								  const StringTable *shared_strings, double offset_ms);

#endif							/* CALLTREE_FIREFOX_PROFILE_H */
