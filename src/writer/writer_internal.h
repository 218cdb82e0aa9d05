/*
 * writer_internal.h
 *	  The ProfileWriter's insides, shared by the files of the writer and by
 *	  nothing else.
 *
 * The writer is one object whose work is split in nine parts, a file each:
 *
 *   writer.c          its lifetime: begin and finish, the profile row, the
 *                     prepared statements, the probes' snapshot and the
 *                     intern lock
 *   writer_profile_row.c  the profile row without a statement, where an
 *                     INSERT would do nothing more
 *   writer_ids.c      the ids of funcs, frames, address frames and stacks:
 *                     from the caches, the probes, or new (provisional)
 *   writer_memo.c     stack ids under the importer's keys
 *   writer_memory.c   calltree.import_work_mem: what the caches take,
 *                     reading the stack table whole, emptying the caches
 *   writer_flush.c    the pending rows: kept, then written in sets before
 *                     the first sample that refers to them
 *   writer_samples.c  samples, trace events and label sets
 *   writer_sets.c     samples gathered per thread into packed sample sets
 *   writer_set_row.c  a sample set's row without a statement, where an
 *                     INSERT would do nothing more
 *   writer_plain.c    what lets a row go in without a statement (no
 *                     trigger fired, rule, policy applying or Citus)
 *
 * Every part reads and writes the same struct, so it is declared here
 * rather than in writer.h: the importers see an opaque ProfileWriter and
 * the calls of writer.h only.
 */
#ifndef CALLTREE_WRITER_INTERNAL_H
#define CALLTREE_WRITER_INTERNAL_H

#include "postgres.h"

#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/snapshot.h"

#include "tree/id_maps.h"
#include "tree/samples.h"
#include "store/store.h"
#include "store/intern.h"
#include "writer/writer.h"

/* samples and events buffered before they are written */
#define SAMPLE_BATCH 10000

/*
 * The entries a cache of the writer is made for: a few cache lines to
 * zero.  A cache that many keys reach grows, doubling, from there.
 */
#define WRITER_CACHE_FIRST_SIZE 8

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
 * Fresh stacks (writer_flush.c), their ids taken from the sequence,
 * gathered across levels into one statement.
 */
typedef struct FreshStacks
{
	int			count;
	int64	   *ids;
	int64	   *prefixes;		/* real ids, 0 for a root */
	int64	   *frames;			/* real ids */
} FreshStacks;

/* the samples gathered per thread (writer_sets.c) */
typedef struct SampleSets SampleSets;

/* stack ids under the importer's keys (writer_memo.c) */
typedef struct WriterMemo WriterMemo;

/* the batch of trace events (writer_samples.c) */
typedef struct EventBatch EventBatch;

struct ProfileWriter
{
	/* the writer and its lifetime (writer.c) */
	MemoryContext cxt;
	int64		profile_id;
	const char *weight_unit;	/* NULL: unchanged */
	bool		has_started_at;
	TimestampTz started_at;
	bool		started_at_given;	/* by calltree.import_started_at: kept */
	bool		intern_locked;	/* holds the intern lock (intern_lock.c) */
	InternProbe *probe;			/* finds rows visible at the import's start */
	Snapshot	held_snapshot;	/* the probe's, for frames and stacks */

	/* the ids (writer_ids.c) */
	idcache_hash *funcs;
	idcache_hash *frames;
	idcache_hash *labels;
	idcache_hash *thread_texts; /* thread name -> its text Datum */
	WriterMemo *memo;			/* the importer's keys -> stack ids; made at first put */
	bool		memo_keys_stay; /* profile_writer_memo_keys_stay */
	int64		expected_samples;	/* profile_writer_expect_samples, or 0 */
	StringInfoData key;			/* cache keys are encoded here, call after call */
	StringInfoData func_frame_key;	/* profile_writer_func_frame's, around those calls */
	SPIPlanPtr	address_name_plan;	/* prepared on first use */

	/* the frames of the current walk (profile_writer_walk_*), root first */
	int64	   *path_frames;
	int32		path_depth;
	int32		path_capacity;
	/* the path resolved last, frame by frame, and the stack of each prefix */
	int64	   *walk_frames;
	int64	   *walk_stacks;
	int32		walk_depth;
	int32		walk_capacity;

	/* the stacks, and the memory they take (writer_memory.c) */
	stackcache_hash *stacks;
	childread_hash *children_read;
	int64		stack_reads;	/* look-ups of stacks past the cache */
	int64		next_load_check;	/* when to think of reading stack whole */
	bool		stacks_loaded;	/* the cache holds every stack visible */
	bool		bounded;		/* may empty its caches between samples */
	int64		nsamples_seen;

	/* the rows not yet written (writer_flush.c) */
	PendingRows pending_funcs;
	PendingRows pending_frames;
	PendingRows pending_stacks;
	SPIPlanPtr	write_funcs_plan;
	SPIPlanPtr	write_frames_plan;
	SPIPlanPtr	write_stacks_plan;
	SPIPlanPtr	insert_stacks_plan; /* fresh stacks only: no ON CONFLICT */
	FreshStacks fresh;			/* fresh stacks waiting for their statement */
	int64		interned;		/* funcs, frames and stacks written */
	int64		next_analyze;	/* ANALYZE the interned tables at this count */

