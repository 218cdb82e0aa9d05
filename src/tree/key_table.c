/*
 * key_table.c
 *	  A map of byte keys to ids, its keys beside their ids in one arena
 *	  (key_table.h says why).
 *
 * Its buckets are a BucketTable (bucket_table.h); a bucket refers to its
 * record by the record's offset in the arena, in units of eight bytes (the
 * arena's first eight bytes hold no record: 0 is an empty bucket).  A
 * record is the id, the key's length and the key's bytes, padded to eight
 * bytes.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "tree/bucket_table.h"
#include "tree/hash64.h"
#include "tree/key_table.h"

#define RECORD_ALIGN 8
/* bytes kept after the last record: a key's last bytes may be read as a word */
#define ARENA_SLACK 8
#define FIRST_ARENA 1024
/* offsets in units of RECORD_ALIGN fit in 32 bits */
#define MAX_ARENA ((Size) PG_UINT32_MAX * RECORD_ALIGN)

typedef struct KeyRecord
{
	int64		id;
	uint32		len;
	char		key[FLEXIBLE_ARRAY_MEMBER];
} KeyRecord;

struct KeyTable
{
	BucketTable buckets;		/* refs: a record's offset / RECORD_ALIGN */
	char	   *arena;
	Size		used;			/* a multiple of RECORD_ALIGN */
	Size		capacity;
	Size		next;			/* the record after the one found last */
};

static inline Size
record_size(int len)
{
	return TYPEALIGN(RECORD_ALIGN, offsetof(KeyRecord, key) + (Size) len);
}

static inline const KeyRecord *
record_at(const KeyTable *table, uint32 ref)
{
	return (const KeyRecord *) (table->arena + (Size) ref * RECORD_ALIGN);
}

KeyTable *
key_table_create(MemoryContext cxt)
{
	KeyTable   *table = MemoryContextAlloc(cxt, sizeof(KeyTable));

	bucket_table_init(&table->buckets, cxt);
	table->capacity = FIRST_ARENA;
	table->arena = MemoryContextAlloc(cxt, FIRST_ARENA);
	table->used = RECORD_ALIGN;
	table->next = RECORD_ALIGN;
	return table;
}

/* Whether the record is of the key */
static inline bool
record_is(const KeyRecord *record, const char *key, int len)
{
	return record->len == (uint32) len && memcmp(record->key, key, len) == 0;
}

/* BucketKeyIs of the table's buckets */
static bool
ref_is(const void *table, uint32 ref, const char *key, int len)
{
	return record_is(record_at(table, ref), key, len);
}

/* The bucket of the key, or the empty one where it would go */
static inline Bucket *
find_bucket(const KeyTable *table, const char *key, int len, uint32 hash)
{
	return bucket_table_find(&table->buckets, hash, ref_is, table, key, len);
}

/*
 * Starts reading the record after the one found, which the next look-up
 * probably wants: it will be in the CPU's cache by then.
 */
static inline void
found_at(KeyTable *table, Size offset, int len)
{
	table->next = offset + record_size(len);
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch(table->arena + table->next);
	__builtin_prefetch(table->arena + table->next + 64);
	__builtin_prefetch(table->arena + table->next + 128);
#endif
}

/*
 * Tries the record after the one found last first: an import of a build
 * met before looks its keys up in the order an earlier import put them.
 * A key found there costs no bucket, and a run of them reads the arena
 * in order.
 */
bool
key_table_get(KeyTable *table, const char *key, int len, int64 *id)
{
	const Bucket *bucket;
	const KeyRecord *record;

	if (table->next < table->used)
	{
		record = (const KeyRecord *) (table->arena + table->next);
		if (record_is(record, key, len))
		{
			*id = record->id;
			found_at(table, table->next, len);
			return true;
		}
	}
	bucket = find_bucket(table, key, len, calltree_hash_bytes(key, len));
	if (bucket->ref == 0)
		return false;
	record = record_at(table, bucket->ref);
	*id = record->id;
	found_at(table, (Size) bucket->ref * RECORD_ALIGN, len);
	return true;
}

const char *
key_table_next(const KeyTable *table, int *len)
{
	const KeyRecord *record;

	if (table->next >= table->used)
		return NULL;
	record = (const KeyRecord *) (table->arena + table->next);
	*len = (int) record->len;
	return record->key;
}

int64
key_table_take_next(KeyTable *table)
{
	const KeyRecord *record = (const KeyRecord *) (table->arena + table->next);

	Assert(table->next < table->used);
	found_at(table, table->next, (int) record->len);
	return record->id;
}

/* The arena's size once it holds `more` bytes more; 0 past MAX_ARENA */
static Size
arena_capacity(const KeyTable *table, Size more)
{
	Size		capacity = table->capacity;

	if (table->used + more > MAX_ARENA)
		return 0;
	while (capacity < table->used + more)
		capacity *= 2;
	return Min(capacity, MAX_ARENA);
}

Size
key_table_bytes(const KeyTable *table)
{
	return bucket_table_bytes(&table->buckets) + table->capacity;
}

Size
key_table_growth(const KeyTable *table, int len)
{
	Size		growth = bucket_table_growth(&table->buckets);

	if (table->used + record_size(len) + ARENA_SLACK > table->capacity)
		growth += arena_capacity(table, record_size(len) + ARENA_SLACK);
	return growth;
}

bool
key_table_put(KeyTable *table, const char *key, int len, int64 id)
{
	uint32		hash = calltree_hash_bytes(key, len);
	Size		size = record_size(len);
	Bucket	   *bucket;
	KeyRecord  *record;

	if (!bucket_table_make_room(&table->buckets))
		return false;
	bucket = find_bucket(table, key, len, hash);
	if (bucket->ref != 0)
	{
		((KeyRecord *) record_at(table, bucket->ref))->id = id;
		return true;
	}
	if (table->used + size + ARENA_SLACK > table->capacity)
	{
		Size		capacity = arena_capacity(table, size + ARENA_SLACK);

		if (capacity == 0)
			return false;
		table->arena = repalloc_huge(table->arena, capacity);
		table->capacity = capacity;
	}
	record = (KeyRecord *) (table->arena + table->used);
	record->id = id;
	record->len = (uint32) len;
	memcpy(record->key, key, len);
	bucket_table_fill(&table->buckets, bucket, hash, (uint32) (table->used / RECORD_ALIGN));
	table->used += size;
	return true;
}
