/*
 * writer_samples.c
 *	  Samples, the enter/exit events of instrumented traces, and label sets:
 *	  the rows that refer to the interned ones.
 *
 * Samples and events are buffered SAMPLE_BATCH at a time.  Before a batch
 * is written, every pending row is (writer_flush.c), so the batch's
 * provisional ids become real ones.  Samples then gather per thread into
 * the packed sets of writer_sets.c; events go in by INSERT ... SELECT FROM
 * unnest(...).  A sample of a stack that has its real id already, while
 * the batch is empty, goes to its set at once: a repeat import, whose
 * stacks are all known, then writes its samples once rather than twice,
 * in the same order.  A label set is interned by SQL and held against deletion
 * until the end: by the label-set hold, which a DELETE from labels waits
 * for, or else locked FOR KEY SHARE at the end (integrity.c).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "store/integrity.h"
#include "store/intern.h"
#include "writer/writer_internal.h"

/* Events of instrumented traces, batched like samples */
struct EventBatch
{
	SPIPlanPtr	plan;
	int			count;
	Datum		threads[SAMPLE_BATCH];
	bool		thread_nulls[SAMPLE_BATCH];
	Datum		timestamps[SAMPLE_BATCH];
	Datum		funcs[SAMPLE_BATCH];
	Datum		enters[SAMPLE_BATCH];
	Datum		seqs[SAMPLE_BATCH];
};

/*
 * The arrays of the sample batch, in the writer's context, made for its
 * first sample, not zeroed (a sample is written before it is read): an
 * import of a few hundred samples then touches a few pages of them, where
 * zeroing them all would cost more than the rest of its work.
 */
static void
alloc_sample_batch(ProfileWriter *writer)
{
	MemoryContext old = MemoryContextSwitchTo(writer->cxt);

	writer->threads = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->thread_nulls = palloc(sizeof(bool) * SAMPLE_BATCH);
	writer->timestamps = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->ts_nulls = palloc(sizeof(bool) * SAMPLE_BATCH);
	writer->stack_ids = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->weights = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->label_ids = palloc(sizeof(Datum) * SAMPLE_BATCH);
	writer->label_nulls = palloc(sizeof(bool) * SAMPLE_BATCH);
	MemoryContextSwitchTo(old);
}

/*
 * The statements of samples and label sets, prepared by the first import
 * of the backend and kept (writer_prepare_kept).
 */
static struct
{
	SPIPlanPtr	intern_labels;
	SPIPlanPtr	lock_labels;
} kept_plans;

/* The batch of samples, their sets, and the statements that write labels */
void
writer_prepare_samples(ProfileWriter *writer)
{
	Oid			labels_types[1] = {JSONBOID};
	Oid			id_types[1] = {INT8ARRAYOID};

	writer->intern_labels_plan = writer_prepare_kept(&kept_plans.intern_labels, "SELECT calltree.intern_labels($1)", 1, labels_types);
	/* as a sample's check would: the writer's samples skip it */
	writer->lock_labels_plan =
		writer_prepare_kept(&kept_plans.lock_labels, "SELECT l.id FROM calltree.labels l WHERE l.id OPERATOR(pg_catalog.=) ANY ($1) "
							"ORDER BY l.id FOR KEY SHARE", 1, id_types);
	writer->sets = writer_sets_create(writer->cxt);
}

static int
compare_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* The first of the ascending ids that the ascending rows found lack */
static int64
first_missing(const Datum *ids, int count, SPITupleTable *found)
{
	uint64		row = 0;

	for (int i = 0; i < count; i++)
	{
		bool		isnull;

		if (row < SPI_processed &&
			DatumGetInt64(SPI_getbinval(found->vals[row], found->tupdesc, 1, &isnull)) == DatumGetInt64(ids[i]))
			row++;
		else
			return DatumGetInt64(ids[i]);
	}
	return 0;
}

/*
 * Where the label-set hold does not hold them (writer->labels_held false,
 * see integrity.c), locks the label sets the samples use until the
 * transaction ends, as the samples' reference check would (the writer's
 * samples skip it): all in one statement, as the import ends.  A label set
 * deleted since the import found it is missing then, and the import fails:
 * the samples that were written already go with it.
 */
