/*
 * writer.h
 *	  Writing an imported profile into the calltree tables: the face of the
 *	  writer that every importer uses.
 *
 * Every importer parses its format and hands what it finds to a
 * ProfileWriter: funcs, frames and stacks (interned, with a cache so each
 * distinct key costs one lookup in the tables), and samples (buffered and
 * inserted in batches).  Everything happens in the caller's transaction, so
 * an import that fails anywhere leaves nothing behind.  The writer's
 * insides are in writer_internal.h, for its own files only.
 */
#ifndef CALLTREE_WRITER_H
#define CALLTREE_WRITER_H

#include "postgres.h"

#include "datatype/timestamp.h"
#include "utils/jsonb.h"

#include "store/store.h"

typedef struct ProfileWriter ProfileWriter;

/*
 * What the SQL caller said about the profile, NULL fields unset; an
 * importer that knows the unit and start time before it begins puts them
 * here too (else profile_writer_set_unit and _set_started_at, which cost
 * an UPDATE of the profile row at the end).
 */
typedef struct ProfileInfo
{
	const char *name;
	const char *format;
	const char *weight_unit;
	Jsonb	   *meta;
	bool		has_started_at;
	TimestampTz started_at;
	bytea	   *content_sha256; /* the file's digest (import_duplicates.c), or NULL */
	int64		first_of_import;	/* set by the writer: see profile_writer_import_begins */
} ProfileInfo;

/*
 * An import of a file begins (content_note, before its first profile): the
 * profiles written with a digest from now on are that import's.  The first
 * is written as it is; the others name it in profile.first_of_import, by
 * which `on_duplicate => 'skip'` finds every profile of the earlier import.
 */
extern void profile_writer_import_begins(void);

extern ProfileWriter *profile_writer_begin(const ProfileInfo *info);
extern int64 profile_writer_id(const ProfileWriter *writer);
extern void profile_writer_set_unit(ProfileWriter *writer, const char *weight_unit);
extern void profile_writer_bound_memory(ProfileWriter *writer);
extern void profile_writer_set_started_at(ProfileWriter *writer, TimestampTz started_at);

extern int32 profile_writer_func(ProfileWriter *writer, const char *name,
								 const char *file, const char *resource);
extern int64 profile_writer_frame(ProfileWriter *writer, int32 func, OptionalInt address,
								  OptionalInt line, OptionalInt col, const char *implementation);
/* the func's, then the frame's: the same ids as those two calls, found at once when known */
extern int64 profile_writer_func_frame(ProfileWriter *writer, const char *name, const char *file,
									   const char *resource, OptionalInt address, OptionalInt line,
									   OptionalInt col, const char *implementation);
/*
 * profile_writer_func_frame of strings whose lengths the importer knows
 * (each strlen of its string; a NULL string is none): the same id, without
 * measuring the strings again
 */
typedef struct WriterString
{
	const char *data;
	size_t		len;
} WriterString;

extern int64 profile_writer_func_frame_sized(ProfileWriter *writer, WriterString name,
											 WriterString file, WriterString resource,
											 OptionalInt address, OptionalInt line,
											 OptionalInt col, WriterString implementation);
/* a frame known only by its address in a resource (intern_address) */
extern int64 profile_writer_address(ProfileWriter *writer, const char *resource, int64 address);
/* prefix 0: a root stack */
extern int64 profile_writer_stack(ProfileWriter *writer, int64 prefix, int64 frame);

/*
 * A stack a frame at a time, root first: begin, push each frame, then end,
 * which returns the stack (0 when no frame was pushed).  A path met in an
 * earlier import of this backend is found by one look-up; others share the
 * stacks of the prefix they have in common with the path resolved before
 * (consecutive samples share long prefixes).
 */
extern void profile_writer_walk_begin(ProfileWriter *writer);
extern void profile_writer_walk_push(ProfileWriter *writer, int64 frame);
extern int64 profile_writer_walk_end(ProfileWriter *writer);
/* several frames pushed at once, root first */
extern void profile_writer_walk_push_all(ProfileWriter *writer, const int64 *frames, int count);
/* the stack of a whole path, root first (0 for none): a walk of it, without copying the frames */
extern int64 profile_writer_path(ProfileWriter *writer, const int64 *frames, int count);

/*
 * stack ids memoized under a key of the importer's (a pprof location list);
 * the put of a key that a get missed is cheaper when it follows that get
 * with the same bytes at the same address
 */
extern bool profile_writer_memo_get(ProfileWriter *writer, const void *key, int len, int64 *stack);
extern void profile_writer_memo_put(ProfileWriter *writer, const void *key, int len, int64 stack);
/* the keys stay where they are until profile_writer_finish: not copied */
extern void profile_writer_memo_keys_stay(ProfileWriter *writer);
/* a stack of func names, root first: one frame per func */
extern int64 profile_writer_named_stack(ProfileWriter *writer, char **names, int count);
extern int64 profile_writer_labels(ProfileWriter *writer, Jsonb *labels);

/*
 * The longest thread name a sample or event may have, in bytes: the name
 * is a key column of the indexes on samples and events, whose entries must
 * fit in a third of a page.  A longer name is an ERROR.
 */
#define WRITER_THREAD_NAME_MAX 2000

/*
 * How many samples the importer expects, if it knows: the set of the
 * first thread is made with room for them (within what one set gathers),
 * rather than grown by copies.  A hint only, for a profile of one thread.
 */
extern void profile_writer_expect_samples(ProfileWriter *writer, int64 count);

/* ts and labels_id are optional (has_ts false, labels_id 0: NULL) */
extern void profile_writer_sample(ProfileWriter *writer, const char *thread, bool has_ts,
								  int64 ts, int64 stack, int64 weight, int64 labels_id);
extern int64 profile_writer_finish(ProfileWriter *writer);

/* enter/exit events of a trace, into calltree.event; finish with _events */
extern void profile_writer_event(ProfileWriter *writer, const char *thread, int64 ts,
								 int32 func, bool enter, int64 seq);
extern int64 profile_writer_finish_events(ProfileWriter *writer);

#endif							/* CALLTREE_WRITER_H */
