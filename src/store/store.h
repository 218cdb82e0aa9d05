/*
 * store.h
 *	  The tables of calltree, as the folders above use them: the face of
 *	  store/.
 *
 * What the writer, the importers, the queries and the exporters need from
 * the tables is declared here, a section per file of store/:
 *
 *   relations.c          the extension's tables, types and columns found by name,
 *                        the checks a direct read makes, and Citus
 *   copy_rows.c          rows built in memory, written by COPY FROM's code
 *   sample_partitions.c  the trigger that keeps ids past the last window out
 *   sample_face.c        INSERT, UPDATE and DELETE on the view calltree.sample
 *   func_lookup.c        what SQL arguments name in calltree.func
 *   func_suggest.c       the names close to one that names no func
 *   func_names.c         the names, files and resources of a tree's funcs
 *   profile_lookup.c     whether calltree.profile holds a profile id
 *
 * Two parts of store/ serve the writer alone, and have headers of their
 * own that nothing else includes: interning (intern.h: the intern lock,
 * the per-backend cache and the index probes of intern_*.c) and the
 * reference checks (integrity.h).  symbolicate.c and stack_garbage.c (the
 * stacks collect_garbage() deletes) hold SQL functions only.
 */
#ifndef CALLTREE_STORE_H
#define CALLTREE_STORE_H

#include "postgres.h"

#include "access/attnum.h"
#include "lib/stringinfo.h"
#include "nodes/pg_list.h"
#include "storage/lockdefs.h"
#include "utils/relcache.h"

#include "tree/calltree.h"

/*
 * An integer that may be absent: the address, line and column of a frame,
 * which calltree.frame keeps in nullable columns.  The importers pass a
 * frame's fields to the writer in this form, the writer encodes them into
 * its cache keys, and the probes search the frame table's key with them
 * (an absent field is searched as NULL).  It lives here, below both, so
 * that the store needs nothing from the writer.
 */
typedef struct OptionalInt
{
	bool		present;
	int64		value;
} OptionalInt;

#define NO_INT ((OptionalInt) {false, 0})
#define SOME_INT(v) ((OptionalInt) {true, (v)})


/*
 * catalog_names.c: the schema calltree, and relations, types and functions
 * of no argument found by name (InvalidOid: none), remembered by the
 * backend until the catalog changes
 */
extern Oid	calltree_namespace(void);
extern Oid	calltree_relname_relid(const char *name, Oid namespace);
extern Oid	calltree_typname_oid(const char *name, Oid namespace);
extern Oid	calltree_function_noargs(const char *name, Oid namespace);

/*
 * relations.c: the extension's tables and columns found by name (or found
 * again once locked), or an error that says what is missing; and the
 * privilege and row-security checks that a direct read of them must make
 * first.
 */
extern Oid	calltree_relation(Oid namespace, const char *name);
extern Oid	calltree_locked_relation(const char *name, LOCKMODE mode);
extern Oid	calltree_type(Oid namespace, const char *name);
extern AttrNumber calltree_column(Oid relid, const char *name);
extern void calltree_check_read(Oid relid, const AttrNumber *columns, int ncolumns);

/* Citus: whether it is installed, and how it holds a table */
typedef enum CitusTableKind
{
	CITUS_NONE,					/* not a Citus table, or no Citus */
	CITUS_REFERENCE,			/* one shard, a placement on every node */
	CITUS_DISTRIBUTED			/* shards spread over the workers */
} CitusTableKind;

extern bool calltree_citus_present(void);
extern CitusTableKind calltree_citus_table(Oid relid, int64 *shardid);

/*
 * The table or index `name` whose heap holds the rows on this node: the
 * extension's own one, or on Citus its reference table's placement here
 * (an error when there is none, or when the table is distributed).
 */
extern Oid	calltree_local_relation(Oid namespace, const char *name);

/*
 * The name of the extension's table that `rel` is, or whose placement (a
 * shard of Citus, named after it: stack_102010) it is.
 */
extern const char *calltree_table_name(Relation rel);


/* copy_rows.c: rows in COPY's text format, a field at a time */
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



/*
 * func_lookup.c: what SQL arguments name in calltree.func: the funcs of a
 * name, the ids it does not hold, and one representative func per name
 * (or per name and file) for unifying the funcs of several builds.
 *
 * Each look-up is one query, whatever the number of ids, and runs with the
 * caller's privileges and row security on calltree.func: a func the caller
 * cannot see is a func that does not exist.
 */

/* The ids of the funcs named exactly `name`, sorted; their number in *count */
extern int32 *func_lookup_by_name(const char *name, int32 *count);

/*
 * The ids among ids[0 .. n) that calltree.func does not hold, sorted and
 * distinct; their number in *count (0 when it holds them all).
 */
extern int32 *func_lookup_missing(const int32 *ids, int32 n, int32 *count);

/*
 * func_suggest.c: at most max names of calltree.func close to `name` (a
 * few edits away ignoring case, or holding it), best first, for an error's
 * "did you mean"; their number in *count.
 */
extern char **func_suggest_names(const char *name, int max, int *count);

/* How unify_funcs() groups funcs */
typedef enum FuncKey
{
	FUNC_KEY_NAME,				/* one func per name */
	FUNC_KEY_NAME_FILE			/* one func per name and file */
} FuncKey;

/*
 * For each of the sorted, distinct ids[0 .. n), the smallest id of
 * calltree.func with the same key, written to representative[i].  An id
 * that calltree.func does not hold is its own representative.
 */
extern void func_lookup_representatives(const int32 *ids, int32 n, FuncKey key,
										int32 *representative);


/*
 * func_names.c: what calltree.func says about the funcs of one tree: name,
 * file and resource, fetched in one query.
 *
 * Every reader that names a tree's funcs (nodes(), the exporters) uses it,
 * so that each pays one round trip to calltree.func however many nodes the
 * tree has, and the query is written once.
 */
typedef struct FuncNames FuncNames;

/*
 * Every func of the tree, or every func of a list (in any order, repeats
 * allowed), with what calltree.func holds about it.
 */
extern FuncNames *func_names_fetch(const CallTree *tree);
extern FuncNames *func_names_fetch_funcs(const int32 *funcs, int32 count);

/* A func's name, file or resource; NULL for a func id that calltree.func does not hold, or a column that is NULL. */
extern const char *func_names_get(const FuncNames *names, int32 func);
extern const char *func_names_file(const FuncNames *names, int32 func);
extern const char *func_names_resource(const FuncNames *names, int32 func);

/* The distinct funcs, sorted: their number, a func's index, the func at one */
extern int32 func_names_count(const FuncNames *names);
extern int32 func_names_index(const FuncNames *names, int32 func);
extern int32 func_names_id(const FuncNames *names, int32 index);


/*
 * profile_lookup.c: errors unless calltree.profile holds the id; `function`
 * names the caller in the message.
 *
 * A function that reads a profile's samples finds none both for a profile
 * without samples and for an id that names nothing; the check tells the
 * two apart, so that a wrong id is an error rather than an empty result.
 */
extern void profile_lookup_check(int64 profile_id, const char *function);

#endif							/* CALLTREE_STORE_H */
