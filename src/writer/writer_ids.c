/*
 * writer_ids.c
 *	  The ids the writer hands the importer: of funcs, frames, address
 *	  frames and stacks, and of the stacks it walks a frame at a time.
 *
 * Each key is looked up once: in the writer's own caches first, then in
 * the backend's cache of earlier imports (intern_cache.c), then by probing
 * the tables' unique indexes (intern_probe.c).  A stack's siblings are
 * read together (read_children), and an import that needs a good share of
 * the stack table reads it whole instead (writer_memory.c).  A key no
 * visible row holds becomes a pending row with a provisional id
 * (writer_flush.c), which the importer uses like any other.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "port/pg_bitutils.h"
#include "port/pg_bswap.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "module.h"
#include "store/intern.h"
#include "writer/writer_internal.h"

/* children read at once per known stack; more, and each is probed */
#define MAX_CHILDREN_READ 64

/*
 * Paths deeper than this are not remembered whole by the backend's cache:
 * a key of their size would crowd out many others.
 */
#define MAX_CACHED_PATH 1024

/* Caches a key's id, the key copied into `cxt` */
void
writer_cache_id(MemoryContext cxt, idcache_hash *cache, StringInfo key, int64 id)
{
	BytesKey	stored;
	CachedId   *entry;
	bool		found;

	stored.data = MemoryContextAlloc(cxt, key->len);
	memcpy((char *) stored.data, key->data, key->len);
	stored.len = key->len;
	entry = idcache_insert(cache, stored, &found);
	entry->id = id;
}

/*
 * The keys of the caches, encoded into bytes, as short as they can be
 * while exact: a look-up in the backend's cache reads the key it finds
 * whole, far from the CPU, and compares it byte for byte.
 *
 *   a func's     a byte of flags (1: a name, 2: a file, 4: a resource),
 *                then the strings present, each with its NUL
 *   a frame's    its own fields (below), then its func's id, real or
 *                provisional (the backend's cache knows only real ones)
 *   a func's and a frame's at once: the func's key, then the frame's fields
 *   a frame's own fields: a byte of flags (1: an address, 2: a line, 4: a
 *                column, 8: an implementation), then the numbers present
 *                as zigzag varints, then the implementation with its NUL
 *
 * Strings hold no NUL and varints end by themselves, so two keys are the
 * same bytes only when their fields are the same.  A frame's key starts
 * with a byte below 16, an address key (below) with 'A'.
 */
#define KEY_VARINT_MAX 10

/*
 * Room for `size` more bytes and a NUL: enlargeStringInfo, called only
 * when the buffer is short (it is long enough after the first keys).
 */
static inline void
key_reserve(StringInfo key, size_t size)
{
	if (unlikely((size_t) (key->maxlen - key->len) <= size))
		enlargeStringInfo(key, (int) size);
}

static inline size_t
key_string_size(const char *s, size_t *len)
{
	*len = s ? strlen(s) + 1 : 0;
	return *len;
}

/* Appends, the room made already */
static inline void
key_put_string(StringInfo key, const char *s, size_t len)
{
	if (len > 0)
		memcpy(key->data + key->len, s, len);
	key->len += len;
}

/* 0, -1, 1, -2, 2 ... as 0, 1, 2, 3, 4 ... */
static inline uint64
zigzag(int64 value)
{
	return ((uint64) value << 1) ^ (uint64) (value >> 63);
}

/* Writes a zigzag varint at `to`, which has room for KEY_VARINT_MAX bytes; returns its end */
static inline char *
put_varint(char *to, int64 value)
{
	uint64		v = zigzag(value);

	while (v >= 0x80)
	{
		*to++ = (char) (v | 0x80);
		v >>= 7;
	}
	*to++ = (char) v;
	return to;
}

/* A func key's byte of flags */
static inline char
func_flags(const char *name, const char *file, const char *resource)
{
	return (name ? 1 : 0) | (file ? 2 : 0) | (resource ? 4 : 0);
}

