/*
 * writer_profile_row.c
 *	  An import's profile row, written into the heap and indexes of
 *	  calltree.profile without a statement, where a statement would do
 *	  nothing more.
 *
 * Every import inserts one profile row.  As an INSERT ... RETURNING id run
 * through SPI, with its plan kept, it still took some 79,000 instructions:
 * the plan cache checked, an executor started and ended, a projection
 * built for the row's eight columns, a portal's worth of snapshots.  The
 * row itself (its heap tuple, its four index entries) is about half of
 * that.  Here the row goes in as the executor's ModifyTable would write
 * it, with the executor's own functions, as COPY FROM writes each of its
 * rows: the user's privileges checked as the INSERT checks them (INSERT on
 * the columns given, SELECT on id, which the INSERT returns), the columns
 * not given filled by their defaults (build_column_default, as the
 * rewriter fills them), the domain of content_sha256 checked, NOT NULL and
 * CHECK constraints (ExecConstraints), the heap tuple, then every index
 * entry with its unique and exclusion checks (ExecInsertIndexTuples).
 *
 * What only a statement gives is not imitated: this path is not taken, and
 * the caller runs its INSERT, when calltree.profile has a trigger or a rule
 * that an INSERT could fire (a DBA's, a deferred constraint's, a foreign
 * key's: they are triggers too), a row-level security policy applying to
 * the user, a generated column, or is not a plain table (Citus distributes
 * it; a DBA could partition it), or when a column the INSERT names is
 * missing or of another type than the INSERT's parameter (a catalog before
 * version 0.3, or changed by hand).  The INSERT then reports or does what
 * it always did.
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/bitmapset.h"
#include "optimizer/optimizer.h"
#include "rewrite/rewriteHandler.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "store/store.h"
#include "writer/writer_internal.h"

/* The columns the INSERT names, in the order of its parameters */
enum
{
	COLUMN_NAME,
	COLUMN_FORMAT,
	COLUMN_WEIGHT_UNIT,
	COLUMN_META,
	COLUMN_STARTED_AT,
	COLUMN_CONTENT_SHA256,
	COLUMN_FIRST_OF_IMPORT,
	GIVEN_COLUMNS
};

static const char *const given_names[GIVEN_COLUMNS] = {
	"name", "format", "weight_unit", "meta", "started_at", "content_sha256", "first_of_import"
};
static const Oid given_types[GIVEN_COLUMNS] = {
	TEXTOID, TEXTOID, TEXTOID, JSONBOID, TIMESTAMPTZOID, BYTEAOID, INT8OID
};

/* How many of the columns above the INSERT of writer.c names for this profile */
static int
given_count(const ProfileInfo *info)
{
	if (info->first_of_import != 0)
		return GIVEN_COLUMNS;
	return info->content_sha256 != NULL ? COLUMN_FIRST_OF_IMPORT : COLUMN_CONTENT_SHA256;
}

/* The domain check of content_sha256, cached by domain_check for the backend */
static void *digest_check_extra = NULL;
static Oid	digest_check_type = InvalidOid;

/* Whether an INSERT into `rel` could do anything but write its heap and indexes */
static bool
insert_is_plain(Relation rel)
{
	TupleConstr *constr = RelationGetDescr(rel)->constr;

	return rel->rd_rel->relkind == RELKIND_RELATION &&
		!writer_fires_on_insert(rel->trigdesc) &&
		(constr == NULL || !constr->has_generated_stored) &&
		!writer_insert_needs_statement(rel);
}

/*
 * The attribute number of each given column and of id (0: not given), or
 * false when one is missing or of a type the INSERT would have coerced to.
 */
static bool
find_columns(Relation rel, const ProfileInfo *info, AttrNumber *given, AttrNumber *id)
{
	TupleDesc	desc = RelationGetDescr(rel);
	int			wanted = given_count(info);

	memset(given, 0, sizeof(AttrNumber) * GIVEN_COLUMNS);
	*id = 0;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		const char *name = NameStr(att->attname);

		if (att->attisdropped)
			continue;
		if (strcmp(name, "id") == 0)
		{
			if (att->atttypid != INT8OID)
				return false;
			*id = att->attnum;
			continue;
		}
		for (int c = 0; c < wanted; c++)
			if (strcmp(name, given_names[c]) == 0)
			{
				/* the digest's column is of a domain over bytea */
				if (att->atttypmod != -1 ||
					(c == COLUMN_CONTENT_SHA256 ? getBaseType(att->atttypid) : att->atttypid) != given_types[c])
					return false;
				given[c] = att->attnum;
			}
	}
	for (int c = 0; c < wanted; c++)
		if (given[c] == 0)
			return false;
	return *id != 0;
}

