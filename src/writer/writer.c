/*
 * import.c
 *	  The ProfileWriter: an imported profile into the calltree tables.
 *
 * Funcs, frames and stacks are found by probing their unique indexes
 * (intern_probe.c), with a cache in front so that each distinct key is
 * looked up once (an import that needs a good share of the stack table
 * reads it whole into the cache instead: should_load_stacks); new ones get
 * provisional ids and are written in sets with INSERT ... ON CONFLICT DO
 * NOTHING before any sample refers to them.
 * Stacks that only this writer can have made (fresh_stack) and samples,
 * buffered 10,000 at a time, go in by COPY (copy_rows.c); where row
 * security applies to their table, by INSERT ... SELECT FROM unnest(...).
 * From its start the writer holds the stack table against deletes
 * (integrity.c), so what it finds stays, and it vouches for the references
 * of the rows it writes.
 *
 * The writer keeps one SPI connection open from begin to finish.  Its own
 * memory lives in the caller's memory context, which SPI does not reset.
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/sequence.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/value.h"
#include "catalog/namespace.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"

#include "module.h"
#include "tree/hash64.h"
#include "store/relations.h"
#include "store/copy_rows.h"
#include "writer/writer.h"
#include "store/integrity.h"
#include "store/intern_lock.h"
#include "store/id_maps.h"
#include "store/intern_cache.h"
#include "store/intern_probe.h"

#define SAMPLE_BATCH 10000
/*
 * An import of fewer samples writes them by INSERT even where COPY may:
 * COPY sets up a thousand tuple slots and its buffers, about a megabyte
 * that the process takes from the system and gives back at every import,
 * which costs a small import more than COPY's batched writes save.
 */
#define COPY_SAMPLES_MIN 1000
#define WRITE_SET_MAX 100000	/* rows per INSERT of new interned rows */

/* prefix stack (the writer's id) -> whether all its children were read */
typedef struct ReadChildren
{
	int64		prefix;
	bool		all;
	char		status;
} ReadChildren;

#define SH_PREFIX		childread
#define SH_ELEMENT_TYPE ReadChildren
#define SH_KEY_TYPE		int64
#define SH_KEY			prefix
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* children read at once per known stack; more, and each is probed */
#define MAX_CHILDREN_READ 64

/* Events of instrumented traces, batched like samples */
typedef struct EventBatch
{
	SPIPlanPtr	plan;
	int			count;
	Datum		threads[SAMPLE_BATCH];
	bool		thread_nulls[SAMPLE_BATCH];
	Datum		timestamps[SAMPLE_BATCH];
	Datum		funcs[SAMPLE_BATCH];
	Datum		enters[SAMPLE_BATCH];
	Datum		seqs[SAMPLE_BATCH];
} EventBatch;

/*
 * Funcs, frames and stacks that no visible row has yet.  The writer hands
 * them out as provisional ids, -1, -2, ... (the index here, negated, plus
 * one), and writes them in sets before the first sample or event that needs
 * them: funcs, then frames, then stacks, so that every row's references are
 * written before it.  A provisional id stays the writer's name for its row;
 * written[] gives the real one.
 */
typedef struct PendingFunc
{
	const char *name;
	const char *file;
	const char *resource;
} PendingFunc;

typedef struct PendingFrame
{
	int32		func;			/* a real or provisional func id */
	OptionalInt address;
	OptionalInt line;
	OptionalInt col;
	const char *implementation;
} PendingFrame;

typedef struct PendingStack
{
	int64		prefix;			/* a real or provisional stack id, or 0 */
	int64		frame;			/* a real or provisional frame id */
} PendingStack;

typedef struct PendingRows
{
	void	   *rows;			/* PendingFunc, PendingFrame or PendingStack */
	Size		row_size;
	int64	   *written;		/* the real id, once written */
	bool	   *inserted;		/* written by this writer, not found */
	int64		count;
	int64		nwritten;		/* the first nwritten are written */
	int64		capacity;
	int64		base;			/* ids handed out before the last reset */
} PendingRows;

/*
 * Fresh stacks (fresh_stack), their ids taken from the sequence, gathered
 * across levels into one statement of at most WRITE_SET_MAX rows.
 */
typedef struct FreshStacks
{
	int			count;
	int64	   *ids;
	int64	   *prefixes;		/* real ids, 0 for a root */
	int64	   *frames;			/* real ids */
} FreshStacks;

struct ProfileWriter
{
	MemoryContext cxt;
	int64		profile_id;
	const char *weight_unit;	/* NULL: unchanged */
	bool		has_started_at;
	TimestampTz started_at;

	idcache_hash *funcs;
	idcache_hash *frames;
	idcache_hash *labels;
	idcache_hash *thread_texts; /* thread name -> its text Datum */
	idcache_hash *memo;			/* the importer's keys -> stack ids */
	MemoryContext memo_cxt;		/* the memo's keys, packed */
	Size		memo_bytes;

	/* the current walk (profile_writer_walk_*) and the previous one's path */
	int64	   *walk_frames;
	int64	   *walk_stacks;
	int32		walk_depth;
	int32		walk_last_depth;
	int32		walk_capacity;
	bool		walk_diverged;
	int64		walk_stack;
	stackcache_hash *stacks;
	childread_hash *children_read;
	int64		stack_reads;	/* look-ups of stacks past the cache */
	int64		next_load_check;	/* when to think of reading stack whole */
	bool		stacks_loaded;	/* the cache holds every stack visible */
	bool		bounded;		/* may empty its caches between samples */
	int64		nsamples_seen;
	bool		intern_locked;	/* holds the intern lock (intern_lock.c) */
	InternProbe *probe;			/* finds rows visible at the import's start */
	Snapshot	held_snapshot;	/* the probe's, for frames and stacks */
	StringInfoData key;			/* cache keys are encoded here, call after call */

	PendingRows pending_funcs;
	PendingRows pending_frames;
	PendingRows pending_stacks;

	SPIPlanPtr	write_funcs_plan;
	SPIPlanPtr	write_frames_plan;
	SPIPlanPtr	write_stacks_plan;
	SPIPlanPtr	insert_stacks_plan; /* fresh stacks only: no ON CONFLICT */
	SPIPlanPtr	intern_labels_plan;
	SPIPlanPtr	lock_labels_plan;
	SPIPlanPtr	address_name_plan;	/* prepared on first use */
	SPIPlanPtr	insert_samples_plan;

	/*
	 * Samples and fresh stacks go in by COPY (copy_rows.c), unless row
	 * security applies to their table: then by the INSERTs above.
	 */
	CopyRows	copy;
	Oid			sample_relid;	/* InvalidOid: samples by INSERT */
	List	   *sample_columns;
	Oid			stack_relid;	/* InvalidOid: fresh stacks by INSERT */
	List	   *stack_columns;
	Oid			stack_sequence; /* ids of fresh stacks */
	FreshStacks fresh;			/* fresh stacks waiting for their statement */

	/* the batch of samples not yet inserted (alloc_sample_batch) */
	int			nsamples;
	int64		samples_written;	/* by earlier batches */
	Datum	   *threads;
	bool	   *thread_nulls;
	Datum	   *timestamps;
	bool	   *ts_nulls;
	Datum	   *stack_ids;
	Datum	   *weights;
	Datum	   *label_ids;
	bool	   *label_nulls;
	Datum		last_thread;	/* the text of the last thread seen, or 0 */

