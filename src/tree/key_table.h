/*
 * key_table.h
 *	  A map of byte keys to ids that keeps each key beside its id, in one
 *	  arena, in the order they were put: for the backend's intern cache,
 *	  whose look-ups find keys met in earlier imports, long out of the CPU's
 *	  caches.
 *
 * A look-up reads a bucket (eight bytes: the key's hash and where its
 * record lies) and, when the hashes match, the record: the id, the length
 * and the key's bytes, one run of memory.  The buckets are small, so a
 * cache line holds eight of them; the records of a profile's keys lie
 * together, in the order its first import put them, which is the order
 * the next import of the same build looks them up.  So a look-up first
 * tries the record after the one found last, with no hash and no bucket,
 * and each one found starts reading the next into the CPU's cache.  A key
 * is found only when its bytes equal the record's, never on its hash.
 *
 * Keys are only added (or given another id); the table is emptied by
 * resetting or deleting the memory context it was made in.
 */
#ifndef CALLTREE_KEY_TABLE_H
#define CALLTREE_KEY_TABLE_H

#include "postgres.h"

typedef struct KeyTable KeyTable;

/* An empty table, in `cxt` */
extern KeyTable *key_table_create(MemoryContext cxt);

/* True, with *id, when the table holds the key */
extern bool key_table_get(KeyTable *table, const char *key, int len, int64 *id);

/*
 * Adds the key, or gives it the new id if it is there; false when the
 * table cannot grow further (it holds 32 GB of keys).
 */
extern bool key_table_put(KeyTable *table, const char *key, int len, int64 id);

/*
 * The record a look-up tries first (the one after the one found last):
 * its key's bytes, followed by at least 8 bytes that may be read (not
 * compared), and *len; or NULL.  For a caller that compares its key to
 * those bytes more cheaply than it makes the key; key_table_take_next
 * then gives its id, as a look-up that found it would.
 */
extern const char *key_table_next(const KeyTable *table, int *len);
extern int64 key_table_take_next(KeyTable *table);

/* The bytes the table holds: its buckets and its arena, as allocated */
extern Size key_table_bytes(const KeyTable *table);

/*
 * The bytes that a put of a key of `len` bytes would allocate anew (a
 * bigger array of buckets, a bigger arena), while the table still holds
 * the old ones; 0 when it fits in what the table holds.
 */
extern Size key_table_growth(const KeyTable *table, int len);

#endif							/* CALLTREE_KEY_TABLE_H */
