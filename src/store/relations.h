/*
 * relations.h
 *	  The extension's tables and columns found by name, or an error that
 *	  says what is missing; and the privilege and row-security checks that a
 *	  direct read of them must make first (relations.c).
 */
#ifndef CALLTREE_RELATIONS_H
#define CALLTREE_RELATIONS_H

#include "postgres.h"

#include "access/attnum.h"
#include "utils/relcache.h"

extern Oid	calltree_relation(Oid namespace, const char *name);
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

#endif							/* CALLTREE_RELATIONS_H */