	EventBatch *events;			/* made by the first event */

	int64		interned;		/* funcs, frames and stacks written */
	int64		next_analyze;	/* ANALYZE the interned tables at this count */
};

static SPIPlanPtr
prepare(const char *query, int nargs, Oid *argtypes)
{
	SPIPlanPtr	plan = SPI_prepare(query, nargs, argtypes);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare(\"%s\") failed: %s", query, SPI_result_code_string(SPI_result));
	return plan;
}

/*
 * The statements every import runs, prepared by the first import of the
 * backend and kept (SPI_keepplan): planning them took a good share of a
 * small import.  The plan cache plans them again when a table or function
 * they use changes, or search_path does, as it would have planned them
 * afresh.
 */
static struct
{
	SPIPlanPtr	insert_profile;
	SPIPlanPtr	write_funcs;
	SPIPlanPtr	write_frames;
	SPIPlanPtr	write_stacks;
	SPIPlanPtr	insert_stacks;
	SPIPlanPtr	intern_labels;
	SPIPlanPtr	lock_labels;
	SPIPlanPtr	insert_samples;
	SPIPlanPtr	update_profile;
} kept_plans;

static SPIPlanPtr
prepare_kept(SPIPlanPtr *kept, const char *query, int nargs, Oid *argtypes)
{
	if (*kept == NULL)
	{
		SPIPlanPtr	plan = prepare(query, nargs, argtypes);

		if (SPI_keepplan(plan) != 0)
			elog(ERROR, "SPI_keepplan(\"%s\") failed", query);
		*kept = plan;
	}
	return *kept;
}

/* Runs a plan that returns one int8 (or int4) column in one row. */
static int64
execute_for_id(SPIPlanPtr plan, Datum *values, const char *nulls)
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

static Datum
text_or_null(const char *s, char *null_flag)
{
	*null_flag = s ? ' ' : 'n';
	return s ? CStringGetTextDatum(s) : (Datum) 0;
}

static void
pending_init(PendingRows *pending, MemoryContext cxt, Size row_size)
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
static void
pending_reset(PendingRows *pending)
{
	Assert(pending->nwritten == pending->count);
	pending->base += pending->count;
	pending->count = pending->nwritten = 0;
}

/* The index of a provisional id among the pending rows */
static inline int64
pending_index(const PendingRows *pending, int64 id)
{
	int64		index = -id - 1 - pending->base;

	Assert(id < 0 && index >= 0 && index < pending->count);
	return index;
}

/* A new pending row; its provisional id. */
static int64
pending_add(PendingRows *pending, const void *row)
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
 * Whether an id the writer handed out is of a row it inserted itself (not
 * one it found written by another session): the probes' snapshot, older,
 * does not see that row.
 */
static inline bool
inserted_here(const PendingRows *pending, int64 id)
{
	return id < 0 && pending->inserted[pending_index(pending, id)];
}

/* The real id of an id the writer handed out; 0 if not written yet. */
static inline int64
real_id(const PendingRows *pending, int64 id)
{
	return id >= 0 ? id : pending->written[pending_index(pending, id)];
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
	static const char *const sample_columns[] = {"profile_id", "thread", "ts", "stack_id", "weight", "labels_id"};
	static const char *const stack_columns[] = {"id", "prefix_id", "frame_id"};
	Oid			namespace = get_namespace_oid("calltree", false);
	Oid			sample = calltree_relation(namespace, "sample");
	Oid			stack = calltree_relation(namespace, "stack");

	copy_rows_init(&writer->copy);
	if (copy_rows_allowed(sample))
	{
		writer->sample_relid = sample;
		writer->sample_columns = column_names(sample_columns, lengthof(sample_columns));
	}
	if (copy_rows_allowed(stack))
	{
		writer->stack_relid = stack;
		writer->stack_columns = column_names(stack_columns, lengthof(stack_columns));
	}
	writer->stack_sequence = calltree_relation(namespace, "stack_id_seq");
}

/*
 * The arrays of the sample batch, in the writer's context, not zeroed (a
 * sample is written before it is read): an import of a few hundred samples
 * then touches a few pages of them, where zeroing them all would cost more
 * than the rest of its work.
 */
static void
alloc_sample_batch(ProfileWriter *writer)
{
	writer->threads = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->thread_nulls = palloc(sizeof(bool) * SAMPLE_BATCH);
	writer->timestamps = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->ts_nulls = palloc(sizeof(bool) * SAMPLE_BATCH);
	writer->stack_ids = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->weights = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->label_ids = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->label_nulls = palloc(sizeof(bool) * SAMPLE_BATCH);
}

