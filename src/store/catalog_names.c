/*
 * catalog_names.c
 *	  The OIDs of the schema calltree and of relations, types and
 *	  functions found by name, remembered by the backend.
 *
 * Every import looks up the schema and a dozen tables by name
 * (get_namespace_oid, get_relname_relid), a type and a function, each a
 * syscache search that hashes its keys and pins and releases a cache
 * entry: about 550 instructions, some 17,000 per import.  Here a name
 * found once is kept, with the OID it had, or with InvalidOid when nothing
 * had it.
 *
 * Everything kept is forgotten at once when any row of pg_class, pg_type,
 * pg_proc or pg_namespace is invalidated (syscache callbacks): those are
 * the invalidations that would make the syscache's own entries for these
 * names go, and they arrive at the same moments (a lock taken, a command
 * or a transaction ended, a reset of every cache).  A name looked up here
 * so gives the OID that the syscache would give at the same moment.  Those
 * rows change for many reasons (ANALYZE, a new table or function
 * anywhere): a later lookup then searches the syscache again, as it
 * always did.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "store/store.h"

/* More than the extension's code looks up; beyond, names are not kept */
#define KEPT_NAMES_MAX 32

typedef struct KeptName
{
	int			cacheid;		/* RELNAMENSP, TYPENAMENSP or PROCNAMEARGSNSP */
	Oid			namespace;
	NameData	name;
	Oid			oid;			/* InvalidOid: none of that name */
} KeptName;

static KeptName kept_names[KEPT_NAMES_MAX];
static int	kept_count = 0;
static Oid	kept_namespace = InvalidOid;
static bool callbacks_registered = false;

static void
forget_all(Datum arg, int cacheid, uint32 hashvalue)
{
	kept_count = 0;
	kept_namespace = InvalidOid;
}

static void
register_callbacks(void)
{
	if (callbacks_registered)
		return;
	CacheRegisterSyscacheCallback(RELNAMENSP, forget_all, (Datum) 0);
	CacheRegisterSyscacheCallback(TYPENAMENSP, forget_all, (Datum) 0);
	CacheRegisterSyscacheCallback(PROCNAMEARGSNSP, forget_all, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACENAME, forget_all, (Datum) 0);
	callbacks_registered = true;
}

/* The OID of the schema calltree; an error when there is none */
Oid
calltree_namespace(void)
{
	if (!OidIsValid(kept_namespace))
	{
		register_callbacks();
		/* an error keeps nothing */
		kept_namespace = get_namespace_oid("calltree", false);
	}
	return kept_namespace;
}

/* The OID of the syscache search of `name` in `namespace` */
static Oid
search(int cacheid, const char *name, Oid namespace)
{
	switch (cacheid)
	{
		case RELNAMENSP:
			return get_relname_relid(name, namespace);
		case TYPENAMENSP:
			return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								   CStringGetDatum(name), ObjectIdGetDatum(namespace));
		case PROCNAMEARGSNSP:
			return GetSysCacheOid3(PROCNAMEARGSNSP, Anum_pg_proc_oid, CStringGetDatum(name),
								   PointerGetDatum(buildoidvector(NULL, 0)), ObjectIdGetDatum(namespace));
	}
	elog(ERROR, "unexpected syscache %d", cacheid);
	return InvalidOid;
}

/* search(), remembered */
static Oid
kept_search(int cacheid, const char *name, Oid namespace)
{
	Oid			oid;

	for (int i = 0; i < kept_count; i++)
		if (kept_names[i].cacheid == cacheid && kept_names[i].namespace == namespace &&
			strcmp(NameStr(kept_names[i].name), name) == 0)
			return kept_names[i].oid;
	register_callbacks();
	oid = search(cacheid, name, namespace);
	/* a longer name than the catalog holds is looked up every time */
	if (kept_count < KEPT_NAMES_MAX && strlen(name) < NAMEDATALEN)
	{
		KeptName   *kept = &kept_names[kept_count];

		kept->cacheid = cacheid;
		kept->namespace = namespace;
		namestrcpy(&kept->name, name);
		kept->oid = oid;
		kept_count++;
	}
	return oid;
}

/* get_relname_relid(name, namespace) */
Oid
calltree_relname_relid(const char *name, Oid namespace)
{
	return kept_search(RELNAMENSP, name, namespace);
}

/* The type `name` of `namespace`, or InvalidOid */
Oid
calltree_typname_oid(const char *name, Oid namespace)
{
	return kept_search(TYPENAMENSP, name, namespace);
}

/* The function `name` of `namespace` that takes no argument, or InvalidOid */
Oid
calltree_function_noargs(const char *name, Oid namespace)
{
	return kept_search(PROCNAMEARGSNSP, name, namespace);
}
