/*
 * fake_writer.c
 *	  A ProfileWriter (import.h) that writes nothing, for the harnesses of
 *	  the text parsers.
 *
 * It hands out increasing ids and checks what a parser gives it: every
 * string is read to its NUL (so AddressSanitizer sees an unterminated or
 * freed one), ids are ones it handed out, and weights are not negative
 * (but in Firefox profiles, whose comparisons weigh samples negatively,
 * as test/json_importer_fuzz.py allows too).  The importers that begin and finish their writer themselves (the JSON
 * ones) get it from profile_writer_begin: once per import, nothing
 * written after it is finished, samples finished as samples and events
 * as events.
 */
#include "postgres.h"

#include "fake_writer.h"
#include "pg_stubs.h"

struct ProfileWriter
{
	bool		open;			/* begun and not finished */
	bool		finished;
	bool		negative_weights;	/* allowed: a Firefox profile */
	int64		next_id;
	int64		walk_stack;
	int64		samples;
	int64		events;
};

static ProfileWriter the_writer;

/* where the bytes of memo keys are summed, so that reading them is not optimized away */
static volatile uint8 memo_key_sum;

ProfileWriter *
fuzz_writer_begin(void)
{
	memset(&the_writer, 0, sizeof(the_writer));
	the_writer.open = true;
	return &the_writer;
}

void
fuzz_writer_allow_negative_weights(ProfileWriter *writer)
{
	writer->negative_weights = true;
}

void
fuzz_writer_reset(void)
{
	memset(&the_writer, 0, sizeof(the_writer));
}

const ProfileWriter *
fuzz_writer_last(void)
{
	return &the_writer;
}

int64
fuzz_writer_samples(const ProfileWriter *writer)
{
	return writer->samples;
}

int64
fuzz_writer_events(const ProfileWriter *writer)
{
	return writer->events;
}

bool
fuzz_writer_finished(const ProfileWriter *writer)
{
	return writer->finished;
}

static void
check_open(const ProfileWriter *writer, const char *what)
{
	FUZZ_CHECK(writer == &the_writer && writer->open, "%s %s", what,
			   writer->finished ? "after the writer was finished" : "before the writer was begun");
}

static void
check_string(const char *s, bool nullable, const char *what)
{
	FUZZ_CHECK(nullable || s != NULL, "%s is NULL", what);
	if (s)
		(void) strlen(s);
}

static void
check_id(const ProfileWriter *writer, int64 id, const char *what)
{
	FUZZ_CHECK(id > 0 && id <= writer->next_id, "%s " INT64_FORMAT " was not handed out", what, id);
}

static int64
new_id(ProfileWriter *writer)
{
	return ++writer->next_id;
}

void
profile_writer_set_unit(ProfileWriter *writer, const char *weight_unit)
{
	check_open(writer, "unit set");
	check_string(weight_unit, false, "weight unit");
}

void
profile_writer_bound_memory(ProfileWriter *writer)
{
}

int32
profile_writer_func(ProfileWriter *writer, const char *name, const char *file, const char *resource)
{
	check_open(writer, "func written");
	check_string(name, false, "func name");
	check_string(file, true, "func file");
	check_string(resource, true, "func resource");
	return (int32) (new_id(writer) & 0x7FFFFFFF);
}

int64
profile_writer_frame(ProfileWriter *writer, int32 func, OptionalInt address,
					 OptionalInt line, OptionalInt col, const char *implementation)
{
	FUZZ_CHECK(func > 0, "frame of func %d", func);
	check_string(implementation, true, "frame implementation");
	return new_id(writer);
}

int64
profile_writer_func_frame(ProfileWriter *writer, const char *name, const char *file,
						  const char *resource, OptionalInt address, OptionalInt line,
						  OptionalInt col, const char *implementation)
{
	return profile_writer_frame(writer, profile_writer_func(writer, name, file, resource),
								address, line, col, implementation);
}

int64
profile_writer_address(ProfileWriter *writer, const char *resource, int64 address)
{
	check_string(resource, false, "address resource");
	return new_id(writer);
}

