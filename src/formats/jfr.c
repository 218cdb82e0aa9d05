/*
 * jfr.c
 *	  A reader of Java Flight Recorder recordings: chunks, the metadata
 *	  event (read by jfr_metadata.c), constant pools and sample events
 *	  (see jfr.h; what the two files share: jfr_internal.h).
 *
 * Values are read by their type as the metadata describes it: a
 * primitive, a string, a constant-pool reference (a key), an array, or a
 * struct whose fields are read in order.  Constant pools are indexed as
 * sorted (key, offset) arrays per type; an entry is decoded when a sample
 * needs it.
 */
#include "postgres.h"

#include "common/int.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "formats/jfr.h"

#include "formats/jfr_internal.h"

#define NANOS_PER_SECOND INT64CONST(1000000000)

void
jfr_error(size_t at, const char *detail_fmt,...)
{
	char		detail[256];
	va_list		args;

	va_start(args, detail_fmt);
	vsnprintf(detail, sizeof(detail), detail_fmt, args);
	va_end(args);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid JFR data at byte %zu", at),
			 errdetail("%s", detail),
			 errhint("The data may be truncated or corrupt, or not a Java Flight Recorder recording.")));
	pg_unreachable();
}

bool
jfr_is_recording(const char *data, size_t len)
{
	return len >= JFR_MAGIC_LEN && memcmp(data, JFR_MAGIC, JFR_MAGIC_LEN) == 0;
}

/* ---------------------------------------------------------------- primitives */

static void
need(const JfrReader *r, size_t n)
{
	if (r->pos > r->end || r->end - r->pos < n)
		jfr_error(r->pos, "The data ends inside a value (%zu bytes needed, %zu left).",
				  n, r->pos > r->end ? 0 : r->end - r->pos);
}

static uint8
read_u8(JfrReader *r)
{
	need(r, 1);
	return r->data[r->pos++];
}

static uint64
read_fixed(JfrReader *r, int bytes)
{
	uint64		v = 0;

	need(r, bytes);
	for (int i = 0; i < bytes; i++)
		v = (v << 8) | r->data[r->pos++];
	return v;
}

/* JFR's LEB128: seven bits a byte, at most nine bytes, the ninth whole */
static uint64
read_varint(JfrReader *r)
{
	uint64		v = 0;

	for (int i = 0; i < 8; i++)
	{
		uint8		b = read_u8(r);

		v |= (uint64) (b & 0x7F) << (7 * i);
		if ((b & 0x80) == 0)
			return v;
	}
	return v | ((uint64) read_u8(r) << 56);
}

/* An integer of bytes bytes when not compressed, sign-extended */
int64
jfr_read_int(JfrReader *r, int bytes)
{
	uint64		v;

	if (r->compressed)
		return (int64) read_varint(r);
	v = read_fixed(r, bytes);
	if (bytes < 8 && (v & ((uint64) 1 << (bytes * 8 - 1))))
		v |= ~(uint64) 0 << (bytes * 8);
	return (int64) v;
}

/* A length or count, checked against the bytes left (each item takes at least one) */
int64
jfr_read_count(JfrReader *r, const char *what)
{
	size_t		at = r->pos;
	int64		n = jfr_read_int(r, 4);

	if (n < 0 || (uint64) n > r->end - r->pos)
		jfr_error(at, "The %s " INT64_FORMAT " is negative or larger than the bytes left.", what, n);
	return n;
}

void *
jfr_alloc(JfrDecoder *decoder, size_t size, size_t at)
{
	decoder->memory_used += size;
	if (decoder->memory_used > decoder->memory_limit)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("JFR chunk at byte %zu needs more than %zu kB of memory to read", at,
						decoder->memory_limit / 1024),
				 errhint("Raise calltree.import_work_mem, or record shorter chunks.")));
	return palloc(size);
}

void *
jfr_grow(JfrDecoder *decoder, void *array, int *cap, int count, size_t elem, size_t at)
{
	void	   *bigger;

	if (count < *cap)
		return array;
	if (*cap >= (int) (MaxAllocSize / elem / 2))
		jfr_error(at, "Too many entries.");
	*cap = *cap ? *cap * 2 : 8;
	bigger = jfr_alloc(decoder, elem * *cap, at);
	if (count > 0)
		memcpy(bigger, array, elem * count);
	return bigger;
}

