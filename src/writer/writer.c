/*
 * writer.c
 *	  The ProfileWriter's lifetime: an imported profile into the calltree
 *	  tables, from its profile row to the last sample.
 *
 * Every importer parses its format and hands what it finds to a writer
 * (writer.h).  The writer gives funcs, frames and stacks their ids
 * (writer_ids.c), within calltree.import_work_mem (writer_memory.c); new
 * ones wait as pending rows and are written in sets before any sample
 * refers to them (writer_flush.c); samples, trace events and label sets
 * are batched (writer_samples.c).
 *
 * This file begins and finishes the writer.  From its start the writer
 * holds the stack table against deletes (integrity.c), so what it finds
 * stays, and it vouches for the references of the rows it writes.  It keeps
 * one SPI connection open from begin to finish; its own memory lives in
 * the caller's memory context, which SPI does not reset.  Everything
 * happens in the caller's transaction, so an import that fails anywhere
 * leaves nothing behind.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "nodes/value.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "module.h"
#include "store/store.h"
#include "store/integrity.h"
#include "store/intern.h"
#include "writer/writer_internal.h"

/*
 * The writer's own statements, prepared by the first import of the backend
 * and kept, as the other phases keep theirs (writer_prepare_kept).
 */
static struct
{
	SPIPlanPtr	insert_profile;
	SPIPlanPtr	insert_profile_digest;
	SPIPlanPtr	insert_profile_sibling;
	SPIPlanPtr	update_profile;
} kept_plans;

/*
 * The first profile of the import under way (profile_writer_import_begins),
 * 0 until it is written.  Every profile with a digest follows a
 * content_note() of its import, which resets it: a profile never takes
 * another import's first.
 */
static int64 import_first_profile = 0;

void
profile_writer_import_begins(void)
{
	import_first_profile = 0;
}

SPIPlanPtr
writer_prepare(const char *query, int nargs, Oid *argtypes)
{
	SPIPlanPtr	plan = SPI_prepare(query, nargs, argtypes);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare(\"%s\") failed: %s", query, SPI_result_code_string(SPI_result));
	return plan;
}

/*
 * A statement every import runs, prepared by the first import of the
 * backend and kept (SPI_keepplan) in *kept: planning them took a good share
 * of a small import.  The plan cache plans them again when a table or
 * function they use changes, or search_path does, as it would have planned
 * them afresh.
 */
SPIPlanPtr
writer_prepare_kept(SPIPlanPtr *kept, const char *query, int nargs, Oid *argtypes)
{
	if (*kept == NULL)
	{
		SPIPlanPtr	plan = writer_prepare(query, nargs, argtypes);

		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "SPI_keepplan(\"%s\") failed", query);
		*kept = plan;
	}
	return *kept;
}

/* Runs a plan that returns one int8 (or int4) column in one row. */
int64
writer_execute_for_id(SPIPlanPtr plan, Datum *values, const char *nulls)
{
	int			ret = SPI_execute_plan(plan, values, nulls, false, 1);
	bool		isnull;
	Datum		id;
	Oid			type;

	if ((ret != SPI_OK_SELECT && ret != SPI_OK_INSERT_RETURNING) || SPI_processed != 1)
		elog(ERROR, "interning query returned %d with " UINT64_FORMAT " rows", ret, SPI_processed);
	id = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		elog(ERROR, "interning query returned NULL");
	type = SPI_gettypeid(SPI_tuptable->tupdesc, 1);
	SPI_freetuptable(SPI_tuptable);
	return type == INT4OID ? DatumGetInt32(id) : DatumGetInt64(id);
}

/* The array arguments of the writer's statements, one column of rows each */
ArrayType *
writer_int8_array(Datum *values, bool *nulls, int count)
{
	int			dims[1] = {count};
	int			lbs[1] = {1};

	return construct_md_array(values, nulls, 1, dims, lbs, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE);
}

ArrayType *
writer_int4_array(Datum *values, bool *nulls, int count)
{
	int			dims[1] = {count};
	int			lbs[1] = {1};

	return construct_md_array(values, nulls, 1, dims, lbs, INT4OID, sizeof(int32), true, TYPALIGN_INT);
}

