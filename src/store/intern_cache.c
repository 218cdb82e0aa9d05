/*
 * intern_cache.c
 *	  The backend's cache of interned ids, kept from one import to the next.
 *
 * Keys of funcs, frames and label sets (bytes the writer encodes), of
 * whole paths (their frame ids, root first) and of stacks (prefix, frame)
 * map to the ids of rows that exist.  A repeat import of a known build then
 * finds every func, frame and stack here instead of in the indexes, and
 * each stack of a sample by one look-up of its path.
 *
 * An entry is only worth something if its row still exists, with that key,
 * whenever an import uses it.  Rows change in these ways, and each empties
 * the cache of every backend before an import there can use it:
 *
 *	- UPDATE, DELETE or TRUNCATE of func, frame, stack or labels (a user's,
 *	  or symbolicate() renaming funcs and moving frames): a statement
 *	  trigger on each table (calltree_intern_cache_invalidate) sends a
 *	  relcache invalidation of the table, which every backend receives and
 *	  passes to relcache_changed.  TRUNCATE sends one anyway; so do DROP
 *	  EXTENSION, and ANALYZE or VACUUM (harmless: the cache fills again).
 *	- An abort of the transaction (or subtransaction) that wrote rows whose
 *	  ids were remembered, or a PREPARE TRANSACTION that may later roll back:
 *	  xact_changed and subxact_changed.
 *	- The extension made again (new tables, new OIDs), or another database:
 *	  entries are kept with the OIDs of the tables they came from, and each
 *	  backend serves one database.
 *
 * The callbacks only mark the cache stale (they may run in the middle of
 * an import, when no memory may move); intern_cache_open empties it.
 *
 * When an import sees an invalidation: PostgreSQL sends a transaction's
 * invalidations at commit, before it releases its locks, and a backend
 * reads them when it takes a lock it did not hold.  intern_cache_open takes
 * the import's locks (the writer already holds the stacks, which a DELETE of
 * stacks or frames must also lock, see integrity.c; TRUNCATE locks every
 * table it empties), then reads every invalidation sent so far.  So a
 * change that removes a row an import could still refer to (a deleted
 * stack or frame) is seen before the import starts, or waits for it to
 * end.  A rename of a func, a frame moved to another func, or an unused
 * func or label set deleted, committed while an import runs, is seen by the
 * next import: the running one behaves as if it had come first, as one
 * whose snapshot predates the change does (a deleted func then fails the
 * frame's foreign key).  A DELETE of label sets waits for the imports under
 * way, and new ones for it, before they open the cache (the label-set hold
 * of integrity.c); where the writer locks its label sets row by row
 * instead, a deleted one fails that lock, cached or not.
 *
 * Its memory is bounded by a quarter of calltree.import_work_mem; when an
 * entry would pass that, the cache is emptied wholesale and fills again
 * (a key of half of it or more is not remembered at all).
 *
 * Paths are bounded apart, to half of that, in a memory context of their
 * own.  Their keys are long (a byte or more a frame): a profile of many deep
 * stacks would otherwise fill the whole with paths, and each emptying
 * would take the funcs, frames and stacks along, which the next import
 * then looks up in the indexes again.  Paths are a shortcut to stacks the
 * cache also knows, so they give way: a path that does not fit is not
 * remembered (a profile met again then finds the paths that fit, rather
 * than none of them, as it would if each new one emptied the others), and
 * an entry of another kind that does not fit empties the paths first.
 * When an import found none of the paths and could not remember its own,
 * the next one empties them: they are of profiles no longer imported.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "storage/lmgr.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "module.h"
#include "tree/id_maps.h"
#include "tree/key_table.h"
#include "store/store.h"
#include "store/intern.h"

PG_FUNCTION_INFO_V1(calltree_intern_cache_invalidate);

/* the tables whose rows the entries name */
enum
{
	TABLE_FUNC,
	TABLE_FRAME,
	TABLE_STACK,
	TABLE_LABELS,
	TABLES
};

static const char *const table_names[TABLES] = {"func", "frame", "stack", "labels"};

static MemoryContext cache_cxt = NULL;
static MemoryContext path_cxt = NULL;	/* the paths' table, in cache_cxt */
static KeyTable *keys[INTERN_KINDS];
static stackcache_hash *stacks;
static bool paths_refused;		/* since the last intern_cache_open */
static int64 path_hits;			/* since the last intern_cache_open */
static Oid	table_oids[TABLES];
static bool callbacks_registered = false;

/* false: an entry may be wrong; intern_cache_open empties the cache */
static bool cache_valid = false;

static void
relcache_changed(Datum arg, Oid relid)
{
	if (!OidIsValid(relid))
	{
		cache_valid = false;	/* every relation: the queue overflowed */
		return;
	}
	for (int t = 0; t < TABLES; t++)
		if (relid == table_oids[t])
			cache_valid = false;
}

static void
xact_changed(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_PREPARE)
		cache_valid = false;
}

static void
subxact_changed(SubXactEvent event, SubTransactionId sub, SubTransactionId parent, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB)
		cache_valid = false;
}

/* Empties the paths alone, freeing their memory */
static void
paths_reset(void)
{
	if (path_cxt == NULL)
		path_cxt = AllocSetContextCreate(cache_cxt, "calltree intern cache paths",
										 ALLOCSET_DEFAULT_SIZES);
	else
		MemoryContextReset(path_cxt);
	keys[INTERN_PATH] = key_table_create(path_cxt);
	paths_refused = false;
}

