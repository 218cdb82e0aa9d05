/*
 * import.c
 *	  The ProfileWriter: an imported profile into the calltree tables.
 *
 * Interning goes through the extension's own SQL functions (intern_func,
 * intern_frame, intern_stack, intern_labels), which are safe under
 * concurrent imports; a cache in front of them makes each distinct key cost
 * one call.  Samples are buffered and inserted 10,000 at a time with one
 * INSERT ... SELECT FROM unnest(...) each.
 *
 * The writer keeps one SPI connection open from begin to finish.  Its own
 * memory lives in the caller's memory context, which SPI does not reset.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "catalog/namespace.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "calltree.h"
#include "import.h"

#define SAMPLE_BATCH 10000

/* A cache from an encoded key (bytes) to an id */
typedef struct BytesKey
{
	const char *data;
	int32		len;
} BytesKey;

typedef struct CachedId
{
	BytesKey	key;
	uint32		hash;
	int64		id;
	char		status;
} CachedId;

#define SH_PREFIX		idcache
#define SH_ELEMENT_TYPE CachedId
#define SH_KEY_TYPE		BytesKey
#define SH_KEY			key
#define SH_HASH_KEY(tb, k)	hash_bytes((const unsigned char *) (k).data, (k).len)
#define SH_EQUAL(tb, a, b)	((a).len == (b).len && memcmp((a).data, (b).data, (a).len) == 0)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a)	((a)->hash)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* (prefix, frame) -> stack id */
typedef struct StackKey
{
	int64		prefix;
	int64		frame;
} StackKey;

typedef struct CachedStack
{
	StackKey	key;
	int64		id;
	char		status;
} CachedStack;

#define SH_PREFIX		stackcache
#define SH_ELEMENT_TYPE CachedStack
#define SH_KEY_TYPE		StackKey
#define SH_KEY			key
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k).prefix * UINT64CONST(0x9E3779B97F4A7C15) ^ (uint64) (k).frame)
#define SH_EQUAL(tb, a, b)	((a).prefix == (b).prefix && (a).frame == (b).frame)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

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
	stackcache_hash *stacks;

	SPIPlanPtr	intern_func_plan;
	SPIPlanPtr	intern_frame_plan;
	SPIPlanPtr	intern_stack_plan;
	SPIPlanPtr	intern_labels_plan;
	SPIPlanPtr	intern_address_plan;	/* prepared on first use */
	SPIPlanPtr	insert_samples_plan;

	/* the batch of samples not yet inserted */
	int			nsamples;
	Datum		threads[SAMPLE_BATCH];
	bool		thread_nulls[SAMPLE_BATCH];
	Datum		timestamps[SAMPLE_BATCH];
	bool		ts_nulls[SAMPLE_BATCH];
	Datum		stack_ids[SAMPLE_BATCH];
	Datum		weights[SAMPLE_BATCH];
	Datum		label_ids[SAMPLE_BATCH];
	bool		label_nulls[SAMPLE_BATCH];
	const char *last_thread;	/* sample threads repeat: share their text */
	Datum		last_thread_text;

	EventBatch *events;			/* made by the first event */

	int64		interned;		/* funcs, frames and stacks new to the cache */
	int64		next_analyze;	/* ANALYZE the interned tables at this count */

	/*
	 * Stacks new to the table are handed out as provisional ids -1, -2, ...
	 * and written in sets before the samples that use them (write_stacks).
	 */
	int64	   *pending_prefix; /* a real id, a provisional one, or 0 */
	int64	   *pending_frame;
	int64	   *written_id;		/* the real id, once written */
	int64		npending;
	int64		nwritten;		/* the first nwritten are written */
	int64		pending_capacity;
	SPIPlanPtr	write_stacks_plan;
	SPIPlanPtr	write_root_stacks_plan;
};

