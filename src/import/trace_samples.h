/*
 * trace_samples.h
 *	  The CPU samples inside trace-event files (trace_samples.c): Chrome's
 *	  Profile and ProfileChunk events, CpuProfile events, and Hermes' "samples" and
 *	  "stackFrames" beside "traceEvents".
 */
#ifndef CALLTREE_TRACE_SAMPLES_H
#define CALLTREE_TRACE_SAMPLES_H

#include "postgres.h"

#include "import/trace_events.h"
#include "writer/writer.h"

/* Whether the file has CPU samples (Profile or CpuProfile events, or Hermes "samples") */
extern bool trace_has_cpu_samples(JsonbContainer *root, JsonbContainer *events);
/* Writes the file's CPU samples as the samples of the writer's profile */
extern void trace_write_cpu_samples(ProfileWriter *writer, TraceThreads *threads,
									JsonbContainer *root, JsonbContainer *events);

#endif							/* CALLTREE_TRACE_SAMPLES_H */
