/*
 * import_jfr.c
 *	  Java Flight Recorder recordings (.jfr, gzip-compressed or not), as the
 *	  JDK and async-profiler write them.
 *
 * One calltree profile per kind of sample event present, in the order of
 * profile_kinds, each with Pyroscope's profile_type and sample_type in its
 * meta: CPU (jdk.ExecutionSample: "process_cpu", "cpu"), wall clock
 * (async-profiler's profiler.WallClockSample: "wall", "wall"),
 * allocations ("memory", "alloc_in_new_tlab_bytes", in bytes:
 * jdk.ObjectAllocationInNewTLAB weighs its tlabSize,
 * jdk.ObjectAllocationOutsideTLAB its allocationSize and
 * jdk.ObjectAllocationSample its weight), live objects ("memory", "live",
 * a count: async-profiler's profiler.LiveObject and jdk.OldObjectSample),
 * monitors (jdk.JavaMonitorEnter: "mutex", "contentions" in a count and
 * "delay" in nanoseconds, two profiles) and parks (jdk.ThreadPark:
 * "block", the same two).  Following Pyroscope's conversion:
 * - a func is named class + "." + method, the class as the recording
 *   writes it (java/util/regex/Pattern$Slice.match), "" for a frame with
 *   no class; the line number is kept on the frame;
 * - a CPU or wall sample weighs its count (a wall-clock event's
 *   "samples", else 1) times 10^9 / sample_rate nanoseconds, sample_rate
 *   being the caller's, else the recording's own interval (jfr_settings.c),
 *   else 100 Hz; a delay is the event's duration;
 * - execution samples of threads in STATE_SLEEPING are not CPU time;
 * - when async-profiler sampled wall-clock time (its jdk.ActiveSetting
 *   "event" is "wall") without writing profiler.WallClockSample events,
 *   its execution samples, of every thread state, also make the wall
 *   profile;
 * - the sampled thread's Java name (else its OS name) is the sample's
 *   thread;
 * - the profiles start when the recording does: its earliest chunk
 *   header's start;
 * - with the Java agent's labels (jfr_labels.h), an event's contextId
 *   gives its sample's label set; and the span context that Pyroscope's
 *   async-profiler writes on events, spanId and spanName (a string id of
 *   the labels), adds the labels profile_id (the span id, 16 hex digits)
 *   and span_name, so that a profile can be joined to a trace, as
 *   Pyroscope's own reader adds them (only with the labels).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "formats/gzip.h"
#include "formats/jfr.h"
#include "formats/jfr_labels.h"
#include "import/importer.h"
#include "module.h"

PG_FUNCTION_INFO_V1(calltree_import_jfr);

/* the largest recording, or labels snapshot, inflated from gzip */
#define JFR_MAX_DECOMPRESSED ((size_t) 1 << 30)
#define JFR_DEFAULT_INTERVAL INT64CONST(10000000)	/* 100 Hz */
#define NANOS_PER_SECOND INT64CONST(1000000000)

/* What a sample of a profile weighs */
typedef enum JfrWeight
{
	WEIGHT_TIME,				/* its count of samples times the sampling interval */
	WEIGHT_BYTES,				/* the bytes it allocated */
	WEIGHT_COUNT,				/* 1: an event counted */
	WEIGHT_DURATION				/* its duration, nanoseconds */
} JfrWeight;

/* The profiles made, in this order, each of the events of its kinds present */
typedef struct JfrProfileKind
{
	const char *profile_type;	/* Pyroscope's names */
	const char *sample_type;
	const char *unit;
	uint32		events;
	JfrWeight	weight;
} JfrProfileKind;

#define JFR_ALLOC_KINDS (JFR_KIND_BIT(JFR_ALLOC_IN_TLAB) | JFR_KIND_BIT(JFR_ALLOC_OUTSIDE_TLAB) | \
						 JFR_KIND_BIT(JFR_ALLOC_SAMPLE))
#define JFR_LIVE_KINDS (JFR_KIND_BIT(JFR_LIVE_OBJECT) | JFR_KIND_BIT(JFR_OLD_OBJECT))

enum
{
	PROFILE_CPU = 0,
	PROFILE_WALL,
	PROFILE_COUNT = 8
};

