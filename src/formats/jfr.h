/*
 * jfr.h
 *	  A reader of Java Flight Recorder recordings (.jfr), as the JDK and
 *	  async-profiler write them.
 *
 * A recording is a sequence of chunks, each self-contained: a header, a
 * metadata event describing every type (classes, their fields and the
 * fields' types), constant pools (stack traces, methods, classes,
 * symbols, threads... keyed by chunk-local ids) and events.  Integers
 * are LEB128-compressed when the header's feature flag says so, else
 * big-endian.  The reader walks every chunk, indexes its constant pools
 * (offsets only, decoded on demand) and hands each sample event of the
 * kinds asked for to a callback; the callback resolves the sample's
 * stack with jfr_stack_frames only when it has not seen it before.
 *
 * Every error is an ereport naming the byte offset from the start of the
 * input.  Memory is bounded by the limit given: what the indexes of one
 * chunk take counts against it.
 */
#ifndef CALLTREE_JFR_H
#define CALLTREE_JFR_H

#include "postgres.h"

#define JFR_MAGIC "FLR\0"
#define JFR_MAGIC_LEN 4

/* The kinds of sample events read, each a profile of its own */
typedef enum JfrKind
{
	JFR_CPU = 0,				/* jdk.ExecutionSample */
	JFR_WALL,					/* profiler.WallClockSample (async-profiler) */
	JFR_ALLOC_IN_TLAB,			/* jdk.ObjectAllocationInNewTLAB: tlabSize */
	JFR_ALLOC_OUTSIDE_TLAB,		/* jdk.ObjectAllocationOutsideTLAB: allocationSize */
	JFR_ALLOC_SAMPLE,			/* jdk.ObjectAllocationSample: weight */
	JFR_LIVE_OBJECT,			/* profiler.LiveObject (async-profiler) */
	JFR_OLD_OBJECT,				/* jdk.OldObjectSample */
	JFR_MONITOR_ENTER,			/* jdk.JavaMonitorEnter: duration */
	JFR_THREAD_PARK,			/* jdk.ThreadPark: duration */
	JFR_KIND_COUNT
} JfrKind;

#define JFR_KIND_BIT(kind) (1u << (kind))
/*
 * In jfr_decode's result: async-profiler recorded in wall-clock mode (its
 * jdk.ActiveSetting "event" is "wall"), so that its execution samples are
 * wall-clock samples of every thread state.
 */
#define JFR_WALL_MODE (1u << 31)

/*
 * What the recording says of its own sampling, for jfr_scan: the interval
 * between two execution samples, and between two wall-clock samples, in
 * nanoseconds (its jdk.ActiveSetting events), 0 where it does not say;
 * and when it started, in nanoseconds since 1970 (the earliest chunk
 * header's start), 0 if it does not say.
 */
typedef struct JfrSampling
{
	int64		cpu_interval;
	int64		wall_interval;
	int64		start_nanos;
} JfrSampling;

typedef struct JfrDecoder JfrDecoder;

typedef struct JfrFrame
{
	const char *class_name;		/* as the recording writes it, "" if none */
	const char *method;
	int32		line;			/* 0 or less: unknown */
} JfrFrame;

typedef struct JfrSample
{
	JfrKind		kind;
	int32		chunk;			/* ordinal of its chunk: keys are chunk-local */
	int64		stack_key;		/* its stack trace's key in the chunk, 0: none */
	int64		count;			/* samples the event stands for (wall: its "samples") */
	int64		bytes;			/* allocations: the bytes the event stands for, else 0 */
	int64		duration;		/* its duration in nanoseconds (locks), else 0 */
	int64		context_id;		/* its contextId (the Java agent's labels), 0: none */
	int64		span_id;		/* its spanId (Pyroscope's async-profiler), 0: none */
	int64		span_name;		/* its spanName: a string id of the agent's labels, 0: none */
	const char *thread;			/* the sampled thread's name, NULL if unknown */
	const char *state;			/* its thread state's name, NULL if unknown */
	size_t		at;				/* byte offset of the event */
} JfrSample;

typedef void (*JfrSampleHandler) (void *arg, JfrDecoder *decoder, const JfrSample *sample);

/*
 * Reads a whole recording, calling handler for each sample event whose
 * kind is in kinds (a mask of JFR_KIND_BIT); the mask of the kinds
 * present.  The sample and what it points to live until handler returns.
 */
extern uint32 jfr_decode(const uint8 *data, size_t len, uint32 kinds, size_t memory_limit,
						 JfrSampleHandler handler, void *arg);

/*
 * The kinds of sample events a whole recording holds (jfr_decode's result
 * with no kinds asked for), and what it says of its sampling into *sampling.
 */
extern uint32 jfr_scan(const uint8 *data, size_t len, size_t memory_limit, JfrSampling *sampling);

/*
 * The frames of a sample's stack, leaf first, into *frames (allocated in
 * the current memory context); their number.
 */
extern int	jfr_stack_frames(JfrDecoder *decoder, const JfrSample *sample, JfrFrame **frames);

/* Whether data starts like a recording */
extern bool jfr_is_recording(const char *data, size_t len);

extern void jfr_error(size_t at, const char *detail_fmt,...)
			pg_attribute_printf(2, 3) pg_attribute_noreturn();

#endif							/* CALLTREE_JFR_H */