/* ---------------------------------------------------------------- strings */

static void
append_utf8(StringInfo buf, uint32 c)
{
	unsigned char utf8[8];

	if (c == 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		c = 0xFFFD;				/* no NUL in text, no lone surrogates */
	unicode_to_utf8(c, utf8);
	appendBinaryStringInfo(buf, (char *) utf8, pg_utf_mblen(utf8));
}

static const char *lookup_string(JfrDecoder *decoder, int64 key, size_t at);

/*
 * A string value, as UTF-8 without NUL bytes; NULL for a null string.
 * Skips it when out is false.
 */
const char *
jfr_read_string(JfrDecoder *decoder, JfrReader *r, bool out)
{
	size_t		at = r->pos;
	uint8		encoding = read_u8(r);
	StringInfoData buf;
	int64		n;

	switch (encoding)
	{
		case 0:
			return NULL;
		case 1:
			return "";
		case 2:
			n = jfr_read_int(r, 8);
			return out ? lookup_string(decoder, n, at) : NULL;
		case 3:
		case 5:
			n = jfr_read_count(r, "string length");
			if (!out)
			{
				r->pos += n;
				return NULL;
			}
			initStringInfo(&buf);
			for (int64 i = 0; i < n; i++)
			{
				uint8		b = r->data[r->pos + i];

				if (encoding == 5 && b >= 0x80)
					append_utf8(&buf, b);
				else
					appendStringInfoChar(&buf, b ? b : '?');
			}
			r->pos += n;
			if (encoding == 3 && !pg_verify_mbstr(PG_UTF8, buf.data, buf.len, true))
				jfr_error(at, "A UTF-8 string is not valid UTF-8.");
			return buf.data;
		case 4:
			n = jfr_read_count(r, "string length");
			initStringInfo(&buf);
			for (int64 i = 0; i < n; i++)
			{
				uint32		c = (uint32) jfr_read_int(r, 2);

				if (out)
					append_utf8(&buf, c);
			}
			return out ? buf.data : NULL;
		default:
			jfr_error(at, "Unknown string encoding %d.", encoding);
	}
}

/* ---------------------------------------------------------------- values */

static void skip_value(JfrDecoder *decoder, JfrReader *r, const JfrClass *cls, int depth);

/*
 * Counts a field read.  Structs without fields take no bytes, so types
 * nesting wide and deep could make a few bytes cost an exponential
 * number of fields: a chunk reads at most a number proportional to its
 * size, far more than real recordings need.
 */
static void
step(JfrDecoder *decoder, size_t at)
{
	if (--decoder->steps_left < 0)
		jfr_error(at, "The chunk's types nest so wide and deep that its values cost too much to read.");
}

static void
skip_field(JfrDecoder *decoder, JfrReader *r, const JfrField *field, int depth)
{
	int64		n = field->array ? jfr_read_count(r, "array length") : 1;

	for (int64 i = 0; i < n; i++)
	{
		step(decoder, r->pos);
		if (field->constant_pool)
			(void) jfr_read_int(r, 8);
		else
			skip_value(decoder, r, &decoder->classes[field->class_index], depth + 1);
	}
}

/* A primitive's value as a number (0 for floating point); false if cls is not one */
static bool
read_primitive(JfrDecoder *decoder, JfrReader *r, const JfrClass *cls, int64 *num)
{
	*num = 0;
	switch (cls->type)
	{
		case JT_BOOLEAN:
		case JT_BYTE:
			*num = (int8) read_u8(r);
			return true;
		case JT_CHAR:
		case JT_SHORT:
			*num = jfr_read_int(r, 2);
			return true;
		case JT_INT:
			*num = jfr_read_int(r, 4);
			return true;
		case JT_LONG:
			*num = jfr_read_int(r, 8);
			return true;
		case JT_FLOAT:
			(void) read_fixed(r, 4);
			return true;
		case JT_DOUBLE:
			(void) read_fixed(r, 8);
			return true;
		case JT_STRING:
			(void) jfr_read_string(decoder, r, false);
			return true;
		case JT_STRUCT:
			return false;
	}
	return false;
}

static void
skip_value(JfrDecoder *decoder, JfrReader *r, const JfrClass *cls, int depth)
{
	int64		ignored;

	if (depth > JFR_MAX_DEPTH)
		jfr_error(r->pos, "Values of type %s nest more than %d deep.", cls->name, JFR_MAX_DEPTH);
	if (read_primitive(decoder, r, cls, &ignored))
		return;
	for (int i = 0; i < cls->nfields; i++)
		skip_field(decoder, r, &cls->fields[i], depth);
}

/*
 * A struct's fields: each one's start, and for a scalar integer or
 * constant-pool reference its value.
 */
void
jfr_read_struct(JfrDecoder *decoder, JfrReader *r, const JfrClass *cls, JfrValue *values)
{
	for (int i = 0; i < cls->nfields; i++)
	{
		const JfrField *field = &cls->fields[i];
		const JfrClass *type = &decoder->classes[field->class_index];

		step(decoder, r->pos);
		values[i].at = r->pos;
		values[i].num = 0;
		if (field->array)
			skip_field(decoder, r, field, 0);
		else if (field->constant_pool)
			values[i].num = jfr_read_int(r, 8);
		else if (!read_primitive(decoder, r, type, &values[i].num))
			skip_value(decoder, r, type, 1);
	}
}

int
jfr_field_index(const JfrClass *cls, const char *name)
{
	for (int i = 0; i < cls->nfields; i++)
		if (strcmp(cls->fields[i].name, name) == 0)
			return i;
	return -1;
}

int
jfr_class_by_name(const JfrDecoder *decoder, const char *name)
{
	for (int i = 0; i < decoder->nclasses; i++)
		if (strcmp(decoder->classes[i].name, name) == 0)
			return i;
	return -1;
}


/* A class by its id, -1 if none: a search of the sorted ids */
int
jfr_class_by_id(const JfrDecoder *decoder, int64 id)
{
	JfrPoolEntry probe = {id, 0};
	JfrPoolEntry *found;

	if (decoder->class_ids == NULL)
		return -1;
	found = bsearch(&probe, decoder->class_ids, decoder->nclasses, sizeof(JfrPoolEntry), jfr_compare_entries);
	return found ? (int) found->offset : -1;
}

/* ---------------------------------------------------------------- constant pools */

int
jfr_compare_entries(const void *a, const void *b)
{
	int64		ka = ((const JfrPoolEntry *) a)->key;
	int64		kb = ((const JfrPoolEntry *) b)->key;

	return ka < kb ? -1 : ka > kb;
}

/* The offset of an entry of a pool, 0 if the pool has no such key */
static size_t
pool_lookup(const JfrClass *cls, int64 key)
{
	JfrPoolEntry probe = {key, 0};
	JfrPoolEntry *found;

	if (cls->npool == 0)
		return 0;
	found = bsearch(&probe, cls->pool, cls->npool, sizeof(JfrPoolEntry), jfr_compare_entries);
	return found ? found->offset : 0;
}

/* A reader over the chunk at an entry's offset */
void
jfr_chunk_reader(const JfrDecoder *decoder, JfrReader *r, size_t at)
{
	r->data = decoder->data;
	r->pos = at;
	r->end = decoder->chunk_end;
	r->compressed = decoder->compressed;
}

static const char *
lookup_string(JfrDecoder *decoder, int64 key, size_t at)
{
	JfrReader	r;
	size_t		offset;

	if (decoder->string_class < 0 ||
		(offset = pool_lookup(&decoder->classes[decoder->string_class], key)) == 0)
		jfr_error(at, "A string refers to constant " INT64_FORMAT ", which is not in the pool.", key);
	jfr_chunk_reader(decoder, &r, offset);
	if (r.data[r.pos] == 2)
		jfr_error(at, "A pooled string refers to another pooled string.");
	return jfr_read_string(decoder, &r, true);
}

/*
 * One constant-pool event: every entry indexed by its type's pool.  The
 * offset of the previous constant-pool event, or 0 for the first.
 */
static size_t
read_constant_pool(JfrDecoder *decoder, size_t at)
{
	JfrReader	r;
	int64		size;
	int64		delta;
	int64		npools;

	jfr_chunk_reader(decoder, &r, at);
	size = jfr_read_int(&r, 4);
	if (size <= 0 || (uint64) size > decoder->chunk_end - at)
		jfr_error(at, "A constant pool's size " INT64_FORMAT " runs past its chunk.", size);
	r.end = at + size;
	if (jfr_read_int(&r, 8) != JFR_EVENT_CONSTANT_POOL)
		jfr_error(at, "The chunk header's constant pool offset does not point at a constant pool.");
	(void) jfr_read_int(&r, 8);		/* start */
	(void) jfr_read_int(&r, 8);		/* duration */
	delta = jfr_read_int(&r, 8);
	(void) jfr_read_int(&r, 1);		/* flush */
	npools = jfr_read_count(&r, "count of pools");
	for (int64 p = 0; p < npools; p++)
	{
		size_t		type_at = r.pos;
		int			ci = jfr_class_by_id(decoder, jfr_read_int(&r, 8));
		int64		n = jfr_read_count(&r, "count of constants");
		JfrClass   *cls;

		if (ci < 0)
			jfr_error(type_at, "A constant pool is of a type the metadata does not describe.");
		cls = &decoder->classes[ci];
		for (int64 i = 0; i < n; i++)
		{
			JfrPoolEntry *entry;

			CHECK_FOR_INTERRUPTS();
			cls->pool = jfr_grow(decoder, cls->pool, &cls->pool_cap, cls->npool, sizeof(JfrPoolEntry), at);
			entry = &cls->pool[cls->npool++];
			entry->key = jfr_read_int(&r, 8);
			entry->offset = r.pos;
			skip_value(decoder, &r, cls, 0);
		}
	}
	if (delta > 0 || (delta < 0 && (uint64) -delta > at - decoder->chunk_start - JFR_HEADER_SIZE))
		jfr_error(at, "The previous constant pool's offset " INT64_FORMAT " is not before this one.", delta);
	return delta == 0 ? 0 : at + delta;
}

static void
sort_pools(JfrDecoder *decoder)
{
	for (int i = 0; i < decoder->nclasses; i++)
		if (decoder->classes[i].npool > 1)
			qsort(decoder->classes[i].pool, decoder->classes[i].npool, sizeof(JfrPoolEntry), jfr_compare_entries);
}

/* ---------------------------------------------------------------- samples */

/* The fields of the types a sample needs, -1 where a type lacks one */
typedef struct JfrLayout
{
	int			event_class[JFR_KIND_COUNT];
	int			event_thread[JFR_KIND_COUNT];
	int			event_stack[JFR_KIND_COUNT];
	int			event_state[JFR_KIND_COUNT];
	int			event_samples[JFR_KIND_COUNT];
	int			event_bytes[JFR_KIND_COUNT];
	int			event_duration[JFR_KIND_COUNT];
	int			event_context[JFR_KIND_COUNT];
	int			event_span_id[JFR_KIND_COUNT];
	int			event_span_name[JFR_KIND_COUNT];
	int			setting_class;	/* jdk.ActiveSetting, -1 if absent */
} JfrLayout;

static const char *const kind_events[JFR_KIND_COUNT] = {
	"jdk.ExecutionSample",
	"profiler.WallClockSample",
	"jdk.ObjectAllocationInNewTLAB",
	"jdk.ObjectAllocationOutsideTLAB",
	"jdk.ObjectAllocationSample",
	"profiler.LiveObject",
	"jdk.OldObjectSample",
	"jdk.JavaMonitorEnter",
	"jdk.ThreadPark",
};

/* The field of an allocation event holding its bytes, NULL for other kinds */
static const char *const kind_bytes[JFR_KIND_COUNT] = {
	NULL,
	NULL,
	"tlabSize",
	"allocationSize",
	"weight",
	NULL,
	NULL,
	NULL,
	NULL,
};

static void
find_layout(const JfrDecoder *decoder, JfrLayout *layout)
{
	for (int k = 0; k < JFR_KIND_COUNT; k++)
	{
		int			ci = jfr_class_by_name(decoder, kind_events[k]);
		const JfrClass *cls = ci >= 0 ? &decoder->classes[ci] : NULL;

		layout->event_class[k] = ci;
		layout->event_thread[k] = cls ? jfr_field_index(cls, "sampledThread") : -1;
		if (cls && layout->event_thread[k] < 0)
			layout->event_thread[k] = jfr_field_index(cls, "eventThread");
		layout->event_stack[k] = cls ? jfr_field_index(cls, "stackTrace") : -1;
		layout->event_state[k] = cls ? jfr_field_index(cls, "state") : -1;
		layout->event_samples[k] = cls ? jfr_field_index(cls, "samples") : -1;
		layout->event_bytes[k] = cls && kind_bytes[k] ? jfr_field_index(cls, kind_bytes[k]) : -1;
		layout->event_duration[k] = cls && (k == JFR_MONITOR_ENTER || k == JFR_THREAD_PARK) ?
			jfr_field_index(cls, "duration") : -1;
		layout->event_context[k] = cls ? jfr_field_index(cls, "contextId") : -1;
		layout->event_span_id[k] = cls ? jfr_field_index(cls, "spanId") : -1;
		layout->event_span_name[k] = cls ? jfr_field_index(cls, "spanName") : -1;
	}
	layout->setting_class = jfr_class_by_name(decoder, "jdk.ActiveSetting");
}

/* A pooled struct's fields, NULL if the pool lacks the key */
static JfrValue *
pooled_struct(JfrDecoder *decoder, const JfrField *ref, int64 key, const JfrClass **cls)
{
	JfrReader	r;
	size_t		offset;
	JfrValue   *values;

	*cls = &decoder->classes[ref->class_index];
	offset = pool_lookup(*cls, key);
	if (offset == 0)
		return NULL;
	jfr_chunk_reader(decoder, &r, offset);
	values = palloc(sizeof(JfrValue) * Max((*cls)->nfields, 1));
	jfr_read_struct(decoder, &r, *cls, values);
	return values;
}

/* A string field of a struct read by read_struct, NULL if absent */
const char *
jfr_string_field(JfrDecoder *decoder, const JfrClass *cls, const JfrValue *values, const char *name)
{
	int			i = jfr_field_index(cls, name);
	JfrReader	r;

	if (i < 0 || cls->fields[i].array || cls->fields[i].constant_pool ||
		decoder->classes[cls->fields[i].class_index].type != JT_STRING)
		return NULL;
	jfr_chunk_reader(decoder, &r, values[i].at);
	return jfr_read_string(decoder, &r, true);
}

/*
 * The text a pooled reference's struct names by a string field, through
 * one more pooled reference if the field is one (a Class's name is a
 * Symbol, whose string is "string").
 */
static const char *
pooled_name(JfrDecoder *decoder, const JfrField *ref, int64 key, const char *field, int hops)
{
	const JfrClass *cls;
	JfrValue   *values = pooled_struct(decoder, ref, key, &cls);
	int			i;

	if (values == NULL)
		return NULL;
	i = jfr_field_index(cls, field);
	if (i < 0)
		return NULL;
	if (cls->fields[i].constant_pool && !cls->fields[i].array)
		return hops > 0 ? pooled_name(decoder, &cls->fields[i], values[i].num, "string", hops - 1) : NULL;
	return jfr_string_field(decoder, cls, values, field);
}

static const char *
thread_name(JfrDecoder *decoder, const JfrField *ref, int64 key)
{
	const JfrClass *cls;
	JfrValue   *values = pooled_struct(decoder, ref, key, &cls);
	const char *name;

	if (values == NULL)
		return NULL;
	name = jfr_string_field(decoder, cls, values, "javaName");
	if (name == NULL || name[0] == '\0')
		name = jfr_string_field(decoder, cls, values, "osName");
	return name;
}

/*
 * A duration in the chunk's ticks, in nanoseconds: exact, as the quotient
 * and remainder by the ticks of a second are converted apart.
 */
static int64
ticks_to_nanos(const JfrDecoder *decoder, int64 ticks, size_t at)
{
	int64		tps = decoder->ticks_per_second;
	int64		nanos;

	if (ticks < 0)
		jfr_error(at, "An event's duration " INT64_FORMAT " is negative.", ticks);
	if (tps == NANOS_PER_SECOND)
		return ticks;
	/* the remainder times 10^9 must fit: clocks up to 9 GHz */
	if (tps <= 0 || tps > 9 * NANOS_PER_SECOND)
		jfr_error(at, "The chunk's clock counts " INT64_FORMAT " ticks a second, which is not a clock this reader knows.",
				  tps);
	if (pg_mul_s64_overflow(ticks / tps, NANOS_PER_SECOND, &nanos) ||
		pg_add_s64_overflow(nanos, ticks % tps * NANOS_PER_SECOND / tps, &nanos))
		jfr_error(at, "An event's duration " INT64_FORMAT " is too long.", ticks);
	return nanos;
}

static void
read_sample(JfrDecoder *decoder, const JfrLayout *layout, JfrKind kind, JfrReader *r,
			JfrSampleHandler handler, void *arg)
{
	const JfrClass *cls = &decoder->classes[layout->event_class[kind]];
	JfrValue   *values = palloc(sizeof(JfrValue) * Max(cls->nfields, 1));
	JfrSample	sample;
	int			f;

	memset(&sample, 0, sizeof(sample));
	sample.at = r->pos;
	jfr_read_struct(decoder, r, cls, values);
	sample.kind = kind;
	sample.chunk = decoder->chunk;
	sample.count = 1;
	if ((f = layout->event_samples[kind]) >= 0 && !cls->fields[f].array && !cls->fields[f].constant_pool)
		sample.count = values[f].num;
	if ((f = layout->event_bytes[kind]) >= 0 && !cls->fields[f].array && !cls->fields[f].constant_pool)
		sample.bytes = values[f].num;
	if ((f = layout->event_duration[kind]) >= 0 && !cls->fields[f].array && !cls->fields[f].constant_pool)
		sample.duration = ticks_to_nanos(decoder, values[f].num, values[f].at);
	if ((f = layout->event_context[kind]) >= 0 && !cls->fields[f].array && !cls->fields[f].constant_pool)
		sample.context_id = values[f].num;
	if ((f = layout->event_span_id[kind]) >= 0 && !cls->fields[f].array && !cls->fields[f].constant_pool)
		sample.span_id = values[f].num;
	if ((f = layout->event_span_name[kind]) >= 0 && !cls->fields[f].array && !cls->fields[f].constant_pool)
		sample.span_name = values[f].num;
	if ((f = layout->event_stack[kind]) >= 0 && cls->fields[f].constant_pool && !cls->fields[f].array)
		sample.stack_key = values[f].num;
	if ((f = layout->event_thread[kind]) >= 0 && cls->fields[f].constant_pool && !cls->fields[f].array)
		sample.thread = thread_name(decoder, &cls->fields[f], values[f].num);
	if ((f = layout->event_state[kind]) >= 0 && cls->fields[f].constant_pool && !cls->fields[f].array)
		sample.state = pooled_name(decoder, &cls->fields[f], values[f].num, "name", 1);
	{
		MemoryContext sample_cxt = MemoryContextSwitchTo(decoder->caller_cxt);

		handler(arg, decoder, &sample);
		MemoryContextSwitchTo(sample_cxt);
	}
}

int
jfr_stack_frames(JfrDecoder *decoder, const JfrSample *sample, JfrFrame **frames)
{
	int			ci = decoder->stack_trace_class;
	const JfrClass *stack_class;
	const JfrClass *frame_class;
	JfrReader	r;
	size_t		offset;
	int			fi;
	int64		n;
	JfrValue   *values;
	int			method_f,
				line_f;

	*frames = NULL;
	if (ci < 0 || (offset = pool_lookup(&decoder->classes[ci], sample->stack_key)) == 0)
		return 0;
	stack_class = &decoder->classes[ci];
	fi = jfr_field_index(stack_class, "frames");
	if (fi < 0 || !stack_class->fields[fi].array || stack_class->fields[fi].constant_pool)
		jfr_error(offset, "The stack trace type has no array of frames.");
	frame_class = &decoder->classes[stack_class->fields[fi].class_index];
	method_f = jfr_field_index(frame_class, "method");
	line_f = jfr_field_index(frame_class, "lineNumber");
	if (method_f < 0 || !frame_class->fields[method_f].constant_pool || frame_class->fields[method_f].array)
		jfr_error(offset, "The stack frame type has no method.");

	values = palloc(sizeof(JfrValue) * Max(stack_class->nfields, Max(frame_class->nfields, 1)));
	jfr_chunk_reader(decoder, &r, offset);
	jfr_read_struct(decoder, &r, stack_class, values);
	jfr_chunk_reader(decoder, &r, values[fi].at);
	n = jfr_read_count(&r, "count of frames");
	*frames = palloc(sizeof(JfrFrame) * Max(n, 1));
	for (int64 i = 0; i < n; i++)
	{
		const JfrField *method_ref = &frame_class->fields[method_f];
		const JfrClass *method_class;
		JfrValue   *method;
		JfrFrame   *frame = &(*frames)[i];
		int			type_f,
					name_f;

		jfr_read_struct(decoder, &r, frame_class, values);
		frame->line = line_f >= 0 ? (int32) values[line_f].num : 0;
		frame->class_name = "";
		frame->method = "unknown";
		method = pooled_struct(decoder, method_ref, values[method_f].num, &method_class);
		if (method == NULL)
			continue;
		type_f = jfr_field_index(method_class, "type");
		name_f = jfr_field_index(method_class, "name");
		if (name_f >= 0 && method_class->fields[name_f].constant_pool)
			frame->method = pooled_name(decoder, &method_class->fields[name_f], method[name_f].num, "string", 0);
		if (type_f >= 0 && method_class->fields[type_f].constant_pool)
			frame->class_name = pooled_name(decoder, &method_class->fields[type_f], method[type_f].num, "name", 1);
		if (frame->method == NULL)
			frame->method = "unknown";
		if (frame->class_name == NULL)
			frame->class_name = "";
	}
	return (int) n;
}

/* ---------------------------------------------------------------- chunks */

static void
read_events(JfrDecoder *decoder, uint32 kinds, uint32 *present, JfrSampleHandler handler, void *arg)
{
	JfrLayout	layout;
	int64		sample_type;
	size_t		pos = decoder->chunk_start + JFR_HEADER_SIZE;
	MemoryContext sample_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree JFR sample",
													 ALLOCSET_SMALL_SIZES);

	find_layout(decoder, &layout);
	sample_type = layout.event_class[JFR_CPU] >= 0 ? decoder->classes[layout.event_class[JFR_CPU]].id : -1;
	while (pos < decoder->chunk_end)
	{
		JfrReader	r;
		int64		size;
		int64		type;

		CHECK_FOR_INTERRUPTS();
		jfr_chunk_reader(decoder, &r, pos);
		size = jfr_read_int(&r, 4);
		if (size <= 0 || (uint64) size > decoder->chunk_end - pos)
			jfr_error(pos, "An event's size " INT64_FORMAT " is not positive or runs past its chunk.", size);
		r.end = pos + size;
		type = jfr_read_int(&r, 8);
		if (layout.setting_class >= 0 && decoder->classes[layout.setting_class].id == type)
		{
			MemoryContext caller = MemoryContextSwitchTo(sample_cxt);

			jfr_read_setting(decoder, &decoder->classes[layout.setting_class], &r, sample_type);
			MemoryContextSwitchTo(caller);
			MemoryContextReset(sample_cxt);
		}
		for (int k = 0; k < JFR_KIND_COUNT; k++)
			if (layout.event_class[k] >= 0 && decoder->classes[layout.event_class[k]].id == type)
			{
				*present |= JFR_KIND_BIT(k);
				if (kinds & JFR_KIND_BIT(k))
				{
					MemoryContext caller = MemoryContextSwitchTo(sample_cxt);

					read_sample(decoder, &layout, (JfrKind) k, &r, handler, arg);
					MemoryContextSwitchTo(caller);
					MemoryContextReset(sample_cxt);
				}
			}
		pos += size;
	}
	MemoryContextDelete(sample_cxt);
}