/*
 * A frame's own fields but the implementation, written at `to` (room for
 * FRAME_NUMBERS_MAX bytes): the byte of flags and the numbers; returns the end.
 */
#define FRAME_NUMBERS_MAX (1 + 3 * KEY_VARINT_MAX)

/* A frame's byte of flags */
static inline char
frame_flags(OptionalInt address, OptionalInt line, OptionalInt col, const char *implementation)
{
	return (address.present ? 1 : 0) | (line.present ? 2 : 0) | (col.present ? 4 : 0) |
		(implementation ? 8 : 0);
}

static inline char *
put_frame_numbers(char *to, OptionalInt address, OptionalInt line, OptionalInt col,
				  const char *implementation)
{
	*to++ = frame_flags(address, line, col, implementation);
	if (address.present)
		to = put_varint(to, address.value);
	if (line.present)
		to = put_varint(to, line.value);
	if (col.present)
		to = put_varint(to, col.value);
	return to;
}

/* A frame's own fields, appended to its key */
static void
key_put_frame_fields(StringInfo key, OptionalInt address, OptionalInt line, OptionalInt col,
					 const char *implementation)
{
	size_t		implementation_len;
	size_t		size = FRAME_NUMBERS_MAX + key_string_size(implementation, &implementation_len);

	key_reserve(key, size);
	key->len = (int) (put_frame_numbers(key->data + key->len, address, line, col, implementation) -
					  key->data);
	key_put_string(key, implementation, implementation_len);
	key->data[key->len] = '\0';
}

void
writer_func_key(StringInfo key, const char *name, const char *file, const char *resource)
{
	size_t		name_len;
	size_t		file_len;
	size_t		resource_len;
	size_t		size = 1 + key_string_size(name, &name_len) + key_string_size(file, &file_len) +
		key_string_size(resource, &resource_len);

	resetStringInfo(key);
	key_reserve(key, size);
	key->data[key->len++] = func_flags(name, file, resource);
	key_put_string(key, name, name_len);
	key_put_string(key, file, file_len);
	key_put_string(key, resource, resource_len);
	key->data[key->len] = '\0';
}

void
writer_frame_key(StringInfo key, int64 func, OptionalInt address, OptionalInt line,
				 OptionalInt col, const char *implementation)
{
	resetStringInfo(key);
	key_put_frame_fields(key, address, line, col, implementation);
	key_reserve(key, KEY_VARINT_MAX);
	key->len = (int) (put_varint(key->data + key->len, func) - key->data);
	key->data[key->len] = '\0';
}

/* A frame's key by its func's fields, not its func's id: the func's key, then the frame's fields */
static void
func_frame_key(StringInfo key, const char *name, const char *file, const char *resource,
			   OptionalInt address, OptionalInt line, OptionalInt col, const char *implementation)
{
	writer_func_key(key, name, file, resource);
	key_put_frame_fields(key, address, line, col, implementation);
}

/*
 * Whether a key holds string `s` of length `len` (or nothing, for NULL) at
 * *at, before `end`, with its NUL; moves *at past it
 */
static inline bool
key_string_is(const char **at, const char *end, WriterString s)
{
	if (s.data == NULL)
		return true;
	if ((size_t) (end - *at) <= s.len || memcmp(*at, s.data, s.len + 1) != 0)
		return false;
	*at += s.len + 1;
	return true;
}

/*
 * Whether a key holds the zigzag varint of `value` at *at, before `end`
 * (as put_varint writes it); moves *at past it
 */
static inline bool
key_varint_is(const char **at, const char *end, int64 value)
{
	uint64		v = zigzag(value);
	const char *k = *at;

	for (; v >= 0x80; v >>= 7, k++)
		if (k == end || *k != (char) (v | 0x80))
			return false;
	if (k == end || *k != (char) v)
		return false;
	*at = k + 1;
	return true;
}

/* The same for an optional number, which the key holds only when present */
static inline bool
key_number_is(const char **at, const char *end, OptionalInt n)
{
	return !n.present || key_varint_is(at, end, n.value);
}

