/*
 * bucket_table.h
 *	  The buckets of an open-addressing hash table whose records lie
 *	  elsewhere, where their owner keeps them: the intern cache's arena of
 *	  keys beside their ids (key_table.h), the import's memo of stacks
 *	  (writer_memo.c).
 *
 * A bucket is eight bytes, the key's hash and a reference to its record
 * (0: an empty bucket), so that a cache line holds eight and a look-up
 * reads the record only when the hashes match.  Linear probing, at most
 * three quarters full; the buckets double when a put would fill more.
 * The table knows no key: a look-up gives the key's hash and a function
 * that tells whether the record a bucket refers to is of that key, so
 * each owner says where its keys lie and how they compare.  A key is
 * found only when that function says so, never on its hash.
 *
 * Buckets are only added; the table is freed with the memory context it
 * was made in.
 */
#ifndef CALLTREE_BUCKET_TABLE_H
#define CALLTREE_BUCKET_TABLE_H

#include "postgres.h"

typedef struct Bucket
{
	uint32		hash;
	uint32		ref;			/* the owner's reference to the record; 0: empty */
} Bucket;

typedef struct BucketTable
{
	Bucket	   *buckets;
	Size		nbuckets;		/* a power of two */
	Size		count;			/* the buckets in use */
} BucketTable;

/*
 * Whether the record of `ref`, in `owner`, is of the key.  Passed as a
 * constant to the inline look-up below, it is compiled into it.
 */
typedef bool (*BucketKeyIs) (const void *owner, uint32 ref, const char *key, int len);

/* An empty table in `cxt`, where its buckets will stay as they grow */
extern void bucket_table_init(BucketTable *table, MemoryContext cxt);

/* Doubles the buckets; false when they cannot (2^31 of them), the table as it was */
extern bool bucket_table_grow(BucketTable *table);

/* The bucket of the key (ref != 0), or the empty one where it would go */
static inline Bucket *
bucket_table_find(const BucketTable *table, uint32 hash, BucketKeyIs key_is,
				  const void *owner, const char *key, int len)
{
	Size		mask = table->nbuckets - 1;

	for (Size i = hash & mask;; i = (i + 1) & mask)
	{
		Bucket	   *bucket = &table->buckets[i];

		if (bucket->ref == 0)
			return bucket;
		if (bucket->hash == hash && key_is(owner, bucket->ref, key, len))
			return bucket;
	}
}

/* Fills the empty bucket a look-up found, after bucket_table_make_room */
static inline void
bucket_table_fill(BucketTable *table, Bucket *bucket, uint32 hash, uint32 ref)
{
	Assert(bucket->ref == 0 && ref != 0);
	Assert((table->count + 1) * 4 <= table->nbuckets * 3);
	bucket->hash = hash;
	bucket->ref = ref;
	table->count++;
}

/* The bytes of the buckets, as allocated */
static inline Size
bucket_table_bytes(const BucketTable *table)
{
	return table->nbuckets * sizeof(Bucket);
}

/*
 * The bytes that bucket_table_make_room would allocate anew, while the
 * table still holds the old buckets; 0 when there is room.
 */
static inline Size
bucket_table_growth(const BucketTable *table)
{
	bool		full = (table->count + 1) * 4 > table->nbuckets * 3;

	return full ? 2 * bucket_table_bytes(table) : 0;
}

/*
 * Makes room for one more bucket, doubling the buckets when they would be
 * more than three quarters full; false when they cannot double.  Before a
 * look-up whose empty bucket a put will fill: the buckets move.
 */
static inline bool
bucket_table_make_room(BucketTable *table)
{
	return bucket_table_growth(table) == 0 || bucket_table_grow(table);
}

#endif							/* CALLTREE_BUCKET_TABLE_H */