static const JfrProfileKind profile_kinds[PROFILE_COUNT] = {
	{"process_cpu", "cpu", "nanoseconds", JFR_KIND_BIT(JFR_CPU), WEIGHT_TIME},
	{"wall", "wall", "nanoseconds", JFR_KIND_BIT(JFR_WALL), WEIGHT_TIME},
	{"memory", "alloc_in_new_tlab_bytes", "bytes", JFR_ALLOC_KINDS, WEIGHT_BYTES},
	{"memory", "live", "count", JFR_LIVE_KINDS, WEIGHT_COUNT},
	{"mutex", "contentions", "count", JFR_KIND_BIT(JFR_MONITOR_ENTER), WEIGHT_COUNT},
	{"mutex", "delay", "nanoseconds", JFR_KIND_BIT(JFR_MONITOR_ENTER), WEIGHT_DURATION},
	{"block", "contentions", "count", JFR_KIND_BIT(JFR_THREAD_PARK), WEIGHT_COUNT},
	{"block", "delay", "nanoseconds", JFR_KIND_BIT(JFR_THREAD_PARK), WEIGHT_DURATION},
};

/* the memo's key of a stack: keys are chunk-local */
typedef struct StackKey
{
	int64		chunk;
	int64		key;
} StackKey;

typedef struct JfrImport
{
	ProfileWriter *writer;
	JfrWeight	weight;
	int64		nanos_per_sample;	/* WEIGHT_TIME */
	int64		skipped;		/* samples without a stack */
	int64		count;
	bool		skip_sleeping;	/* CPU: samples of sleeping threads are not CPU time */
	const JfrLabels *labels;	/* NULL: none given */
	int64	   *label_ids;		/* the interned id of each of labels' sets, 0: not yet */
	MemoryContext stack_cxt;	/* reset after each new stack */
	MemoryContext span_cxt;		/* reset after each sample of a span */
} JfrImport;

static char *
frame_name(const JfrFrame *frame)
{
	char	   *utf8 = psprintf("%s.%s", frame->class_name, frame->method);

	return pg_any_to_server(utf8, strlen(utf8), PG_UTF8);
}

/* The stack id of a sample, 0 if it has none */
static int64
sample_stack(JfrImport *import, JfrDecoder *decoder, const JfrSample *sample)
{
	StackKey	key;
	int64		stack = 0;
	JfrFrame   *frames;
	int			n;
	MemoryContext caller;

	memset(&key, 0, sizeof(key));
	key.chunk = sample->chunk;
	key.key = sample->stack_key;
	if (profile_writer_memo_get(import->writer, &key, sizeof(key), &stack))
		return stack;
	caller = MemoryContextSwitchTo(import->stack_cxt);
	n = jfr_stack_frames(decoder, sample, &frames);
	MemoryContextSwitchTo(caller);
	profile_writer_walk_begin(import->writer);
	for (int i = n - 1; i >= 0; i--)
	{
		int64		frame = profile_writer_func_frame(import->writer, frame_name(&frames[i]), NULL, NULL, NO_INT,
													  frames[i].line > 0 ? SOME_INT(frames[i].line) : NO_INT,
													  NO_INT, NULL);

		profile_writer_walk_push(import->writer, frame);
	}
	stack = profile_writer_walk_end(import->writer);
	MemoryContextReset(import->stack_cxt);
	profile_writer_memo_put(import->writer, &key, sizeof(key), stack);
	return stack;
}

/* A sample's weight by its profile's measure; 0: it weighs nothing */
static int64
sample_weight(const JfrImport *import, const JfrSample *sample)
{
	int64		weight = 0;

	switch (import->weight)
	{
		case WEIGHT_TIME:
			if (sample->count <= 0 || pg_mul_s64_overflow(sample->count, import->nanos_per_sample, &weight))
				jfr_error(sample->at, "A sample's count " INT64_FORMAT " is not positive or too large.", sample->count);
			break;
		case WEIGHT_BYTES:
			if (sample->bytes < 0)
				jfr_error(sample->at, "An allocation's size " INT64_FORMAT " is negative.", sample->bytes);
			weight = sample->bytes;
			break;
		case WEIGHT_COUNT:
			weight = 1;
			break;
		case WEIGHT_DURATION:
			weight = sample->duration;
			break;
	}
	return weight;
}

static void
push_label(JsonbParseState **state, const char *key, const char *value)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) key;
	v.val.string.len = strlen(key);
	pushJsonbValue(state, WJB_KEY, &v);
	v.val.string.val = (char *) value;
	v.val.string.len = strlen(value);
	pushJsonbValue(state, WJB_VALUE, &v);
}

