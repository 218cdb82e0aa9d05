/*
 * writer_sets.c
 *	  An import's samples, gathered per thread and written as packed sample
 *	  sets: rows of calltree.sample_set, a samples value each
 *	  (src/tree/samples.h).
 *
 * The batches of writer_samples.c arrive here with their stack ids real.
 * Each thread's samples gather in an array of their own; at the end of the
 * import each array becomes one row.  When all arrays together reach a
 * quarter of calltree.import_work_mem, or SAMPLES_MAX if less, every
 * thread is written early, so that a profile too large for one value, or
 * for the memory it may take, is split across rows: a profile's samples
 * are the union of its rows, in any number.
 *
 * A row goes in by an INSERT into calltree.sample_set, where row-level
 * security applies, or without a statement where that INSERT would do
 * nothing more (writer_set_row.c); its references are the writer's to
 * vouch for (integrity.c), as those of the rows it used to write one per
 * sample.
 *
 * Between `make install` of a new version and ALTER EXTENSION calltree
 * UPDATE, this library serves the catalog of version 0.2, whose table
 * calltree.sample holds a row per sample and which has no sample_set:
 * there the samples gathered are written as those rows, so that imports
 * go on while a fleet's database waits for its update.
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "store/integrity.h"
#include "tree/samples.h"
#include "writer/writer_internal.h"

/* The samples of one thread gathered so far, keyed by its name */
typedef struct ThreadSamples
{
	char		name[WRITER_THREAD_NAME_MAX + 1];	/* the key; "" for no thread */
	bool		is_null;		/* the samples have no thread */
	Sample	   *samples;
	int64		count;
	int64		capacity;
} ThreadSamples;

struct SampleSets
{
	MemoryContext cxt;			/* the threads' arrays */
	MemoryContext write_cxt;	/* what writing one takes, emptied after it */
	MemoryContext parent;		/* the writer's, where `named` is made */
	HTAB	   *named;			/* name -> ThreadSamples, made for the first name */
	ThreadSamples unnamed;		/* the samples without a thread */
	ThreadSamples *last;		/* the thread of the last sample, likely the next's */
	int64		gathered;		/* samples in all arrays */
	int64		gathered_max;	/* write them all past this */
	int64		expected;		/* room for the first array made, 0: none */
	SPIPlanPtr	insert;
	bool		as_rows;		/* version 0.2's catalog: a row per sample */
};

/*
 * The statement that writes a set, prepared once per backend, and the one
 * that writes rows into 0.2's sample table (prepared per import: it serves
 * only until the update).  The first is prepared again when the samples
 * type of its $3 changed: a DROP and CREATE EXTENSION makes a new type,
 * which a kept plan cannot follow (the plan cache would look up the
 * dropped type when it replans).
 */
static SPIPlanPtr kept_insert_set;
static Oid	kept_insert_set_type = InvalidOid;

static SPIPlanPtr
prepare_insert_rows(void)
{
	Oid			types[6] = {INT8OID, TEXTOID, INT8ARRAYOID, INT8ARRAYOID, INT8ARRAYOID, INT8ARRAYOID};

	return writer_prepare("INSERT INTO calltree.sample (profile_id, thread, ts, stack_id, weight, labels_id) "
						  "SELECT $1, $2, u.ts, u.stack_id, u.weight, u.labels_id "
						  "FROM ROWS FROM (pg_catalog.unnest($3), pg_catalog.unnest($4), pg_catalog.unnest($5), "
						  "pg_catalog.unnest($6)) AS u(ts, stack_id, weight, labels_id)",
						  6, types);
}

SampleSets *
writer_sets_create(MemoryContext parent)
{
	SampleSets *sets = MemoryContextAllocZero(parent, sizeof(SampleSets));
	Oid			namespace;
	Oid			types[3] = {INT8OID, TEXTOID, InvalidOid};

	sets->cxt = AllocSetContextCreate(parent, "calltree import sample sets", ALLOCSET_DEFAULT_SIZES);
	sets->write_cxt = AllocSetContextCreate(parent, "calltree import sample set writing", ALLOCSET_DEFAULT_SIZES);
	sets->parent = parent;
	sets->unnamed.is_null = true;
	sets->gathered_max = Min((int64) (writer_work_mem_bytes() / 4 / sizeof(Sample)), SAMPLES_MAX);
	sets->gathered_max = Max(sets->gathered_max, 1024);
	namespace = calltree_namespace();
	sets->as_rows = !OidIsValid(calltree_relname_relid("sample_set", namespace));
	if (sets->as_rows)
		sets->insert = prepare_insert_rows();
	else
	{
		types[2] = calltree_type(namespace, "samples");
		if (kept_insert_set != NULL && kept_insert_set_type != types[2])
		{
			SPI_freeplan(kept_insert_set);
			kept_insert_set = NULL;
		}
		kept_insert_set_type = types[2];
		sets->insert = writer_prepare_kept(&kept_insert_set,
										   "INSERT INTO calltree.sample_set (profile_id, thread, samples) VALUES ($1, $2, $3)",
										   3, types);
	}
	return sets;
}