ProfileWriter *
profile_writer_begin(const ProfileInfo *info)
{
	MemoryContext cxt = CurrentMemoryContext;
	ProfileWriter *writer = palloc0(sizeof(ProfileWriter));
	Oid			profile_types[4] = {TEXTOID, TEXTOID, TEXTOID, JSONBOID};
	Oid			func_types[3] = {TEXTARRAYOID, TEXTARRAYOID, TEXTARRAYOID};
	Oid			frame_types[5] = {INT4ARRAYOID, INT8ARRAYOID, INT4ARRAYOID, INT4ARRAYOID, TEXTARRAYOID};
	Oid			stack_types[3] = {INT8ARRAYOID, INT8ARRAYOID, INT8ARRAYOID};
	Oid			labels_types[1] = {JSONBOID};
	Oid			id_types[1] = {INT8OID};
	Oid			sample_types[6] = {INT8OID, TEXTARRAYOID, INT8ARRAYOID, INT8ARRAYOID,
	INT8ARRAYOID, INT8ARRAYOID};
	Datum		values[4];
	char		nulls[4];
	SPIPlanPtr	insert_profile;

	writer->cxt = cxt;
	writer->funcs = idcache_create(cxt, 1024, NULL);
	writer->frames = idcache_create(cxt, 1024, NULL);
	writer->labels = idcache_create(cxt, 64, NULL);
	writer->thread_texts = idcache_create(cxt, 64, NULL);
	writer->memo = idcache_create(cxt, 1024, NULL);
	/* keys of a few hundred bytes: no rounding up to a power of two */
	writer->memo_cxt = GenerationContextCreate(cxt, "calltree import memo", 0, 64 * 1024, 8 * 1024 * 1024);
	writer->walk_capacity = 64;
	writer->walk_frames = MemoryContextAlloc(cxt, sizeof(int64) * writer->walk_capacity);
	writer->walk_stacks = MemoryContextAlloc(cxt, sizeof(int64) * writer->walk_capacity);
	writer->stacks = stackcache_create(cxt, 4096, NULL);
	writer->children_read = childread_create(cxt, 1024, NULL);
	/* calltree.stack_read: index never reads stack whole, scan at once */
	writer->next_load_check = calltree_stack_read == STACK_READ_SCAN ? 1 : 1024;
	writer->next_analyze = 1000;
	pending_init(&writer->pending_funcs, cxt, sizeof(PendingFunc));
	pending_init(&writer->pending_frames, cxt, sizeof(PendingFrame));
	pending_init(&writer->pending_stacks, cxt, sizeof(PendingStack));
	initStringInfo(&writer->key);
	alloc_sample_batch(writer);
	choose_copy(writer);

	SPI_connect();
	insert_profile = prepare_kept(&kept_plans.insert_profile, "INSERT INTO calltree.profile (name, format, weight_unit, meta) "
							 "VALUES ($1, $2, coalesce($3, 'samples'), coalesce($4, '{}')) RETURNING id",
							 4, profile_types);
	/*
	 * New rows are written in sets; a row another session wrote first is
	 * skipped by ON CONFLICT and found again by a probe (write_set).
	 */
	writer->write_funcs_plan =
		prepare_kept(&kept_plans.write_funcs, "INSERT INTO calltree.func AS t (name, file, resource) "
				"SELECT u.name, u.file, u.resource "
				"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3)) "
				"AS u(name, file, resource) "
				"ON CONFLICT ON CONSTRAINT func_key DO NOTHING "
				"RETURNING t.id, t.name, t.file, t.resource",
				3, func_types);
	writer->write_frames_plan =
		prepare_kept(&kept_plans.write_frames, "INSERT INTO calltree.frame AS t (func_id, address, line, col, implementation) "
				"SELECT u.f, u.a, u.l, u.c, u.i "
				"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3), "
				"pg_catalog.unnest($4), pg_catalog.unnest($5)) AS u(f, a, l, c, i) "
				"ON CONFLICT ON CONSTRAINT frame_key DO NOTHING "
				"RETURNING t.id, t.func_id, t.address, t.line, t.col, t.implementation",
				5, frame_types);
	writer->write_stacks_plan =
		prepare_kept(&kept_plans.write_stacks, "INSERT INTO calltree.stack AS t (prefix_id, frame_id) "
				"SELECT u.prefix, u.frame "
				"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS u(prefix, frame) "
				"ON CONFLICT ON CONSTRAINT stack_key DO NOTHING "
				"RETURNING t.id, t.prefix_id, t.frame_id",
				2, stack_types);
	writer->insert_stacks_plan =
		prepare_kept(&kept_plans.insert_stacks, "INSERT INTO calltree.stack (id, prefix_id, frame_id) "
				"SELECT u.id, u.prefix, u.frame "
				"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3)) "
				"AS u(id, prefix, frame)",
				3, stack_types);
	writer->intern_labels_plan = prepare_kept(&kept_plans.intern_labels, "SELECT calltree.intern_labels($1)", 1, labels_types);
	/* as a sample's check would: the writer's samples skip it */
	writer->lock_labels_plan =
		prepare_kept(&kept_plans.lock_labels, "SELECT l.id FROM calltree.labels l WHERE l.id OPERATOR(pg_catalog.=) $1 FOR KEY SHARE", 1, id_types);
	writer->insert_samples_plan =
		prepare_kept(&kept_plans.insert_samples, "INSERT INTO calltree.sample (profile_id, thread, ts, stack_id, weight, labels_id) "
				"SELECT $1, u.thread, u.ts, u.stack_id, u.weight, u.labels_id "
				"FROM ROWS FROM (pg_catalog.unnest($2), pg_catalog.unnest($3), pg_catalog.unnest($4), "
				"pg_catalog.unnest($5), pg_catalog.unnest($6)) AS u(thread, ts, stack_id, weight, labels_id)",
				6, sample_types);

	values[0] = text_or_null(info->name, &nulls[0]);
	values[1] = text_or_null(info->format, &nulls[1]);
	values[2] = text_or_null(info->weight_unit, &nulls[2]);
	values[3] = PointerGetDatum(info->meta);
	nulls[3] = info->meta ? ' ' : 'n';
	writer->profile_id = execute_for_id(insert_profile, values, nulls);
	MemoryContextSwitchTo(cxt);
	/*
	 * Frames and stacks are looked up in a snapshot taken after the lock
	 * that holds off their deletion, so every one found stays: the writer
	 * vouches for the references of the stacks and samples it writes, which
	 * are not checked again (integrity.c).  Funcs are looked up in the
	 * calling statement's snapshot, which outlives this call, as the
	 * foreign key of the frames that refer to them checks them in it.
	 */
	integrity_hold_stacks();
	intern_cache_open();
	writer->held_snapshot = RegisterSnapshot(GetLatestSnapshot());
	writer->probe = intern_probe_begin(GetActiveSnapshot(), writer->held_snapshot);
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
	writer->has_started_at = true;
	writer->started_at = started_at;
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
	stack_relid = get_relname_relid("stack", get_namespace_oid("calltree", false));
	if (!OidIsValid(stack_relid) || !pg_class_ownercheck(stack_relid, GetUserId()))
		return;
	if (SPI_execute("ANALYZE calltree.func, calltree.frame, calltree.stack", false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "ANALYZE of the interned tables failed");
	MemoryContextSwitchTo(writer->cxt);
}

/* The cached id of an encoded key; *found says whether there is one. */
static int64
cached_id(idcache_hash *cache, StringInfo key, bool *found)
{
	BytesKey	probe = {key->data, key->len};
	CachedId   *entry = idcache_lookup(cache, probe);

	*found = entry != NULL;
	return entry ? entry->id : 0;
}

static void
cache_id(MemoryContext cxt, idcache_hash *cache, StringInfo key, int64 id)
{
	BytesKey	stored;
	CachedId   *entry;
	bool		found;

	stored.data = MemoryContextAlloc(cxt, key->len);
	memcpy((char *) stored.data, key->data, key->len);
	stored.len = key->len;
	entry = idcache_insert(cache, stored, &found);
	entry->id = id;
}

/* key encoding: each field is a presence byte followed by its bytes */
static void
key_add_string(StringInfo key, const char *s)
{
	appendStringInfoChar(key, s ? 1 : 0);
	if (s)
		appendBinaryStringInfo(key, s, strlen(s) + 1);
}

static void
key_add_int(StringInfo key, OptionalInt value)
{
	appendStringInfoChar(key, value.present ? 1 : 0);
	if (value.present)
		appendBinaryStringInfo(key, (const char *) &value.value, sizeof(int64));
}

static void
func_key(StringInfo key, const char *name, const char *file, const char *resource)
{
	resetStringInfo(key);
	key_add_string(key, name);
	key_add_string(key, file);
	key_add_string(key, resource);
}

static void
frame_key(StringInfo key, int64 func, OptionalInt address, OptionalInt line,
		  OptionalInt col, const char *implementation)
{
	resetStringInfo(key);
	key_add_int(key, SOME_INT(func));
	key_add_int(key, address);
	key_add_int(key, line);
	key_add_int(key, col);
	key_add_string(key, implementation);
}

static void
stack_key(StringInfo key, int64 prefix, int64 frame)
{
	resetStringInfo(key);
	appendBinaryStringInfo(key, (const char *) &prefix, sizeof(int64));
	appendBinaryStringInfo(key, (const char *) &frame, sizeof(int64));
}

static char *
strdup_or_null(MemoryContext cxt, const char *s)
{
	return s ? MemoryContextStrdup(cxt, s) : NULL;
}

int32
profile_writer_func(ProfileWriter *writer, const char *name, const char *file, const char *resource)
{
	StringInfo	key = &writer->key;
	bool		found;
	int64		id;

	resetStringInfo(key);
	func_key(key, name, file, resource);
	id = cached_id(writer->funcs, key, &found);
	if (found || intern_cache_get(INTERN_FUNC, key->data, key->len, &id))
		return (int32) id;
	id = intern_probe_func(writer->probe, name, file, resource);
	if (id != 0)
		intern_cache_put(INTERN_FUNC, key->data, key->len, id);
	else
	{
		PendingFunc row;

		row.name = MemoryContextStrdup(writer->cxt, name);
		row.file = strdup_or_null(writer->cxt, file);
		row.resource = strdup_or_null(writer->cxt, resource);
		id = pending_add(&writer->pending_funcs, &row);
	}
	cache_id(writer->cxt, writer->funcs, key, id);
	return (int32) id;
}

int64
profile_writer_frame(ProfileWriter *writer, int32 func, OptionalInt address,
					 OptionalInt line, OptionalInt col, const char *implementation)
{
	StringInfo	key = &writer->key;
	bool		found;
	int64		id;
	int64		real_func;

	resetStringInfo(key);
	frame_key(key, func, address, line, col, implementation);
	id = cached_id(writer->frames, key, &found);
	/* the backend's cache knows frames by their real func id */
	if (found || (func > 0 && intern_cache_get(INTERN_FRAME, key->data, key->len, &id)))
		return id;
	real_func = real_id(&writer->pending_funcs, func);
	id = real_func > 0
		? intern_probe_frame(writer->probe, (int32) real_func, address, line, col, implementation)
		: 0;
	if (id != 0 && func > 0)
		intern_cache_put(INTERN_FRAME, key->data, key->len, id);
	if (id == 0)
	{
		PendingFrame row = {func, address, line, col,
		strdup_or_null(writer->cxt, implementation)};

		id = pending_add(&writer->pending_frames, &row);
	}
	cache_id(writer->cxt, writer->frames, key, id);
	return id;
}

/* Address frames share the frame cache, under keys that start with 'A'. */
static void
address_key(StringInfo key, const char *resource, int64 address)
{
	resetStringInfo(key);
	appendStringInfoChar(key, 'A');
	key_add_int(key, SOME_INT(address));
	key_add_string(key, resource);
}

/*
 * The probes look in a new snapshot from now on (the lock on the stack
 * table, held since the start, still keeps every row found).
 */
static void
renew_probe(ProfileWriter *writer)
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
 * INSERTs' ON CONFLICT and probed again (write_set).  True if the lock was
 * taken now (and the snapshot renewed).
 */
static bool
hold_intern_lock(ProfileWriter *writer)
{
	if (writer->intern_locked)
		return false;
	intern_lock_acquire();
	writer->intern_locked = true;
	renew_probe(writer);
	return true;
}

/* The name of a new address frame's func: address_name(), in the writer's context */
static char *
address_name(ProfileWriter *writer, const char *resource, int64 address)
{
	Datum		values[2];
	char	   *name;

	if (writer->address_name_plan == NULL)
	{
		Oid			types[2] = {TEXTOID, INT8OID};

		writer->address_name_plan = prepare("SELECT calltree.address_name($1, $2)", 2, types);
	}
	values[0] = CStringGetTextDatum(resource);
	values[1] = Int64GetDatum(address);
	if (SPI_execute_plan(writer->address_name_plan, values, NULL, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "naming an address frame failed");
	MemoryContextSwitchTo(writer->cxt);
	name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	SPI_freetuptable(SPI_tuptable);
	if (name == NULL)
		elog(ERROR, "address_name() returned NULL");
	return name;
}

/*
 * A frame known by its address in a resource, as intern_address() would
 * make it: found by a probe, or a new frame (and func, named by
 * address_name()) written with the other new rows.
 */
int64
profile_writer_address(ProfileWriter *writer, const char *resource, int64 address)
{
	StringInfo	key = &writer->key;
	bool		found;
	int64		id;

	address_key(key, resource, address);
	id = cached_id(writer->frames, key, &found);
	if (found)
		return id;
	id = intern_probe_address(writer->probe, resource, address);
	/* named under the lock, so from the last symbols symbolicate() stored */
	if (id == 0 && hold_intern_lock(writer))
		id = intern_probe_address(writer->probe, resource, address);
	if (id == 0)
	{
		char	   *name = address_name(writer, resource, address);
		int32		func = profile_writer_func(writer, name, NULL, resource);

		id = profile_writer_frame(writer, func, SOME_INT(address), NO_INT, NO_INT, "address");
		pfree(name);
	}
	/* the key again: the calls above encoded theirs in writer->key */
	address_key(key, resource, address);
	cache_id(writer->cxt, writer->frames, key, id);
	return id;
}

/*
 * Reads the children of a known stack into the cache, once: the stacks of
 * a profile share prefixes, so the siblings of a child looked up now are
 * looked up soon.  True if all of them were read (a child not in the cache
 * is then not in the table either); false if there were too many, and each
 * is probed on its own.
 */
static bool
read_children(ProfileWriter *writer, int64 prefix, int64 real_prefix)
{
	ReadChildren *entry;
	bool		found;
	int64		frames[MAX_CHILDREN_READ];
	int64		ids[MAX_CHILDREN_READ];
	int			count;

	entry = childread_insert(writer->children_read, prefix, &found);
	if (found)
		return entry->all;
	count = intern_probe_children(writer->probe, real_prefix, frames, ids, MAX_CHILDREN_READ);
	entry->all = count >= 0;
	for (int i = 0; i < count; i++)
	{
		StackKey	key = {prefix, frames[i]};
		CachedStack *child = stackcache_insert(writer->stacks, key, &found);

		if (!found)
			child->id = ids[i];
	}
	return entry->all;
}

static void
cache_known_stack(void *arg, int64 id, int64 prefix, int64 frame)
{
	ProfileWriter *writer = arg;
	StackKey	key = {prefix, frame};
	bool		found;
	CachedStack *entry = stackcache_insert(writer->stacks, key, &found);

	if (!found)
		entry->id = id;
}

/* The bytes of a pending set's arrays */
static double
pending_bytes(const PendingRows *pending)
{
	return (double) pending->capacity * (pending->row_size + sizeof(int64) + sizeof(bool));
}

/*
 * Whether an array that doubles when `used` passes `limit` may double
 * within the next sample, which adds at most this many stacks (deeper
 * samples are rare: perf records 127 frames by default).
 */
#define SAMPLE_STACKS_MAX 4096

static inline bool
about_to_double(double used, double limit)
{
	/* small arrays double without ado: a few megabytes at most */
	return limit >= 16 * SAMPLE_STACKS_MAX && used + SAMPLE_STACKS_MAX >= limit;
}

/*
 * What the writer's caches of stacks and its pending stacks take, as
 * calltree.import_work_mem counts it, with `more_stacks` entries added to
 * the stack cache (as load_stacks adds them, growing it once).  An array
 * about to double counts thrice its size: while it grows, the doubled
 * array and the old one are both there.  The func and frame caches are
 * left out: they grow with the distinct funcs and frames, not the stacks,
 * and an emptying keeps them.
 */
static double
cache_bytes(const ProfileWriter *writer, double more_stacks)
{
	const stackcache_hash *stacks = writer->stacks;
	const childread_hash *children = writer->children_read;
	const PendingRows *pending = &writer->pending_stacks;
	double		buckets = stacks->size;
	double		stack_bytes;
	double		children_bytes = (double) children->size * sizeof(ReadChildren);
	double		pending_rows = pending_bytes(pending);

	while (buckets * 0.9 < stacks->members + more_stacks + SAMPLE_STACKS_MAX)	/* simplehash's fill */
		buckets *= 2;
	stack_bytes = Max(buckets, stacks->size) * sizeof(CachedStack);
	if (more_stacks == 0 && about_to_double(stacks->members, stacks->grow_threshold))
		stack_bytes = 3.0 * stacks->size * sizeof(CachedStack);
	if (about_to_double(children->members, children->grow_threshold))
		children_bytes *= 3;
	if (about_to_double(pending->count, pending->capacity))
		pending_rows *= 3;
	return stack_bytes + children_bytes + pending_rows +
		(double) writer->memo->size * sizeof(CachedId) +
		(double) MemoryContextMemAllocated(writer->memo_cxt, true);
}

/* Whether an array of the writer's may double within the next sample */
static bool
caches_about_to_double(const ProfileWriter *writer)
{
	return about_to_double(writer->stacks->members, writer->stacks->grow_threshold) ||
		about_to_double(writer->children_read->members, writer->children_read->grow_threshold) ||
		about_to_double(writer->pending_stacks.count, writer->pending_stacks.capacity);
}

static double
import_work_mem_bytes(void)
{
	return (double) calltree_import_work_mem * 1024;
}

/*
 * Whether to read the stack table whole into the cache now: once the
 * import has looked up past the cache an eighth as many stacks as the
 * table holds, as a sequential read of the table costs about as much as
 * that many index reads, and every later look-up is then the cache's alone
 * (a repeat import of a big profile looks up a million).  Only if the cache
 * would still fit in calltree.import_work_mem; else it asks again when its
 * look-ups have doubled.  The rows are those of the probes' snapshot, so a
 * stack missing from the cache afterwards is one a probe would not have
 * found either.
 * calltree.stack_read = scan reads it at the first look-up, index never.
 */
static bool
should_load_stacks(ProfileWriter *writer)
{
	double		rows;
	double		added;

	if (calltree_stack_read == STACK_READ_SCAN)
		return true;
	rows = intern_probe_stack_rows(writer->probe);
	if ((double) writer->stack_reads * 8 < rows)
	{
		writer->next_load_check = (int64) (rows / 8) + 1;
		return false;
	}
	added = rows - writer->stacks->members;
	if (cache_bytes(writer, Max(added, 0)) > import_work_mem_bytes())
	{
		writer->next_load_check = writer->stack_reads * 2;
		return false;
	}
	return true;
}

/* Every stack visible to the probes into the cache, grown once beforehand */
static void
load_stacks(ProfileWriter *writer)
{
	double		entries = writer->stacks->members + intern_probe_stack_rows(writer->probe);
	/* simplehash's default fill factor, and room to grow before doubling */
	double		buckets = (entries + SAMPLE_STACKS_MAX) / 0.9 + 1;

	if (buckets > writer->stacks->size && buckets < (double) PG_UINT32_MAX)
		stackcache_grow(writer->stacks, (uint64) buckets);
	intern_probe_all_stacks(writer->probe, cache_known_stack, writer);
	writer->stacks_loaded = true;
}

/* The id of a stack visible to the probes, or 0: from the cache or the table */
static int64
find_known_stack(ProfileWriter *writer, int64 prefix, int64 real_prefix, int64 real_frame)
{
	StackKey	real_key = {real_prefix, real_frame};
	CachedStack *known;

	if (!writer->stacks_loaded && calltree_stack_read != STACK_READ_INDEX &&
		++writer->stack_reads >= writer->next_load_check && should_load_stacks(writer))
		load_stacks(writer);
	if (writer->stacks_loaded)
	{
		known = stackcache_lookup(writer->stacks, real_key);
		return known ? known->id : 0;
	}
	if (!read_children(writer, prefix, real_prefix))
		return intern_probe_stack(writer->probe, real_prefix, real_frame);
	/* the children are cached under their real frame ids */
	real_key.prefix = prefix;
	known = stackcache_lookup(writer->stacks, real_key);
	return known ? known->id : 0;
}

/*
 * The stack `frame` on top of `prefix` (0: a root).  A stack no visible row
 * holds gets a provisional id, written with the others of its set before
 * any sample refers to it.
 */
int64
profile_writer_stack(ProfileWriter *writer, int64 prefix, int64 frame)
{
	StackKey	key = {prefix, frame};
	CachedStack *entry = stackcache_lookup(writer->stacks, key);
	bool		found;
	int64		real_prefix;
	int64		real_frame;
	int64		id = 0;

	if (entry)
		return entry->id;
	real_prefix = real_id(&writer->pending_stacks, prefix);
	real_frame = real_id(&writer->pending_frames, frame);
	/* on top of a row this writer inserted, no stack is visible to the probes */
	if ((prefix == 0 || real_prefix > 0) && real_frame > 0 &&
		!inserted_here(&writer->pending_stacks, prefix) && !inserted_here(&writer->pending_frames, frame))
	{
		if (intern_cache_get_stack(real_prefix, real_frame, &id))
			return id;
		id = find_known_stack(writer, prefix, real_prefix, real_frame);
		if (id != 0)
			intern_cache_put_stack(real_prefix, real_frame, id);
	}
	if (id == 0)
	{
		PendingStack row = {prefix, frame};

		id = pending_add(&writer->pending_stacks, &row);
	}
	entry = stackcache_insert(writer->stacks, key, &found);
	entry->id = id;
	return id;
}

void
profile_writer_walk_begin(ProfileWriter *writer)
{
	writer->walk_last_depth = writer->walk_depth;
	writer->walk_depth = 0;
	writer->walk_diverged = false;
	writer->walk_stack = 0;
}

int64
profile_writer_walk_push(ProfileWriter *writer, int64 frame)
{
	int32		d = writer->walk_depth;

	if (!writer->walk_diverged && d < writer->walk_last_depth && writer->walk_frames[d] == frame)
		writer->walk_stack = writer->walk_stacks[d];
	else
	{
		writer->walk_diverged = true;
		writer->walk_stack = profile_writer_stack(writer, writer->walk_stack, frame);
		if (d == writer->walk_capacity)
		{
			writer->walk_capacity *= 2;
			writer->walk_frames = repalloc_huge(writer->walk_frames, sizeof(int64) * writer->walk_capacity);
			writer->walk_stacks = repalloc_huge(writer->walk_stacks, sizeof(int64) * writer->walk_capacity);
		}
		writer->walk_frames[d] = frame;
		writer->walk_stacks[d] = writer->walk_stack;
	}
	writer->walk_depth = d + 1;
	return writer->walk_stack;
}

bool
profile_writer_memo_get(ProfileWriter *writer, const void *key, int len, int64 *stack)
{
	BytesKey	probe = {key, len};
	CachedId   *entry = idcache_lookup(writer->memo, probe);

	if (entry)
		*stack = entry->id;
	return entry != NULL;
}

/*
 * Remembers a key's stack, until the memo holds a quarter of
 * calltree.import_work_mem in keys: the rest is for the stacks.
 */
void
profile_writer_memo_put(ProfileWriter *writer, const void *key, int len, int64 stack)
{
	if (writer->memo_bytes + len > import_work_mem_bytes() / 4)
		return;
	writer->memo_bytes += len;
	resetStringInfo(&writer->key);
	appendBinaryStringInfo(&writer->key, key, len);
	cache_id(writer->memo_cxt, writer->memo, &writer->key, stack);
}

static ArrayType *int8_array(Datum *values, bool *nulls, int count);
static ArrayType *int4_datums_array(Datum *values, bool *nulls, int count);
static ArrayType *text_array(Datum *values, bool *nulls, int count);

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
		args[a] = PointerGetDatum(text_array(values + a * count, nulls + a * count, count));
}

static void
pending_func_key(ProfileWriter *writer, int64 index, StringInfo key)
{
	PendingFunc *row = pending_func(writer, index);

	func_key(key, row->name, row->file, row->resource);
}

static void
returned_func_key(HeapTuple row, TupleDesc desc, StringInfo key)
{
	func_key(key, column_text(row, desc, 2), column_text(row, desc, 3), column_text(row, desc, 4));
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
	args[0] = PointerGetDatum(int4_datums_array(values, nulls, count));
	args[1] = PointerGetDatum(int8_array(values + count, nulls + count, count));
	args[2] = PointerGetDatum(int4_datums_array(values + 2 * count, nulls + 2 * count, count));
	args[3] = PointerGetDatum(int4_datums_array(values + 3 * count, nulls + 3 * count, count));
	args[4] = PointerGetDatum(text_array(values + 4 * count, nulls + 4 * count, count));
}

static void
pending_frame_key(ProfileWriter *writer, int64 index, StringInfo key)
{
	PendingFrame *row = pending_frame(writer, index);

	frame_key(key, real_id(&writer->pending_funcs, row->func), row->address, row->line,
			  row->col, row->implementation);
}

static void
returned_frame_key(HeapTuple row, TupleDesc desc, StringInfo key)
{
	frame_key(key, column_int(row, desc, 2).value, column_int(row, desc, 3),
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
	args[0] = PointerGetDatum(int8_array(values, nulls, count));
	args[1] = PointerGetDatum(int8_array(values + count, nulls + count, count));
}

static void
pending_stack_key(ProfileWriter *writer, int64 index, StringInfo key)
{
	PendingStack *row = pending_stack(writer, index);

	stack_key(key, real_id(&writer->pending_stacks, row->prefix),
			  real_id(&writer->pending_frames, row->frame));
}

static void
returned_stack_key(HeapTuple row, TupleDesc desc, StringInfo key)
{
	stack_key(key, column_int(row, desc, 2).value, column_int(row, desc, 3).value);
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
		cache_id(cxt, by_key, &key, set[i]);
	}
	while (count > 0)
	{
		int64		written;

		CHECK_FOR_INTERRUPTS();
		kind->bind(writer, set, count, args);
		if (integrity_execute_vouched(plan, args) != SPI_OK_INSERT_RETURNING)
			elog(ERROR, "writing %s failed", kind->what);
		MemoryContextSwitchTo(cxt);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			bool		found;
			int64		index;

			kind->returned_key(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, &key);
			index = cached_id(by_key, &key, &found);
			if (!found)
				elog(ERROR, "writing %s returned a row that was not asked for", kind->what);
			pending->written[index] = column_int(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1).value;
			pending->inserted[index] = true;
		}
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
	integrity_copy_vouched(rows, writer->stack_relid, writer->stack_columns);
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
		args[a] = PointerGetDatum(int8_array(values + a * n, nulls + a * n, n));
	ret = integrity_execute_vouched(writer->insert_stacks_plan, args);
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
	int64		base = pending->nwritten;
	int64		count = pending->count - base;
	int32	   *level;
	int64	   *order;
	int64	   *first;
	int64	   *fill;
	int32		levels = 0;

	if (count == 0)
		return;
	level = palloc_extended(sizeof(int32) * count, MCXT_ALLOC_HUGE);
	order = palloc_extended(sizeof(int64) * count, MCXT_ALLOC_HUGE);
	for (int64 k = 0; k < count; k++)
	{
		int64		prefix = pending_stack(writer, base + k)->prefix;
		int64		prefix_index = prefix < 0 ? pending_index(pending, prefix) - base : -1;

		/* a prefix written in an earlier flush has a negative index here */
		level[k] = prefix_index >= 0 ? level[prefix_index] + 1 : 0;
		levels = Max(levels, level[k] + 1);
	}
	/* stacks grouped by level (counting sort) */
	first = palloc0(sizeof(int64) * ((Size) levels + 2));
	for (int64 k = 0; k < count; k++)
		first[level[k] + 1]++;
	for (int32 l = 0; l < levels; l++)
		first[l + 1] += first[l];
	fill = palloc(sizeof(int64) * ((Size) levels + 1));
	memcpy(fill, first, sizeof(int64) * ((Size) levels + 1));
	for (int64 k = 0; k < count; k++)
		order[fill[level[k]]++] = base + k;
	pfree(fill);

	for (int32 l = 0; l < levels; l++)
	{
		int64	   *set = order + first[l];
		int64		n = first[l + 1] - first[l];
		int64		nknown = 0;

		/* the fresh stacks wait; the others are gathered at the set's start */
		for (int64 i = 0; i < n; i++)
		{
			if (((first[l] + i) & 0x3FFF) == 0)
				CHECK_FOR_INTERRUPTS();
			if (fresh_stack(writer, set[i]))
				add_fresh_stack(writer, set[i]);
			else
				set[nknown++] = set[i];
		}
		for (int64 done = 0; done < nknown; done += WRITE_SET_MAX)
			write_set(writer, &stack_rows, pending, writer->write_stacks_plan, set + done,
					  (int) Min(WRITE_SET_MAX, nknown - done));
	}
	write_fresh_stacks(writer);
	pending->nwritten = pending->count;
	pfree(level);
	pfree(order);
	pfree(first);
}

/* Writes every pending func, frame and stack, in that order. */
static void
write_all_pending(ProfileWriter *writer)
{
	if (writer->pending_funcs.nwritten < writer->pending_funcs.count ||
		writer->pending_frames.nwritten < writer->pending_frames.count ||
		writer->pending_stacks.nwritten < writer->pending_stacks.count)
		hold_intern_lock(writer);
	write_pending(writer, &func_rows, &writer->pending_funcs, writer->write_funcs_plan);
	write_pending(writer, &frame_rows, &writer->pending_frames, writer->write_frames_plan);
	write_pending_stacks(writer);
}

/*
 * Tells the backend's cache the pending rows written since the last reset,
 * by their real keys, for the imports to come (an abort of this
 * transaction empties it).
 */
static void
remember_written(ProfileWriter *writer)
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

/*
 * The writer's importer holds no func, frame or stack id from one sample to
 * the next (collapsed stacks, perf script): between samples, the writer may
 * empty its caches to stay within calltree.import_work_mem.
 */
void
profile_writer_bound_memory(ProfileWriter *writer)
{
	writer->bounded = true;
}

/* The real ids of a cache's values, once every pending row is written */
static void
realize_cached_ids(idcache_hash *cache, const PendingRows *pending)
{
	idcache_iterator it;
	CachedId   *entry;

	idcache_start_iterate(cache, &it);
	while ((entry = idcache_iterate(cache, &it)) != NULL)
		entry->id = real_id(pending, entry->id);
}

/* The stack caches and the pending arrays, all empty, made small again */
static void
free_cache_arrays(ProfileWriter *writer)
{
	PendingRows *pending = &writer->pending_stacks;

	stackcache_destroy(writer->stacks);
	writer->stacks = stackcache_create(writer->cxt, 4096, NULL);
	childread_destroy(writer->children_read);
	writer->children_read = childread_create(writer->cxt, 1024, NULL);
	pfree(pending->rows);
	pfree(pending->written);
	pfree(pending->inserted);
	pending_init(pending, writer->cxt, pending->row_size);
}

/*
 * Empties the caches of stacks and of the importer's keys, and forgets the
 * pending rows, all written (their provisional ids are not handed out
 * again).  The funcs and frames stay cached, under their real ids.  The probes then look in a new
 * snapshot, which sees the rows this writer inserted.
 */
static void
release_caches(ProfileWriter *writer)
{
	double		before = cache_bytes(writer, 0);

	write_all_pending(writer);
	remember_written(writer);
	realize_cached_ids(writer->funcs, &writer->pending_funcs);
	realize_cached_ids(writer->frames, &writer->pending_frames);
	pending_reset(&writer->pending_funcs);
	pending_reset(&writer->pending_frames);
	pending_reset(&writer->pending_stacks);

	/*
	 * Emptied, not freed: the arrays grew within the limit, and freeing and
	 * growing them again would leave the process's heap in pieces.  Unless
	 * they alone take half the limit: then the next check would empty
	 * them again at once.
	 */
	stackcache_reset(writer->stacks);
	childread_reset(writer->children_read);
	idcache_reset(writer->memo);
	MemoryContextReset(writer->memo_cxt);
	writer->memo_bytes = 0;
	if (cache_bytes(writer, 0) > import_work_mem_bytes() / 2)
		free_cache_arrays(writer);
	/* the whole table would not fit either: from now on, probes only */
	writer->stacks_loaded = false;
	writer->next_load_check = PG_INT64_MAX;
	writer->walk_depth = 0;		/* the next walk shares nothing */

	renew_probe(writer);
	ereport(DEBUG1,
			(errmsg_internal("calltree import: caches emptied after " INT64_FORMAT " samples",
							 writer->nsamples_seen),
			 errdetail_internal("They took %.0f kB; calltree.import_work_mem is %d kB.",
								before / 1024, calltree_import_work_mem)));
}

int64
profile_writer_named_stack(ProfileWriter *writer, char **names, int count)
{
	int64		stack = 0;

	profile_writer_walk_begin(writer);
	for (int i = 0; i < count; i++)
	{
		int32		func = profile_writer_func(writer, names[i], NULL, NULL);

		stack = profile_writer_walk_push(writer, profile_writer_frame(writer, func, NO_INT, NO_INT, NO_INT, NULL));
	}
	return stack;
}

int64
profile_writer_labels(ProfileWriter *writer, Jsonb *labels)
{
	StringInfo	key = &writer->key;
	bool		found;
	int64		id;
	Datum		value = JsonbPGetDatum(labels);
	char		null = ' ';

	resetStringInfo(key);
	appendBinaryStringInfo(key, (const char *) labels, VARSIZE(labels));
	id = cached_id(writer->labels, key, &found);
	if (!found)
	{
		Datum		id_value;

		if (!intern_cache_get(INTERN_LABELS, key->data, key->len, &id))
		{
			id = execute_for_id(writer->intern_labels_plan, &value, &null);
			intern_cache_put(INTERN_LABELS, key->data, key->len, id);
		}
		/* cached or not: the samples' label set is held until the end */
		id_value = Int64GetDatum(id);
		if (SPI_execute_plan(writer->lock_labels_plan, &id_value, &null, false, 1) != SPI_OK_SELECT ||
			SPI_processed != 1)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("label set " INT64_FORMAT " was deleted while the import used it", id),
					 errhint("Import the profile again.")));
		MemoryContextSwitchTo(writer->cxt);
		cache_id(writer->cxt, writer->labels, key, id);
	}
	return id;
}