/* What the INSERT ... RETURNING id checks: INSERT on the given columns, SELECT on id */
static RangeTblEntry *
checked_rte(Relation rel, const AttrNumber *given, int ngiven, AttrNumber id)
{
	RangeTblEntry *rte = makeNode(RangeTblEntry);

	rte->rtekind = RTE_RELATION;
	rte->relid = RelationGetRelid(rel);
	rte->relkind = rel->rd_rel->relkind;
	rte->rellockmode = RowExclusiveLock;
	rte->requiredPerms = ACL_INSERT | ACL_SELECT;
	for (int c = 0; c < ngiven; c++)
		rte->insertedCols = bms_add_member(rte->insertedCols, given[c] - FirstLowInvalidHeapAttributeNumber);
	rte->selectedCols = bms_make_singleton(id - FirstLowInvalidHeapAttributeNumber);
	rte->inFromCl = false;
	ExecCheckRTPerms(list_make1(rte), true);
	return rte;
}

static Datum
text_or_null(const char *s, bool *isnull)
{
	*isnull = s == NULL;
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

/* The digest, checked against the column's domain as its coercion would */
static Datum
checked_digest(Form_pg_attribute att, bytea *digest)
{
	if (att->atttypid != BYTEAOID)
	{
		if (digest_check_type != att->atttypid)
		{
			digest_check_extra = NULL;
			digest_check_type = att->atttypid;
		}
		domain_check(PointerGetDatum(digest), false, att->atttypid, &digest_check_extra, TopMemoryContext);
	}
	return PointerGetDatum(digest);
}

/* The values of the given columns, as the INSERT's parameters give them */
static void
given_values(Relation rel, const ProfileInfo *info, const AttrNumber *given, int ngiven,
			 Datum *values, bool *nulls)
{
	for (int c = 0; c < ngiven; c++)
	{
		int			i = given[c] - 1;

		switch (c)
		{
			case COLUMN_NAME:
				values[i] = text_or_null(info->name, &nulls[i]);
				break;
			case COLUMN_FORMAT:
				values[i] = text_or_null(info->format, &nulls[i]);
				break;
			case COLUMN_WEIGHT_UNIT:
				/* coalesce($3, 'samples') */
				values[i] = text_or_null(info->weight_unit ? info->weight_unit : "samples", &nulls[i]);
				break;
			case COLUMN_META:
				/* coalesce($4, '{}') */
				values[i] = info->meta ? PointerGetDatum(info->meta)
					: DirectFunctionCall1(jsonb_in, CStringGetDatum("{}"));
				nulls[i] = false;
				break;
			case COLUMN_STARTED_AT:
				values[i] = TimestampTzGetDatum(info->started_at);
				nulls[i] = !info->has_started_at;
				break;
			case COLUMN_CONTENT_SHA256:
				values[i] = checked_digest(TupleDescAttr(RelationGetDescr(rel), i), info->content_sha256);
				nulls[i] = false;
				break;
			case COLUMN_FIRST_OF_IMPORT:
				values[i] = Int64GetDatum(info->first_of_import);
				nulls[i] = false;
				break;
		}
	}
}

/*
 * The defaults of the columns the INSERT does not name, as the rewriter
 * adds them to it (build_column_default), planned as ExecPrepareExpr plans
 * them: read back from the catalog and planned once per backend, which
 * took a seventh of the row's cost.  Forgotten when the table's relcache
 * entry is invalidated (ALTER TABLE ... SET DEFAULT, a new column) or any
 * type's (a domain's default serves a column without its own).
 */
typedef struct KeptDefaults
{
	Oid			relid;			/* InvalidOid: nothing kept */
	int			natts;
	Expr	  **exprs;			/* per column; NULL: dropped or no default */
} KeptDefaults;

static KeptDefaults kept_defaults;
static MemoryContext kept_defaults_cxt = NULL;

/*
 * Only marked: an invalidation can arrive while an import evaluates the
 * defaults (nextval takes the sequence's lock, which reads invalidations),
 * so their memory is freed by the next column_defaults, which no
 * evaluation is using.
 */
static void
forget_defaults(void)
{
	kept_defaults.relid = InvalidOid;
}

static void
defaults_relcache_changed(Datum arg, Oid relid)
{
	if (!OidIsValid(relid) || relid == kept_defaults.relid)
		forget_defaults();
}

static void
defaults_type_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	forget_defaults();
}