/*
 * A chunk's start (its header's nanoseconds since 1970), kept when it is
 * the earliest: a recording starts when its first chunk does.  A start of
 * 0 or before 1970 says nothing.
 */
static void
note_start(JfrDecoder *decoder, int64 start_nanos)
{
	if (start_nanos > 0 && (decoder->start_nanos == 0 || start_nanos < decoder->start_nanos))
		decoder->start_nanos = start_nanos;
}

/* One chunk, whose header is at start; the offset past it */
static size_t
read_chunk(JfrDecoder *decoder, size_t start, uint32 kinds, uint32 *present,
		   JfrSampleHandler handler, void *arg)
{
	JfrReader	r = {decoder->data, start, decoder->len, false};
	int64		size;
	int64		cp_offset;
	int64		meta_offset;
	int			major;
	size_t		cp;

	if (decoder->len - start < JFR_HEADER_SIZE)
		jfr_error(start, "A chunk header needs %d bytes; %zu are left.", JFR_HEADER_SIZE, decoder->len - start);
	if (memcmp(decoder->data + start, JFR_MAGIC, JFR_MAGIC_LEN) != 0)
		jfr_error(start, "A chunk does not begin with the magic bytes FLR\\0.");
	r.pos += JFR_MAGIC_LEN;
	major = (int) read_fixed(&r, 2);
	(void) read_fixed(&r, 2);
	if (major != 1 && major != 2)
		jfr_error(start + 4, "Format version %d is not one this reader knows (1 or 2).", major);
	size = (int64) read_fixed(&r, 8);
	cp_offset = (int64) read_fixed(&r, 8);
	meta_offset = (int64) read_fixed(&r, 8);
	note_start(decoder, (int64) read_fixed(&r, 8));
	r.pos = start + 56;			/* past the duration in nanoseconds and the start in ticks */
	decoder->ticks_per_second = (int64) read_fixed(&r, 8);
	if (size < JFR_HEADER_SIZE || (uint64) size > decoder->len - start)
		jfr_error(start + 8, "The chunk's size " INT64_FORMAT " is too small or runs past the data (%zu bytes left).",
				  size, decoder->len - start);
	if (cp_offset < JFR_HEADER_SIZE || cp_offset >= size || meta_offset < JFR_HEADER_SIZE || meta_offset >= size)
		jfr_error(start + 16, "The chunk's constant pool or metadata offset is outside the chunk.");
	r.pos = start + 64;
	decoder->compressed = (read_fixed(&r, 4) & 1) != 0;
	decoder->chunk_start = start;
	decoder->chunk_end = start + size;
	decoder->classes = NULL;
	decoder->class_ids = NULL;
	decoder->nclasses = decoder->classes_cap = 0;
	decoder->memory_used = 0;
	decoder->steps_left = (int64) size * 64 + 1000000;

	jfr_read_metadata(decoder, start + meta_offset);
	for (cp = start + cp_offset; cp != 0;)
		cp = read_constant_pool(decoder, cp);
	sort_pools(decoder);
	read_events(decoder, kinds, present, handler, arg);
	return start + size;
}

