/*
 * writer_memo.c
 *	  The memo of an import: stack ids under keys of the importer's (a
 *	  pprof sample's packed location list, a collapsed stack's text), so
 *	  that a key met again needs no walk.
 *
 * A memo lives for one import, or until the writer empties its caches,
 * and every fresh cache line it writes costs: a repeat import's working
 * set is larger than a core's cache.  So it writes little.  Its buckets
 * are a BucketTable (bucket_table.h), each referring to its entry by the
 * entry's number; the entries (where the key lies, its length, its stack)
 * lie together, in the order they were put, in an array sized from the
 * importer's count of samples when it gives one.  Keys the importer keeps
 * unchanged until the import ends (profile_writer_memo_keys_stay: pprof's,
 * in its data) are referred to where they are; others (lines of a stream,
 * JFR's keys) are copied, back to back, into blocks of the memo's own.  A
 * key is found only when its bytes equal the entry's, never on its hash.
 *
 * A key is put after a get missed it: the get keeps the hash of the key it
 * missed, and the put of the same key (the same bytes at the same address,
 * as writer.h asks of its callers) takes it instead of hashing the key
 * again.  Were the bytes changed in between, the entry would go unfound,
 * and no more: a key is found by its bytes, looked for under its own hash.
 *
 * Everything is in one memory context under the writer's: an emptying of
 * the writer's caches deletes it, and an import that fails leaves nothing
 * behind.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "tree/bucket_table.h"
#include "tree/hash64.h"
#include "writer/writer_internal.h"

#define FIRST_ENTRIES 64
/* entries sized at once from a count of samples, at most */
#define MAX_EXPECTED_ENTRIES (64 * 1024)
#define FIRST_KEY_BLOCK (4 * 1024)
#define MAX_KEY_BLOCK (1024 * 1024)

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
	BucketTable buckets;		/* refs: an entry's number + 1 */
	MemoEntry  *entries;
	uint32		count;
	uint32		capacity;
	char	   *block;			/* where copied keys go */
	Size		block_used;
	Size		block_size;
	Size		bytes;			/* allocated but the buckets: entries and blocks, in use or not */
	/* the key the last get missed, and its hash, for the put that follows */
	const char *missed_key;
	int			missed_len;
	uint32		missed_hash;
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
	bucket_table_init(&memo->buckets, cxt);
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
	return memo ? memo->bytes + bucket_table_bytes(&memo->buckets) : 0;
}

static inline MemoEntry *
entry_at(const WriterMemo *memo, uint32 ref)
{
	return &memo->entries[ref - 1];
}

/* BucketKeyIs of the memo's buckets */
static bool
ref_is(const void *memo, uint32 ref, const char *key, int len)
{
	const MemoEntry *entry = entry_at(memo, ref);

	return entry->len == (uint32) len && memcmp(entry->key, key, len) == 0;
}

/* The bucket of the key, or the empty one where it would go */
static inline Bucket *
find_bucket(const WriterMemo *memo, const char *key, int len, uint32 hash)
{
	return bucket_table_find(&memo->buckets, hash, ref_is, memo, key, len);
}

bool
writer_memo_get(WriterMemo *memo, const char *key, int len, int64 *stack)
{
	uint32		hash;
	const Bucket *bucket;

	if (memo == NULL)
		return false;
	hash = calltree_hash_bytes(key, len);
	bucket = find_bucket(memo, key, len, hash);
	if (bucket->ref == 0)
	{
		memo->missed_key = key;
		memo->missed_len = len;
		memo->missed_hash = hash;
		return false;
	}
	*stack = entry_at(memo, bucket->ref)->stack;
	return true;
}

/* The key's hash: the one its get kept when it missed this key */
static inline uint32
put_hash(WriterMemo *memo, const char *key, int len)
{
	bool		missed = key != NULL && key == memo->missed_key && len == memo->missed_len;

	memo->missed_key = NULL;
	/* its caller kept the key's bytes as they were */
	Assert(!missed || memo->missed_hash == calltree_hash_bytes(key, len));
	return missed ? memo->missed_hash : calltree_hash_bytes(key, len);
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
	Size		growth = bucket_table_growth(&memo->buckets);

	if (memo->count == memo->capacity)
		growth += 2 * sizeof(MemoEntry) * memo->capacity;
	if (!memo->keys_stay && (memo->block == NULL || memo->block_used + len > memo->block_size))
		growth += next_block_size(memo, len);
	return growth;
}

/* A copy of the key, in the memo's blocks: keys back to back, no header each */
static const char *
copy_key(WriterMemo *memo, const char *key, int len)
{
	char	   *copy;

	/* the first key has a block too, were it empty: a copy is never NULL */
	if (memo->block == NULL || memo->block_used + len > memo->block_size)
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
	uint32		hash = put_hash(memo, key, len);
	Bucket	   *bucket;
	MemoEntry  *entry;

	/* buckets stop doubling before the entries' count passes 2^31 */
	if (writer_memo_bytes(memo) + put_growth(memo, len) > limit ||
		!bucket_table_make_room(&memo->buckets))
		return false;
	bucket = find_bucket(memo, key, len, hash);
	if (bucket->ref != 0)
	{
		entry_at(memo, bucket->ref)->stack = stack;
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
	bucket_table_fill(&memo->buckets, bucket, hash, memo->count);
	return true;
}

/* Frees the memo and everything in it */
void
writer_memo_free(WriterMemo *memo)
{
	if (memo)
		MemoryContextDelete(memo->cxt);
}
