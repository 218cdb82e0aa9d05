/*
 * copy_rows.c
 *	  Rows built in memory, written into a table by COPY FROM's own code.
 *
 * An INSERT ... SELECT writes its rows one at a time.  COPY FROM writes
 * them a thousand at a time into the heap (one WAL record per page, not
 * per row; index entries are still one at a time), and needs no plan: the
 * 743,537 samples of bench/imports.sh's pprof file take 0.76 s by COPY
 * against 1.29 s by INSERT ... SELECT FROM unnest() in sets of 10,000.
 * PostgreSQL's logical replication copies tables the same way
 * (BeginCopyFrom with a callback that supplies the data).
 *
 * What DoCopy does around CopyFrom is done here too: the user's INSERT
 * privileges on the columns are checked (on the partitioned table, when
 * the rows go straight into one of its partitions, as an INSERT routed
 * through it checks them), and the statement runs in a new
 * snapshot after a command counter increment, as SPI runs one.  COPY FROM
 * does not apply row security policies, so a table with policies for the
 * current user is left to the caller's INSERT (copy_rows_allowed); so is a
 * table of Citus, whose rows live in its shards, not in its own heap.
 *
 * The rows are in COPY's text format, in the database's encoding (the
 * ENCODING option), so no conversion applies whatever the client's.
 */
#include "postgres.h"

#include "access/sysattr.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "commands/copy.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "parser/parse_node.h"
#include "parser/parse_relation.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "store/store.h"

void
copy_rows_init(CopyRows *rows)
{
	initStringInfo(&rows->text);
	rows->nrows = 0;
	rows->row_open = false;
}

void
copy_rows_reset(CopyRows *rows)
{
	resetStringInfo(&rows->text);
	rows->nrows = 0;
	rows->row_open = false;
}

static inline void
field_separator(CopyRows *rows)
{
	if (rows->row_open)
		appendStringInfoCharMacro(&rows->text, '\t');
	rows->row_open = true;
}

void
copy_rows_int8(CopyRows *rows, int64 value)
{
	field_separator(rows);
	enlargeStringInfo(&rows->text, MAXINT8LEN + 1);
	rows->text.len += pg_lltoa(value, rows->text.data + rows->text.len);
}

void
copy_rows_null(CopyRows *rows)
{
	field_separator(rows);
	appendBinaryStringInfo(&rows->text, "\\N", 2);
}

/* A text field: backslash, tab, newline and carriage return escaped */
void
copy_rows_text(CopyRows *rows, const char *s, int len)
{
	int			start = 0;

	field_separator(rows);
	for (int i = 0; i < len; i++)
	{
		char		escape;

		switch (s[i])
		{
			case '\\':
				escape = '\\';
				break;
			case '\t':
				escape = 't';
				break;
			case '\n':
				escape = 'n';
				break;
			case '\r':
				escape = 'r';
				break;
			default:
				continue;
		}
		appendBinaryStringInfo(&rows->text, s + start, i - start);
		appendStringInfoCharMacro(&rows->text, '\\');
		appendStringInfoCharMacro(&rows->text, escape);
		start = i + 1;
	}
	appendBinaryStringInfo(&rows->text, s + start, len - start);
}

void
copy_rows_end_row(CopyRows *rows)
{
	appendStringInfoCharMacro(&rows->text, '\n');
	rows->nrows++;
	rows->row_open = false;
}

bool
copy_rows_allowed(Oid relid)
{
	/*
	 * COPY's internal API writes into the table's own heap, which on Citus
	 * is the empty shell of a reference or distributed table: its rows go
	 * to the shards by an INSERT, which Citus routes.
	 */
	return check_enable_rls(relid, InvalidOid, true) != RLS_ENABLED &&
		calltree_citus_table(relid, NULL) == CITUS_NONE;
}

/* The rows COPY is reading: its data callback takes no argument to carry them. */
static const CopyRows *reading = NULL;
static int	read_offset;

