/*
 * import_trace_events.c
 *	  Chrome trace-event JSON (what Chrome's tracing and
 *	  `llvm-xray convert --output-format=trace_event` write) into the
 *	  events of an instrumented trace, calltree.event.
 *
 * The file is an array of events, or an object whose "traceEvents" is one.
 * Duration events become enter/exit events: "B" enters, "E" exits (an "E"
 * without a name exits the innermost open call of its thread), and a
 * complete event "X" enters at ts and exits at ts + dur.  An event without
 * a name is "(unnamed)".  "M" events name threads (thread_name); every
 * other phase is skipped and counted.  Numbers may also come as strings.
 *
 * CPU samples travel in trace-event files too: Chrome's Profile and
 * ProfileChunk events or (Chrome 66 to 69) CpuProfile events, and Hermes'
 * "samples" and "stackFrames" beside
 * "traceEvents" (trace_samples.c reads them).  A file holds either kind or
 * both; the `source` argument picks what is imported: 'samples' (into
 * calltree.sample, a sampled profile), 'events' (the instrumented events,
 * into calltree.event), or NULL, which means the samples when the file has
 * any and the events otherwise, as speedscope and DevTools do.
 *
 * Events are put in time order per thread.  At equal timestamps, complete
 * events' exits come first (innermost first), then "B"/"E" events in file
 * order, then complete events' enters (outermost first), so that nested and
 * back-to-back calls keep their shape.  Timestamps are microseconds
 * (fractional); events keep them as integer nanoseconds from the earliest.
 *
 * The JSON is parsed by PostgreSQL's own parser, into jsonb (json_reader.c,
 * so that malformed JSON is an error naming the byte offset).  As the
 * format allows, a top-level array may lack its closing bracket (a trace
 * cut short when its process died), with or without a trailing comma.
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>

#include "common/int.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "formats/json_reader.h"
#include "module.h"
#include "import/importer.h"
#include "import/trace_events.h"
#include "import/trace_samples.h"

PG_FUNCTION_INFO_V1(calltree_import_trace_events);

typedef enum EventOrder
{
	ORDER_COMPLETE_EXIT,
	ORDER_BEGIN_END,
	ORDER_COMPLETE_ENTER
} EventOrder;

typedef struct TraceEvent
{
	int32		thread;			/* index into the thread list */
	int64		ts;				/* ns */
	int32		order;			/* EventOrder */
	int64		tiebreak;
	int32		index;			/* position in the file */
	bool		enter;
	const char *name;			/* NULL: an "E" that closes the innermost call */
} TraceEvent;

typedef struct TraceFile
{
	TraceEvent *events;
	int32		nevents;
	int32		capacity;
	TraceThreads threads;
	bool		keep_calls;		/* false: B, E and X events are only counted */
	int64		calls;			/* B, E and X events seen */
	int64		skipped;
} TraceFile;

/* What import_trace_events imports of a file */
typedef enum TraceSource
{
	SOURCE_AUTO,				/* the samples if there are any, else the events */
	SOURCE_SAMPLES,
	SOURCE_EVENTS
} TraceSource;

static pg_attribute_noreturn() void
bad_event(int index, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid trace-event file: event %d: %s", index, what),
			 errhint("A trace event is an object with \"ph\", \"ts\" (microseconds), \"pid\", \"tid\", "
					 "and \"name\" for \"B\" and \"X\" events.")));
}

static JsonbValue *
field(JsonbContainer *object, const char *key, JsonbValue *value)
{
	return getKeyJsonValueFromContainer(object, key, strlen(key), value);
}

static char *
string_field(JsonbContainer *object, const char *key, int index, bool required)
{
	JsonbValue	value;

	if (field(object, key, &value) == NULL || value.type == jbvNull)
	{
		if (required)
			bad_event(index, psprintf("\"%s\" is missing", key));
		return NULL;
	}
	if (value.type != jbvString)
		bad_event(index, psprintf("\"%s\" is not a string", key));
	return pnstrdup(value.val.string.val, value.val.string.len);
}

/*
 * A number field in microseconds, as nanoseconds; false if absent.  Some
 * writers (Hermes) put numbers in strings.
 */
