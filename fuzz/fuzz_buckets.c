/*
 * fuzz_buckets.c
 *	  libFuzzer harness of the two hash tables over tree/bucket_table.c:
 *	  the intern cache's key table (key_table.c) and the import's memo
 *	  (writer_memo.c), each held against a plain array of the keys put.
 *
 * The input is a list of operations of three bytes: what to do, a key's
 * length (0 to 79) and which of 16 keys of that length; a key's bytes are
 * made from the two, so keys repeat and share prefixes.  Each key is
 * copied into a block of its exact length, so AddressSanitizer sees a
 * byte read past it, and most blocks are freed after the operation, so
 * it sees a table that kept a pointer to them.  The tables must find
 * every key put, with the id or stack put last, and no other; the key
 * table's next record must be a key put, with its id; a put must allocate
 * no more than the growth the table announced before it; a bounded memo
 * must stay within its bound and find what it accepted.
 */
#include "postgres.h"

#include "tree/key_table.h"
#include "writer/writer_internal.h"
#include "pg_stubs.h"

#define KEY_LENGTHS 80
#define KEY_VARIANTS 16
/* the bounded memo's limit: above what an empty memo takes, a few growths more */
#define SMALL_LIMIT (4 * 1024)

typedef struct Tables
{
	KeyTable   *keys;
	WriterMemo *memo_in_place;	/* keys referred to where they are */
	WriterMemo *memo_copying;	/* keys copied */
	WriterMemo *memo_bounded;	/* keys copied, within SMALL_LIMIT */
	/* what each should hold, by (length, variant); 0: not there */
	int64		ids[KEY_LENGTHS][KEY_VARIANTS];
	int64		in_place[KEY_LENGTHS][KEY_VARIANTS];
	int64		copied[KEY_LENGTHS][KEY_VARIANTS];
	int64		bounded[KEY_LENGTHS][KEY_VARIANTS];
} Tables;

typedef struct Input
{
	const uint8 *data;
	size_t		len;
} Input;

/* The key of (len, variant), in a block of its own of exactly len bytes */
static char *
make_key(int len, int variant)
{
	char	   *key = palloc(Max(len, 1));

	for (int i = 0; i < len; i++)
		key[i] = (char) (i == 0 ? variant : variant * 37 + i * 11 + (i * i >> 3));
	return key;
}

/* The (len, variant) of the key of `len` bytes at `key`, or false when none is */
static bool
key_of(const char *key, int len, int *variant)
{
	if (len < 0 || len >= KEY_LENGTHS)
		return false;
	for (int v = 0; v < KEY_VARIANTS; v++)
	{
		char	   *made = make_key(len, v);
		bool		same = memcmp(made, key, len) == 0;

		pfree(made);
		if (same)
		{
			*variant = v;
			return true;
		}
	}
	return false;
}

static void
check_gets(Tables *t, const char *key, int len, int variant)
{
	int64		got;
	bool		found;

	found = key_table_get(t->keys, key, len, &got);
	FUZZ_CHECK(found == (t->ids[len][variant] != 0) && (!found || got == t->ids[len][variant]),
			   "key table: key (%d, %d) found %d as " INT64_FORMAT ", put as " INT64_FORMAT,
			   len, variant, found, found ? got : 0, t->ids[len][variant]);
	found = writer_memo_get(t->memo_copying, key, len, &got);
	FUZZ_CHECK(found == (t->copied[len][variant] != 0) && (!found || got == t->copied[len][variant]),
			   "copying memo: key (%d, %d) found %d", len, variant, found);
	found = writer_memo_get(t->memo_bounded, key, len, &got);
	FUZZ_CHECK(found == (t->bounded[len][variant] != 0) && (!found || got == t->bounded[len][variant]),
			   "bounded memo: key (%d, %d) found %d", len, variant, found);
}

/* A put to the key table, within the growth it announced */
static void
put_key(Tables *t, const char *key, int len, int variant, int64 id)
{
	Size		before = key_table_bytes(t->keys);
	Size		growth = key_table_growth(t->keys, len);

	FUZZ_CHECK(key_table_put(t->keys, key, len, id), "key table refused key (%d, %d)", len, variant);
	t->ids[len][variant] = id;
	FUZZ_CHECK(key_table_bytes(t->keys) <= before + growth, "key table grew by %zu bytes, announced %zu",
			   key_table_bytes(t->keys) - before, growth);
}

