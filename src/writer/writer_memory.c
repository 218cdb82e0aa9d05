/*
 * writer_memory.c
 *	  The writer within calltree.import_work_mem: what its caches of stacks
 *	  take, when to read the stack table whole, and when to empty them.
 *
 * The stack caches grow with the distinct stacks of the profile, which can
 * be millions.  Two decisions keep them within the setting.  An import that
 * looks up many known stacks reads the table whole into the cache, if the
 * cache would still fit (writer_should_load_stacks).  An importer that
 * holds no id from one sample to the next (profile_writer_bound_memory)
 * lets the writer write its pending rows and empty the caches between
 * samples when they pass the limit (writer_over_budget,
 * writer_release_caches).
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "module.h"
#include "store/intern.h"
#include "writer/writer_internal.h"


static void
create_stack_caches(ProfileWriter *writer)
{
	/* tiny at first, as the writer's other caches (writer_create) */
	writer->stacks = stackcache_create(writer->cxt, WRITER_CACHE_FIRST_SIZE, NULL);
	writer->children_read = childread_create(writer->cxt, WRITER_CACHE_FIRST_SIZE, NULL);
}

/* The stack caches of a new writer, empty, in the writer's context */
void
writer_init_stack_caches(ProfileWriter *writer)
{
	create_stack_caches(writer);
	/* calltree.stack_read: index never reads stack whole, scan at once */
	writer->next_load_check = calltree_stack_read == STACK_READ_SCAN ? 1 : 1024;
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
 * the stack cache (as writer_load_stacks adds them, growing it once).  An array
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
		(double) writer_memo_bytes(writer->memo);
}

/* Whether an array of the writer's may double within the next sample */
static bool
caches_about_to_double(const ProfileWriter *writer)
{
	return about_to_double(writer->stacks->members, writer->stacks->grow_threshold) ||
		about_to_double(writer->children_read->members, writer->children_read->grow_threshold) ||
		about_to_double(writer->pending_stacks.count, writer->pending_stacks.capacity);
}

double
writer_work_mem_bytes(void)
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
bool
writer_should_load_stacks(ProfileWriter *writer)
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
	if (cache_bytes(writer, Max(added, 0)) > writer_work_mem_bytes())
	{
		writer->next_load_check = writer->stack_reads * 2;
		return false;
	}
	return true;
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

/* Every stack visible to the probes into the cache, grown once beforehand */
void
writer_load_stacks(ProfileWriter *writer)
{
	double		entries = writer->stacks->members + intern_probe_stack_rows(writer->probe);
	/* simplehash's default fill factor, and room to grow before doubling */
	double		buckets = (entries + SAMPLE_STACKS_MAX) / 0.9 + 1;

	if (buckets > writer->stacks->size && buckets < (double) PG_UINT32_MAX)
		stackcache_grow(writer->stacks, (uint64) buckets);
	intern_probe_all_stacks(writer->probe, cache_known_stack, writer);
	writer->stacks_loaded = true;
}

/*
 * Whether the caches of a writer whose importer allows it (bounded) have
 * passed calltree.import_work_mem, after one more sample: asked every
 * 1,024 samples (they may make a few hundred thousand new stacks), and
 * before any sample that may double an array.
 */
bool
writer_over_budget(ProfileWriter *writer)
{
	return writer->bounded &&
		((++writer->nsamples_seen & 0x3FF) == 0 || caches_about_to_double(writer)) &&
		cache_bytes(writer, 0) > writer_work_mem_bytes();
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
	childread_destroy(writer->children_read);
	create_stack_caches(writer);
	pfree(pending->rows);
	pfree(pending->written);
	pfree(pending->inserted);
	writer_pending_init(pending, writer->cxt, pending->row_size);
}

/*
 * Writes the pending rows and forgets them (their provisional ids are not
 * handed out again); the funcs and frames stay cached, under their real
 * ids.
 */
static void
forget_pending_rows(ProfileWriter *writer)
{
	writer_write_all_pending(writer);
	writer_remember_written(writer);
	realize_cached_ids(writer->funcs, &writer->pending_funcs);
	realize_cached_ids(writer->frames, &writer->pending_frames);
	writer_pending_reset(&writer->pending_funcs);
	writer_pending_reset(&writer->pending_frames);
	writer_pending_reset(&writer->pending_stacks);
}

/*
 * Empties the caches of stacks and of the importer's keys, after
 * forget_pending_rows.  The probes then look in a new snapshot, which sees
 * the rows this writer inserted.
 */
void
writer_release_caches(ProfileWriter *writer)
{
	double		before = cache_bytes(writer, 0);

	forget_pending_rows(writer);

	/*
	 * Emptied, not freed: the arrays grew within the limit, and freeing and
	 * growing them again would leave the process's heap in pieces.  Unless
	 * they alone take half the limit: then the next check would empty
	 * them again at once.
	 */
	stackcache_reset(writer->stacks);
	childread_reset(writer->children_read);
	writer_memo_free(writer->memo);
	writer->memo = NULL;
	if (cache_bytes(writer, 0) > writer_work_mem_bytes() / 2)
		free_cache_arrays(writer);
	/* the whole table would not fit either: from now on, probes only */
	writer->stacks_loaded = false;
	writer->next_load_check = PG_INT64_MAX;
	writer->walk_depth = 0;		/* the next walk shares nothing */

	writer_renew_probe(writer);
	ereport(DEBUG1,
			(errmsg_internal("calltree import: caches emptied after " INT64_FORMAT " samples",
							 writer->nsamples_seen),
			 errdetail_internal("They took %.0f kB; calltree.import_work_mem is %d kB.",
								before / 1024, calltree_import_work_mem)));
}
