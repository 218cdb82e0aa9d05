/*
 * writer_memo.c
 *	  The memo of an import: stack ids under keys of the importer's (a
 *	  pprof sample's packed location list, a collapsed stack's text), so
 *	  that a key met again needs no walk.
 *
 * A memo lives for one import, or until the writer empties its caches,
 * and every fresh cache line it writes costs: a repeat import's working
 * set is larger than a core's cache.  So it writes little.  A bucket is
 * eight bytes (the key's hash and its entry's number); the entries (where
 * the key lies, its length, its stack) lie together, in the order they
 * were put, in an array sized from the importer's count of samples when
 * it gives one.  Keys the importer keeps unchanged until the import ends
 * (profile_writer_memo_keys_stay: pprof's, in its data) are referred to
 * where they are; others (lines of a stream, JFR's keys) are copied, back
 * to back, into blocks of the memo's own.  A key is found
 * only when its bytes equal the entry's, never on its hash.
 *
 * Everything is in one memory context under the writer's: an emptying of
 * the writer's caches deletes it, and an import that fails leaves nothing
 * behind.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "tree/hash64.h"
#include "writer/writer_internal.h"

#define FIRST_BUCKETS 64
#define FIRST_ENTRIES 64
/* entries sized at once from a count of samples, at most */
#define MAX_EXPECTED_ENTRIES (64 * 1024)
#define FIRST_KEY_BLOCK (4 * 1024)
#define MAX_KEY_BLOCK (1024 * 1024)

typedef struct MemoBucket
{
	uint32		hash;
	uint32		entry;			/* the entry's number + 1; 0: empty */
} MemoBucket;

typedef struct MemoEntry
{
	const char *key;
	int64		stack;
	uint32		len;
} MemoEntry;

struct WriterMemo
{
	MemoryContext cxt;
	bool		keys_stay;		/* keys are referred to, not copied */
	MemoBucket *buckets;
	Size		nbuckets;		/* a power of two */
	MemoEntry  *entries;
	uint32		count;
	uint32		capacity;
	char	   *block;			/* where copied keys go */
	Size		block_used;
	Size		block_size;
	Size		bytes;			/* allocated: the arrays and blocks in use or not */
};

/* Memory for the memo, counted */
static void *
memo_alloc(WriterMemo *memo, Size size, int flags)
{
	memo->bytes += size;
	return MemoryContextAllocExtended(memo->cxt, size, MCXT_ALLOC_HUGE | flags);
}

/*
 * An empty memo, in a context under `parent`, for about `expected` keys
 * (0: not known), of which it will hold at most `limit` bytes.
 */
WriterMemo *
writer_memo_create(MemoryContext parent, bool keys_stay, int64 expected, Size limit)
{
	MemoryContext cxt = AllocSetContextCreate(parent, "calltree import memo", ALLOCSET_SMALL_SIZES);
	WriterMemo *memo = MemoryContextAllocZero(cxt, sizeof(WriterMemo));

	memo->cxt = cxt;
	memo->keys_stay = keys_stay;
	memo->bytes = sizeof(WriterMemo);
	memo->nbuckets = FIRST_BUCKETS;
	memo->buckets = memo_alloc(memo, sizeof(MemoBucket) * FIRST_BUCKETS, MCXT_ALLOC_ZERO);
	/* allocated, not written: the entries not put cost no cache line */
	expected = Min(expected, (int64) (limit / 8 / sizeof(MemoEntry)));
	memo->capacity = (uint32) Min(Max(expected, FIRST_ENTRIES), MAX_EXPECTED_ENTRIES);
	memo->entries = memo_alloc(memo, sizeof(MemoEntry) * memo->capacity, 0);
	return memo;
}

/* The bytes the memo has allocated, less those it freed */
Size
writer_memo_bytes(const WriterMemo *memo)
{
	return memo ? memo->bytes : 0;
}

/* The bucket of the key, or the empty one where it would go */
static inline MemoBucket *
find_bucket(const WriterMemo *memo, const char *key, uint32 len, uint32 hash)
{
	Size		mask = memo->nbuckets - 1;

	for (Size i = hash & mask;; i = (i + 1) & mask)
	{
		MemoBucket *bucket = &memo->buckets[i];
		const MemoEntry *entry;

		if (bucket->entry == 0)
			return bucket;
		entry = &memo->entries[bucket->entry - 1];
		if (bucket->hash == hash && entry->len == len && memcmp(entry->key, key, len) == 0)
			return bucket;
	}
}

