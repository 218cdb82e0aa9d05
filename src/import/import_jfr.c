/*
 * import_jfr.c
 *	  Java Flight Recorder recordings (.jfr, gzip-compressed or not), as the
 *	  JDK and async-profiler write them.
 *
 * One calltree profile per kind of sample event present, CPU first:
 * jdk.ExecutionSample (meta profile_type "process_cpu", sample_type
 * "cpu"), async-profiler's profiler.WallClockSample ("wall", "wall"),
 * and allocations ("memory", "alloc_in_new_tlab_bytes", in bytes):
 * jdk.ObjectAllocationInNewTLAB weighs its tlabSize,
 * jdk.ObjectAllocationOutsideTLAB its allocationSize and
 * jdk.ObjectAllocationSample its weight, all three in one profile.
 * Following Pyroscope's conversion:
 * - a func is named class + "." + method, the class as the recording
 *   writes it (java/util/regex/Pattern$Slice.match), "" for a frame with
 *   no class; the line number is kept on the frame;
 * - a sample weighs its count (a wall-clock event's "samples", else 1)
 *   times 10^9 / sample_rate nanoseconds, sample_rate being the caller's,
 *   else 100 Hz;
 * - execution samples of threads in STATE_SLEEPING are not CPU time;
 * - when async-profiler sampled wall-clock time (its jdk.ActiveSetting
 *   "event" is "wall") without writing profiler.WallClockSample events,
 *   its execution samples, of every thread state, also make the wall
 *   profile;
 * - the sampled thread's Java name (else its OS name) is the sample's
 *   thread.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "formats/gzip.h"
#include "formats/jfr.h"
#include "import/importer.h"
#include "module.h"

PG_FUNCTION_INFO_V1(calltree_import_jfr);

/* the largest recording inflated from gzip */
#define JFR_MAX_DECOMPRESSED ((size_t) 1 << 30)
#define JFR_DEFAULT_SAMPLE_RATE 100
#define NANOS_PER_SECOND INT64CONST(1000000000)

static const struct
{
	const char *profile_type;
	const char *sample_type;
}			kind_names[JFR_KIND_COUNT] = {
	{"process_cpu", "cpu"},
	{"wall", "wall"},
	{"memory", "alloc_in_new_tlab_bytes"},	/* the three allocation kinds: one profile */
	{"memory", "alloc_in_new_tlab_bytes"},
	{"memory", "alloc_in_new_tlab_bytes"},
};

/* The event kinds of the allocation profile */
#define JFR_ALLOC_KINDS (JFR_KIND_BIT(JFR_ALLOC_IN_TLAB) | JFR_KIND_BIT(JFR_ALLOC_OUTSIDE_TLAB) | \
						 JFR_KIND_BIT(JFR_ALLOC_SAMPLE))

/* the memo's key of a stack: keys are chunk-local */
typedef struct StackKey
{
	int64		chunk;
	int64		key;
} StackKey;

typedef struct JfrImport
{
	ProfileWriter *writer;
	int64		nanos_per_sample;
	int64		skipped;		/* samples without a stack */
	int64		sleeping;		/* CPU samples of sleeping threads */
	int64		count;
	bool		skip_sleeping;	/* CPU: samples of sleeping threads are not CPU time */
	bool		by_bytes;		/* allocations: a sample weighs its bytes */
	MemoryContext stack_cxt;	/* reset after each new stack */
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
		int32		func = profile_writer_func(import->writer, frame_name(&frames[i]), NULL, NULL);
		int64		frame = profile_writer_frame(import->writer, func, NO_INT,
												 frames[i].line > 0 ? SOME_INT(frames[i].line) : NO_INT,
												 NO_INT, NULL);

		stack = profile_writer_walk_push(import->writer, frame);
	}
	MemoryContextReset(import->stack_cxt);
	profile_writer_memo_put(import->writer, &key, sizeof(key), stack);
	return stack;
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
	{
		import->sleeping++;
		return;
	}
	stack = sample->stack_key != 0 ? sample_stack(import, decoder, sample) : 0;
	if (stack == 0)
	{
		import->skipped++;
		return;
	}
	if (import->by_bytes)
	{
		if (sample->bytes < 0)
			jfr_error(sample->at, "An allocation's size " INT64_FORMAT " is negative.", sample->bytes);
		if (sample->bytes == 0)
			return;				/* weighs nothing */
		weight = sample->bytes;
	}
	else if (sample->count <= 0 || pg_mul_s64_overflow(sample->count, import->nanos_per_sample, &weight))
		jfr_error(sample->at, "A sample's count " INT64_FORMAT " is not positive or too large.", sample->count);
	if (sample->thread)
	{
		thread = pg_any_to_server(sample->thread, strlen(sample->thread), PG_UTF8);
		if (strlen(thread) > WRITER_THREAD_NAME_MAX)
			thread = NULL;
	}
	profile_writer_sample(import->writer, thread, false, 0, stack, weight, 0);
}