/*
 * The label set of a sample of a span: its context's labels (NULL: none),
 * then profile_id and span_name (NULL or empty: left out); NULL if empty
 */
static Jsonb *
span_label_set(const Jsonb *context, int64 span_id, const char *span_name)
{
	JsonbParseState *state = NULL;
	JsonbValue	v;
	int			n = 0;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	if (context != NULL)
	{
		JsonbIterator *it = JsonbIteratorInit((JsonbContainer *) &context->root);
		JsonbIteratorToken token;

		while ((token = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
			if (token == WJB_KEY || token == WJB_VALUE)
			{
				pushJsonbValue(&state, token, &v);
				n++;
			}
	}
	if (span_id != 0)
	{
		push_label(&state, "profile_id", psprintf("%016" INT64_MODIFIER "x", (uint64) span_id));
		n++;
	}
	if (span_name != NULL && span_name[0] != '\0')
	{
		push_label(&state, "span_name", span_name);
		n++;
	}
	return n == 0 ? NULL : JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

/* The interned label set of a sample's context and span, 0 for none */
static int64
sample_labels(JfrImport *import, const JfrSample *sample)
{
	int			i = -1;
	int64		id = 0;
	MemoryContext caller;
	Jsonb	   *labels;

	if (import->labels == NULL)
		return 0;
	if (sample->context_id != 0)
		i = jfr_labels_find(import->labels, sample->context_id);
	if (sample->span_id == 0 && sample->span_name == 0)
	{
		if (i >= 0 && import->label_ids[i] == 0)
			import->label_ids[i] = profile_writer_labels(import->writer, import->labels->sets[i].labels);
		return i >= 0 ? import->label_ids[i] : 0;
	}
	caller = MemoryContextSwitchTo(import->span_cxt);
	labels = span_label_set(i >= 0 ? import->labels->sets[i].labels : NULL, sample->span_id,
							sample->span_name != 0 ? jfr_labels_string(import->labels, sample->span_name) : NULL);
	MemoryContextSwitchTo(caller);
	if (labels != NULL)
		id = profile_writer_labels(import->writer, labels);
	MemoryContextReset(import->span_cxt);
	return id;
}

static void
write_sample(void *arg, JfrDecoder *decoder, const JfrSample *sample)
{
	JfrImport  *import = arg;
	int64		stack;
	int64		weight;
	const char *thread = NULL;

	if ((++import->count & 0x3FF) == 0)
		CHECK_FOR_INTERRUPTS();
	if (import->skip_sleeping && sample->state && strcmp(sample->state, "STATE_SLEEPING") == 0)
		return;
	weight = sample_weight(import, sample);
	if (weight == 0)
		return;
	stack = sample->stack_key != 0 ? sample_stack(import, decoder, sample) : 0;
	if (stack == 0)
	{
		import->skipped++;
		return;
	}
	if (sample->thread)
	{
		thread = pg_any_to_server(sample->thread, strlen(sample->thread), PG_UTF8);
		if (strlen(thread) > WRITER_THREAD_NAME_MAX)
			thread = NULL;
	}
	profile_writer_sample(import->writer, thread, false, 0, stack, weight, sample_labels(import, sample));
}

static void
push_string(JsonbParseState **state, JsonbIteratorToken token, const char *text)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) text;
	v.val.string.len = strlen(text);
	pushJsonbValue(state, token, &v);
}

/* 10^9 / interval, exactly when it divides, else to 12 digits after the point */
static Numeric
rate_of(int64 interval)
{
	if (NANOS_PER_SECOND % interval == 0)
		return int64_to_numeric(NANOS_PER_SECOND / interval);
	return DatumGetNumeric(DirectFunctionCall2(numeric_round,
											   DirectFunctionCall2(numeric_div,
																   NumericGetDatum(int64_to_numeric(NANOS_PER_SECOND)),
																   NumericGetDatum(int64_to_numeric(interval))),
											   Int32GetDatum(12)));
}

/*
 * The profile's meta: its kind, the sample rate of a profile of time
 * samples (interval > 0), the caller's meta over them
 */
static Jsonb *
profile_meta(const JfrProfileKind *kind, int64 interval, const ProfileInfo *info)
{
	JsonbParseState *state = NULL;
	JsonbValue	v;
	Datum		ours;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	push_string(&state, WJB_KEY, "profile_type");
	push_string(&state, WJB_VALUE, kind->profile_type);
	push_string(&state, WJB_KEY, "sample_type");
	push_string(&state, WJB_VALUE, kind->sample_type);
	if (interval > 0)
	{
		push_string(&state, WJB_KEY, "sample_rate");
		v.type = jbvNumeric;
		v.val.numeric = rate_of(interval);
		pushJsonbValue(&state, WJB_VALUE, &v);
	}
	ours = JsonbPGetDatum(JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL)));
	if (info->meta == NULL)
		return DatumGetJsonbP(ours);
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, ours, JsonbPGetDatum(info->meta)));
}