static ArrayType *
int8_array(Datum *values, bool *nulls, int count)
{
	int			dims[1] = {count};
	int			lbs[1] = {1};

	return construct_md_array(values, nulls, 1, dims, lbs, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE);
}

static ArrayType *
int4_datums_array(Datum *values, bool *nulls, int count)
{
	int			dims[1] = {count};
	int			lbs[1] = {1};

	return construct_md_array(values, nulls, 1, dims, lbs, INT4OID, sizeof(int32), true, TYPALIGN_INT);
}

static ArrayType *
text_array(Datum *values, bool *nulls, int count)
{
	int			dims[1] = {count};
	int			lbs[1] = {1};

	return construct_md_array(values, nulls, 1, dims, lbs, TEXTOID, -1, false, TYPALIGN_INT);
}

static void
copy_nullable_int8(CopyRows *rows, Datum value, bool isnull)
{
	if (isnull)
		copy_rows_null(rows);
	else
		copy_rows_int8(rows, DatumGetInt64(value));
}

/* The batch of samples, their stack ids real, by COPY */
static void
copy_samples(ProfileWriter *writer)
{
	CopyRows   *rows = &writer->copy;

	copy_rows_reset(rows);
	for (int i = 0; i < writer->nsamples; i++)
	{
		copy_rows_int8(rows, writer->profile_id);
		if (writer->thread_nulls[i])
			copy_rows_null(rows);
		else
		{
			text	   *thread = DatumGetTextPP(writer->threads[i]);

			copy_rows_text(rows, VARDATA_ANY(thread), VARSIZE_ANY_EXHDR(thread));
		}
		copy_nullable_int8(rows, writer->timestamps[i], writer->ts_nulls[i]);
		copy_rows_int8(rows, DatumGetInt64(writer->stack_ids[i]));
		copy_rows_int8(rows, DatumGetInt64(writer->weights[i]));
		copy_nullable_int8(rows, writer->label_ids[i], writer->label_nulls[i]);
		copy_rows_end_row(rows);
	}
	integrity_copy_vouched(rows, writer->sample_relid, writer->sample_columns);
	MemoryContextSwitchTo(writer->cxt);
}

