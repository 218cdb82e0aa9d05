/*
 * bucket_table.c
 *	  The buckets of an open-addressing hash table whose records lie
 *	  elsewhere (bucket_table.h says why): their making and their growth.
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "tree/bucket_table.h"

#define FIRST_BUCKETS 64
/* references and hashes are 32 bits: at most 2^31 buckets, 3/4 of them used */
#define MAX_BUCKETS ((Size) 1 << 31)

void
bucket_table_init(BucketTable *table, MemoryContext cxt)
{
	table->buckets = MemoryContextAllocZero(cxt, sizeof(Bucket) * FIRST_BUCKETS);
	table->nbuckets = FIRST_BUCKETS;
	table->count = 0;
}

/* Twice the buckets, in the old ones' context; the records stay where they were */
bool
bucket_table_grow(BucketTable *table)
{
	Size		nbuckets = 2 * table->nbuckets;
	Size		mask = nbuckets - 1;
	Bucket	   *buckets;

	if (table->nbuckets >= MAX_BUCKETS)
		return false;
	buckets = MemoryContextAllocExtended(GetMemoryChunkContext(table->buckets),
										 sizeof(Bucket) * nbuckets, MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (Size b = 0; b < table->nbuckets; b++)
	{
		Bucket		old = table->buckets[b];
		Size		i;

		if (old.ref == 0)
			continue;
		for (i = old.hash & mask; buckets[i].ref != 0; i = (i + 1) & mask)
			;
		buckets[i] = old;
	}
	pfree(table->buckets);
	table->buckets = buckets;
	table->nbuckets = nbuckets;
	return true;
}