	/*
	 * Fresh stacks go in by COPY (copy_rows.c), unless row security
	 * applies to their table: then by INSERT.
	 */
	CopyRows	copy;
	Oid			stack_relid;	/* InvalidOid: fresh stacks by INSERT */
	bool		on_citus;		/* the interned tables are Citus's (write_set) */
	List	   *stack_columns;
	Oid			stack_sequence; /* ids of fresh stacks */

	/* samples, events and labels (writer_samples.c) */
	SPIPlanPtr	intern_labels_plan;
	SPIPlanPtr	lock_labels_plan;
	bool		labels_held;	/* by the label-set hold: no row locks */
	int64	   *labels_used;	/* the label sets the samples use, to lock */
	int			nlabels_used;
	int			labels_used_capacity;
	SampleSets *sets;			/* the samples gathered per thread (writer_sets.c) */
	int			nsamples;		/* in the batch not yet written */
	int64		samples_written;	/* handed to the sets */
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
};

/* The index of a provisional id among the pending rows */
static inline int64
pending_index(const PendingRows *pending, int64 id)
{
	int64		index = -id - 1 - pending->base;

	Assert(id < 0 && index >= 0 && index < pending->count);
	return index;
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

/* The cached id of an encoded key; *found says whether there is one. */
static inline int64
cached_id(idcache_hash *cache, StringInfo key, bool *found)
{
	BytesKey	probe = {key->data, key->len};
	CachedId   *entry = idcache_lookup(cache, probe);

	*found = entry != NULL;
	return entry ? entry->id : 0;
}

/* writer.c: statements, arrays for their arguments, the probes' lifetime */
extern SPIPlanPtr writer_prepare(const char *query, int nargs, Oid *argtypes);
extern SPIPlanPtr writer_prepare_kept(SPIPlanPtr *kept, const char *query, int nargs,
									  Oid *argtypes);
/* writer_profile_row.c */
extern bool writer_insert_profile_row(const ProfileInfo *info, int64 *profile_id);
/* writer_plain.c: whether a trigger of `triggers` fires on INSERT */
extern bool writer_fires_on_insert(const TriggerDesc *triggers);
/* writer_plain.c: whether an INSERT into `rel` may fire a rule, apply a policy or go through Citus */
extern bool writer_insert_needs_statement(Relation rel);
/* writer_set_row.c */
extern bool writer_insert_set_row(Oid samples_type, Datum *values, bool *nulls);
extern int64 writer_execute_for_id(SPIPlanPtr plan, Datum *values, const char *nulls);
extern ArrayType *writer_int8_array(Datum *values, bool *nulls, int count);
extern ArrayType *writer_int4_array(Datum *values, bool *nulls, int count);
extern ArrayType *writer_text_array(Datum *values, bool *nulls, int count);
extern void writer_renew_probe(ProfileWriter *writer);
extern bool writer_hold_intern_lock(ProfileWriter *writer);

/* writer_ids.c: cache keys */
extern void writer_cache_id(MemoryContext cxt, idcache_hash *cache, StringInfo key, int64 id);
extern void writer_func_key(StringInfo key, const char *name, const char *file,
							const char *resource);
extern void writer_frame_key(StringInfo key, int64 func, OptionalInt address,
							 OptionalInt line, OptionalInt col, const char *implementation);
extern void writer_stack_key(StringInfo key, int64 prefix, int64 frame);

/* writer_memo.c */
extern WriterMemo *writer_memo_create(MemoryContext parent, bool keys_stay, int64 expected,
									  Size limit);
extern Size writer_memo_bytes(const WriterMemo *memo);
extern bool writer_memo_get(WriterMemo *memo, const char *key, int len, int64 *stack);
extern bool writer_memo_put(WriterMemo *memo, const char *key, int len, int64 stack, Size limit);
extern void writer_memo_free(WriterMemo *memo);

/* writer_memory.c */
extern double writer_work_mem_bytes(void);
extern void writer_init_stack_caches(ProfileWriter *writer);
extern bool writer_should_load_stacks(ProfileWriter *writer);
extern void writer_load_stacks(ProfileWriter *writer);
extern bool writer_over_budget(ProfileWriter *writer);
extern void writer_release_caches(ProfileWriter *writer);

/* writer_flush.c */
extern void writer_pending_init(PendingRows *pending, MemoryContext cxt, Size row_size);
extern void writer_pending_reset(PendingRows *pending);
extern int64 writer_pending_add(PendingRows *pending, const void *row);
extern void writer_prepare_flush(ProfileWriter *writer);
extern void writer_write_all_pending(ProfileWriter *writer);
extern void writer_remember_written(ProfileWriter *writer);

/* writer_sets.c: samples gathered per thread, written as packed sets */
extern SampleSets *writer_sets_create(MemoryContext parent);
extern void writer_sets_expect(SampleSets *sets, int64 count);
extern void writer_sets_add(ProfileWriter *writer, SampleSets *sets, const char *thread,
							Size thread_len, const Sample *sample);
extern void writer_sets_write_all(ProfileWriter *writer, SampleSets *sets);

/* writer_samples.c */
extern void writer_prepare_samples(ProfileWriter *writer);
extern void writer_lock_label_sets(ProfileWriter *writer);
extern void writer_flush_samples(ProfileWriter *writer);

#endif							/* CALLTREE_WRITER_INTERNAL_H */
