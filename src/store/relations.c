/*
 * relations.c
 *	  The extension's own tables and columns, found by name, and the checks
 *	  that reading them directly needs.
 *
 * C code that reads or probes the tables directly (stack resolution, the
 * import's index probes) opens them through these, so a damaged
 * installation gives an error that says what is missing.
 *
 * A table read with table_open and an index scan skips the executor, and
 * with it the privilege and row-security checks a SELECT makes.  Such code
 * calls calltree_check_read first, so that a role reads through calltree
 * exactly what it could read with SQL.
 *
 * On Citus the interned tables are reference tables: the extension's own
 * table is then an empty shell, and the rows are in a copy of it on each
 * node, its placement, a table named after it and its shard (func_102008),
 * with indexes named likewise.  SQL reaches the placements through Citus;
 * direct reads open them through calltree_local_relation.
 */
#include "postgres.h"

#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "store/store.h"

Oid
calltree_relation(Oid namespace, const char *name)
{
	Oid			relid = calltree_relname_relid(name, namespace);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"calltree.%s\" does not exist", name),
				 errhint("Reinstall the extension with DROP EXTENSION calltree; CREATE EXTENSION calltree.")));
	return relid;
}

/*
 * The relation `name` of the schema calltree, locked in `mode`, and found
 * again once locked, as RangeVarGetRelidExtended does.  A lock that waited
 * for a DROP EXTENSION calltree (and CREATE EXTENSION) open in another
 * session ends with its invalidations accepted: the OID found before is
 * then the dropped relation's (could not open relation with OID), and
 * every name the backend kept is forgotten.  Code that waits for its
 * first lock on the extension's tables takes it here, before it finds
 * anything else.
 */
Oid
calltree_locked_relation(const char *name, LOCKMODE mode)
{
	Oid			relid = calltree_relation(calltree_namespace(), name);

	for (;;)
	{
		Oid			again;

		LockRelationOid(relid, mode);
		again = calltree_relation(calltree_namespace(), name);
		if (again == relid)
			return relid;
		UnlockRelationOid(relid, mode);
		relid = again;
	}
}

Oid
calltree_type(Oid namespace, const char *name)
{
	Oid			typid = calltree_typname_oid(name, namespace);

	if (!OidIsValid(typid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("type \"calltree.%s\" does not exist", name),
				 errhint("Update the extension with ALTER EXTENSION calltree UPDATE.")));
	return typid;
}

/* Whether Citus is installed in this database: its metadata tables exist */
bool
calltree_citus_present(void)
{
	return OidIsValid(calltree_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE));
}

/*
 * How Citus holds table `relid`: CITUS_NONE (a table of its own), or a
 * table with one shard (a reference table), whose id is set, or with many
 * (distributed).
 */
CitusTableKind
calltree_citus_table(Oid relid, int64 *shardid)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	CitusTableKind kind = CITUS_NONE;

	if (!calltree_citus_present())
		return CITUS_NONE;
	SPI_connect();
	/*
	 * The columns are of type regclass, and there is no = of regclass in
	 * pg_catalog: an unqualified = would take anyone's = of regclass, an
	 * exact match, wherever it is on the caller's path.
	 */
	if (SPI_execute_with_args("SELECT p.partmethod OPERATOR(pg_catalog.=) 'n', s.shardid "
							  "FROM pg_catalog.pg_dist_partition p "
							  "LEFT JOIN pg_catalog.pg_dist_shard s "
							  "ON s.logicalrelid::pg_catalog.oid OPERATOR(pg_catalog.=) p.logicalrelid::pg_catalog.oid "
							  "WHERE p.logicalrelid::pg_catalog.oid OPERATOR(pg_catalog.=) $1 "
							  "ORDER BY s.shardid LIMIT 1",
							  1, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read the Citus metadata of relation %u", relid);
	if (SPI_processed == 1)
	{
		bool		isnull;
		bool		one_shard = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
		Datum		shard = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);

		kind = one_shard ? CITUS_REFERENCE : CITUS_DISTRIBUTED;
		if (shardid)
			*shardid = isnull ? 0 : DatumGetInt64(shard);
	}
	SPI_finish();
	return kind;
}

Oid
calltree_local_relation(Oid namespace, const char *name)
{
	Oid			relid = calltree_relation(namespace, name);
	Oid			table = relid;
	int64		shardid = 0;
	Oid			placement;
	char	   *placement_name;

	if (!calltree_citus_present())
		return relid;
	if (get_rel_relkind(relid) == RELKIND_INDEX)
		table = IndexGetRelation(relid, false);
	switch (calltree_citus_table(table, &shardid))
	{
		case CITUS_NONE:
			return relid;
		case CITUS_DISTRIBUTED:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("calltree cannot read the distributed table \"calltree.%s\" directly",
							get_rel_name(table)),
					 errhint("calltree.distribute() makes calltree.%s a reference table; undistribute it and call calltree.distribute() again.",
							 get_rel_name(table))));
			break;
		case CITUS_REFERENCE:
			break;
	}
	placement_name = psprintf("%s_" INT64_FORMAT, name, shardid);
	placement = get_relname_relid(placement_name, namespace);
	if (!OidIsValid(placement))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("the reference table \"calltree.%s\" has no placement \"%s\" on this node",
						get_rel_name(table), placement_name),
				 errdetail("calltree reads its interned tables on the node where a query runs."),
				 errhint("On the coordinator, add it to the Citus cluster first: SELECT citus_set_coordinator_host('host', port).")));
	return placement;
}

const char *
calltree_table_name(Relation rel)
{
	const char *name = RelationGetRelationName(rel);
	const char *end = strrchr(name, '_');
	char	   *shell;

	if (end == NULL || end[1] == '\0' || strspn(end + 1, "0123456789") != strlen(end + 1))
		return name;
	shell = pnstrdup(name, end - name);
	if (!OidIsValid(get_relname_relid(shell, RelationGetNamespace(rel))))
		return name;
	return shell;
}

AttrNumber
calltree_column(Oid relid, const char *name)
{
	AttrNumber	attnum = get_attnum(relid, name);

	if (attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						name, get_rel_name(relid))));
	return attnum;
}

/* SELECT on each of the columns, when the table as a whole is not granted */
static bool
may_select_columns(Oid relid, const AttrNumber *columns, int ncolumns)
{
	for (int i = 0; i < ncolumns; i++)
		if (pg_attribute_aclcheck(relid, columns[i], GetUserId(), ACL_SELECT) != ACLCHECK_OK)
			return false;
	return true;
}

/*
 * Fails unless the current user could SELECT `columns` of the table, with
 * the executor's own error; and fails if row-level security applies to the
 * user there, since a direct read cannot apply the policies.
 */
void
calltree_check_read(Oid relid, const AttrNumber *columns, int ncolumns)
{
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK &&
		!may_select_columns(relid, columns, ncolumns))
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(relid));
	/* with row_security off, this fails as a query would */
	if (check_enable_rls(relid, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("calltree cannot apply the row-level security policies of table \"calltree.%s\"",
						get_rel_name(relid)),
				 errdetail("Imports and stack resolution read calltree.%s directly, not through a query, and would bypass them.",
						   get_rel_name(relid)),
				 errhint("Enable row-level security on calltree.profile and calltree.sample_set only: funcs, frames and stacks are shared by every profile.")));
}