/*
 * Whether a key made by func_frame_key is of these fields: compared by
 * reading it, without making the fields' own key (nor their bytes, which
 * would need a buffer and a call of memcmp).
 */
static bool
func_frame_key_is(const char *key, int len, WriterString name, WriterString file,
				  WriterString resource, OptionalInt address, OptionalInt line,
				  OptionalInt col, WriterString implementation)
{
	const char *end = key + len;

	if (len < 1 || *key++ != func_flags(name.data, file.data, resource.data) ||
		!key_string_is(&key, end, name) || !key_string_is(&key, end, file) ||
		!key_string_is(&key, end, resource))
		return false;
	/* put_frame_numbers' bytes */
	if (key == end || *key++ != frame_flags(address, line, col, implementation.data) ||
		!key_number_is(&key, end, address) || !key_number_is(&key, end, line) ||
		!key_number_is(&key, end, col))
		return false;
	return key_string_is(&key, end, implementation) && key == end;
}

void
writer_stack_key(StringInfo key, int64 prefix, int64 frame)
{
	resetStringInfo(key);
	appendBinaryStringInfo(key, (const char *) &prefix, sizeof(int64));
	appendBinaryStringInfo(key, (const char *) &frame, sizeof(int64));
}

static char *
strdup_or_null(MemoryContext cxt, const char *s)
{
	return s ? MemoryContextStrdup(cxt, s) : NULL;
}

int32
profile_writer_func(ProfileWriter *writer, const char *name, const char *file, const char *resource)
{
	StringInfo	key = &writer->key;
	bool		found;
	int64		id;

	writer_func_key(key, name, file, resource);
	/* the backend's cache first: in a repeat import it knows every func */
	if (intern_cache_get(INTERN_FUNC, key->data, key->len, &id))
		return (int32) id;
	id = cached_id(writer->funcs, key, &found);
	if (found)
		return (int32) id;
	id = intern_probe_func(writer->probe, name, file, resource);
	if (id != 0)
		intern_cache_put(INTERN_FUNC, key->data, key->len, id);
	else
	{
		PendingFunc row;

		row.name = MemoryContextStrdup(writer->cxt, name);
		row.file = strdup_or_null(writer->cxt, file);
		row.resource = strdup_or_null(writer->cxt, resource);
		id = writer_pending_add(&writer->pending_funcs, &row);
	}
	writer_cache_id(writer->cxt, writer->funcs, key, id);
	return (int32) id;
}

int64
profile_writer_frame(ProfileWriter *writer, int32 func, OptionalInt address,
					 OptionalInt line, OptionalInt col, const char *implementation)
{
	StringInfo	key = &writer->key;
	bool		found;
	int64		id;
	int64		real_func;

	writer_frame_key(key, func, address, line, col, implementation);
	/* the backend's cache knows frames by their real func id */
	if (func > 0 && intern_cache_get(INTERN_FRAME, key->data, key->len, &id))
		return id;
	id = cached_id(writer->frames, key, &found);
	if (found)
		return id;
	real_func = real_id(&writer->pending_funcs, func);
	id = real_func > 0
		? intern_probe_frame(writer->probe, (int32) real_func, address, line, col, implementation)
		: 0;
	if (id != 0 && func > 0)
		intern_cache_put(INTERN_FRAME, key->data, key->len, id);
	if (id == 0)
	{
		PendingFrame row = {func, address, line, col,
		strdup_or_null(writer->cxt, implementation)};

		id = writer_pending_add(&writer->pending_frames, &row);
	}
	writer_cache_id(writer->cxt, writer->frames, key, id);
	return id;
}

/* A string and its length, for the look-ups of profile_writer_func_frame */
static inline WriterString
writer_string(const char *s)
{
	WriterString ws = {s, s ? strlen(s) : 0};

	return ws;
}

/*
 * A frame and its func at once.  A repeat import finds the frame in the
 * backend's cache under its func's fields and its own, in one look-up
 * instead of one for the func and one for the frame.
 */