/* The batch of samples, their stack ids real, by INSERT (row security applies) */
static void
insert_samples(ProfileWriter *writer)
{
	int			n = writer->nsamples;
	int			dims[1] = {n};
	int			lbs[1] = {1};
	Datum		values[6];
	int			ret;

	values[0] = Int64GetDatum(writer->profile_id);
	values[1] = PointerGetDatum(construct_md_array(writer->threads, writer->thread_nulls, 1, dims, lbs,
												   TEXTOID, -1, false, TYPALIGN_INT));
	values[2] = PointerGetDatum(int8_array(writer->timestamps, writer->ts_nulls, n));
	values[3] = PointerGetDatum(int8_array(writer->stack_ids, NULL, n));
	values[4] = PointerGetDatum(int8_array(writer->weights, NULL, n));
	values[5] = PointerGetDatum(int8_array(writer->label_ids, writer->label_nulls, n));
	ret = integrity_execute_vouched(writer->insert_samples_plan, values);
	if (ret != SPI_OK_INSERT || SPI_processed != (uint64) n)
		elog(ERROR, "inserting samples returned %d with " UINT64_FORMAT " rows", ret, SPI_processed);
	MemoryContextSwitchTo(writer->cxt);
	for (int i = 1; i < 6; i++)
		pfree(DatumGetPointer(values[i]));
}