static SPIPlanPtr
prepare(const char *query, int nargs, Oid *argtypes)
{
	SPIPlanPtr	plan = SPI_prepare(query, nargs, argtypes);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare(\"%s\") failed: %s", query, SPI_result_code_string(SPI_result));
	return plan;
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

ProfileWriter *
profile_writer_begin(const ProfileInfo *info)
{
	MemoryContext cxt = CurrentMemoryContext;
	ProfileWriter *writer = palloc0(sizeof(ProfileWriter));
	Oid			profile_types[4] = {TEXTOID, TEXTOID, TEXTOID, JSONBOID};
	Oid			func_types[3] = {TEXTOID, TEXTOID, TEXTOID};
	Oid			frame_types[5] = {INT4OID, INT8OID, INT4OID, INT4OID, TEXTOID};
	Oid			stack_types[2] = {INT8OID, INT8OID};
	Oid			stack_array_types[2] = {INT8ARRAYOID, INT8ARRAYOID};
	Oid			labels_types[1] = {JSONBOID};
	Oid			sample_types[6] = {INT8OID, TEXTARRAYOID, INT8ARRAYOID, INT8ARRAYOID,
	INT8ARRAYOID, INT8ARRAYOID};
	Datum		values[4];
	char		nulls[4];
	SPIPlanPtr	insert_profile;

	writer->cxt = cxt;
	writer->funcs = idcache_create(cxt, 1024, NULL);
	writer->frames = idcache_create(cxt, 1024, NULL);
	writer->labels = idcache_create(cxt, 64, NULL);
	writer->stacks = stackcache_create(cxt, 4096, NULL);
	writer->next_analyze = 1000;
	writer->pending_prefix = MemoryContextAlloc(cxt, sizeof(int64));
	writer->pending_frame = MemoryContextAlloc(cxt, sizeof(int64));
	writer->written_id = MemoryContextAlloc(cxt, sizeof(int64));

	SPI_connect();
	insert_profile = prepare("INSERT INTO calltree.profile (name, format, weight_unit, meta) "
							 "VALUES ($1, $2, coalesce($3, 'samples'), coalesce($4, '{}')) RETURNING id",
							 4, profile_types);
	writer->intern_func_plan = prepare("SELECT calltree.intern_func($1, $2, $3)", 3, func_types);
	writer->intern_frame_plan = prepare("SELECT calltree.intern_frame($1, $2, $3, $4, $5)", 5, frame_types);
	writer->intern_stack_plan = prepare("SELECT calltree.intern_stack($1, $2)", 2, stack_types);
	writer->write_stacks_plan =
		prepare("WITH input AS (SELECT u.frame, u.prefix, u.ord FROM unnest($1, $2) WITH ORDINALITY AS u(frame, prefix, ord)), "
				"ins AS (INSERT INTO calltree.stack (prefix_id, frame_id) "
				"        SELECT i.prefix, i.frame FROM input i ORDER BY i.ord "
				"        ON CONFLICT ON CONSTRAINT stack_key DO NOTHING RETURNING id, prefix_id, frame_id) "
				"SELECT i.ord, coalesce(ins.id, s.id) FROM input i "
				"LEFT JOIN ins ON ins.prefix_id = i.prefix AND ins.frame_id = i.frame "
				"LEFT JOIN calltree.stack s ON s.prefix_id = i.prefix AND s.frame_id = i.frame",
				2, stack_array_types);
	writer->write_root_stacks_plan =
		prepare("WITH input AS (SELECT u.frame, u.ord FROM unnest($1) WITH ORDINALITY AS u(frame, ord)), "
				"ins AS (INSERT INTO calltree.stack (prefix_id, frame_id) "
				"        SELECT NULL, i.frame FROM input i ORDER BY i.ord "
				"        ON CONFLICT ON CONSTRAINT stack_key DO NOTHING RETURNING id, frame_id) "
				"SELECT i.ord, coalesce(ins.id, s.id) FROM input i "
				"LEFT JOIN ins ON ins.frame_id = i.frame "
				"LEFT JOIN calltree.stack s ON s.prefix_id IS NULL AND s.frame_id = i.frame",
				2, stack_array_types);
	writer->intern_labels_plan = prepare("SELECT calltree.intern_labels($1)", 1, labels_types);
	writer->insert_samples_plan =
		prepare("INSERT INTO calltree.sample (profile_id, thread, ts, stack_id, weight, labels_id) "
				"SELECT $1, u.thread, u.ts, u.stack_id, u.weight, u.labels_id "
				"FROM unnest($2, $3, $4, $5, $6) AS u(thread, ts, stack_id, weight, labels_id)",
				6, sample_types);

	values[0] = text_or_null(info->name, &nulls[0]);
	values[1] = text_or_null(info->format, &nulls[1]);
	values[2] = text_or_null(info->weight_unit, &nulls[2]);
	values[3] = PointerGetDatum(info->meta);
	nulls[3] = info->meta ? ' ' : 'n';
	writer->profile_id = execute_for_id(insert_profile, values, nulls);
	MemoryContextSwitchTo(cxt);
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
 * grow.  The interning functions and the foreign-key checks on every new row
 * run cached plans; planned when the tables were small (a fresh database,
 * statistics from a first small import), they scan whole tables, and a big
 * import turns quadratic.  ANALYZE, which may run inside a transaction and
 * counts this transaction's own new rows, invalidates those plans.  It runs
 * each time the rows interned by this import grow fourfold, so a handful of
 * times per import, and only for the tables' owner (others could not).
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
cache_id(ProfileWriter *writer, idcache_hash *cache, StringInfo key, int64 id)
{
	BytesKey	stored;
	CachedId   *entry;
	bool		found;

	stored.data = MemoryContextAlloc(writer->cxt, key->len);
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

int32
profile_writer_func(ProfileWriter *writer, const char *name, const char *file, const char *resource)
{
	StringInfoData key;
	bool		found;
	int64		id;
	Datum		values[3];
	char		nulls[3];

	initStringInfo(&key);
	key_add_string(&key, name);
	key_add_string(&key, file);
	key_add_string(&key, resource);
	id = cached_id(writer->funcs, &key, &found);
	if (!found)
	{
		values[0] = text_or_null(name, &nulls[0]);
		values[1] = text_or_null(file, &nulls[1]);
		values[2] = text_or_null(resource, &nulls[2]);
		id = execute_for_id(writer->intern_func_plan, values, nulls);
		MemoryContextSwitchTo(writer->cxt);
		cache_id(writer, writer->funcs, &key, id);
		note_interned(writer, 1);
	}
	pfree(key.data);
	return (int32) id;
}

int64
profile_writer_frame(ProfileWriter *writer, int32 func, OptionalInt address,
					 OptionalInt line, OptionalInt col, const char *implementation)
{
	StringInfoData key;
	bool		found;
	int64		id;
	Datum		values[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};

	initStringInfo(&key);
	key_add_int(&key, SOME_INT(func));
	key_add_int(&key, address);
	key_add_int(&key, line);
	key_add_int(&key, col);
	key_add_string(&key, implementation);
	id = cached_id(writer->frames, &key, &found);
	if (!found)
	{
		values[0] = Int32GetDatum(func);
		values[1] = Int64GetDatum(address.value);
		nulls[1] = address.present ? ' ' : 'n';
		values[2] = Int32GetDatum((int32) line.value);
		nulls[2] = line.present ? ' ' : 'n';
		values[3] = Int32GetDatum((int32) col.value);
		nulls[3] = col.present ? ' ' : 'n';
		values[4] = text_or_null(implementation, &nulls[4]);
		id = execute_for_id(writer->intern_frame_plan, values, nulls);
		MemoryContextSwitchTo(writer->cxt);
		cache_id(writer, writer->frames, &key, id);
		note_interned(writer, 1);
	}
	pfree(key.data);
	return id;
}

/* Address frames share the frame cache, under keys that start with 'A'. */
int64
profile_writer_address(ProfileWriter *writer, const char *resource, int64 address)
{
	StringInfoData key;
	bool		found;
	int64		id;
	Datum		values[2];
	char		nulls[2] = {' ', ' '};

	initStringInfo(&key);
	appendStringInfoChar(&key, 'A');
	key_add_int(&key, SOME_INT(address));
	key_add_string(&key, resource);
	id = cached_id(writer->frames, &key, &found);
	if (!found)
	{
		if (writer->intern_address_plan == NULL)
		{
			Oid			types[2] = {TEXTOID, INT8OID};

			writer->intern_address_plan = prepare("SELECT calltree.intern_address($1, $2)", 2, types);
		}
		values[0] = CStringGetTextDatum(resource);
		values[1] = Int64GetDatum(address);
		id = execute_for_id(writer->intern_address_plan, values, nulls);
		MemoryContextSwitchTo(writer->cxt);
		cache_id(writer, writer->frames, &key, id);
	}
	pfree(key.data);
	return id;
}

/*
 * The stack `frame` on top of `prefix` (0: a root).  A stack new to this
 * writer gets a provisional id (negative), written to the table with the
 * others of its batch before any sample refers to it.
 */
int64
profile_writer_stack(ProfileWriter *writer, int64 prefix, int64 frame)
{
	StackKey	key = {prefix, frame};
	CachedStack *entry = stackcache_lookup(writer->stacks, key);
	bool		found;

	if (entry)
		return entry->id;
	if (writer->npending == writer->pending_capacity)
	{
		writer->pending_capacity = Max(1024, writer->pending_capacity * 2);
		writer->pending_prefix = repalloc_huge(writer->pending_prefix, sizeof(int64) * writer->pending_capacity);
		writer->pending_frame = repalloc_huge(writer->pending_frame, sizeof(int64) * writer->pending_capacity);
		writer->written_id = repalloc_huge(writer->written_id, sizeof(int64) * writer->pending_capacity);
	}
	writer->pending_prefix[writer->npending] = prefix;
	writer->pending_frame[writer->npending] = frame;
	writer->written_id[writer->npending] = 0;
	writer->npending++;
	entry = stackcache_insert(writer->stacks, key, &found);
	entry->id = -writer->npending;
	return entry->id;
}

static ArrayType *int8_array(Datum *values, bool *nulls, int count);

/* The real id of a stack id handed out by the writer (written already). */
static inline int64
real_stack_id(const ProfileWriter *writer, int64 id)
{
	return id >= 0 ? id : writer->written_id[-id - 1];
}

/*
 * Writes one set of new stacks whose prefixes are all written (or roots):
 * one INSERT ... ON CONFLICT DO NOTHING for the set, and the ids of the rows
 * it inserted or found.  A row another session committed while this one
 * waited is neither inserted nor visible to the statement: such ids come
 * back NULL and are looked up again by a new statement (under REPEATABLE
 * READ the INSERT raises a serialization failure instead).
 */
static void
write_stack_set(ProfileWriter *writer, const int64 *indexes, int64 count, bool roots)
{
	Datum	   *prefixes = palloc(sizeof(Datum) * Max(count, 1));
	Datum	   *frames = palloc(sizeof(Datum) * Max(count, 1));
	int64	   *set = palloc(sizeof(int64) * Max(count, 1));
	int64	   *retry = palloc(sizeof(int64) * Max(count, 1));
	int64		left = count;

	memcpy(set, indexes, sizeof(int64) * count);
	while (left > 0)
	{
		Datum		args[2];
		int64		missing = 0;

		CHECK_FOR_INTERRUPTS();
		for (int64 i = 0; i < left; i++)
		{
			prefixes[i] = Int64GetDatum(real_stack_id(writer, writer->pending_prefix[set[i]]));
			frames[i] = Int64GetDatum(writer->pending_frame[set[i]]);
		}
		args[0] = PointerGetDatum(int8_array(frames, NULL, (int) left));
		args[1] = PointerGetDatum(int8_array(prefixes, NULL, (int) left));
		if (SPI_execute_plan(roots ? writer->write_root_stacks_plan : writer->write_stacks_plan,
							 args, NULL, false, 0) != SPI_OK_SELECT || SPI_processed != (uint64) left)
			elog(ERROR, "writing stacks returned " UINT64_FORMAT " rows for " INT64_FORMAT,
				 SPI_processed, left);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			bool		ord_null;
			bool		id_null;
			int64		ord = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &ord_null));
			Datum		id = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &id_null);

			if (ord_null || ord < 1 || ord > left)
				elog(ERROR, "writing stacks returned row number " INT64_FORMAT " of " INT64_FORMAT, ord, left);
			if (id_null)
				retry[missing++] = set[ord - 1];
			else
				writer->written_id[set[ord - 1]] = DatumGetInt64(id);
		}
		SPI_freetuptable(SPI_tuptable);
		MemoryContextSwitchTo(writer->cxt);
		/* rows come back in any order: the retries go to their own array */
		memcpy(set, retry, sizeof(int64) * missing);
		left = missing;
	}
	pfree(prefixes);
	pfree(frames);
	pfree(set);
	pfree(retry);
}