/*
 * The profile's meta: its kind, the sample rate (if sample_rate > 0), the
 * caller's meta over them
 */
static Jsonb *
profile_meta(JfrKind kind, int32 sample_rate, const ProfileInfo *info)
{
	JsonbParseState *state = NULL;
	JsonbValue	v;
	Datum		ours;

	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	v.type = jbvString;
	v.val.string.val = "profile_type";
	v.val.string.len = strlen(v.val.string.val);
	pushJsonbValue(&state, WJB_KEY, &v);
	v.val.string.val = (char *) kind_names[kind].profile_type;
	v.val.string.len = strlen(v.val.string.val);
	pushJsonbValue(&state, WJB_VALUE, &v);
	v.val.string.val = "sample_type";
	v.val.string.len = strlen(v.val.string.val);
	pushJsonbValue(&state, WJB_KEY, &v);
	v.val.string.val = (char *) kind_names[kind].sample_type;
	v.val.string.len = strlen(v.val.string.val);
	pushJsonbValue(&state, WJB_VALUE, &v);
	if (sample_rate > 0)
	{
		v.val.string.val = "sample_rate";
		v.val.string.len = strlen(v.val.string.val);
		pushJsonbValue(&state, WJB_KEY, &v);
		v.type = jbvNumeric;
		v.val.numeric = int64_to_numeric(sample_rate);
		pushJsonbValue(&state, WJB_VALUE, &v);
	}
	ours = JsonbPGetDatum(JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL)));
	if (info->meta == NULL)
		return DatumGetJsonbP(ours);
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, ours, JsonbPGetDatum(info->meta)));
}

/*
 * The profile of one kind, from the events of the kinds in events (a wall
 * profile of async-profiler's wall-clock mode is made of execution samples).
 */
static int64
import_kind(const uint8 *data, size_t len, JfrKind kind, uint32 events, int32 sample_rate,
			const ProfileInfo *info)
{
	ProfileInfo profile_info = *info;
	JfrImport	import;

	memset(&import, 0, sizeof(import));
	import.skip_sleeping = kind == JFR_CPU;
	import.by_bytes = (events & JFR_ALLOC_KINDS) != 0;
	profile_info.meta = profile_meta(kind, import.by_bytes ? 0 : sample_rate, info);
	profile_info.weight_unit = import.by_bytes ? "bytes" : "nanoseconds";
	import.nanos_per_sample = NANOS_PER_SECOND / sample_rate;
	import.stack_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree JFR stack",
											 ALLOCSET_DEFAULT_SIZES);
	import.writer = profile_writer_begin(&profile_info);
	(void) jfr_decode(data, len, events, (size_t) calltree_import_work_mem * 1024,
					  write_sample, &import);
	if (import.skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " JFR %s sample%s without a stack",
						import.skipped, kind_names[kind].sample_type, import.skipped == 1 ? "" : "s")));
	return profile_writer_finish(import.writer);
}

/*
 * Imports a recording, already decompressed: one profile per kind of
 * sample present, CPU first, each in a memory context of its own.  The
 * ids into *ids; their number.
 */
