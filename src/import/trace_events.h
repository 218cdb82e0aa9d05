/*
 * trace_events.h
 *	  What the trace-event importer (import_trace_events.c) shares with the
 *	  reader of the CPU samples inside trace-event files (trace_samples.c),
 *	  defined in trace_events.c: the format's name for errors, and the table
 *	  of threads, named by "pid/tid" and by thread_name metadata events.
 */
#ifndef CALLTREE_TRACE_EVENTS_H
#define CALLTREE_TRACE_EVENTS_H

#include "postgres.h"

#include "formats/json_reader.h"

extern const JsonFormat trace_event_format;

typedef struct TraceThread
{
	char	   *key;			/* "pid/tid" */
	char	   *name;			/* from thread_name metadata, or NULL */
} TraceThread;

typedef struct TraceThreads
{
	TraceThread *items;
	int32		n;
	int32		capacity;
} TraceThreads;

/* The index of the thread "pid/tid" of an event object, added if new */
extern int32 trace_event_thread(TraceThreads *threads, JsonbContainer *event);
extern int32 trace_thread_index(TraceThreads *threads, const char *key);
/* "name pid/tid", or "pid/tid" for a thread without a name */
extern const char *trace_thread_label(const TraceThreads *threads, int32 thread);
/* pid, tid and the like: the text of a number or a string; "0" if absent */
extern char *trace_id_text(JsonbContainer *object, const char *key);

#endif							/* CALLTREE_TRACE_EVENTS_H */