static int
read_rows(void *outbuf, int minread, int maxread)
{
	int			count = Min(maxread, reading->text.len - read_offset);

	memcpy(outbuf, reading->text.data + read_offset, count);
	read_offset += count;
	return count;
}

/* INSERT on each of the columns, as DoCopy checks it */
static void
check_insert_privileges(ParseState *pstate, Relation rel, List *columns)
{
	ParseNamespaceItem *item = addRangeTableEntryForRelation(pstate, rel, RowExclusiveLock,
															 NULL, false, false);
	RangeTblEntry *rte = item->p_rte;
	ListCell   *lc;

	rte->requiredPerms = ACL_INSERT;
	foreach(lc, columns)
	{
		AttrNumber	attnum = calltree_column(RelationGetRelid(rel), strVal(lfirst(lc)));

		rte->insertedCols = bms_add_member(rte->insertedCols,
										   attnum - FirstLowInvalidHeapAttributeNumber);
	}
	ExecCheckRTPerms(pstate->p_rtable, true);
}

/*
 * The table the rows are for, and the partition they go into (the table
 * itself when `target` is `relid`), opened for INSERT once the user may
 * insert into the table's columns: the privileges are the table's, as for
 * an INSERT routed through it.
 */
typedef struct InsertTables
{
	Relation	rel;
	Relation	target_rel;
	ParseState *pstate;			/* its range table holds rel, checked */
} InsertTables;

static void
open_insert_tables(InsertTables *tables, Oid relid, Oid target, List *columns)
{
	tables->rel = table_open(relid, RowExclusiveLock);
	tables->pstate = make_parsestate(NULL);
	check_insert_privileges(tables->pstate, tables->rel, columns);
	tables->target_rel = target == relid ? tables->rel : table_open(target, RowExclusiveLock);
}

/* The locks stay until the transaction ends, as an INSERT's do */
static void
close_insert_tables(InsertTables *tables)
{
	if (tables->target_rel != tables->rel)
		table_close(tables->target_rel, NoLock);
	table_close(tables->rel, NoLock);
}

/*
 * What COPY leaves in the current memory context (the parse state, its
 * range table, the options, about 5 kB) goes with a context of the call's
 * own: a writer may COPY many times in one call.
 */
uint64
copy_rows_insert(CopyRows *rows, Oid relid, Oid target, List *columns)
{
	MemoryContext cxt;
	MemoryContext old;
	InsertTables tables;
	ParseState *pstate;
	List	   *options;
	uint64		processed = 0;

	Assert(!rows->row_open);
	if (rows->nrows == 0)
		return 0;
	if (reading != NULL)
		elog(ERROR, "copy_rows_insert() called while it runs");
	cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree COPY", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(cxt);
	open_insert_tables(&tables, relid, target, columns);
	pstate = tables.pstate;
	if (target != relid)
	{
		/* COPY takes the first entry of the range table for its table */
		pstate = make_parsestate(NULL);
		addRangeTableEntryForRelation(pstate, tables.target_rel, RowExclusiveLock, NULL, false, false);
	}
	options = list_make1(makeDefElem("encoding",
									 (Node *) makeString(pstrdup(GetDatabaseEncodingName())), -1));

	CommandCounterIncrement();
	PushActiveSnapshot(GetTransactionSnapshot());
	reading = rows;
	read_offset = 0;
	PG_TRY();
	{
		CopyFromState cstate = BeginCopyFrom(pstate, tables.target_rel, NULL, NULL, false, read_rows,
											 columns, options);

		processed = CopyFrom(cstate);
		EndCopyFrom(cstate);
	}
	PG_FINALLY();
	{
		reading = NULL;
	}
	PG_END_TRY();
	PopActiveSnapshot();
	CommandCounterIncrement();

	close_insert_tables(&tables);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	if (processed != (uint64) rows->nrows)
		elog(ERROR, "COPY into %s wrote " UINT64_FORMAT " of " INT64_FORMAT " rows",
			 get_rel_name(relid), processed, rows->nrows);
	return processed;
}