/*
 * Writes every pending stack, a level at a time: a stack's prefix is written
 * before it, in an earlier set.
 */
static void
write_stacks(ProfileWriter *writer)
{
	int64		count = writer->npending - writer->nwritten;
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
		int64		prefix = writer->pending_prefix[writer->nwritten + k];
		int64		prefix_index = prefix < 0 ? -prefix - 1 - writer->nwritten : -1;

		level[k] = prefix_index >= 0 ? level[prefix_index] + 1 : 0;
		levels = Max(levels, level[k] + 1);
	}
	/* stacks grouped by level (counting sort); roots of level 0 apart */
	first = palloc0(sizeof(int64) * ((Size) levels + 2));
	for (int64 k = 0; k < count; k++)
		first[level[k] + 1]++;
	for (int32 l = 0; l < levels; l++)
		first[l + 1] += first[l];
	fill = palloc(sizeof(int64) * ((Size) levels + 1));
	memcpy(fill, first, sizeof(int64) * ((Size) levels + 1));
	for (int64 k = 0; k < count; k++)
		order[fill[level[k]]++] = writer->nwritten + k;
	pfree(fill);

	for (int32 l = 0; l < levels; l++)
	{
		int64	   *set = order + first[l];
		int64		n = first[l + 1] - first[l];
		int64		nroots = 0;

		/* roots first: their own statement, since NULL prefixes join apart */
		for (int64 i = 0; i < n; i++)
			if (writer->pending_prefix[set[i]] == 0)
			{
				int64		swap = set[nroots];

				set[nroots++] = set[i];
				set[i] = swap;
			}
		if (nroots > 0)
			write_stack_set(writer, set, nroots, true);
		if (n > nroots)
			write_stack_set(writer, set + nroots, n - nroots, false);
		note_interned(writer, n);
	}
	writer->nwritten = writer->npending;
	pfree(level);
	pfree(order);
	pfree(first);
}

