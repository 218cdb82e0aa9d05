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
 * Events are put in time order per thread.  At equal timestamps, complete
 * events' exits come first (innermost first), then "B"/"E" events in file
 * order, then complete events' enters (outermost first), so that nested and
 * back-to-back calls keep their shape.  Timestamps are microseconds
 * (fractional); events keep them as integer nanoseconds from the earliest.
 *
 * The JSON is parsed by PostgreSQL's own parser, into jsonb.  As the
 * format allows, a top-level array may lack its closing bracket (a trace
 * cut short when its process died), with or without a trailing comma.
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "import.h"
#include "json_reader.h"

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

typedef struct ThreadInfo
{
	char	   *key;			/* "pid/tid" */
	char	   *name;			/* from thread_name metadata, or NULL */
} ThreadInfo;

typedef struct TraceFile
{
	TraceEvent *events;
	int32		nevents;
	int32		capacity;
	ThreadInfo *threads;
	int32		nthreads;
	int32		thread_capacity;
	int64		skipped;
} TraceFile;

#define EVENT_HINT \
	"A trace event is an object with \"ph\", \"ts\" (microseconds), \"pid\", \"tid\", " \
	"and \"name\" for \"B\" and \"X\" events."

static const JsonFormat trace_event_format = {
	.name = "trace-event",
	.hint = "A trace-event file is a JSON array of events, or an object whose \"traceEvents\" is one. " EVENT_HINT
};

static pg_attribute_noreturn() void
bad_event(int index, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid trace event %d: %s", index, what),
			 errhint(EVENT_HINT)));
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
		us = DatumGetFloat8(DirectFunctionCall1(numeric_float8, NumericGetDatum(value.val.numeric)));
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

/* pid and tid may be numbers or strings: their text either way */
static char *
id_field(JsonbContainer *object, const char *key)
{
	JsonbValue	value;

	if (field(object, key, &value) == NULL || value.type == jbvNull)
		return pstrdup("0");
	if (value.type == jbvString)
		return pnstrdup(value.val.string.val, value.val.string.len);
	if (value.type == jbvNumeric)
		return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(value.val.numeric)));
	return pstrdup("?");
}

/* The name of a "B" or "X" event; writers may leave it out */
static char *
event_name(JsonbContainer *object, int index)
{
	char	   *name = string_field(object, "name", index, false);

	return name ? name : "(unnamed)";
}

static int32
thread_index(TraceFile *file, const char *key)
{
	for (int32 i = file->nthreads - 1; i >= 0; i--)
		if (strcmp(file->threads[i].key, key) == 0)
			return i;
	if (file->nthreads == file->thread_capacity)
	{
		file->thread_capacity *= 2;
		file->threads = repalloc(file->threads, sizeof(ThreadInfo) * file->thread_capacity);
	}
	file->threads[file->nthreads].key = pstrdup(key);
	file->threads[file->nthreads].name = NULL;
	return file->nthreads++;
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
static void
read_event(TraceFile *file, JsonbContainer *object, int index)
{
	char	   *phase = string_field(object, "ph", index, true);
	char	   *key = psprintf("%s/%s", id_field(object, "pid"), id_field(object, "tid"));
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
			file->threads[thread_index(file, key)].name =
				pnstrdup(thread_name.val.string.val, thread_name.val.string.len);
		return;
	}
	if (strcmp(phase, "B") != 0 && strcmp(phase, "E") != 0 && strcmp(phase, "X") != 0)
	{
		file->skipped++;
		return;
	}
	if (!time_field(object, "ts", index, &ts))
		bad_event(index, "\"ts\" is missing");
	thread = thread_index(file, key);
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
		add_event(file, thread, ts + duration, ORDER_COMPLETE_EXIT, -ts, index, false, name);
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
event_array(Jsonb *document)
{
	JsonbValue	events;

	if (JB_ROOT_IS_ARRAY(document) && !JB_ROOT_IS_SCALAR(document))
		return &document->root;
	if (JB_ROOT_IS_OBJECT(document) &&
		field(&document->root, "traceEvents", &events) != NULL &&
		events.type == jbvBinary && JsonContainerIsArray(events.val.binary.data))
		return events.val.binary.data;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("trace-event data is neither an array of events nor an object with \"traceEvents\"")));
}

static void
read_trace_file(TraceFile *file, Jsonb *document)
{
	JsonbIterator *it = JsonbIteratorInit(event_array(document));
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
			const ThreadInfo *info = &file->threads[event->thread];

			thread = event->thread;
			depth = 0;
			thread_label = info->name ? psprintf("%s %s", info->name, info->key) : info->key;
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
		profile_writer_event(writer, thread_label, event->ts - start, func, event->enter, i);
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

/* import_trace_events(data text, name text, meta jsonb) → profile id */
Datum
calltree_import_trace_events(PG_FUNCTION_ARGS)
{
	ProfileInfo info;
	ProfileWriter *writer;
	Jsonb	   *document;
	TraceFile	file = {0};
	int64		unmatched;
	char	   *json;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	json = complete_array(text_to_cstring(PG_GETARG_TEXT_PP(0)));
	document = json_parse(&trace_event_format, json, strlen(json));
	file.capacity = 1024;
	file.events = palloc(sizeof(TraceEvent) * file.capacity);
	file.thread_capacity = 16;
	file.threads = palloc(sizeof(ThreadInfo) * file.thread_capacity);
	read_trace_file(&file, document);
	qsort(file.events, file.nevents, sizeof(TraceEvent), compare_events);

	profile_info_from_args(fcinfo, 1, 2, "trace-event", &info);
	info.weight_unit = "nanoseconds";
	writer = profile_writer_begin(&info);
	unmatched = write_events(writer, &file);
	if (file.skipped > 0 || unmatched > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " events of other phases and " INT64_FORMAT
						" nameless exits with nothing open", file.skipped, unmatched)));
	PG_RETURN_INT64(profile_writer_finish_events(writer));
}