static void
flush_samples(ProfileWriter *writer)
{
	if (writer->nsamples == 0)
		return;
	write_all_pending(writer);
	for (int i = 0; i < writer->nsamples; i++)
		writer->stack_ids[i] = Int64GetDatum(real_id(&writer->pending_stacks,
													 DatumGetInt64(writer->stack_ids[i])));
	if (OidIsValid(writer->sample_relid) &&
		(writer->samples_written > 0 || writer->nsamples >= COPY_SAMPLES_MIN))
		copy_samples(writer);
	else
		insert_samples(writer);
	writer->samples_written += writer->nsamples;
	writer->nsamples = 0;
}

/*
 * The text of a thread name, in the writer's context (it waits there for the
 * batch), made once per distinct name: the samples of a few threads
 * interleave, and a copy per change of thread would grow with the samples.
 */
static Datum
thread_text(ProfileWriter *writer, const char *thread)
{
	text	   *last = (text *) DatumGetPointer(writer->last_thread);
	size_t		len = strlen(thread);
	bool		found;
	int64		cached;

	if (last != NULL && VARSIZE(last) - VARHDRSZ == len && memcmp(VARDATA(last), thread, len) == 0)
		return writer->last_thread;
	resetStringInfo(&writer->key);
	appendBinaryStringInfo(&writer->key, thread, len);
	cached = cached_id(writer->thread_texts, &writer->key, &found);
	if (found)
		writer->last_thread = (Datum) cached;
	else
	{
		MemoryContext old = MemoryContextSwitchTo(writer->cxt);

		writer->last_thread = CStringGetTextDatum(thread);
		MemoryContextSwitchTo(old);
		cache_id(writer->cxt, writer->thread_texts, &writer->key, (int64) writer->last_thread);
	}
	return writer->last_thread;
}

