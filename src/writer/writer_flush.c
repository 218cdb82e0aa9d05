/*
 * writer_flush.c
 *	  The writer's pending rows: funcs, frames and stacks no visible row
 *	  holds, kept under provisional ids, then written in sets.
 *
 * Before the first sample or event that refers to them, the pending rows
 * are written: funcs, then frames, then stacks a level at a time, so that
 * every row's references are written before it.  Each set is one
 * INSERT ... ON CONFLICT DO NOTHING; a row another session wrote first is
 * skipped and found again by a probe (write_set).  Stacks that only this
 * writer can have made (fresh_stack) go in by COPY (copy_rows.c), or, where
 * row security applies to the stack table, by a plain INSERT.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/sequence.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "store/integrity.h"
#include "store/intern.h"
#include "store/store.h"
#include "writer/writer_internal.h"

#define WRITE_SET_MAX 100000	/* rows per INSERT of new interned rows */

/*
 * The statements that write pending rows, prepared by the first import of
 * the backend and kept (writer_prepare_kept).
 */
static struct
{
	SPIPlanPtr	write_funcs;
	SPIPlanPtr	write_frames;
	SPIPlanPtr	write_stacks;
	SPIPlanPtr	insert_stacks;
} kept_plans;

/* No pending rows yet, each `row_size` bytes, with room for a thousand in `cxt` */
void
writer_pending_init(PendingRows *pending, MemoryContext cxt, Size row_size)
{
	pending->row_size = row_size;
	pending->capacity = 1024;
	pending->rows = MemoryContextAlloc(cxt, row_size * pending->capacity);
	pending->written = MemoryContextAlloc(cxt, sizeof(int64) * pending->capacity);
	pending->inserted = MemoryContextAlloc(cxt, sizeof(bool) * pending->capacity);
}

/*
 * Forgets every pending row (all written), keeping the arrays for the rows
 * to come.  Their provisional ids are not handed out again: keys made with
 * one (a frame's func) then never match a new row's.
 */
void
writer_pending_reset(PendingRows *pending)
{
	Assert(pending->nwritten == pending->count);
	pending->base += pending->count;
	pending->count = pending->nwritten = 0;
}

/* A new pending row; its provisional id. */
int64
writer_pending_add(PendingRows *pending, const void *row)
{
	if (pending->count == pending->capacity)
	{
		pending->capacity *= 2;
		pending->rows = repalloc_huge(pending->rows, pending->row_size * pending->capacity);
		pending->written = repalloc_huge(pending->written, sizeof(int64) * pending->capacity);
		pending->inserted = repalloc_huge(pending->inserted, sizeof(bool) * pending->capacity);
	}
	memcpy((char *) pending->rows + pending->row_size * pending->count, row, pending->row_size);
	pending->written[pending->count] = 0;
	pending->inserted[pending->count] = false;
	pending->count++;
	return -(pending->base + pending->count);
}

/*
 * Prepares the writer's statements for pending rows.  New rows are written
 * in sets; a row another session wrote first is skipped by ON CONFLICT and
 * found again by a probe (write_set).
 */