void
writer_lock_label_sets(ProfileWriter *writer)
{
	Datum	   *ids;
	Datum		array;
	char		null = ' ';

	int			count = 0;

	/* none remembered when the label-set hold holds them */
	if (writer->nlabels_used == 0)
		return;
	/* distinct ids, as the statement returns them */
	qsort(writer->labels_used, writer->nlabels_used, sizeof(int64), compare_int64);
	ids = palloc(sizeof(Datum) * writer->nlabels_used);
	for (int i = 0; i < writer->nlabels_used; i++)
		if (i == 0 || writer->labels_used[i] != writer->labels_used[i - 1])
			ids[count++] = Int64GetDatum(writer->labels_used[i]);
	array = PointerGetDatum(writer_int8_array(ids, NULL, count));
	if (SPI_execute_plan(writer->lock_labels_plan, &array, &null, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "locking the label sets of an import failed");
	if (SPI_processed != (uint64) count)
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("label set " INT64_FORMAT " was deleted while the import used it",
						first_missing(ids, count, SPI_tuptable)),
				 errhint("Import the profile again.")));
	MemoryContextSwitchTo(writer->cxt);
}

/* Remembers a label set the samples use, for writer_lock_label_sets */
static void
label_set_used(ProfileWriter *writer, int64 id)
{
	if (writer->nlabels_used == writer->labels_used_capacity)
	{
		writer->labels_used_capacity = Max(writer->labels_used_capacity * 2, 16);
		writer->labels_used = writer->labels_used
			? repalloc(writer->labels_used, sizeof(int64) * writer->labels_used_capacity)
			: MemoryContextAlloc(writer->cxt, sizeof(int64) * writer->labels_used_capacity);
	}
	writer->labels_used[writer->nlabels_used++] = id;
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
	if (found)
		return id;
	if (!intern_cache_get(INTERN_LABELS, key->data, key->len, &id))
	{
		id = writer_execute_for_id(writer->intern_labels_plan, &value, &null);
		intern_cache_put(INTERN_LABELS, key->data, key->len, id);
	}
	/* cached or not: the samples' label set is held until the end */
	if (!writer->labels_held)
		label_set_used(writer, id);
	writer_cache_id(writer->cxt, writer->labels, key, id);
	return id;
}

/*
 * Hands the batch of samples to the sets of their threads (writer_sets.c),
 * after every pending row (their stacks among them) is written: their
 * stack ids are real from then on.
 */
void
writer_flush_samples(ProfileWriter *writer)
{
	if (writer->nsamples == 0)
		return;
	writer_write_all_pending(writer);
	for (int i = 0; i < writer->nsamples; i++)
	{
		Sample		sample;
		text	   *thread = writer->thread_nulls[i] ? NULL : (text *) DatumGetPointer(writer->threads[i]);

		sample.stack_id = real_id(&writer->pending_stacks, DatumGetInt64(writer->stack_ids[i]));
		sample.weight = DatumGetInt64(writer->weights[i]);
		sample.has_ts = !writer->ts_nulls[i];
		sample.ts = sample.has_ts ? DatumGetInt64(writer->timestamps[i]) : 0;
		sample.has_labels = !writer->label_nulls[i];
		sample.labels_id = sample.has_labels ? DatumGetInt64(writer->label_ids[i]) : 0;
		writer_sets_add(writer, writer->sets, thread ? VARDATA(thread) : NULL,
						thread ? VARSIZE(thread) - VARHDRSZ : 0, &sample);
	}
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
		MemoryContext old;

		if (len > WRITER_THREAD_NAME_MAX)
			ereport(ERROR,
					errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					errmsg("thread name of %zu bytes is too long", len),
					errdetail("The name begins with \"%.*s\".",
							  pg_mbcliplen(thread, (int) len, 60), thread),
					errhint("A thread name may have at most %d bytes: it is a key of the index on samples and events.",
							WRITER_THREAD_NAME_MAX));
		old = MemoryContextSwitchTo(writer->cxt);

		writer->last_thread = CStringGetTextDatum(thread);
		MemoryContextSwitchTo(old);
		writer_cache_id(writer->cxt, writer->thread_texts, &writer->key, (int64) writer->last_thread);
	}
	return writer->last_thread;
}

void
profile_writer_expect_samples(ProfileWriter *writer, int64 count)
{
	writer->expected_samples = count;
	writer_sets_expect(writer->sets, count);
}