static int
jfr_import_all(const ProfileInfo *info, const char *data, size_t len, int32 sample_rate, int64 **ids)
{
	MemoryContext caller = CurrentMemoryContext;
	uint32		present;
	int			count = 0;

	if (sample_rate <= 0 || sample_rate > NANOS_PER_SECOND)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sample_rate %d is out of range", sample_rate),
				 errhint("Give the recording's sampling frequency in Hz, from 1 to 1000000000.")));
	/* a first pass finds the kinds present, and checks the whole recording */
	present = jfr_decode((const uint8 *) data, len, 0, (size_t) calltree_import_work_mem * 1024, NULL, NULL);
	*ids = palloc(sizeof(int64) * JFR_KIND_COUNT);
	for (int k = 0; k < JFR_KIND_COUNT; k++)
	{
		MemoryContext cxt;
		uint32		events = JFR_KIND_BIT(k);

		if (k == JFR_WALL && (present & JFR_KIND_BIT(JFR_WALL)) == 0 &&
			(present & JFR_WALL_MODE) && (present & JFR_KIND_BIT(JFR_CPU)))
			events = JFR_KIND_BIT(JFR_CPU);
		else if (k == JFR_ALLOC_IN_TLAB)
		{
			events = present & JFR_ALLOC_KINDS;
			if (events == 0)
				continue;
		}
		else if (k == JFR_ALLOC_OUTSIDE_TLAB || k == JFR_ALLOC_SAMPLE)
			continue;			/* in the allocation profile */
		else if ((present & JFR_KIND_BIT(k)) == 0)
			continue;
		cxt = AllocSetContextCreate(caller, "calltree JFR profile", ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(cxt);
		(*ids)[count++] = import_kind((const uint8 *) data, len, (JfrKind) k, events, sample_rate, info);
		MemoryContextSwitchTo(caller);
		MemoryContextDelete(cxt);
	}
	return count;
}

/*
 * The Importer's import, for import_profile and import_stream: the first
 * profile's id, with a NOTICE naming the others.
 */
static int64
jfr_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	int64	   *ids;
	int			count = jfr_import_all(info, data, len, JFR_DEFAULT_SAMPLE_RATE, &ids);
	StringInfoData others;

	if (count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("JFR recording holds no execution, wall-clock or allocation sample"),
				 errhint("import_jfr() accepts such a recording and returns no id.")));
	if (count > 1)
	{
		initStringInfo(&others);
		for (int i = 1; i < count; i++)
			appendStringInfo(&others, "%s" INT64_FORMAT, i > 1 ? ", " : "", ids[i]);
		ereport(NOTICE,
				(errmsg("imported %d JFR profiles; the first, " INT64_FORMAT ", is returned, the others are %s",
						count, ids[0], others.data),
				 errhint("import_jfr() returns every id.")));
	}
	return ids[0];
}

const Importer jfr_importer = {
	.name = "jfr",
	.format = "jfr",
	.binary = true,
	.import = jfr_import,
};

/*
 * import_jfr(data bytea, name text, meta jsonb, sample_rate int) → bigint[],
 * every profile's id: CPU, wall, allocations
 */
Datum
calltree_import_jfr(PG_FUNCTION_ARGS)
{
	ProfileInfo info;
	const ImportOptions keep = {0};	/* a file imported before: said, and kept */
	bytea	   *raw;
	const char *bytes;
	size_t		len;
	int64	   *ids;
	int			count;
	Datum	   *elements;
	int32		sample_rate = PG_ARGISNULL(3) ? JFR_DEFAULT_SAMPLE_RATE : PG_GETARG_INT32(3);

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	raw = PG_GETARG_BYTEA_PP(0);
	bytes = VARDATA_ANY(raw);
	len = VARSIZE_ANY_EXHDR(raw);
	if (gzip_is_compressed(bytes, len))
		bytes = gzip_decompress(bytes, len, JFR_MAX_DECOMPRESSED, "JFR", &len);
	profile_info_from_args(fcinfo, 1, 2, jfr_importer.format, &info);
	content_note(&info, content_digest(bytes, len), &keep);
	count = jfr_import_all(&info, bytes, len, sample_rate, &ids);
	elements = palloc(sizeof(Datum) * Max(count, 1));
	for (int i = 0; i < count; i++)
		elements[i] = Int64GetDatum(ids[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(elements, count, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE));
}