void
writer_prepare_flush(ProfileWriter *writer)
{
	Oid			func_types[3] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID};
	Oid			frame_types[5] = {INT4ARRAYOID, INT8ARRAYOID, INT4ARRAYOID, INT4ARRAYOID, TEXTARRAYOID};
	Oid			stack_types[3] = {INT8ARRAYOID, INT8ARRAYOID, INT8ARRAYOID};

	writer->write_funcs_plan =
		writer_prepare_kept(&kept_plans.write_funcs, "INSERT INTO calltree.func AS t (name, file, resource) "
				"SELECT u.name, u.file, u.resource "
				"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3)) "
				"AS u(name, file, resource) "
				"ON CONFLICT ON CONSTRAINT func_key DO NOTHING "
				"RETURNING t.id, t.name, t.file, t.resource",
				3, func_types);
	writer->write_frames_plan =
		writer_prepare_kept(&kept_plans.write_frames, "INSERT INTO calltree.frame AS t (func_id, address, line, col, implementation) "
				"SELECT u.f, u.a, u.l, u.c, u.i "
				"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3), "
				"pg_catalog.unnest($4), pg_catalog.unnest($5)) AS u(f, a, l, c, i) "
				"ON CONFLICT ON CONSTRAINT frame_key DO NOTHING "
				"RETURNING t.id, t.func_id, t.address, t.line, t.col, t.implementation",
				5, frame_types);
	writer->write_stacks_plan =
		writer_prepare_kept(&kept_plans.write_stacks, "INSERT INTO calltree.stack AS t (prefix_id, frame_id) "
				"SELECT u.prefix, u.frame "
				"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS u(prefix, frame) "
				"ON CONFLICT ON CONSTRAINT stack_key DO NOTHING "
				"RETURNING t.id, t.prefix_id, t.frame_id",
				2, stack_types);
	writer->insert_stacks_plan =
		writer_prepare_kept(&kept_plans.insert_stacks, "INSERT INTO calltree.stack (id, prefix_id, frame_id) "
				"SELECT u.id, u.prefix, u.frame "
				"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3)) "
				"AS u(id, prefix, frame)",
				3, stack_types);
}

/*
 * Keeps the planner's view of the interned tables up to date while they
 * grow.  The foreign-key checks on every new row run cached plans; planned
 * when the tables were small (a fresh database, statistics from a first
 * small import), they scan whole tables, and a big import turns quadratic.
 * ANALYZE, which may run inside a transaction and counts this transaction's
 * own new rows, invalidates those plans.  It runs each time the rows written
 * by this import grow fourfold, so a handful of times per import, and only
 * for the tables' owner (others could not).
 */