int64
profile_writer_named_stack(ProfileWriter *writer, char **names, int count)
{
	int64		stack = 0;

	for (int i = 0; i < count; i++)
	{
		int32		func = profile_writer_func(writer, names[i], NULL, NULL);

		stack = profile_writer_stack(writer, stack,
									 profile_writer_frame(writer, func, NO_INT, NO_INT, NO_INT, NULL));
	}
	return stack;
}

int64
profile_writer_labels(ProfileWriter *writer, Jsonb *labels)
{
	StringInfoData key;
	bool		found;
	int64		id;
	Datum		value = JsonbPGetDatum(labels);
	char		null = ' ';

	initStringInfo(&key);
	appendBinaryStringInfo(&key, (const char *) labels, VARSIZE(labels));
	id = cached_id(writer->labels, &key, &found);
	if (!found)
	{
		id = execute_for_id(writer->intern_labels_plan, &value, &null);
		MemoryContextSwitchTo(writer->cxt);
		cache_id(writer, writer->labels, &key, id);
	}
	pfree(key.data);
	return id;
}

static ArrayType *
int8_array(Datum *values, bool *nulls, int count)
{
	int			dims[1] = {count};
	int			lbs[1] = {1};

	return construct_md_array(values, nulls, 1, dims, lbs, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE);
}