/*
 * The memos' puts: as an importer does (a get that misses, then the put of
 * the same bytes), and a put with no get before it, of another copy.
 */
static void
put_memos(Tables *t, const char *key, int len, int variant, int64 stack)
{
	char	   *other = make_key(len, variant);
	int64		got;
	Size		before;
	bool		put;

	if (!writer_memo_get(t->memo_in_place, key, len, &got))
		FUZZ_CHECK(t->in_place[len][variant] == 0, "in-place memo lost key (%d, %d)", len, variant);
	FUZZ_CHECK(writer_memo_put(t->memo_in_place, key, len, stack, SIZE_MAX / 2), "in-place memo refused");
	t->in_place[len][variant] = stack;

	FUZZ_CHECK(writer_memo_put(t->memo_copying, other, len, stack, SIZE_MAX / 2), "copying memo refused");
	t->copied[len][variant] = stack;

	before = writer_memo_bytes(t->memo_bounded);
	(void) writer_memo_get(t->memo_bounded, other, len, &got);
	put = writer_memo_put(t->memo_bounded, other, len, stack, SMALL_LIMIT);
	FUZZ_CHECK(put ? writer_memo_bytes(t->memo_bounded) <= SMALL_LIMIT :
			   writer_memo_bytes(t->memo_bounded) == before,
			   "bounded memo: put %d, %zu bytes then %zu", put, before, writer_memo_bytes(t->memo_bounded));
	if (put)
		t->bounded[len][variant] = stack;
	pfree(other);
}

/* The record the key table tries next is of a key put, with its id */
static void
check_next(Tables *t)
{
	int			len;
	int			variant;
	const char *next = key_table_next(t->keys, &len);
	int64		id;

	if (next == NULL)
		return;
	FUZZ_CHECK(key_of(next, len, &variant) && t->ids[len][variant] != 0,
			   "next record: %d bytes of no key put", len);
	id = key_table_take_next(t->keys);
	FUZZ_CHECK(id == t->ids[len][variant], "next record: id " INT64_FORMAT ", put as " INT64_FORMAT,
			   id, t->ids[len][variant]);
}

static void
run_operations(void *arg)
{
	Input	   *input = arg;
	Tables	   *t = palloc0(sizeof(Tables));

	t->keys = key_table_create(CurrentMemoryContext);
	t->memo_in_place = writer_memo_create(CurrentMemoryContext, true, 0, SIZE_MAX / 2);
	t->memo_copying = writer_memo_create(CurrentMemoryContext, false, 0, SIZE_MAX / 2);
	t->memo_bounded = writer_memo_create(CurrentMemoryContext, false, 0, SMALL_LIMIT);
	for (size_t at = 0; at + 3 <= input->len; at += 3)
	{
		int			op = input->data[at] % 4;
		int			len = input->data[at + 1] % KEY_LENGTHS;
		int			variant = len == 0 ? 0 : input->data[at + 2] % KEY_VARIANTS;
		char	   *key = make_key(len, variant);
		int64		value = (int64) at + 1;

		if (op == 0)
		{
			put_key(t, key, len, variant, value);
			put_memos(t, key, len, variant, value);
			/* the in-place memo refers to the key: kept, freed with the context */
			continue;
		}
		if (op == 1 || op == 2)
			check_gets(t, key, len, variant);
		if (op == 2 || op == 3)
			check_next(t);
		pfree(key);
	}
	/* at the end, every key of every table */
	for (int len = 0; len < KEY_LENGTHS; len++)
		for (int variant = 0; variant < (len == 0 ? 1 : KEY_VARIANTS); variant++)
		{
			char	   *key = make_key(len, variant);
			int64		got;
			bool		found = writer_memo_get(t->memo_in_place, key, len, &got);

			check_gets(t, key, len, variant);
			FUZZ_CHECK(found == (t->in_place[len][variant] != 0) &&
					   (!found || got == t->in_place[len][variant]),
					   "in-place memo: key (%d, %d) found %d", len, variant, found);
			pfree(key);
		}
	writer_memo_free(t->memo_in_place);
	writer_memo_free(t->memo_copying);
	writer_memo_free(t->memo_bounded);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input = {data, size};

	FUZZ_CHECK(fuzz_try(run_operations, &input), "the tables raised: %s", fuzz_last_error.message);
	return 0;
}
