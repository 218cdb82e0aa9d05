/*
 * copy_rows.h
 *	  Rows built in memory, written into a table by COPY FROM's own code.
 */
#ifndef CALLTREE_COPY_ROWS_H
#define CALLTREE_COPY_ROWS_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "nodes/pg_list.h"

/* Rows in COPY's text format, a field at a time */
typedef struct CopyRows
{
	StringInfoData text;
	int64		nrows;
	bool		row_open;		/* a field was added since the last row ended */
} CopyRows;

extern void copy_rows_init(CopyRows *rows);
extern void copy_rows_reset(CopyRows *rows);
extern void copy_rows_int8(CopyRows *rows, int64 value);
extern void copy_rows_null(CopyRows *rows);
extern void copy_rows_text(CopyRows *rows, const char *s, int len);
extern void copy_rows_end_row(CopyRows *rows);

/*
 * Whether the current user's INSERT into `relid` could be a COPY: no row
 * security policy applies to it (COPY FROM does not apply them), and it is
 * not a table of Citus (its rows are in its shards).
 */
extern bool copy_rows_allowed(Oid relid);

/*
 * Inserts the rows into `target`, whose `columns` (a List of String) they
 * give in order, as COPY FROM does: with the user's INSERT privileges on
 * `relid` checked, triggers of `target` fired, constraints and indexes
 * kept, and rows written many at a time.  `target` is `relid` or one of
 * its partitions.  The number of rows written.
 */
extern uint64 copy_rows_insert(CopyRows *rows, Oid relid, Oid target, List *columns);

/* Gives row `row`'s values (and nulls), in the order of the columns */
typedef void (*CopyRowsValuesFill) (void *arg, int64 row, Datum *values, bool *nulls);

/*
 * Inserts `nrows` rows, given as values by `fill`, as copy_rows_insert
 * does (privileges on `relid`, constraints and indexes of `target`, rows
 * written many at a time), when `target` is a plain table without
 * triggers whose every column is among `columns`.  False, with nothing
 * written, when it is not: the caller then writes the rows another way.
 */
extern bool copy_rows_insert_values(Oid relid, Oid target, List *columns, int64 nrows,
									CopyRowsValuesFill fill, void *arg);

#endif