static bool
time_field(JsonbContainer *object, const char *key, int index, int64 *ns)
{
	JsonbValue	value;
	double		us;

	if (field(object, key, &value) == NULL)
		return false;
	if (value.type == jbvNumeric)
		us = json_float8(&value);	/* infinite beyond a double: out of range below */
	else if (value.type == jbvString)
	{
		char	   *text = pnstrdup(value.val.string.val, value.val.string.len);
		char	   *end;

		errno = 0;
		us = strtod(text, &end);
		if (errno != 0 || end == text || *end != '\0')
			bad_event(index, psprintf("\"%s\" is not a number", key));
	}
	else
		bad_event(index, psprintf("\"%s\" is not a number", key));
	if (isnan(us) || fabs(us) > 9.0e15)
		bad_event(index, psprintf("\"%s\" is out of range", key));
	*ns = (int64) llround(us * 1000.0);
	return true;
}

/* The name of a "B" or "X" event; writers may leave it out */
static char *
event_name(JsonbContainer *object, int index)
{
	char	   *name = string_field(object, "name", index, false);

	return name ? name : "(unnamed)";
}

static void
add_event(TraceFile *file, int32 thread, int64 ts, EventOrder order, int64 tiebreak,
		  int index, bool enter, const char *name)
{
	TraceEvent *event;

	if (file->nevents == file->capacity)
	{
		file->capacity *= 2;
		file->events = repalloc_huge(file->events, sizeof(TraceEvent) * (Size) file->capacity);
	}
	event = &file->events[file->nevents++];
	event->thread = thread;
	event->ts = ts;
	event->order = order;
	event->tiebreak = tiebreak;
	event->index = index;
	event->enter = enter;
	event->name = name;
}

/* One event object of the file. */
static pg_attribute_noreturn() void
time_out_of_range(int index, const char *what, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("invalid trace-event file: event %d: %s", index, what),
			 errdetail_internal("%s", detail),
			 errhint("Events are stored in nanoseconds from the earliest one: a file's times must lie "
					 "within 2^63 ns (about 292 years) of each other.")));
}

/* The exit time of a complete event: its ts plus its dur, checked */
static int64
complete_end(int64 ts, int64 duration, int index)
{
	int64		end;

	if (pg_add_s64_overflow(ts, duration, &end))
		time_out_of_range(index, "\"ts\" plus \"dur\" is out of range",
						  psprintf("Its ts is " INT64_FORMAT " ns and its dur " INT64_FORMAT
								   " ns: its exit time does not fit in bigint.", ts, duration));
	return end;
}

static void
read_event(TraceFile *file, JsonbContainer *object, int index)
{
	char	   *phase = string_field(object, "ph", index, true);
	int32		thread;
	int64		ts;
	int64		duration;

	if (strcmp(phase, "M") == 0)
	{
		char	   *name = string_field(object, "name", index, false);
		JsonbValue	args;
		JsonbValue	thread_name;

		if (name && strcmp(name, "thread_name") == 0 &&
			field(object, "args", &args) != NULL && args.type == jbvBinary &&
			field(args.val.binary.data, "name", &thread_name) != NULL && thread_name.type == jbvString)
		{
			/* the index first: adding the thread may move the array */
			thread = trace_event_thread(&file->threads, object);
			file->threads.items[thread].name = pnstrdup(thread_name.val.string.val,
														thread_name.val.string.len);
		}
		return;
	}
	if (strcmp(phase, "B") != 0 && strcmp(phase, "E") != 0 && strcmp(phase, "X") != 0)
	{
		file->skipped++;
		return;
	}
	file->calls++;
	if (!file->keep_calls)
		return;
	if (!time_field(object, "ts", index, &ts))
		bad_event(index, "\"ts\" is missing");
	thread = trace_event_thread(&file->threads, object);
	if (strcmp(phase, "B") == 0)
		add_event(file, thread, ts, ORDER_BEGIN_END, 2 * (int64) index, index, true, event_name(object, index));
	else if (strcmp(phase, "E") == 0)
		add_event(file, thread, ts, ORDER_BEGIN_END, 2 * (int64) index, index, false,
				  string_field(object, "name", index, false));
	else
	{
		char	   *name = event_name(object, index);

		if (!time_field(object, "dur", index, &duration) &&
			!time_field(object, "tdur", index, &duration))
			duration = 0;
		if (duration < 0)
			bad_event(index, "\"dur\" is negative");
		if (duration == 0)
		{
			/* an instant call: enter and exit together, in file order */
			add_event(file, thread, ts, ORDER_BEGIN_END, 2 * (int64) index, index, true, name);
			add_event(file, thread, ts, ORDER_BEGIN_END, 2 * (int64) index + 1, index, false, name);
			return;
		}
		/* outermost (longest) enters first, innermost (latest) exits first */
		add_event(file, thread, ts, ORDER_COMPLETE_ENTER, -duration, index, true, name);
		add_event(file, thread, complete_end(ts, duration, index), ORDER_COMPLETE_EXIT, -ts, index,
				  false, name);
	}
}