int64
profile_writer_stack(ProfileWriter *writer, int64 prefix, int64 frame)
{
	check_open(writer, "stack written");
	if (prefix != 0)
		check_id(writer, prefix, "stack prefix");
	check_id(writer, frame, "frame");
	return new_id(writer);
}

void
profile_writer_walk_begin(ProfileWriter *writer)
{
	writer->walk_stack = 0;
}

void
profile_writer_walk_push(ProfileWriter *writer, int64 frame)
{
	writer->walk_stack = profile_writer_stack(writer, writer->walk_stack, frame);
}

void
profile_writer_walk_push_all(ProfileWriter *writer, const int64 *frames, int count)
{
	for (int i = 0; i < count; i++)
		profile_writer_walk_push(writer, frames[i]);
}

int64
profile_writer_walk_end(ProfileWriter *writer)
{
	return writer->walk_stack;
}

/* never a hit, so every stack goes through the parser's slow path; the key is read */
bool
profile_writer_memo_get(ProfileWriter *writer, const void *key, int len, int64 *stack)
{
	FUZZ_CHECK(len >= 0, "memo key of length %d", len);
	for (int i = 0; i < len; i++)
		memo_key_sum += ((const uint8 *) key)[i];
	return false;
}

void
profile_writer_memo_put(ProfileWriter *writer, const void *key, int len, int64 stack)
{
	check_id(writer, stack, "memoized stack");
	(void) profile_writer_memo_get(writer, key, len, &stack);
}

int64
profile_writer_named_stack(ProfileWriter *writer, char **names, int count)
{
	int64		stack = 0;

	FUZZ_CHECK(count > 0, "named stack of %d names", count);
	for (int i = 0; i < count; i++)
	{
		check_string(names[i], false, "stack name");
		stack = profile_writer_stack(writer, stack,
									 profile_writer_frame(writer, profile_writer_func(writer, names[i], NULL, NULL),
														  NO_INT, NO_INT, NO_INT, NULL));
	}
	return stack;
}

void
profile_writer_sample(ProfileWriter *writer, const char *thread, bool has_ts,
					  int64 ts, int64 stack, int64 weight, int64 labels_id)
{
	check_open(writer, "sample written");
	check_string(thread, true, "sample thread");
	check_id(writer, stack, "sample stack");
	FUZZ_CHECK(weight >= 0 || writer->negative_weights, "sample weight " INT64_FORMAT, weight);
	FUZZ_CHECK(labels_id == 0, "labels " INT64_FORMAT " from a text parser", labels_id);
	writer->samples++;
}

ProfileWriter *
profile_writer_begin(const ProfileInfo *info)
{
	FUZZ_CHECK(!the_writer.open && !the_writer.finished, "a second profile_writer_begin in one import");
	check_string(info->format, false, "profile format");
	check_string(info->name, true, "profile name");
	check_string(info->weight_unit, true, "weight unit");
	(void) fuzz_writer_begin();
	the_writer.negative_weights = strcmp(info->format, "firefox") == 0;
	return &the_writer;
}

void
profile_writer_set_started_at(ProfileWriter *writer, TimestampTz started_at)
{
	check_open(writer, "start time set");
}

int64
profile_writer_finish(ProfileWriter *writer)
{
	check_open(writer, "profile_writer_finish");
	FUZZ_CHECK(writer->events == 0, INT64_FORMAT " events finished as samples", writer->events);
	writer->open = false;
	writer->finished = true;
	return 1;
}

void
profile_writer_event(ProfileWriter *writer, const char *thread, int64 ts, int32 func, bool enter, int64 seq)
{
	check_open(writer, "event written");
	check_string(thread, true, "event thread");
	check_id(writer, func, "event func");
	writer->events++;
}

int64
profile_writer_finish_events(ProfileWriter *writer)
{
	check_open(writer, "profile_writer_finish_events");
	FUZZ_CHECK(writer->samples == 0, INT64_FORMAT " samples finished as events", writer->samples);
	writer->open = false;
	writer->finished = true;
	return 1;
}
