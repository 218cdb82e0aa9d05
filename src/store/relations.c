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
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"

#include "store/relations.h"

Oid
calltree_relation(Oid namespace, const char *name)
{
	Oid			relid = get_relname_relid(name, namespace);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"calltree.%s\" does not exist", name),
				 errhint("Reinstall the extension with DROP EXTENSION calltree; CREATE EXTENSION calltree.")));
	return relid;
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
				 errhint("Enable row-level security on calltree.profile and calltree.sample only: funcs, frames and stacks are shared by every profile.")));
}
