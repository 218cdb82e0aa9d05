/*
 * catalog_names.c
 *	  The OIDs of the schema calltree and of relations found by name,
 *	  remembered by the backend.
 *
 * Every import looks up the schema and a dozen tables by name
 * (get_namespace_oid, get_relname_relid), each a syscache search that
 * hashes its keys and pins and releases a cache entry: about 550
 * instructions, some 15,000 per import.  Here a name found once is kept,
 * with the OID it had, or with InvalidOid when no relation had it.
 *
 * Everything kept is forgotten at once when any row of pg_class or
 * pg_namespace is invalidated (a syscache callback): those are the
 * invalidations that would make the syscache's own entries for these names
 * go, and they arrive at the same moments (a lock taken, a command or a
 * transaction ended, a reset of every cache).  A name looked up here so
 * gives the OID that get_relname_relid would give at the same moment.
 * pg_class rows change for many reasons (ANALYZE, a new table anywhere):
 * a later lookup then searches the syscache again, as it always did.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "store/store.h"

/* More than the extension's code looks up; beyond, names are not kept */
#define KEPT_RELATIONS_MAX 32

typedef struct KeptRelation
{
	Oid			namespace;
	NameData	name;
	Oid			relid;			/* InvalidOid: no such relation */
} KeptRelation;

static KeptRelation kept_relations[KEPT_RELATIONS_MAX];
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

/* get_relname_relid(name, namespace), remembered */
Oid
calltree_relname_relid(const char *name, Oid namespace)
{
	Oid			relid;

	for (int i = 0; i < kept_count; i++)
		if (kept_relations[i].namespace == namespace && strcmp(NameStr(kept_relations[i].name), name) == 0)
			return kept_relations[i].relid;
	register_callbacks();
	relid = get_relname_relid(name, namespace);
	/* a longer name than a relation can have is looked up every time */
	if (kept_count < KEPT_RELATIONS_MAX && strlen(name) < NAMEDATALEN)
	{
		KeptRelation *kept = &kept_relations[kept_count];

		kept->namespace = namespace;
		namestrcpy(&kept->name, name);
		kept->relid = relid;
		kept_count++;
	}
	return relid;
}
