/*
 * relations.c
 *	  The extension's own tables and columns, found by name.
 *
 * C code that reads or probes the tables directly (stack resolution, the
 * import's index probes) opens them through these, so a damaged
 * installation gives an error that says what is missing.
 */
#include "postgres.h"

#include "utils/lsyscache.h"

#include "calltree.h"

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