int64
profile_writer_func_frame(ProfileWriter *writer, const char *name, const char *file,
						  const char *resource, OptionalInt address, OptionalInt line,
						  OptionalInt col, const char *implementation)
{
	return profile_writer_func_frame_sized(writer, writer_string(name), writer_string(file),
										   writer_string(resource), address, line, col,
										   writer_string(implementation));
}

int64
profile_writer_func_frame_sized(ProfileWriter *writer, WriterString name, WriterString file,
								WriterString resource, OptionalInt address, OptionalInt line,
								OptionalInt col, WriterString implementation)
{
	StringInfo	key = &writer->func_frame_key;
	const char *next;
	int			next_len;
	int32		func;
	int64		id;

	/* a repeat import meets its frames in the order the first put them */
	next = intern_cache_next(INTERN_FUNC_FRAME, &next_len);
	if (next && func_frame_key_is(next, next_len, name, file, resource, address, line, col,
								  implementation))
		return intern_cache_take_next(INTERN_FUNC_FRAME);
	func_frame_key(key, name.data, file.data, resource.data, address, line, col, implementation.data);
	if (intern_cache_get(INTERN_FUNC_FRAME, key->data, key->len, &id))
		return id;
	func = profile_writer_func(writer, name.data, file.data, resource.data);
	id = profile_writer_frame(writer, func, address, line, col, implementation.data);
	/* a frame that exists (a new one's id is provisional until it is written) */
	if (id > 0)
		intern_cache_put(INTERN_FUNC_FRAME, key->data, key->len, id);
	return id;
}

/* Address frames share the frame cache, under keys that start with 'A'. */
static void
address_key(StringInfo key, const char *resource, int64 address)
{
	size_t		resource_len;
	size_t		size = 1 + KEY_VARINT_MAX + 1 + key_string_size(resource, &resource_len);

	resetStringInfo(key);
	key_reserve(key, size);
	key->data[key->len++] = 'A';
	key->len = (int) (put_varint(key->data + key->len, address) - key->data);
	key->data[key->len++] = resource ? 1 : 0;
	key_put_string(key, resource, resource_len);
	key->data[key->len] = '\0';
}