static void
flush_samples(ProfileWriter *writer)
{
	int			n = writer->nsamples;
	int			dims[1] = {n};
	int			lbs[1] = {1};
	Datum		values[6];
	int			ret;

	if (n == 0)
		return;
	write_stacks(writer);
	for (int i = 0; i < n; i++)
		writer->stack_ids[i] = Int64GetDatum(real_stack_id(writer, DatumGetInt64(writer->stack_ids[i])));
	values[0] = Int64GetDatum(writer->profile_id);
	values[1] = PointerGetDatum(construct_md_array(writer->threads, writer->thread_nulls, 1, dims, lbs,
												   TEXTOID, -1, false, TYPALIGN_INT));
	values[2] = PointerGetDatum(int8_array(writer->timestamps, writer->ts_nulls, n));
	values[3] = PointerGetDatum(int8_array(writer->stack_ids, NULL, n));
	values[4] = PointerGetDatum(int8_array(writer->weights, NULL, n));
	values[5] = PointerGetDatum(int8_array(writer->label_ids, writer->label_nulls, n));
	ret = SPI_execute_plan(writer->insert_samples_plan, values, NULL, false, 0);
	if (ret != SPI_OK_INSERT || SPI_processed != (uint64) n)
		elog(ERROR, "inserting samples returned %d with " UINT64_FORMAT " rows", ret, SPI_processed);
	MemoryContextSwitchTo(writer->cxt);
	for (int i = 0; i < 6; i++)
		if (i > 0)
			pfree(DatumGetPointer(values[i]));
	writer->nsamples = 0;
}