/* Empties the cache, freeing its memory, and makes it empty tables. */
static void
cache_reset(void)
{
	if (cache_cxt == NULL)
		cache_cxt = AllocSetContextCreate(TopMemoryContext, "calltree intern cache",
										  ALLOCSET_DEFAULT_SIZES);
	else
		MemoryContextReset(cache_cxt);
	path_cxt = NULL;			/* deleted with its parent's reset */
	for (int k = 0; k < INTERN_KINDS; k++)
		if (k != INTERN_PATH)
			keys[k] = key_table_create(cache_cxt);
	stacks = stackcache_create(cache_cxt, 1024, NULL);
	paths_reset();
}

/*
 * What the cache holds but the paths: its tables, with their keys, and
 * the stacks' table twice (it may double with any entry).
 */
static double
cache_bytes(void)
{
	double		bytes = 2.0 * stacks->size * sizeof(CachedStack);

	for (int k = 0; k < INTERN_KINDS; k++)
		if (k != INTERN_PATH)
			bytes += key_table_bytes(keys[k]);
	return bytes;
}

/*
 * Makes room for one more entry of `kind` (INTERN_KINDS: a stack) of
 * `len` key bytes, and says whether to remember it: a path only within
 * the paths' share and the bound; any other, after emptying the paths,
 * then the whole, if it would pass the bound.  A table that grows with the
 * entry holds its old arrays and the new ones at once: both are counted.
 */
static bool
make_room(int kind, int len)
{
	double		limit = (double) calltree_import_work_mem * 1024 / 4;
	double		growth = kind == INTERN_KINDS ? 0 : key_table_growth(keys[kind], len);
	double		others = cache_bytes();
	double		paths = key_table_bytes(keys[INTERN_PATH]);

	if (kind == INTERN_PATH)
	{
		if (paths + growth > limit / 2 || others + paths + growth > limit)
		{
			paths_refused = true;
			return false;
		}
		return true;
	}
	/*
	 * A key of half the bound or more (a huge label set) is not remembered:
	 * making room for it would empty the cache at every import that meets it.
	 */
	if (kind != INTERN_KINDS && 2.0 * len >= limit)
		return false;
	if (others + paths + growth > limit)
	{
		paths_reset();
		if (others + key_table_bytes(keys[INTERN_PATH]) + growth > limit)
		{
			cache_reset();
			/* a key too long for the bound on its own */
			if (kind != INTERN_KINDS && cache_bytes() + key_table_bytes(keys[INTERN_PATH]) +
				key_table_growth(keys[kind], len) > limit)
				return false;
		}
	}
	return true;
}

void
intern_cache_open(void)
{
	/* the control file fixes the schema: the extension is not relocatable */
	Oid			namespace = calltree_namespace();
	Oid			oids[TABLES];

	if (!callbacks_registered)
	{
		CacheRegisterRelcacheCallback(relcache_changed, (Datum) 0);
		RegisterXactCallback(xact_changed, NULL);
		RegisterSubXactCallback(subxact_changed, NULL);
		callbacks_registered = true;
	}
	for (int t = 0; t < TABLES; t++)
	{
		/* on Citus, the placement here, whose triggers send the invalidations */
		oids[t] = calltree_local_relation(namespace, table_names[t]);
		/* the stacks are held by the caller, in a stronger mode */
		if (t != TABLE_STACK)
			LockRelationOid(oids[t], AccessShareLock);
	}
	/* also when every lock was held already: a second import in one transaction */
	AcceptInvalidationMessages();
	if (cache_valid && memcmp(oids, table_oids, sizeof(oids)) == 0)
	{
		/* full of paths the last import did not meet: room for the profiles of now */
		if (paths_refused && path_hits == 0)
			paths_reset();
	}
	else
	{
		cache_reset();
		memcpy(table_oids, oids, sizeof(oids));
		cache_valid = true;
	}
	paths_refused = false;
	path_hits = 0;
}

bool
intern_cache_get(InternKind kind, const char *key, int len, int64 *id)
{
	if (!cache_valid || !key_table_get(keys[kind], key, len, id))
		return false;
	if (kind == INTERN_PATH)
		path_hits++;
	return true;
}

const char *
intern_cache_next(InternKind kind, int *len)
{
	return cache_valid ? key_table_next(keys[kind], len) : NULL;
}

int64
intern_cache_take_next(InternKind kind)
{
	Assert(cache_valid);
	if (kind == INTERN_PATH)
		path_hits++;
	return key_table_take_next(keys[kind]);
}

bool
intern_cache_get_stack(int64 prefix, int64 frame, int64 *id)
{
	StackKey	pair = {prefix, frame};
	CachedStack *entry;

	if (!cache_valid)
		return false;
	entry = stackcache_lookup(stacks, pair);
	if (entry)
		*id = entry->id;
	return entry != NULL;
}

void
intern_cache_put(InternKind kind, const char *key, int len, int64 id)
{
	Assert(id > 0);
	if (!cache_valid)
		return;
	if (make_room(kind, len))
		key_table_put(keys[kind], key, len, id);
}

void
intern_cache_put_stack(int64 prefix, int64 frame, int64 id)
{
	StackKey	pair = {prefix, frame};
	CachedStack *entry;
	bool		found;

	Assert(id > 0);
	if (!cache_valid)
		return;
	make_room(INTERN_KINDS, 0);
	entry = stackcache_insert(stacks, pair, &found);
	entry->id = id;
}

/*
 * BEFORE UPDATE, DELETE or TRUNCATE ON func, frame, stack and labels, FOR
 * EACH STATEMENT: every backend's cache forgets what it knows, this one's at
 * the end of the statement, the others' when this transaction commits.
 */
Datum
calltree_intern_cache_invalidate(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("calltree_intern_cache_invalidate() was not called as a trigger")));
	trigdata = (TriggerData *) fcinfo->context;
	CacheInvalidateRelcache(trigdata->tg_relation);
	return PointerGetDatum(NULL);
}