/* Every chunk of a recording; the mask of the kinds present */
static uint32
decode_chunks(JfrDecoder *decoder, const uint8 *data, size_t len, uint32 kinds, size_t memory_limit,
			  JfrSampleHandler handler, void *arg)
{
	uint32		present = 0;
	size_t		pos = 0;
	MemoryContext caller = CurrentMemoryContext;

	memset(decoder, 0, sizeof(*decoder));
	decoder->data = data;
	decoder->len = len;
	decoder->memory_limit = memory_limit;
	decoder->caller_cxt = caller;
	if (!jfr_is_recording((const char *) data, len))
		jfr_error(0, "The data does not begin with the magic bytes FLR\\0.");
	while (pos < len)
	{
		decoder->chunk_cxt = AllocSetContextCreate(caller, "calltree JFR chunk", ALLOCSET_DEFAULT_SIZES);
		MemoryContextSwitchTo(decoder->chunk_cxt);
		pos = read_chunk(decoder, pos, kinds, &present, handler, arg);
		MemoryContextSwitchTo(caller);
		MemoryContextDelete(decoder->chunk_cxt);
		decoder->chunk++;
	}
	if (decoder->settings.event == JFR_EVENT_WALL_TIME)
		present |= JFR_WALL_MODE;
	return present;
}

uint32
jfr_decode(const uint8 *data, size_t len, uint32 kinds, size_t memory_limit,
		   JfrSampleHandler handler, void *arg)
{
	JfrDecoder	decoder;

	return decode_chunks(&decoder, data, len, kinds, memory_limit, handler, arg);
}

uint32
jfr_scan(const uint8 *data, size_t len, size_t memory_limit, JfrSampling *sampling)
{
	JfrDecoder	decoder;
	uint32		present = decode_chunks(&decoder, data, len, 0, memory_limit, NULL, NULL);

	jfr_settings_sampling(&decoder.settings, sampling);
	sampling->start_nanos = decoder.start_nanos;
	return present;
}