/* What one import_jfr call reads: the recording, its labels, its sampling */
typedef struct JfrRecording
{
	const uint8 *data;
	size_t		len;
	uint32		present;		/* jfr_scan's */
	int64		cpu_interval;	/* the nanoseconds a CPU sample stands for */
	int64		wall_interval;
	const JfrLabels *labels;	/* NULL: none */
} JfrRecording;

/*
 * The profile of one kind, from the events of the kinds in events (a wall
 * profile of async-profiler's wall-clock mode is made of execution samples).
 */
static int64
import_kind(const JfrRecording *recording, int p, uint32 events, const ProfileInfo *info)
{
	const JfrProfileKind *kind = &profile_kinds[p];
	ProfileInfo profile_info = *info;
	JfrImport	import;

	memset(&import, 0, sizeof(import));
	import.skip_sleeping = p == PROFILE_CPU;
	import.weight = kind->weight;
	if (kind->weight == WEIGHT_TIME)
		import.nanos_per_sample = p == PROFILE_CPU ? recording->cpu_interval : recording->wall_interval;
	profile_info.meta = profile_meta(kind, import.nanos_per_sample, info);
	profile_info.weight_unit = kind->unit;
	import.labels = recording->labels;
	if (import.labels)
		import.label_ids = palloc0(sizeof(int64) * Max(import.labels->count, 1));
	import.stack_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree JFR stack",
											 ALLOCSET_DEFAULT_SIZES);
	import.span_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree JFR span labels",
											ALLOCSET_SMALL_SIZES);
	import.writer = profile_writer_begin(&profile_info);
	(void) jfr_decode(recording->data, recording->len, events, (size_t) calltree_import_work_mem * 1024,
					  write_sample, &import);
	if (import.skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " JFR %s %s sample%s without a stack",
						import.skipped, kind->profile_type, kind->sample_type, import.skipped == 1 ? "" : "s")));
	return profile_writer_finish(import.writer);
}

/* The events a profile is made of in this recording, 0 if none are present */
static uint32
profile_events(int p, uint32 present)
{
	/* async-profiler's wall-clock mode: execution samples of every thread state */
	if (p == PROFILE_WALL && (present & JFR_KIND_BIT(JFR_WALL)) == 0 && (present & JFR_WALL_MODE))
		return present & JFR_KIND_BIT(JFR_CPU);
	return present & profile_kinds[p].events;
}

/*
 * The recording's start (nanoseconds since 1970) as the profiles' start,
 * unless the caller gave one: microseconds since 2000, rounded down.
 */
