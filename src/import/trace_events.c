/*
 * trace_events.c
 *	  What the reader of trace events (import_trace_events.c) and the reader
 *	  of the CPU samples inside trace-event files (trace_samples.c) share:
 *	  the format's name and hint for errors, and the table of threads,
 *	  named "pid/tid" and by thread_name metadata events.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "import/trace_events.h"

const JsonFormat trace_event_format = {
	"trace-event",
	"A trace-event file is Chrome's Trace Event Format JSON: an array of events, or an object "
	"with \"traceEvents\"; CPU samples come in Profile and ProfileChunk events, CpuProfile events, or (Hermes) in "
	"\"samples\" and \"stackFrames\" beside \"traceEvents\"."
};

/* pid and tid may be numbers or strings: their text either way */
char *
trace_id_text(JsonbContainer *object, const char *key)
{
	JsonbValue	value;

	if (getKeyJsonValueFromContainer(object, key, strlen(key), &value) == NULL ||
		value.type == jbvNull)
		return pstrdup("0");
	if (value.type == jbvString)
		return pnstrdup(value.val.string.val, value.val.string.len);
	if (value.type == jbvNumeric)
		return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(value.val.numeric)));
	return pstrdup("?");
}

int32
trace_thread_index(TraceThreads *threads, const char *key)
{
	for (int32 i = threads->n - 1; i >= 0; i--)
		if (strcmp(threads->items[i].key, key) == 0)
			return i;
	if (threads->n == threads->capacity)
	{
		threads->capacity = Max(16, threads->capacity * 2);
		threads->items = threads->items
			? repalloc(threads->items, sizeof(TraceThread) * threads->capacity)
			: palloc(sizeof(TraceThread) * threads->capacity);
	}
	threads->items[threads->n].key = pstrdup(key);
	threads->items[threads->n].name = NULL;
	return threads->n++;
}

int32
trace_event_thread(TraceThreads *threads, JsonbContainer *event)
{
	return trace_thread_index(threads, psprintf("%s/%s", trace_id_text(event, "pid"),
												trace_id_text(event, "tid")));
}

const char *
trace_thread_label(const TraceThreads *threads, int32 thread)
{
	const TraceThread *info = &threads->items[thread];

	return info->name ? psprintf("%s %s", info->name, info->key) : info->key;
}