void
profile_writer_sample(ProfileWriter *writer, const char *thread, bool has_ts,
					  int64 ts, int64 stack, int64 weight, int64 labels_id)
{
	int			i = writer->nsamples;

	if (thread != NULL && (writer->last_thread == NULL || strcmp(thread, writer->last_thread) != 0))
	{
		/* the text outlives the caller's context: it waits for the batch */
		MemoryContext old = MemoryContextSwitchTo(writer->cxt);

		writer->last_thread = pstrdup(thread);
		writer->last_thread_text = CStringGetTextDatum(thread);
		MemoryContextSwitchTo(old);
	}
	writer->threads[i] = thread ? writer->last_thread_text : (Datum) 0;
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
}

/* Inserts what is left, records the unit and start time; the profile id. */
int64
profile_writer_finish(ProfileWriter *writer)
{
	flush_samples(writer);
	write_stacks(writer);		/* stacks no sample refers to still exist */
	if (writer->weight_unit || writer->has_started_at)
	{
		Oid			types[3] = {INT8OID, TEXTOID, TIMESTAMPTZOID};
		Datum		values[3];
		char		nulls[3] = {' ', ' ', ' '};

		values[0] = Int64GetDatum(writer->profile_id);
		values[1] = text_or_null(writer->weight_unit, &nulls[1]);
		values[2] = TimestampTzGetDatum(writer->started_at);
		nulls[2] = writer->has_started_at ? ' ' : 'n';
		if (SPI_execute_with_args("UPDATE calltree.profile "
								  "SET weight_unit = coalesce($2, weight_unit), "
								  "started_at = coalesce($3, started_at) WHERE id = $1",
								  3, types, values, nulls, false, 0) != SPI_OK_UPDATE)
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
							  "FROM unnest($2, $3, $4, $5, $6) AS u(thread, ts, func, enter, seq)",
							  6, types);
		MemoryContextSwitchTo(writer->cxt);
	}
	i = batch->count;
	if (thread != NULL && (writer->last_thread == NULL || strcmp(thread, writer->last_thread) != 0))
	{
		writer->last_thread = MemoryContextStrdup(writer->cxt, thread);
		writer->last_thread_text = CStringGetTextDatum(thread);
	}
	batch->threads[i] = thread ? writer->last_thread_text : (Datum) 0;
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