/* The name of a new address frame's func: address_name(), in the writer's context */
static char *
address_name(ProfileWriter *writer, const char *resource, int64 address)
{
	Datum		values[2];
	char	   *name;

	if (writer->address_name_plan == NULL)
	{
		Oid			types[2] = {TEXTOID, INT8OID};

		writer->address_name_plan = writer_prepare("SELECT calltree.address_name($1, $2)", 2, types);
	}
	values[0] = CStringGetTextDatum(resource);
	values[1] = Int64GetDatum(address);
	if (SPI_execute_plan(writer->address_name_plan, values, NULL, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "naming an address frame failed");
	MemoryContextSwitchTo(writer->cxt);
	name = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
	SPI_freetuptable(SPI_tuptable);
	if (name == NULL)
		elog(ERROR, "address_name() returned NULL");
	return name;
}

/*
 * A frame known by its address in a resource, as intern_address() would
 * make it: found by a probe, or a new frame (and func, named by
 * address_name()) written with the other new rows.
 */
int64
profile_writer_address(ProfileWriter *writer, const char *resource, int64 address)
{
	StringInfo	key = &writer->key;
	bool		found;
	int64		id;

	address_key(key, resource, address);
	id = cached_id(writer->frames, key, &found);
	if (found)
		return id;
	id = intern_probe_address(writer->probe, resource, address);
	/* named under the lock, so from the last symbols symbolicate() stored */
	if (id == 0 && writer_hold_intern_lock(writer))
		id = intern_probe_address(writer->probe, resource, address);
	if (id == 0)
	{
		char	   *name = address_name(writer, resource, address);
		int32		func = profile_writer_func(writer, name, NULL, resource);

		id = profile_writer_frame(writer, func, SOME_INT(address), NO_INT, NO_INT, "address");
		pfree(name);
	}
	/* the key again: the calls above encoded theirs in writer->key */
	address_key(key, resource, address);
	writer_cache_id(writer->cxt, writer->frames, key, id);
	return id;
}

/*
 * Reads the children of a known stack into the cache, once: the stacks of
 * a profile share prefixes, so the siblings of a child looked up now are
 * looked up soon.  True if all of them were read (a child not in the cache
 * is then not in the table either); false if there were too many, and each
 * is probed on its own.
 */
static bool
read_children(ProfileWriter *writer, int64 prefix, int64 real_prefix)
{
	ReadChildren *entry;
	bool		found;
	int64		frames[MAX_CHILDREN_READ];
	int64		ids[MAX_CHILDREN_READ];
	int			count;

	entry = childread_insert(writer->children_read, prefix, &found);
	if (found)
		return entry->all;
	count = intern_probe_children(writer->probe, real_prefix, frames, ids, MAX_CHILDREN_READ);
	entry->all = count >= 0;
	for (int i = 0; i < count; i++)
	{
		StackKey	key = {prefix, frames[i]};
		CachedStack *child = stackcache_insert(writer->stacks, key, &found);

		if (!found)
			child->id = ids[i];
	}
	return entry->all;
}

/* The id of a stack visible to the probes, or 0: from the cache or the table */
static int64
find_known_stack(ProfileWriter *writer, int64 prefix, int64 real_prefix, int64 real_frame)
{
	StackKey	real_key = {real_prefix, real_frame};
	CachedStack *known;

	if (!writer->stacks_loaded && calltree_stack_read != STACK_READ_INDEX &&
		++writer->stack_reads >= writer->next_load_check && writer_should_load_stacks(writer))
		writer_load_stacks(writer);
	if (writer->stacks_loaded)
	{
		known = stackcache_lookup(writer->stacks, real_key);
		return known ? known->id : 0;
	}
	if (!read_children(writer, prefix, real_prefix))
		return intern_probe_stack(writer->probe, real_prefix, real_frame);
	/* the children are cached under their real frame ids */
	real_key.prefix = prefix;
	known = stackcache_lookup(writer->stacks, real_key);
	return known ? known->id : 0;
}

/*
 * The stack `frame` on top of `prefix` (0: a root).  A stack no visible row
 * holds gets a provisional id, written with the others of its set before
 * any sample refers to it.
 */
int64
profile_writer_stack(ProfileWriter *writer, int64 prefix, int64 frame)
{
	StackKey	key = {prefix, frame};
	CachedStack *entry;
	bool		found;
	int64		real_prefix;
	int64		real_frame;
	int64		id = 0;

	/* on real ids, the backend's cache first: a repeat import finds every stack there */
	if (prefix >= 0 && frame > 0 && intern_cache_get_stack(prefix, frame, &id))
		return id;
	entry = stackcache_lookup(writer->stacks, key);
	if (entry)
		return entry->id;
	real_prefix = real_id(&writer->pending_stacks, prefix);
	real_frame = real_id(&writer->pending_frames, frame);
	/* on top of a row this writer inserted, no stack is visible to the probes */
	if ((prefix == 0 || real_prefix > 0) && real_frame > 0 &&
		!inserted_here(&writer->pending_stacks, prefix) && !inserted_here(&writer->pending_frames, frame))
	{
		if (intern_cache_get_stack(real_prefix, real_frame, &id))
			return id;
		id = find_known_stack(writer, prefix, real_prefix, real_frame);
		if (id != 0)
			intern_cache_put_stack(real_prefix, real_frame, id);
	}
	if (id == 0)
	{
		PendingStack row = {prefix, frame};

		id = writer_pending_add(&writer->pending_stacks, &row);
	}
	entry = stackcache_insert(writer->stacks, key, &found);
	entry->id = id;
	return id;
}

void
profile_writer_walk_begin(ProfileWriter *writer)
{
	writer->path_depth = 0;
}

/* Appends frames to the walk's path, which has room for them */
static inline void
path_append(ProfileWriter *writer, const int64 *frames, int count)
{
	int64	   *to = writer->path_frames + writer->path_depth;

	/* a location has a frame or two: a loop, not a call of memcpy */
	for (int i = 0; i < count; i++)
		to[i] = frames[i];
	writer->path_depth += count;
}

/*
 * The same, after making room.  Apart, and called last, so that a push
 * with room (almost every one) calls nothing and saves no registers.
 */
static pg_noinline void
path_grow_append(ProfileWriter *writer, const int64 *frames, int count)
{
	writer->path_capacity = Max(writer->path_depth + count, 2 * writer->path_capacity);
	writer->path_frames = repalloc_huge(writer->path_frames, sizeof(int64) * writer->path_capacity);
	path_append(writer, frames, count);
}

void
profile_writer_walk_push(ProfileWriter *writer, int64 frame)
{
	profile_writer_walk_push_all(writer, &frame, 1);
}

void
profile_writer_walk_push_all(ProfileWriter *writer, const int64 *frames, int count)
{
	if (unlikely(writer->path_depth + count > writer->path_capacity))
		path_grow_append(writer, frames, count);
	else
		path_append(writer, frames, count);
}

/*
 * A path's key in the backend's cache: a byte w, its first frame id (8
 * bytes), then the difference of each next frame id from the one before,
 * zigzag coded, in w bytes each (little-endian), w as few as the greatest
 * difference needs.  The frames of a profile are mostly written together,
 * so their ids are close: a path takes a byte or two a frame, not eight.
 * One width a path, not a varint a frame: the loops do not branch on the
 * bytes of each.  False (no key) when a frame is not a row that exists:
 * the cache knows only those.
 */
static bool
path_key(StringInfo key, const int64 *frames, int count)
{
	uint64		all = 0;
	int			width;
	char	   *to;

	if (frames[0] <= 0)
		return false;
	for (int i = 1; i < count; i++)
	{
		if (frames[i] <= 0)
			return false;
		all |= zigzag(frames[i] - frames[i - 1]);
	}
	width = all == 0 ? 1 : (pg_leftmost_one_pos64(all) + 8) / 8;
	resetStringInfo(key);
	/* each difference is stored as eight bytes, of which the next overwrites all but w */
	key_reserve(key, 1 + sizeof(int64) * count);
	to = key->data;
	*to++ = (char) width;
	memcpy(to, &frames[0], sizeof(int64));
	to += sizeof(int64);
	for (int i = 1; i < count; i++)
	{
		uint64		difference = zigzag(frames[i] - frames[i - 1]);

#ifdef WORDS_BIGENDIAN
		difference = pg_bswap64(difference);
#endif
		memcpy(to, &difference, sizeof(uint64));
		to += width;
	}
	key->len = (int) (to - key->data);
	return true;
}

/*
 * Whether a path's key (path_key) is of these frames: compared by reading
 * it, without making the frames' key.  Its bytes are followed by 8 that
 * may be read, so each difference is read as a word, then cut to its width.
 */
static bool
path_key_is(const char *key, int len, const int64 *frames, int count)
{
	int			width = (unsigned char) key[0];
	uint64		mask;
	int64		first;

	if (width < 1 || width > 8 || len != 1 + (int) sizeof(int64) + width * (count - 1))
		return false;
	memcpy(&first, key + 1, sizeof(int64));
	if (first != frames[0])
		return false;
	mask = width == 8 ? ~UINT64CONST(0) : (UINT64CONST(1) << (8 * width)) - 1;
	key += 1 + sizeof(int64);
	for (int i = 1; i < count; i++)
	{
		uint64		word;

		memcpy(&word, key, sizeof(uint64));
#ifdef WORDS_BIGENDIAN
		word = pg_bswap64(word);
#endif
		if ((word & mask) != zigzag(frames[i] - frames[i - 1]))
			return false;
		key += width;
	}
	return true;
}

/*
 * The stack of a path, a frame at a time.  The frames it shares from the
 * root with the path resolved before reuse that one's stacks (consecutive
 * samples share long prefixes); it is then remembered in its place.
 */
static int64
resolve_path(ProfileWriter *writer, const int64 *frames, int count)
{
	int			shared = 0;
	int64		stack = 0;

	if (count > writer->walk_capacity)
	{
		writer->walk_capacity = Max(count, 2 * writer->walk_capacity);
		writer->walk_frames = repalloc_huge(writer->walk_frames, sizeof(int64) * writer->walk_capacity);
		writer->walk_stacks = repalloc_huge(writer->walk_stacks, sizeof(int64) * writer->walk_capacity);
	}
	while (shared < writer->walk_depth && shared < count && writer->walk_frames[shared] == frames[shared])
		shared++;
	if (shared > 0)
		stack = writer->walk_stacks[shared - 1];
	for (int d = shared; d < count; d++)
	{
		if ((d & 0x3FF) == 0x3FF)
			CHECK_FOR_INTERRUPTS();
		stack = profile_writer_stack(writer, stack, frames[d]);
		writer->walk_frames[d] = frames[d];
		writer->walk_stacks[d] = stack;
	}
	writer->walk_depth = count;
	return stack;
}

/*
 * The stack of the frames pushed since walk_begin: profile_writer_path of
 * the walk's path.
 */
int64
profile_writer_walk_end(ProfileWriter *writer)
{
	return profile_writer_path(writer, writer->path_frames, writer->path_depth);
}

/*
 * The stack of a path.  A path whose frames are all rows that exist is
 * looked up whole in the backend's cache first: a repeat import then finds
 * each stack by one look-up, not one per frame.
 */
int64
profile_writer_path(ProfileWriter *writer, const int64 *frames, int count)
{
	StringInfo	key = &writer->key;
	bool		cacheable;
	int64		stack = 0;
	const char *next;
	int			next_len;

	if (count == 0)
		return 0;
	/* a repeat import meets its paths in the order the first put them */
	next = count <= MAX_CACHED_PATH ? intern_cache_next(INTERN_PATH, &next_len) : NULL;
	if (next && path_key_is(next, next_len, frames, count))
		return intern_cache_take_next(INTERN_PATH);
	cacheable = count <= MAX_CACHED_PATH && path_key(key, frames, count);
	if (cacheable && intern_cache_get(INTERN_PATH, key->data, key->len, &stack))
		return stack;
	stack = resolve_path(writer, frames, count);
	/* a stack that exists, not one this import makes (provisional until written) */
	if (cacheable && stack > 0)
	{
		/* the key again, whatever the walk did with writer->key */
		path_key(key, frames, count);
		intern_cache_put(INTERN_PATH, key->data, key->len, stack);
	}
	return stack;
}

bool
profile_writer_memo_get(ProfileWriter *writer, const void *key, int len, int64 *stack)
{
	return writer_memo_get(writer->memo, key, len, stack);
}

/*
 * Remembers a key's stack, until the memo holds a quarter of
 * calltree.import_work_mem: the rest is for the stacks.
 */
void
profile_writer_memo_put(ProfileWriter *writer, const void *key, int len, int64 stack)
{
	Size		limit = (Size) (writer_work_mem_bytes() / 4);

	if (writer->memo == NULL)
		writer->memo = writer_memo_create(writer->cxt, writer->memo_keys_stay,
										  writer->expected_samples, limit);
	writer_memo_put(writer->memo, key, len, stack, limit);
}

/*
 * The importer keeps the bytes of every key it gives the memo where they
 * are, unchanged, until profile_writer_finish: the memo refers to them
 * instead of copying them.  Before the first put.
 */
void
profile_writer_memo_keys_stay(ProfileWriter *writer)
{
	Assert(writer->memo == NULL);
	writer->memo_keys_stay = true;
}

int64
profile_writer_named_stack(ProfileWriter *writer, char **names, int count)
{
	profile_writer_walk_begin(writer);
	for (int i = 0; i < count; i++)
		profile_writer_walk_push(writer, profile_writer_func_frame(writer, names[i], NULL, NULL,
																   NO_INT, NO_INT, NO_INT, NULL));
	return profile_writer_walk_end(writer);
}