static void
note_interned(ProfileWriter *writer, int64 count)
{
	Oid			stack_relid;

	writer->interned += count;
	if (writer->interned < writer->next_analyze)
		return;
	writer->next_analyze *= 4;
	stack_relid = calltree_relname_relid("stack", calltree_namespace());
	if (!OidIsValid(stack_relid) || !pg_class_ownercheck(stack_relid, GetUserId()))
		return;
	/* Citus refuses it after this transaction's writes to the reference tables */
	if (calltree_citus_table(stack_relid, NULL) != CITUS_NONE)
		return;
	if (SPI_execute("ANALYZE calltree.func, calltree.frame, calltree.stack", false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "ANALYZE of the interned tables failed");
	MemoryContextSwitchTo(writer->cxt);
}

/*
 * How write_set handles one kind of pending row: the statement's array
 * arguments for a set of rows, the encoded real key of a pending row and of
 * a returned one (to match them), and a probe for a row's real key.
 */
typedef struct RowKind
{
	const char *what;
	int			nargs;
	void		(*bind) (ProfileWriter *writer, const int64 *set, int count, Datum *args);
	void		(*pending_key) (ProfileWriter *writer, int64 index, StringInfo key);
	void		(*returned_key) (HeapTuple row, TupleDesc desc, StringInfo key);
	int64		(*probe) (ProfileWriter *writer, InternProbe *probe, int64 index);
} RowKind;

/* a returned column as an OptionalInt */
static OptionalInt
column_int(HeapTuple row, TupleDesc desc, int column)
{
	bool		isnull;
	Datum		value = SPI_getbinval(row, desc, column, &isnull);

	if (isnull)
		return NO_INT;
	return SOME_INT(SPI_gettypeid(desc, column) == INT4OID ? DatumGetInt32(value) : DatumGetInt64(value));
}

static const char *
column_text(HeapTuple row, TupleDesc desc, int column)
{
	bool		isnull;
	Datum		value = SPI_getbinval(row, desc, column, &isnull);

	return isnull ? NULL : TextDatumGetCString(value);
}

static Datum
text_datum(const char *s, bool *isnull)
{
	*isnull = s == NULL;
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

static Datum
int_datum(OptionalInt v, bool *isnull)
{
	*isnull = !v.present;
	return Int64GetDatum(v.value);
}

/* funcs */

static inline PendingFunc *
pending_func(ProfileWriter *writer, int64 index)
{
	return &((PendingFunc *) writer->pending_funcs.rows)[index];
}

static void
bind_funcs(ProfileWriter *writer, const int64 *set, int count, Datum *args)
{
	Datum	   *values = palloc(sizeof(Datum) * count * 3);
	bool	   *nulls = palloc(sizeof(bool) * count * 3);

	for (int i = 0; i < count; i++)
	{
		PendingFunc *row = pending_func(writer, set[i]);

		values[i] = text_datum(row->name, &nulls[i]);
		values[count + i] = text_datum(row->file, &nulls[count + i]);
		values[2 * count + i] = text_datum(row->resource, &nulls[2 * count + i]);
	}
	for (int a = 0; a < 3; a++)
		args[a] = PointerGetDatum(writer_text_array(values + a * count, nulls + a * count, count));
}

static void
pending_func_key(ProfileWriter *writer, int64 index, StringInfo key)
{
	PendingFunc *row = pending_func(writer, index);

	writer_func_key(key, row->name, row->file, row->resource);
}

static void
returned_func_key(HeapTuple row, TupleDesc desc, StringInfo key)
{
	writer_func_key(key, column_text(row, desc, 2), column_text(row, desc, 3), column_text(row, desc, 4));
}

static int64
probe_func(ProfileWriter *writer, InternProbe *probe, int64 index)
{
	PendingFunc *row = pending_func(writer, index);

	return intern_probe_func(probe, row->name, row->file, row->resource);
}

static const RowKind func_rows = {"funcs", 3, bind_funcs, pending_func_key, returned_func_key, probe_func};

/* frames: their funcs are written */

static inline PendingFrame *
pending_frame(ProfileWriter *writer, int64 index)
{
	return &((PendingFrame *) writer->pending_frames.rows)[index];
}

static void
bind_frames(ProfileWriter *writer, const int64 *set, int count, Datum *args)
{
	Datum	   *values = palloc(sizeof(Datum) * count * 5);
	bool	   *nulls = palloc(sizeof(bool) * count * 5);

	for (int i = 0; i < count; i++)
	{
		PendingFrame *row = pending_frame(writer, set[i]);

		values[i] = Int32GetDatum((int32) real_id(&writer->pending_funcs, row->func));
		nulls[i] = false;
		values[count + i] = int_datum(row->address, &nulls[count + i]);
		values[2 * count + i] = Int32GetDatum((int32) row->line.value);
		nulls[2 * count + i] = !row->line.present;
		values[3 * count + i] = Int32GetDatum((int32) row->col.value);
		nulls[3 * count + i] = !row->col.present;
		values[4 * count + i] = text_datum(row->implementation, &nulls[4 * count + i]);
	}
	args[0] = PointerGetDatum(writer_int4_array(values, nulls, count));
	args[1] = PointerGetDatum(writer_int8_array(values + count, nulls + count, count));
	args[2] = PointerGetDatum(writer_int4_array(values + 2 * count, nulls + 2 * count, count));
	args[3] = PointerGetDatum(writer_int4_array(values + 3 * count, nulls + 3 * count, count));
	args[4] = PointerGetDatum(writer_text_array(values + 4 * count, nulls + 4 * count, count));
}

static void
pending_frame_key(ProfileWriter *writer, int64 index, StringInfo key)
{
	PendingFrame *row = pending_frame(writer, index);

	writer_frame_key(key, real_id(&writer->pending_funcs, row->func), row->address, row->line,
			  row->col, row->implementation);
}

static void
returned_frame_key(HeapTuple row, TupleDesc desc, StringInfo key)
{
	writer_frame_key(key, column_int(row, desc, 2).value, column_int(row, desc, 3),
			  column_int(row, desc, 4), column_int(row, desc, 5), column_text(row, desc, 6));
}

static int64
probe_frame(ProfileWriter *writer, InternProbe *probe, int64 index)
{
	PendingFrame *row = pending_frame(writer, index);

	return intern_probe_frame(probe, (int32) real_id(&writer->pending_funcs, row->func),
							  row->address, row->line, row->col, row->implementation);
}

static const RowKind frame_rows = {"frames", 5, bind_frames, pending_frame_key, returned_frame_key, probe_frame};

/* stacks: their frames and prefixes are written */

static inline PendingStack *
pending_stack(ProfileWriter *writer, int64 index)
{
	return &((PendingStack *) writer->pending_stacks.rows)[index];
}

static void
bind_stacks(ProfileWriter *writer, const int64 *set, int count, Datum *args)
{
	Datum	   *values = palloc(sizeof(Datum) * count * 2);
	bool	   *nulls = palloc(sizeof(bool) * count * 2);

	for (int i = 0; i < count; i++)
	{
		PendingStack *row = pending_stack(writer, set[i]);

		values[i] = Int64GetDatum(real_id(&writer->pending_stacks, row->prefix));
		nulls[i] = row->prefix == 0;
		values[count + i] = Int64GetDatum(real_id(&writer->pending_frames, row->frame));
		nulls[count + i] = false;
	}
	args[0] = PointerGetDatum(writer_int8_array(values, nulls, count));
	args[1] = PointerGetDatum(writer_int8_array(values + count, nulls + count, count));
}

static void
pending_stack_key(ProfileWriter *writer, int64 index, StringInfo key)
{
	PendingStack *row = pending_stack(writer, index);

	writer_stack_key(key, real_id(&writer->pending_stacks, row->prefix),
			  real_id(&writer->pending_frames, row->frame));
}

static void
returned_stack_key(HeapTuple row, TupleDesc desc, StringInfo key)
{
	writer_stack_key(key, column_int(row, desc, 2).value, column_int(row, desc, 3).value);
}

static int64
probe_stack(ProfileWriter *writer, InternProbe *probe, int64 index)
{
	PendingStack *row = pending_stack(writer, index);

	return intern_probe_stack(probe, real_id(&writer->pending_stacks, row->prefix),
							  real_id(&writer->pending_frames, row->frame));
}

static const RowKind stack_rows = {"stacks", 2, bind_stacks, pending_stack_key, returned_stack_key, probe_stack};

/*
 * Probes again, with the latest snapshot, for pending rows the INSERT
 * skipped: another session committed them while the INSERT waited, after
 * the statement's snapshot.  (Under REPEATABLE READ the INSERT raises a
 * serialization failure instead.)  Compacts `set` to the rows still
 * missing; their number.
 */
static int
probe_skipped(ProfileWriter *writer, const RowKind *kind, PendingRows *pending,
			  int64 *set, int count)
{
	Snapshot	snapshot;
	InternProbe *probe;
	int			missing = 0;

	/* usually the INSERT returned every row: no new snapshot, no scans */
	for (int i = 0; i < count && missing == 0; i++)
		missing = pending->written[set[i]] == 0;
	if (missing == 0)
		return 0;
	missing = 0;
	snapshot = RegisterSnapshot(GetLatestSnapshot());
	probe = intern_probe_begin(snapshot, snapshot);
	for (int i = 0; i < count; i++)
	{
		if (pending->written[set[i]] == 0)
			pending->written[set[i]] = kind->probe(writer, probe, set[i]);
		if (pending->written[set[i]] == 0)
			set[missing++] = set[i];
	}
	intern_probe_end(probe);
	UnregisterSnapshot(snapshot);
	return missing;
}

/*
 * The rows an INSERT of write_set returned, matched to the pending rows by
 * key (`by_key`: a pending row's encoded key -> its index), which take
 * their ids.  `key` is room to encode in.
 */
static void
match_returned(const RowKind *kind, PendingRows *pending, idcache_hash *by_key, StringInfo key)
{
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		found;
		int64		index;

		kind->returned_key(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, key);
		index = cached_id(by_key, key, &found);
		if (!found)
			elog(ERROR, "writing %s returned a row that was not asked for", kind->what);
		pending->written[index] = column_int(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1).value;
		pending->inserted[index] = true;
	}
}

/*
 * Writes a set of pending rows whose references are all written: one
 * INSERT ... ON CONFLICT DO NOTHING for the set, matching the returned rows
 * to the pending ones by key.
 */
static void
write_set(ProfileWriter *writer, const RowKind *kind, PendingRows *pending,
		  SPIPlanPtr plan, const int64 *indexes, int count)
{
	MemoryContext cxt = AllocSetContextCreate(writer->cxt, "calltree write set", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	int64	   *set = palloc(sizeof(int64) * count);
	idcache_hash *by_key = idcache_create(cxt, count, NULL);
	StringInfoData key;
	Datum		args[5];

	initStringInfo(&key);
	memcpy(set, indexes, sizeof(int64) * count);
	for (int i = 0; i < count; i++)
	{
		kind->pending_key(writer, set[i], &key);
		writer_cache_id(cxt, by_key, &key, set[i]);
	}
	/*
	 * Citus miscounts an INSERT ... ON CONFLICT DO NOTHING RETURNING into a
	 * reference table that skips rows (SPI then fails its tuple count
	 * check): under the intern lock, which every writer of interned rows
	 * holds, a probe first finds the rows other imports committed
	 * meanwhile, and the INSERT meets no conflict.
	 */
	if (writer->on_citus)
		count = probe_skipped(writer, kind, pending, set, count);
	while (count > 0)
	{
		int64		written;

		CHECK_FOR_INTERRUPTS();
		kind->bind(writer, set, count, args);
		if (integrity_execute_vouched(plan, args, NULL) != SPI_OK_INSERT_RETURNING)
			elog(ERROR, "writing %s failed", kind->what);
		MemoryContextSwitchTo(cxt);
		match_returned(kind, pending, by_key, &key);
		written = (int64) SPI_processed;
		/* before note_interned, whose ANALYZE replaces SPI_tuptable */
		SPI_freetuptable(SPI_tuptable);
		note_interned(writer, written);
		MemoryContextSwitchTo(cxt);
		count = probe_skipped(writer, kind, pending, set, count);
	}
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
}

/* Writes the pending rows of one kind that have no pending references. */
static void
write_pending(ProfileWriter *writer, const RowKind *kind, PendingRows *pending, SPIPlanPtr plan)
{
	int64		count = pending->count - pending->nwritten;
	int64	   *set;

	if (count == 0)
		return;
	set = palloc_extended(sizeof(int64) * count, MCXT_ALLOC_HUGE);
	for (int64 k = 0; k < count; k++)
		set[k] = pending->nwritten + k;
	for (int64 done = 0; done < count; done += WRITE_SET_MAX)
		write_set(writer, kind, pending, plan, set + done, (int) Min(WRITE_SET_MAX, count - done));
	pending->nwritten = pending->count;
	pfree(set);
}

/*
 * Whether a pending stack is fresh: its prefix or its frame is a row this
 * writer inserted.  No other transaction can see that row before this one
 * commits, and no other writer of this transaction runs while this one
 * does, so nobody else can have written the stack: a plain INSERT writes
 * it, without ON CONFLICT's check of the unique index beforehand.
 */
static bool
fresh_stack(ProfileWriter *writer, int64 index)
{
	PendingStack *row = pending_stack(writer, index);

	return inserted_here(&writer->pending_stacks, row->prefix) ||
		inserted_here(&writer->pending_frames, row->frame);
}

/* The gathered fresh stacks by COPY */
static void
copy_fresh_stacks(ProfileWriter *writer)
{
	FreshStacks *fresh = &writer->fresh;
	CopyRows   *rows = &writer->copy;

	copy_rows_reset(rows);
	for (int i = 0; i < fresh->count; i++)
	{
		copy_rows_int8(rows, fresh->ids[i]);
		if (fresh->prefixes[i] == 0)
			copy_rows_null(rows);
		else
			copy_rows_int8(rows, fresh->prefixes[i]);
		copy_rows_int8(rows, fresh->frames[i]);
		copy_rows_end_row(rows);
	}
	integrity_copy_vouched(rows, writer->stack_relid, InvalidOid, writer->stack_columns);
}

/* The gathered fresh stacks by INSERT (row security applies) */
static void
insert_fresh_stacks(ProfileWriter *writer)
{
	FreshStacks *fresh = &writer->fresh;
	int			n = fresh->count;
	Datum	   *values = palloc(sizeof(Datum) * n * 3);
	bool	   *nulls = palloc0(sizeof(bool) * n * 3);
	Datum		args[3];
	int			ret;

	for (int i = 0; i < n; i++)
	{
		values[i] = Int64GetDatum(fresh->ids[i]);
		values[n + i] = Int64GetDatum(fresh->prefixes[i]);
		nulls[n + i] = fresh->prefixes[i] == 0;
		values[2 * n + i] = Int64GetDatum(fresh->frames[i]);
	}
	for (int a = 0; a < 3; a++)
		args[a] = PointerGetDatum(writer_int8_array(values + a * n, nulls + a * n, n));
	ret = integrity_execute_vouched(writer->insert_stacks_plan, args, NULL);
	if (ret != SPI_OK_INSERT || SPI_processed != (uint64) n)
		elog(ERROR, "inserting stacks returned %d with " UINT64_FORMAT " rows", ret, SPI_processed);
	MemoryContextSwitchTo(writer->cxt);
	for (int a = 0; a < 3; a++)
		pfree(DatumGetPointer(args[a]));
	pfree(values);
	pfree(nulls);
}

/*
 * Writes the gathered fresh stacks in one statement.  Their ids are given,
 * so a stack may have its prefix among them.
 */
static void
write_fresh_stacks(ProfileWriter *writer)
{
	if (writer->fresh.count == 0)
		return;
	if (OidIsValid(writer->stack_relid))
		copy_fresh_stacks(writer);
	else
		insert_fresh_stacks(writer);
	note_interned(writer, writer->fresh.count);
	MemoryContextSwitchTo(writer->cxt);
	writer->fresh.count = 0;
}

/*
 * A fresh stack gets its id from the stack table's sequence now, and waits
 * with the others for write_fresh_stacks.  The stacks come a level at a
 * time, so a prefix always has the smaller id, as the table's CHECK wants.
 */
static void
add_fresh_stack(ProfileWriter *writer, int64 index)
{
	PendingRows *pending = &writer->pending_stacks;
	FreshStacks *fresh = &writer->fresh;
	PendingStack *row = pending_stack(writer, index);
	int64		id = nextval_internal(writer->stack_sequence, true);

	if (fresh->ids == NULL)
	{
		fresh->ids = MemoryContextAlloc(writer->cxt, sizeof(int64) * WRITE_SET_MAX);
		fresh->prefixes = MemoryContextAlloc(writer->cxt, sizeof(int64) * WRITE_SET_MAX);
		fresh->frames = MemoryContextAlloc(writer->cxt, sizeof(int64) * WRITE_SET_MAX);
	}
	fresh->ids[fresh->count] = id;
	fresh->prefixes[fresh->count] = row->prefix == 0 ? 0 : real_id(pending, row->prefix);
	fresh->frames[fresh->count] = real_id(&writer->pending_frames, row->frame);
	pending->written[index] = id;
	pending->inserted[index] = true;
	if (++fresh->count == WRITE_SET_MAX)
		write_fresh_stacks(writer);
}

/*
 * The unwritten pending stacks grouped by level (their depth among the
 * unwritten ones), by a counting sort: order[first[l]] up to
 * order[first[l + 1]] are the indexes of level l's stacks.  The number of
 * levels; order and first in the current context.
 */
static int32
stacks_by_level(ProfileWriter *writer, int64 **order, int64 **first)
{
	PendingRows *pending = &writer->pending_stacks;
	int64		base = pending->nwritten;
	int64		count = pending->count - base;
	int32	   *level = palloc_extended(sizeof(int32) * count, MCXT_ALLOC_HUGE);
	int64	   *fill;
	int32		levels = 0;

	*order = palloc_extended(sizeof(int64) * count, MCXT_ALLOC_HUGE);
	for (int64 k = 0; k < count; k++)
	{
		int64		prefix = pending_stack(writer, base + k)->prefix;
		int64		prefix_index = prefix < 0 ? pending_index(pending, prefix) - base : -1;

		/* a prefix written in an earlier flush has a negative index here */
		level[k] = prefix_index >= 0 ? level[prefix_index] + 1 : 0;
		levels = Max(levels, level[k] + 1);
	}
	*first = palloc0(sizeof(int64) * ((Size) levels + 2));
	for (int64 k = 0; k < count; k++)
		(*first)[level[k] + 1]++;
	for (int32 l = 0; l < levels; l++)
		(*first)[l + 1] += (*first)[l];
	fill = palloc(sizeof(int64) * ((Size) levels + 1));
	memcpy(fill, *first, sizeof(int64) * ((Size) levels + 1));
	for (int64 k = 0; k < count; k++)
		(*order)[fill[level[k]]++] = base + k;
	pfree(fill);
	pfree(level);
	return levels;
}

/*
 * Writes the stacks of one level: the fresh ones wait for
 * write_fresh_stacks, the others go in sets.  `done` counts the stacks of
 * the earlier levels, for the checks for interrupts.
 */
static void
write_stack_level(ProfileWriter *writer, int64 *set, int64 n, int64 done)
{
	int64		nknown = 0;

	/* the others are gathered at the set's start */
	for (int64 i = 0; i < n; i++)
	{
		if (((done + i) & 0x3FFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (fresh_stack(writer, set[i]))
			add_fresh_stack(writer, set[i]);
		else
			set[nknown++] = set[i];
	}
	for (int64 written = 0; written < nknown; written += WRITE_SET_MAX)
		write_set(writer, &stack_rows, &writer->pending_stacks, writer->write_stacks_plan,
				  set + written, (int) Min(WRITE_SET_MAX, nknown - written));
}

/*
 * Writes the pending stacks a level at a time, so that a stack's prefix has
 * its id before it.  A fresh stack (fresh_stack) is written with the fresh
 * stacks of every level in one statement, since its id is given: a deep
 * stack of new funcs takes one.  The others, which another session may have
 * written first, are written by an INSERT ... ON CONFLICT per level that
 * has any; all of them but the first level of a new stack are fresh,
 * unless another session writes the same new stacks at the same time.
 */
static void
write_pending_stacks(ProfileWriter *writer)
{
	PendingRows *pending = &writer->pending_stacks;
	int64	   *order;
	int64	   *first;
	int32		levels;

	if (pending->count == pending->nwritten)
		return;
	levels = stacks_by_level(writer, &order, &first);
	for (int32 l = 0; l < levels; l++)
		write_stack_level(writer, order + first[l], first[l + 1] - first[l], first[l]);
	write_fresh_stacks(writer);
	pending->nwritten = pending->count;
	pfree(order);
	pfree(first);
}

/* Writes every pending func, frame and stack, in that order. */
void
writer_write_all_pending(ProfileWriter *writer)
{
	if (writer->pending_funcs.nwritten < writer->pending_funcs.count ||
		writer->pending_frames.nwritten < writer->pending_frames.count ||
		writer->pending_stacks.nwritten < writer->pending_stacks.count)
		writer_hold_intern_lock(writer);
	write_pending(writer, &func_rows, &writer->pending_funcs, writer->write_funcs_plan);
	write_pending(writer, &frame_rows, &writer->pending_frames, writer->write_frames_plan);
	write_pending_stacks(writer);
}

/*
 * Tells the backend's cache the pending rows written since the last reset,
 * by their real keys, for the imports to come (an abort of this
 * transaction empties it).
 */
void
writer_remember_written(ProfileWriter *writer)
{
	StringInfo	key = &writer->key;

	for (int64 i = 0; i < writer->pending_funcs.nwritten; i++)
	{
		pending_func_key(writer, i, key);
		intern_cache_put(INTERN_FUNC, key->data, key->len, writer->pending_funcs.written[i]);
	}
	for (int64 i = 0; i < writer->pending_frames.nwritten; i++)
	{
		pending_frame_key(writer, i, key);
		intern_cache_put(INTERN_FRAME, key->data, key->len, writer->pending_frames.written[i]);
	}
	for (int64 i = 0; i < writer->pending_stacks.nwritten; i++)
	{
		PendingStack *row = pending_stack(writer, i);

		intern_cache_put_stack(real_id(&writer->pending_stacks, row->prefix),
							   real_id(&writer->pending_frames, row->frame),
							   writer->pending_stacks.written[i]);
	}
}