ArrayType *
writer_text_array(Datum *values, bool *nulls, int count)
{
	int			dims[1] = {count};
	int			lbs[1] = {1};

	return construct_md_array(values, nulls, 1, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT);
}

static Datum
text_or_null(const char *s, char *null_flag)
{
	*null_flag = s ? ' ' : 'n';
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

static List *
column_names(const char *const *names, int count)
{
	List	   *columns = NIL;

	for (int i = 0; i < count; i++)
		columns = lappend(columns, makeString(pstrdup(names[i])));
	return columns;
}

/* Which of the tables the writer can COPY into; in the writer's context. */
static void
choose_copy(ProfileWriter *writer)
{
	static const char *const stack_columns[] = {"id", "prefix_id", "frame_id"};
	Oid			namespace = calltree_namespace();
	Oid			stack = calltree_relation(namespace, "stack");

	copy_rows_init(&writer->copy);
	if (copy_rows_allowed(stack))
	{
		writer->stack_relid = stack;
		writer->stack_columns = column_names(stack_columns, lengthof(stack_columns));
	}
	writer->stack_sequence = calltree_relation(namespace, "stack_id_seq");
	writer->on_citus = calltree_citus_table(stack, NULL) != CITUS_NONE;
}

/* The writer's caches and buffers, empty, in the caller's context */
static ProfileWriter *
writer_create(void)
{
	MemoryContext cxt = CurrentMemoryContext;
	ProfileWriter *writer = palloc0(sizeof(ProfileWriter));

	writer->cxt = cxt;
	/*
	 * Tiny at first: a hash table is zeroed when made, and a repeat import,
	 * which finds its funcs, frames and stacks in the backend's cache,
	 * puts nothing in most of them; they grow as needed.
	 */
	writer->funcs = idcache_create(cxt, WRITER_CACHE_FIRST_SIZE, NULL);
	writer->frames = idcache_create(cxt, WRITER_CACHE_FIRST_SIZE, NULL);
	writer->labels = idcache_create(cxt, WRITER_CACHE_FIRST_SIZE, NULL);
	writer->thread_texts = idcache_create(cxt, WRITER_CACHE_FIRST_SIZE, NULL);
	writer->walk_capacity = 64;
	writer->walk_frames = MemoryContextAlloc(cxt, sizeof(int64) * writer->walk_capacity);
	writer->walk_stacks = MemoryContextAlloc(cxt, sizeof(int64) * writer->walk_capacity);
	writer->path_capacity = 64;
	writer->path_frames = MemoryContextAlloc(cxt, sizeof(int64) * writer->path_capacity);
	writer_init_stack_caches(writer);
	writer->next_analyze = 1000;
	writer_pending_init(&writer->pending_funcs, cxt, sizeof(PendingFunc));
	writer_pending_init(&writer->pending_frames, cxt, sizeof(PendingFrame));
	writer_pending_init(&writer->pending_stacks, cxt, sizeof(PendingStack));
	initStringInfo(&writer->key);
	initStringInfo(&writer->func_frame_key);
	return writer;
}

/*
 * The INSERT of the profile row; with the file's digest when the importer
 * gives one (it does not while the tables are those of a version before
 * content_sha256, until ALTER EXTENSION calltree UPDATE), and the first
 * profile of its import when this is not that one.
 */
static SPIPlanPtr
prepare_insert_profile(const ProfileInfo *info)
{
	Oid			types[7] = {TEXTOID, TEXTOID, TEXTOID, JSONBOID, TIMESTAMPTZOID, BYTEAOID, INT8OID};

	if (info->first_of_import != 0)
		return writer_prepare_kept(&kept_plans.insert_profile_sibling,
								   "INSERT INTO calltree.profile (name, format, weight_unit, meta, started_at, content_sha256, first_of_import) "
								   "VALUES ($1, $2, coalesce($3, 'samples'), coalesce($4, '{}'), $5, $6, $7) RETURNING id",
								   7, types);
	if (info->content_sha256 != NULL)
		return writer_prepare_kept(&kept_plans.insert_profile_digest,
								   "INSERT INTO calltree.profile (name, format, weight_unit, meta, started_at, content_sha256) "
								   "VALUES ($1, $2, coalesce($3, 'samples'), coalesce($4, '{}'), $5, $6) RETURNING id",
								   6, types);
	return writer_prepare_kept(&kept_plans.insert_profile,
							   "INSERT INTO calltree.profile (name, format, weight_unit, meta, started_at) "
							   "VALUES ($1, $2, coalesce($3, 'samples'), coalesce($4, '{}'), $5) RETURNING id",
							   5, types);
}

/* The profile row, as the SQL caller described it; its id. */
static int64
insert_profile(SPIPlanPtr plan, const ProfileInfo *info)
{
	Datum		values[7];
	char		nulls[7];

	values[0] = text_or_null(info->name, &nulls[0]);
	values[1] = text_or_null(info->format, &nulls[1]);
	values[2] = text_or_null(info->weight_unit, &nulls[2]);
	values[3] = PointerGetDatum(info->meta);
	nulls[3] = info->meta ? ' ' : 'n';
	values[4] = TimestampTzGetDatum(info->started_at);
	nulls[4] = info->has_started_at ? ' ' : 'n';
	values[5] = PointerGetDatum(info->content_sha256);
	nulls[5] = info->content_sha256 ? ' ' : 'n';
	values[6] = Int64GetDatum(info->first_of_import);
	nulls[6] = info->first_of_import != 0 ? ' ' : 'n';
	return writer_execute_for_id(plan, values, nulls);
}

/*
 * calltree.import_started_at, when set, as the row's start time, which
 * the importer may then not change: so the profile row is written once
 * with the start a caller gives (calltree-receiver: a push's from), where
 * an UPDATE after the import wrote a second version of it and of its
 * index entries.  Read as timestamptz in the session's time zone.
 */
static void
give_started_at(ProfileWriter *writer, ProfileInfo *row)
{
	if (calltree_import_started_at == NULL || calltree_import_started_at[0] == '\0')
		return;
	row->started_at = DatumGetTimestampTz(DirectFunctionCall3(timestamptz_in,
															  CStringGetDatum(calltree_import_started_at),
															  ObjectIdGetDatum(InvalidOid),
															  Int32GetDatum(-1)));
	row->has_started_at = true;
	writer->started_at_given = true;
}

ProfileWriter *
profile_writer_begin(const ProfileInfo *info)
{
	ProfileWriter *writer = writer_create();
	ProfileInfo row = *info;

	row.first_of_import = info->content_sha256 != NULL ? import_first_profile : 0;
	give_started_at(writer, &row);
	SPI_connect();
	if (!writer_insert_profile_row(&row, &writer->profile_id))
		writer->profile_id = insert_profile(prepare_insert_profile(&row), &row);
	if (info->content_sha256 != NULL && import_first_profile == 0)
		import_first_profile = writer->profile_id;
	MemoryContextSwitchTo(writer->cxt);

	/*
	 * The relations and types of the writes found after that INSERT, which
	 * waited for a DROP EXTENSION (or any change of profile) still open and
	 * saw it once ended: found before, they could be the dropped ones
	 * (could not open relation with OID...).
	 */
	choose_copy(writer);
	writer_prepare_flush(writer);
	writer_prepare_samples(writer);

	/*
	 * Frames and stacks are looked up in a snapshot taken after the lock
	 * that holds off their deletion, so every one found stays: the writer
	 * vouches for the references of the stacks and samples it writes, which
	 * are not checked again (integrity.c).  Funcs are looked up in the
	 * snapshot in which the foreign key of the frames that refer to them
	 * checks them: under READ COMMITTED a new one, so the one taken after
	 * the lock, which also sees the funcs that collect_garbage() deleted
	 * while this import waited for it; under REPEATABLE READ the
	 * transaction's, which outlives this call.
	 */
	integrity_hold_stacks();
	writer->labels_held = integrity_writer_holds_labels();
	intern_cache_open();
	writer->held_snapshot = RegisterSnapshot(GetLatestSnapshot());
	writer->probe = intern_probe_begin(IsolationUsesXactSnapshot() ? GetActiveSnapshot() : writer->held_snapshot,
									   writer->held_snapshot);
	return writer;
}

int64
profile_writer_id(const ProfileWriter *writer)
{
	return writer->profile_id;
}

void
profile_writer_set_unit(ProfileWriter *writer, const char *weight_unit)
{
	writer->weight_unit = MemoryContextStrdup(writer->cxt, weight_unit);
}

void
profile_writer_set_started_at(ProfileWriter *writer, TimestampTz started_at)
{
	if (writer->started_at_given)
		return;
	writer->has_started_at = true;
	writer->started_at = started_at;
}

/*
 * The probes look in a new snapshot from now on (the lock on the stack
 * table, held since the start, still keeps every row found).
 */
void
writer_renew_probe(ProfileWriter *writer)
{
	MemoryContext old;

	intern_probe_end(writer->probe);
	UnregisterSnapshot(writer->held_snapshot);
	CommandCounterIncrement();
	writer->held_snapshot = RegisterSnapshot(GetLatestSnapshot());
	/* the probe's scans live as long as the writer, not the caller's line */
	old = MemoryContextSwitchTo(writer->cxt);
	writer->probe = intern_probe_begin(GetActiveSnapshot(), writer->held_snapshot);
	MemoryContextSwitchTo(old);
}

/*
 * Takes the intern lock (intern_lock.c) before the writer's first new row,
 * or before it names a new address frame, and keeps it until the
 * transaction ends: no other transaction then has uncommitted interned
 * rows for the writer's INSERTs to wait on, and symbolicate() cannot move
 * address frames between the naming and the commit.
 *
 * The writer may have waited for the lock while another import committed
 * rows that this one thought new.  Its probes look in a new snapshot from
 * then on, which sees them, and which no other transaction's rows can
 * outdate while the lock is held.  Rows already pending are found by the
 * INSERTs' ON CONFLICT and probed again (writer_flush.c).  True if the
 * lock was taken now (and the snapshot renewed).
 */
bool
writer_hold_intern_lock(ProfileWriter *writer)
{
	if (writer->intern_locked)
		return false;
	intern_lock_acquire();
	writer->intern_locked = true;
	writer_renew_probe(writer);
	return true;
}

/* The unit and start time the importer found, into the profile row */
static void
update_profile(ProfileWriter *writer)
{
	Oid			types[3] = {INT8OID, TEXTOID, TIMESTAMPTZOID};
	Datum		values[3];
	char		nulls[3] = {' ', ' ', ' '};
	SPIPlanPtr	update = writer_prepare_kept(&kept_plans.update_profile,
											 "UPDATE calltree.profile "
											 "SET weight_unit = coalesce($2, weight_unit), "
											 "started_at = coalesce($3, started_at) WHERE id OPERATOR(pg_catalog.=) $1",
											 3, types);

	values[0] = Int64GetDatum(writer->profile_id);
	values[1] = text_or_null(writer->weight_unit, &nulls[1]);
	values[2] = TimestampTzGetDatum(writer->started_at);
	nulls[2] = writer->has_started_at ? ' ' : 'n';
	if (SPI_execute_plan(update, values, nulls, false, 0) != SPI_OK_UPDATE)
		elog(ERROR, "updating profile " INT64_FORMAT " failed", writer->profile_id);
}

/* Inserts what is left, records the unit and start time; the profile id. */
int64
profile_writer_finish(ProfileWriter *writer)
{
	writer_flush_samples(writer);
	writer_sets_write_all(writer, writer->sets);
	writer_write_all_pending(writer);	/* stacks no sample refers to still exist */
	writer_remember_written(writer);
	writer_lock_label_sets(writer);
	intern_probe_end(writer->probe);
	UnregisterSnapshot(writer->held_snapshot);
	if (writer->weight_unit || writer->has_started_at)
		update_profile(writer);
	SPI_finish();
	return writer->profile_id;
}