static void
set_started_at(ProfileInfo *info, int64 start_nanos)
{
	if (info->has_started_at || start_nanos <= 0)
		return;
	info->has_started_at = true;
	info->started_at = start_nanos / 1000 - (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
}

/*
 * Imports a recording, already decompressed: one profile per kind present,
 * in the order of profile_kinds, each in a memory context of its own.
 * sample_rate: the caller's, 0 for the recording's own.  The ids into
 * *ids; their number.
 */
static int
jfr_import_all(const ProfileInfo *info, const char *data, size_t len, int32 sample_rate,
			   const JfrLabels *labels, int64 **ids)
{
	MemoryContext caller = CurrentMemoryContext;
	JfrRecording recording;
	JfrSampling sampling;
	ProfileInfo started = *info;
	int			count = 0;

	/* a first pass finds the kinds present and the sampling, and checks the whole recording */
	recording.data = (const uint8 *) data;
	recording.len = len;
	recording.labels = labels;
	recording.present = jfr_scan(recording.data, len, (size_t) calltree_import_work_mem * 1024, &sampling);
	recording.cpu_interval = sample_rate > 0 ? NANOS_PER_SECOND / sample_rate :
		sampling.cpu_interval > 0 ? sampling.cpu_interval : JFR_DEFAULT_INTERVAL;
	recording.wall_interval = sample_rate > 0 ? NANOS_PER_SECOND / sample_rate :
		sampling.wall_interval > 0 ? sampling.wall_interval : JFR_DEFAULT_INTERVAL;
	set_started_at(&started, sampling.start_nanos);
	*ids = palloc(sizeof(int64) * PROFILE_COUNT);
	for (int p = 0; p < PROFILE_COUNT; p++)
	{
		MemoryContext cxt;
		uint32		events = profile_events(p, recording.present);

		if (events == 0)
			continue;
		cxt = AllocSetContextCreate(caller, "calltree JFR profile", ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(cxt);
		(*ids)[count++] = import_kind(&recording, p, events, &started);
		MemoryContextSwitchTo(caller);
		MemoryContextDelete(cxt);
	}
	return count;
}

/*
 * The Importer's import_all, for import_stream: every profile's id; a
 * recording without any is an error.
 */
static int
jfr_import_every(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options,
				 int64 **ids)
{
	int			count = jfr_import_all(info, data, len, 0, NULL, ids);

	if (count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("JFR recording holds no execution, wall-clock, allocation, live object or lock sample"),
				 errhint("import_jfr() accepts such a recording and returns no id.")));
	return count;
}

/*
 * The Importer's import, for import_profile (and import_stream as 0.2
 * declared it): the first profile's id, with a NOTICE naming the others.
 */
static int64
jfr_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	int64	   *ids;
	int			count = jfr_import_every(info, data, len, options, &ids);

	return importer_first_id("JFR", "import_jfr()", ids, count);
}

const Importer jfr_importer = {
	.name = "jfr",
	.format = "jfr",
	.binary = true,
	.import = jfr_import,
	.import_all = jfr_import_every,
};

/* A bytea argument's bytes, inflated if gzip-compressed */
static const char *
argument_bytes(FunctionCallInfo fcinfo, int arg, const char *what, size_t *len)
{
	bytea	   *raw = PG_GETARG_BYTEA_PP(arg);
	const char *bytes = VARDATA_ANY(raw);

	*len = VARSIZE_ANY_EXHDR(raw);
	if (gzip_is_compressed(bytes, *len))
		bytes = gzip_decompress(bytes, *len, JFR_MAX_DECOMPRESSED, what, len);
	return bytes;
}

/*
 * import_jfr(data bytea, name text, meta jsonb, sample_rate int,
 * labels bytea) → bigint[], every profile's id in the order of
 * profile_kinds
 */
Datum
calltree_import_jfr(PG_FUNCTION_ARGS)
{
	ProfileInfo info;
	const ImportOptions keep = {0};	/* a file imported before: said, and kept */
	const char *bytes;
	size_t		len;
	int64	   *ids;
	int			count;
	Datum	   *elements;
	int32		sample_rate = PG_ARGISNULL(3) ? 0 : PG_GETARG_INT32(3);
	const JfrLabels *labels = NULL;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	if (!PG_ARGISNULL(3) && (sample_rate <= 0 || sample_rate > NANOS_PER_SECOND))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample_rate %d is out of range", sample_rate),
				 errhint("Give the recording's sampling frequency in Hz, from 1 to 1000000000, or NULL for the recording's own.")));
	bytes = argument_bytes(fcinfo, 0, "JFR", &len);
	if (PG_NARGS() > 4 && !PG_ARGISNULL(4))
	{
		size_t		labels_len;
		const char *labels_bytes = argument_bytes(fcinfo, 4, "JFR labels", &labels_len);

		labels = jfr_labels_decode((const uint8 *) labels_bytes, labels_len,
								   (size_t) calltree_import_work_mem * 1024);
	}
	profile_info_from_args(fcinfo, 1, 2, jfr_importer.format, &info);
	content_note(&info, content_digest(bytes, len), &keep);
	count = jfr_import_all(&info, bytes, len, sample_rate, labels, &ids);
	elements = palloc(sizeof(Datum) * Max(count, 1));
	for (int i = 0; i < count; i++)
		elements[i] = Int64GetDatum(ids[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elements, count, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE));
}