static int
compare_events(const void *a, const void *b)
{
	const TraceEvent *x = a;
	const TraceEvent *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	if (x->tiebreak != y->tiebreak)
		return x->tiebreak < y->tiebreak ? -1 : 1;
	/* complete events entered in file order exit in the reverse order */
	if (x->order == ORDER_COMPLETE_EXIT)
		return (x->index < y->index) - (x->index > y->index);
	return (x->index > y->index) - (x->index < y->index);
}

/* The events' container: the top-level array, or "traceEvents" */
static JsonbContainer *
event_array(JsonbContainer *root)
{
	JsonbValue	events;

	if (JsonContainerIsArray(root) && !JsonContainerIsScalar(root))
		return root;
	if (JsonContainerIsObject(root) &&
		field(root, "traceEvents", &events) != NULL &&
		events.type == jbvBinary && JsonContainerIsArray(events.val.binary.data))
		return events.val.binary.data;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid trace-event file: neither an array of events nor an object with \"traceEvents\""),
			 errhint("%s", trace_event_format.hint)));
}

static void
read_trace_file(TraceFile *file, JsonbContainer *events)
{
	JsonbIterator *it = JsonbIteratorInit(events);
	JsonbValue	value;
	JsonbIteratorToken token;
	int			index = 0;

	while ((token = JsonbIteratorNext(&it, &value, true)) != WJB_DONE)
	{
		if (token != WJB_ELEM)
			continue;
		CHECK_FOR_INTERRUPTS();
		if (value.type != jbvBinary || !JsonContainerIsObject(value.val.binary.data))
			bad_event(index, "not an object");
		read_event(file, value.val.binary.data, index);
		index++;
	}
}

/* An event's time from the earliest event's, checked */
static int64
time_since(const TraceEvent *event, int64 start)
{
	int64		since;

	if (pg_sub_s64_overflow(event->ts, start, &since))
		time_out_of_range(event->index, "too far from the earliest event",
						  psprintf("It is at " INT64_FORMAT " ns, the earliest event at " INT64_FORMAT
								   " ns: the interval does not fit in bigint.", event->ts, start));
	return since;
}

/* Writes the sorted events, resolving nameless exits with a shadow stack. */
static int64
write_events(ProfileWriter *writer, TraceFile *file)
{
	int64		start = PG_INT64_MAX;
	int32	   *stack = palloc(sizeof(int32) * Max(file->nevents, 1));
	int32		depth = 0;
	int32		thread = -1;
	const char *thread_label = NULL;
	int64		unmatched = 0;

	for (int32 i = 0; i < file->nevents; i++)
		start = Min(start, file->events[i].ts);
	for (int32 i = 0; i < file->nevents; i++)
	{
		const TraceEvent *event = &file->events[i];
		int32		func;

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (event->thread != thread)
		{
			thread = event->thread;
			depth = 0;
			thread_label = trace_thread_label(&file->threads, thread);
		}
		if (event->enter)
		{
			func = profile_writer_func(writer, event->name, NULL, NULL);
			stack[depth++] = func;
		}
		else if (event->name == NULL)
		{
			if (depth == 0)
			{
				unmatched++;
				continue;
			}
			func = stack[--depth];
		}
		else
		{
			int32		d = depth - 1;

			func = profile_writer_func(writer, event->name, NULL, NULL);
			while (d >= 0 && stack[d] != func)
				d--;
			if (d >= 0)
				depth = d;
		}
		profile_writer_event(writer, thread_label, time_since(event, start), func, event->enter, i);
	}
	return unmatched;
}