/* The default of each column, found once per backend */
static Expr **
column_defaults(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	MemoryContext old;

	if (kept_defaults_cxt == NULL)
	{
		kept_defaults_cxt = AllocSetContextCreate(CacheMemoryContext, "calltree profile defaults",
												  ALLOCSET_SMALL_SIZES);
		CacheRegisterRelcacheCallback(defaults_relcache_changed, (Datum) 0);
		CacheRegisterSyscacheCallback(TYPEOID, defaults_type_changed, (Datum) 0);
	}
	if (kept_defaults.relid == RelationGetRelid(rel) && kept_defaults.natts == desc->natts)
		return kept_defaults.exprs;
	forget_defaults();
	MemoryContextReset(kept_defaults_cxt);
	old = MemoryContextSwitchTo(kept_defaults_cxt);
	kept_defaults.exprs = palloc0(sizeof(Expr *) * desc->natts);
	for (int i = 0; i < desc->natts; i++)
	{
		Node	   *expr;

		if (TupleDescAttr(desc, i)->attisdropped)
			continue;
		expr = build_column_default(rel, i + 1);
		if (expr != NULL)
			kept_defaults.exprs[i] = expression_planner((Expr *) expr);
	}
	MemoryContextSwitchTo(old);
	/* kept once complete: an error above keeps nothing */
	kept_defaults.natts = desc->natts;
	kept_defaults.relid = RelationGetRelid(rel);
	return kept_defaults.exprs;
}

/* Every other column's default (NULL if none) */
static void
default_values(Relation rel, EState *estate, const bool *is_given, Datum *values, bool *nulls)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Expr	  **exprs = column_defaults(rel);

	for (int i = 0; i < desc->natts; i++)
	{
		if (is_given[i])
			continue;
		values[i] = (Datum) 0;
		nulls[i] = true;
		/* a dropped column's is NULL */
		if (exprs[i] != NULL)
			values[i] = ExecEvalExprSwitchContext(ExecInitExpr(exprs[i], NULL),
												  GetPerTupleExprContext(estate), &nulls[i]);
	}
}

/* Writes the row of `values` into the heap and indexes of resultRelInfo's table */
static void
write_row(ResultRelInfo *rri, EState *estate, TupleTableSlot *slot)
{
	List	   *recheck;

	ExecConstraints(rri, slot, estate);
	table_tuple_insert(rri->ri_RelationDesc, slot, estate->es_output_cid, 0, NULL);
	recheck = ExecInsertIndexTuples(rri, slot, estate, false, false, NULL, NIL);
	/* a deferred unique constraint comes with its trigger, refused above */
	if (recheck != NIL)
		elog(ERROR, "calltree.profile has a deferred constraint the writer cannot check");
}

/* The row, in a table proven plain; its id */
static int64
insert_row(Relation rel, const ProfileInfo *info, const AttrNumber *given, int ngiven, AttrNumber id)
{
	TupleDesc	desc = RelationGetDescr(rel);
	EState	   *estate = CreateExecutorState();
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
	ResultRelInfo *rri = makeNode(ResultRelInfo);
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	bool	   *is_given = palloc0(sizeof(bool) * desc->natts);
	bool		isnull;
	int64		profile_id;

	/* as the executor refuses an INSERT (ExecCheckXactReadOnly) */
	PreventCommandIfReadOnly("INSERT");
	PreventCommandIfParallelMode("INSERT");
	ExecInitRangeTable(estate, list_make1(checked_rte(rel, given, ngiven, id)));
	estate->es_output_cid = GetCurrentCommandId(true);
	InitResultRelInfo(rri, rel, 1, NULL, 0);
	CheckValidResultRel(rri, CMD_INSERT);
	ExecOpenIndices(rri, false);
	for (int c = 0; c < ngiven; c++)
		is_given[given[c] - 1] = true;
	ExecClearTuple(slot);
	given_values(rel, info, given, ngiven, slot->tts_values, slot->tts_isnull);
	default_values(rel, estate, is_given, slot->tts_values, slot->tts_isnull);
	ExecStoreVirtualTuple(slot);
	write_row(rri, estate, slot);
	profile_id = DatumGetInt64(slot_getattr(slot, id, &isnull));
	if (isnull)
		elog(ERROR, "the new profile row has no id");
	ExecDropSingleTupleTableSlot(slot);
	ExecCloseIndices(rri);
	MemoryContextSwitchTo(old);
	FreeExecutorState(estate);
	return profile_id;
}

/*
 * The profile row, written as the INSERT of writer.c would write it, its
 * id in *profile_id; false, with nothing written, when that INSERT must run
 * instead (see the top).  Takes the
 * INSERT's lock first, so that an import waiting for a DROP EXTENSION
 * finds the new table once it ends, as the INSERT did.
 */
bool
writer_insert_profile_row(const ProfileInfo *info, int64 *profile_id)
{
	Oid			relid = calltree_locked_relation("profile", RowExclusiveLock);
	Relation	rel = table_open(relid, NoLock);
	AttrNumber	given[GIVEN_COLUMNS];
	AttrNumber	id;
	bool		plain = insert_is_plain(rel) && find_columns(rel, info, given, &id);

	if (plain)
	{
		/* as SPI runs a statement: after the commands before it, in a snapshot of its own */
		CommandCounterIncrement();
		PushActiveSnapshot(GetTransactionSnapshot());
		*profile_id = insert_row(rel, info, given, given_count(info), id);
		PopActiveSnapshot();
		CommandCounterIncrement();
	}
	table_close(rel, NoLock);
	return plain;
}