/* A sample of a real stack id into its thread's set, without the batch */
static void
add_sample_now(ProfileWriter *writer, Datum thread, bool has_ts, int64 ts, int64 stack,
			   int64 weight, int64 labels_id)
{
	text	   *name = (text *) DatumGetPointer(thread);
	Sample		sample;

	sample.stack_id = stack;
	sample.weight = weight;
	sample.has_ts = has_ts;
	sample.ts = has_ts ? ts : 0;
	sample.has_labels = labels_id != 0;
	sample.labels_id = labels_id;
	writer_sets_add(writer, writer->sets, name ? VARDATA(name) : NULL,
					name ? VARSIZE(name) - VARHDRSZ : 0, &sample);
	writer->samples_written++;
	CHECK_FOR_INTERRUPTS();		/* a load and a test: cheaper than counting */
}

void
profile_writer_sample(ProfileWriter *writer, const char *thread, bool has_ts,
					  int64 ts, int64 stack, int64 weight, int64 labels_id)
{
	int			i = writer->nsamples;
	MemoryContext caller = CurrentMemoryContext;
	Datum		thread_datum = thread ? thread_text(writer, thread) : (Datum) 0;

	/* in the order they come: at once only while none waits in the batch */
	if (i == 0 && stack >= 0)
		add_sample_now(writer, thread_datum, has_ts, ts, stack, weight, labels_id);
	else
	{
		if (writer->stack_ids == NULL)
			alloc_sample_batch(writer);
		writer->threads[i] = thread_datum;
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
			writer_flush_samples(writer);
		}
	}
	if (writer_over_budget(writer))
	{
		writer_flush_samples(writer);
		writer_release_caches(writer);
	}
	/* the writing above ends in the writer's context: the caller's again */
	MemoryContextSwitchTo(caller);
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
	writer_write_all_pending(writer);
	for (int i = 0; i < batch->count; i++)
		batch->funcs[i] = Int32GetDatum((int32) real_id(&writer->pending_funcs,
														DatumGetInt32(batch->funcs[i])));
	dims[0] = batch->count;
	values[0] = Int64GetDatum(writer->profile_id);
	values[1] = PointerGetDatum(construct_md_array(batch->threads, batch->thread_nulls, 1, dims, lbs,
												   TEXTOID, -1, false, TYPALIGN_INT));
	values[2] = PointerGetDatum(writer_int8_array(batch->timestamps, NULL, batch->count));
	values[3] = PointerGetDatum(construct_md_array(batch->funcs, NULL, 1, dims, lbs,
												   INT4OID, sizeof(int32), true, TYPALIGN_INT));
	values[4] = PointerGetDatum(construct_md_array(batch->enters, NULL, 1, dims, lbs,
												   BOOLOID, sizeof(bool), true, TYPALIGN_CHAR));
	values[5] = PointerGetDatum(writer_int8_array(batch->seqs, NULL, batch->count));
	ret = SPI_execute_plan(batch->plan, values, NULL, false, 0);
	if (ret != SPI_OK_INSERT || SPI_processed != (uint64) batch->count)
		elog(ERROR, "inserting events returned %d with " UINT64_FORMAT " rows", ret, SPI_processed);
	MemoryContextSwitchTo(writer->cxt);
	batch->count = 0;
}

/* The batch of events, made by the first event, with its statement */
static EventBatch *
new_event_batch(ProfileWriter *writer)
{
	Oid			types[6] = {INT8OID, TEXTARRAYOID, INT8ARRAYOID, INT4ARRAYOID,
	BOOLARRAYOID, INT8ARRAYOID};
	EventBatch *batch = MemoryContextAllocZero(writer->cxt, sizeof(EventBatch));

	batch->plan = writer_prepare("INSERT INTO calltree.event (profile_id, thread, ts, func_id, enter, seq) "
								 "SELECT $1, u.thread, u.ts, u.func, u.enter, u.seq "
								 "FROM ROWS FROM (pg_catalog.unnest($2), pg_catalog.unnest($3), pg_catalog.unnest($4), "
								 "pg_catalog.unnest($5), pg_catalog.unnest($6)) AS u(thread, ts, func, enter, seq)",
								 6, types);
	MemoryContextSwitchTo(writer->cxt);
	return batch;
}

void
profile_writer_event(ProfileWriter *writer, const char *thread, int64 ts, int32 func,
					 bool enter, int64 seq)
{
	EventBatch *batch = writer->events;
	int			i;

	if (batch == NULL)
		batch = writer->events = new_event_batch(writer);
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