void
profile_writer_sample(ProfileWriter *writer, const char *thread, bool has_ts,
					  int64 ts, int64 stack, int64 weight, int64 labels_id)
{
	int			i = writer->nsamples;
	MemoryContext caller = CurrentMemoryContext;

	writer->threads[i] = thread ? thread_text(writer, thread) : (Datum) 0;
	writer->thread_nulls[i] = thread == NULL;
	writer->timestamps[i] = Int64GetDatum(ts);
	writer->ts_nulls[i] = !has_ts;
	writer->stack_ids[i] = Int64GetDatum(stack);
	writer->weights[i] = Int64GetDatum(weight);
	writer->label_ids[i] = Int64GetDatum(labels_id);
	writer->label_nulls[i] = labels_id == 0;
	if (++writer->nsamples == SAMPLE_BATCH)
	{
		CHECK_FOR_INTERRUPTS();
		flush_samples(writer);
	}
	/*
	 * Every 1,024 samples (they may make a few hundred thousand new stacks),
	 * and before any sample that may double an array
	 */
	if (writer->bounded &&
		((++writer->nsamples_seen & 0x3FF) == 0 || caches_about_to_double(writer)) &&
		cache_bytes(writer, 0) > import_work_mem_bytes())
	{
		flush_samples(writer);
		release_caches(writer);
	}
	/* the writing above ends in the writer's context: the caller's again */
	MemoryContextSwitchTo(caller);
}