/* The array of `thread` (NULL: none), found or made */
static ThreadSamples *
thread_samples(SampleSets *sets, const char *thread, Size len)
{
	ThreadSamples *entry;
	bool		found;
	char		key[WRITER_THREAD_NAME_MAX + 1];

	if (thread == NULL)
		return &sets->unnamed;
	if (sets->last != NULL && !sets->last->is_null &&
		strncmp(sets->last->name, thread, len) == 0 && sets->last->name[len] == '\0')
		return sets->last;
	Assert(len <= WRITER_THREAD_NAME_MAX);
	if (sets->named == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = WRITER_THREAD_NAME_MAX + 1;
		ctl.entrysize = sizeof(ThreadSamples);
		ctl.hcxt = sets->parent;
		sets->named = hash_create("calltree import threads", 16, &ctl, HASH_ELEM | HASH_STRINGS | HASH_CONTEXT);
	}
	memcpy(key, thread, len);
	key[len] = '\0';
	entry = hash_search(sets->named, key, HASH_ENTER, &found);
	if (!found)
	{
		entry->is_null = false;
		entry->samples = NULL;
		entry->count = 0;
		entry->capacity = 0;
	}
	return entry;
}

/* A column of the samples as an int8 array; `present` says which are not NULL */
static Datum
int8_column(const ThreadSamples *thread, Size offset, Size present_offset)
{
	Datum	   *values = palloc(sizeof(Datum) * thread->count);
	bool	   *nulls = palloc(sizeof(bool) * thread->count);

	for (int64 i = 0; i < thread->count; i++)
	{
		const char *sample = (const char *) &thread->samples[i];

		values[i] = Int64GetDatum(*(const int64 *) (sample + offset));
		nulls[i] = present_offset != 0 && !*(const bool *) (sample + present_offset);
	}
	return PointerGetDatum(writer_int8_array(values, nulls, (int) thread->count));
}

/* The set's row without a statement (writer_set_row.c), if that may be */
static bool
write_set_row(SampleSets *sets, Datum *values, const char *nulls)
{
	bool		isnull[3];

	for (int i = 0; i < 3; i++)
		isnull[i] = nulls[i] == 'n';
	return writer_insert_set_row(kept_insert_set_type, values, isnull);
}

/* Writes one thread's gathered samples as a row, and empties its array */
static void
write_thread(ProfileWriter *writer, SampleSets *sets, ThreadSamples *thread)
{
	MemoryContext old;
	Datum		values[6];
	char		nulls[6] = {' ', ' ', ' ', ' ', ' ', ' '};
	int			ret;

	if (thread->count == 0)
		return;
	old = MemoryContextSwitchTo(sets->write_cxt);
	values[0] = Int64GetDatum(writer->profile_id);
	values[1] = thread->is_null ? (Datum) 0 : CStringGetTextDatum(thread->name);
	nulls[1] = thread->is_null ? 'n' : ' ';
	if (sets->as_rows)
	{
		values[2] = int8_column(thread, offsetof(Sample, ts), offsetof(Sample, has_ts));
		values[3] = int8_column(thread, offsetof(Sample, stack_id), 0);
		values[4] = int8_column(thread, offsetof(Sample, weight), 0);
		values[5] = int8_column(thread, offsetof(Sample, labels_id), offsetof(Sample, has_labels));
	}
	else
		values[2] = PointerGetDatum(samples_encode(thread->samples, thread->count));
	MemoryContextSwitchTo(old);
	if (sets->as_rows || !write_set_row(sets, values, nulls))
	{
		ret = integrity_execute_vouched(sets->insert, values, nulls);
		if (ret != SPI_OK_INSERT || SPI_processed != (sets->as_rows ? (uint64) thread->count : 1))
			elog(ERROR, "inserting samples returned %d with " UINT64_FORMAT " rows", ret, SPI_processed);
	}
	MemoryContextSwitchTo(writer->cxt);
	sets->gathered -= thread->count;
	pfree(thread->samples);
	thread->samples = NULL;
	thread->count = thread->capacity = 0;
	/* the columns or the packed value */
	MemoryContextReset(sets->write_cxt);
}

/* Writes every thread's gathered samples, and frees their arrays */
void
writer_sets_write_all(ProfileWriter *writer, SampleSets *sets)
{
	HASH_SEQ_STATUS scan;
	ThreadSamples *thread;

	write_thread(writer, sets, &sets->unnamed);
	/* no table of names when no sample had a thread */
	if (sets->named != NULL)
	{
		hash_seq_init(&scan, sets->named);
		while ((thread = hash_seq_search(&scan)) != NULL)
			write_thread(writer, sets, thread);
	}
	Assert(sets->gathered == 0);
}

/*
 * The samples the importer expects (profile_writer_expect_samples): room
 * for them in the first array made, at most what the sets gather before
 * they are written, which no array passes.
 */
void
writer_sets_expect(SampleSets *sets, int64 count)
{
	sets->expected = Min(count, sets->gathered_max);
}

/* Room for one more sample in a thread's array */
static void
grow(SampleSets *sets, ThreadSamples *thread)
{
	if (thread->count < thread->capacity)
		return;
	if (thread->capacity == 0)
	{
		thread->capacity = Max(sets->expected, 64);
		sets->expected = 0;
	}
	else
		thread->capacity = Min(thread->capacity * 2, SAMPLES_MAX);
	thread->samples = thread->samples == NULL
		? MemoryContextAlloc(sets->cxt, sizeof(Sample) * thread->capacity)
		: repalloc_huge(thread->samples, sizeof(Sample) * thread->capacity);
}

void
writer_sets_add(ProfileWriter *writer, SampleSets *sets, const char *thread, Size thread_len,
				const Sample *sample)
{
	ThreadSamples *entry = thread == NULL ? &sets->unnamed : thread_samples(sets, thread, thread_len);

	sets->last = entry;
	grow(sets, entry);
	entry->samples[entry->count++] = *sample;
	/* gathered_max <= SAMPLES_MAX: no thread's array passes what a value holds */
	if (++sets->gathered >= sets->gathered_max)
	{
		CHECK_FOR_INTERRUPTS();
		writer_sets_write_all(writer, sets);
	}
}