/* The text to parse: an unterminated top-level array gets its bracket. */
static char *
complete_array(char *json)
{
	char	   *start = json;
	size_t		len = strlen(json);

	while (isspace((unsigned char) *start))
		start++;
	while (len > 0 && isspace((unsigned char) json[len - 1]))
		len--;
	if (*start != '[' || json[len - 1] == ']')
		return json;
	if (json[len - 1] == ',')
		len--;
	return psprintf("%.*s]", (int) len, json);
}

static TraceSource
source_option(const char *source)
{
	if (source == NULL)
		return SOURCE_AUTO;
	if (strcmp(source, "samples") == 0)
		return SOURCE_SAMPLES;
	if (strcmp(source, "events") == 0)
		return SOURCE_EVENTS;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid trace-event source \"%s\"", source),
			 errhint("Use 'samples' for the CPU samples, 'events' for the B, E and X events, "
					 "or NULL for the samples when the file has any.")));
}

/* Whether to import the samples (or the events) of this file */
static bool
use_samples(const ImportOptions *options, JsonbContainer *root, JsonbContainer *events)
{
	TraceSource source = source_option(options->source);
	bool		has_samples = source != SOURCE_EVENTS && trace_has_cpu_samples(root, events);

	if (source == SOURCE_SAMPLES && !has_samples)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trace-event file has no CPU samples"),
				 errdetail("It has no Profile or CpuProfile event and no \"samples\" with \"stackFrames\"."),
				 errhint("Import its B, E and X events with %s.",
						 import_option_text(options, "source", "events", true))));
	return has_samples;
}

static int64
import_events(ProfileWriter *writer, TraceFile *file)
{
	int64		unmatched;

	qsort(file->events, file->nevents, sizeof(TraceEvent), compare_events);
	unmatched = write_events(writer, file);
	if (file->skipped > 0 || unmatched > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " events of other phases and " INT64_FORMAT
						" nameless exits with nothing open", file->skipped, unmatched)));
	return profile_writer_finish_events(writer);
}

static int64
import_samples(ProfileWriter *writer, TraceFile *file, JsonbContainer *root, JsonbContainer *events,
			   const ImportOptions *options)
{
	trace_write_cpu_samples(writer, &file->threads, root, events);
	if (file->calls > 0)
		ereport(NOTICE,
				(errmsg("imported the CPU samples; left out " INT64_FORMAT " B, E and X events", file->calls),
				 errhint("%s imports the events instead.",
						 import_option_text(options, "source", "events", true))));
	return profile_writer_finish(writer);
}

/* The CPU samples, or the B, E and X events, as options->source says */
static int64
trace_events_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	ProfileInfo in_ns = *info;
	ProfileWriter *writer;
	char	   *json = complete_array(pnstrdup(data, len));
	JsonbContainer *root = json_read_container(&trace_event_format, json, strlen(json), calltree_import_work_mem);
	JsonbContainer *events = event_array(root);
	bool		samples = use_samples(options, root, events);
	TraceFile	file = {0};

	file.capacity = 1024;
	file.events = palloc(sizeof(TraceEvent) * file.capacity);
	file.keep_calls = !samples;
	read_trace_file(&file, events);

	in_ns.weight_unit = "nanoseconds";
	writer = profile_writer_begin(&in_ns);
	return samples ? import_samples(writer, &file, root, events, options) : import_events(writer, &file);
}

const Importer trace_events_importer = {
	.name = "trace_events",
	.format = "trace-event",
	.import = trace_events_import,
};

/* import_trace_events(data text, name text, meta jsonb, source text) → profile id */
Datum
calltree_import_trace_events(PG_FUNCTION_ARGS)
{
	static const ImportArgs args = {.strict = -1, .event = -1, .sample_type = -1, .source = 3};

	return import_sql_call(fcinfo, &trace_events_importer, 1, &args);
}