bool
writer_memo_get(const WriterMemo *memo, const char *key, int len, int64 *stack)
{
	const MemoBucket *bucket;

	if (memo == NULL)
		return false;
	bucket = find_bucket(memo, key, (uint32) len, calltree_hash_bytes(key, len));
	if (bucket->entry == 0)
		return false;
	*stack = memo->entries[bucket->entry - 1].stack;
	return true;
}

static inline bool
buckets_full(const WriterMemo *memo)
{
	return ((Size) memo->count + 1) * 4 > (Size) memo->nbuckets * 3;
}

/* The size of the block a key of `len` bytes that does not fit goes to */
static Size
next_block_size(const WriterMemo *memo, int len)
{
	Size		size = memo->block_size == 0 ? FIRST_KEY_BLOCK : Min(2 * memo->block_size, MAX_KEY_BLOCK);

	return Max(size, (Size) len);
}

/*
 * The bytes a put of a key of `len` bytes would allocate anew, while the
 * memo still holds the arrays it replaces.
 */
static Size
put_growth(const WriterMemo *memo, int len)
{
	Size		growth = 0;

	if (buckets_full(memo))
		growth += 2 * sizeof(MemoBucket) * memo->nbuckets;
	if (memo->count == memo->capacity)
		growth += 2 * sizeof(MemoEntry) * memo->capacity;
	if (!memo->keys_stay && memo->block_used + len > memo->block_size)
		growth += next_block_size(memo, len);
	return growth;
}

/* Twice the buckets, the entries where they were */
static void
grow_buckets(WriterMemo *memo)
{
	Size		nbuckets = 2 * memo->nbuckets;
	Size		mask = nbuckets - 1;
	MemoBucket *buckets = memo_alloc(memo, sizeof(MemoBucket) * nbuckets, MCXT_ALLOC_ZERO);

	for (Size b = 0; b < memo->nbuckets; b++)
	{
		MemoBucket	old = memo->buckets[b];
		Size		i;

		if (old.entry == 0)
			continue;
		for (i = old.hash & mask; buckets[i].entry != 0; i = (i + 1) & mask)
			;
		buckets[i] = old;
	}
	pfree(memo->buckets);
	memo->bytes -= sizeof(MemoBucket) * memo->nbuckets;
	memo->buckets = buckets;
	memo->nbuckets = nbuckets;
}

/* A copy of the key, in the memo's blocks: keys back to back, no header each */
static const char *
copy_key(WriterMemo *memo, const char *key, int len)
{
	char	   *copy;

	if (memo->block_used + len > memo->block_size)
	{
		/* the rest of the block is left: keys are short, blocks long */
		memo->block_size = next_block_size(memo, len);
		memo->block = memo_alloc(memo, memo->block_size, 0);
		memo->block_used = 0;
	}
	copy = memo->block + memo->block_used;
	memcpy(copy, key, len);
	memo->block_used += len;
	return copy;
}

/*
 * Remembers a key's stack, unless the memo would then hold more than
 * `limit` bytes: false then, and the memo is as it was.
 */
bool
writer_memo_put(WriterMemo *memo, const char *key, int len, int64 stack, Size limit)
{
	uint32		hash = calltree_hash_bytes(key, len);
	MemoBucket *bucket;
	MemoEntry  *entry;

	/* entries' numbers fit in a bucket's 32 bits, the entries' count doubles in 32 */
	if (writer_memo_bytes(memo) + put_growth(memo, len) > limit || memo->count >= PG_INT32_MAX)
		return false;
	if (buckets_full(memo))
		grow_buckets(memo);
	bucket = find_bucket(memo, key, (uint32) len, hash);
	if (bucket->entry != 0)
	{
		memo->entries[bucket->entry - 1].stack = stack;
		return true;
	}
	if (memo->count == memo->capacity)
	{
		memo->entries = repalloc_huge(memo->entries, 2 * sizeof(MemoEntry) * memo->capacity);
		memo->bytes += sizeof(MemoEntry) * memo->capacity;
		memo->capacity *= 2;
	}
	entry = &memo->entries[memo->count++];
	entry->key = memo->keys_stay ? key : copy_key(memo, key, len);
	entry->len = (uint32) len;
	entry->stack = stack;
	bucket->hash = hash;
	bucket->entry = memo->count;
	return true;
}

/* Frees the memo and everything in it */
void
writer_memo_free(WriterMemo *memo)
{
	if (memo)
		MemoryContextDelete(memo->cxt);
}