/* Inserts what is left, records the unit and start time; the profile id. */
int64
profile_writer_finish(ProfileWriter *writer)
{
	flush_samples(writer);
	write_all_pending(writer);	/* stacks no sample refers to still exist */
	remember_written(writer);
	intern_probe_end(writer->probe);
	UnregisterSnapshot(writer->held_snapshot);
	if (writer->weight_unit || writer->has_started_at)
	{
		Oid			types[3] = {INT8OID, TEXTOID, TIMESTAMPTZOID};
		Datum		values[3];
		char		nulls[3] = {' ', ' ', ' '};
		SPIPlanPtr	update = prepare_kept(&kept_plans.update_profile,
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
	SPI_finish();
	return writer->profile_id;
}

void
profile_info_from_args(FunctionCallInfo fcinfo, int name_arg, int meta_arg,
					   const char *format, ProfileInfo *info)
{
	memset(info, 0, sizeof(ProfileInfo));
	info->format = format;
	if (name_arg >= 0 && !PG_ARGISNULL(name_arg))
		info->name = text_to_cstring(PG_GETARG_TEXT_PP(name_arg));
	if (meta_arg >= 0 && !PG_ARGISNULL(meta_arg))
		info->meta = PG_GETARG_JSONB_P(meta_arg);
}

/* Enter/exit events of instrumented traces, into calltree.event. */

static void
flush_events(ProfileWriter *writer)
{
	EventBatch *batch = writer->events;
	int			dims[1];
	int			lbs[1] = {1};
	Datum		values[6];
	int			ret;

	if (batch == NULL || batch->count == 0)
		return;
	write_all_pending(writer);
	for (int i = 0; i < batch->count; i++)
		batch->funcs[i] = Int32GetDatum((int32) real_id(&writer->pending_funcs,
														DatumGetInt32(batch->funcs[i])));
	dims[0] = batch->count;
	values[0] = Int64GetDatum(writer->profile_id);
	values[1] = PointerGetDatum(construct_md_array(batch->threads, batch->thread_nulls, 1, dims, lbs,
												   TEXTOID, -1, false, TYPALIGN_INT));
	values[2] = PointerGetDatum(int8_array(batch->timestamps, NULL, batch->count));
	values[3] = PointerGetDatum(construct_md_array(batch->funcs, NULL, 1, dims, lbs,
												   INT4OID, sizeof(int32), true, TYPALIGN_INT));
	values[4] = PointerGetDatum(construct_md_array(batch->enters, NULL, 1, dims, lbs,
												   BOOLOID, sizeof(bool), true, TYPALIGN_CHAR));
	values[5] = PointerGetDatum(int8_array(batch->seqs, NULL, batch->count));
	ret = SPI_execute_plan(batch->plan, values, NULL, false, 0);
	if (ret != SPI_OK_INSERT || SPI_processed != (uint64) batch->count)
		elog(ERROR, "inserting events returned %d with " UINT64_FORMAT " rows", ret, SPI_processed);
	MemoryContextSwitchTo(writer->cxt);
	batch->count = 0;
}

void
profile_writer_event(ProfileWriter *writer, const char *thread, int64 ts, int32 func,
					 bool enter, int64 seq)
{
	EventBatch *batch = writer->events;
	int			i;

	if (batch == NULL)
	{
		Oid			types[6] = {INT8OID, TEXTARRAYOID, INT8ARRAYOID, INT4ARRAYOID,
		BOOLARRAYOID, INT8ARRAYOID};

		batch = writer->events = MemoryContextAllocZero(writer->cxt, sizeof(EventBatch));
		batch->plan = prepare("INSERT INTO calltree.event (profile_id, thread, ts, func_id, enter, seq) "
							  "SELECT $1, u.thread, u.ts, u.func, u.enter, u.seq "
							  "FROM ROWS FROM (pg_catalog.unnest($2), pg_catalog.unnest($3), pg_catalog.unnest($4), "
							  "pg_catalog.unnest($5), pg_catalog.unnest($6)) AS u(thread, ts, func, enter, seq)",
							  6, types);
		MemoryContextSwitchTo(writer->cxt);
	}
	i = batch->count;
	batch->threads[i] = thread ? thread_text(writer, thread) : (Datum) 0;
	batch->thread_nulls[i] = thread == NULL;
	batch->timestamps[i] = Int64GetDatum(ts);
	batch->funcs[i] = Int32GetDatum(func);
	batch->enters[i] = BoolGetDatum(enter);
	batch->seqs[i] = Int64GetDatum(seq);
	if (++batch->count == SAMPLE_BATCH)
	{
		CHECK_FOR_INTERRUPTS();
		flush_events(writer);
	}
}

/* profile_writer_finish for a writer that wrote events */
int64
profile_writer_finish_events(ProfileWriter *writer)
{
	flush_events(writer);
	return profile_writer_finish(writer);
}
