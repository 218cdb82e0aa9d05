/*
 * jfr_settings.c
 *	  What a recording says of its own sampling: its jdk.ActiveSetting
 *	  events, as the JDK and async-profiler write them.
 *
 * The JDK writes, at the start of each chunk, every setting of every
 * recording running: for jdk.ExecutionSample, "period" ("10 ms", "20 ms";
 * the JVM samples at the shortest of the enabled recordings' periods).
 * async-profiler writes its options as settings: "event" (cpu, itimer,
 * ctimer, wall, or a hardware counter or Java method), and, on the
 * execution sample's type, "interval" (nanoseconds when the event is a
 * clock, else a count of events) and "wall" (the interval of its
 * profiler.WallClockSample events, nanoseconds).
 */
#include "postgres.h"

#include "common/int.h"

#include "formats/jfr_internal.h"

/* A JDK timespan ("10 ms", "1 s"), in nanoseconds; 0 if not one */
static int64
parse_timespan(const char *text)
{
	static const struct
	{
		const char *unit;
		int64		nanos;
	}			units[] = {
		{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", INT64CONST(1000000000)},
		{"m", INT64CONST(60000000000)}, {"h", INT64CONST(3600000000000)},
		{"d", INT64CONST(86400000000000)},
	};
	int64		n = 0;
	const char *p = text;

	if (*p < '0' || *p > '9')
		return 0;
	for (; *p >= '0' && *p <= '9'; p++)
		if (pg_mul_s64_overflow(n, 10, &n) || pg_add_s64_overflow(n, *p - '0', &n))
			return 0;
	while (*p == ' ')
		p++;
	for (int i = 0; i < lengthof(units); i++)
		if (strcmp(p, units[i].unit) == 0)
			return pg_mul_s64_overflow(n, units[i].nanos, &n) ? 0 : n;
	return 0;
}

/* A positive decimal integer; 0 if not one */
static int64
parse_count(const char *text)
{
	int64		n = 0;

	if (*text == '\0')
		return 0;
	for (const char *p = text; *p; p++)
		if (*p < '0' || *p > '9' ||
			pg_mul_s64_overflow(n, 10, &n) || pg_add_s64_overflow(n, *p - '0', &n))
			return 0;
	return n;
}

static JfrRecordedEvent
recorded_event(const char *value)
{
	if (strcmp(value, "cpu") == 0 || strcmp(value, "itimer") == 0 || strcmp(value, "ctimer") == 0)
		return JFR_EVENT_CPU_TIME;
	if (strcmp(value, "wall") == 0)
		return JFR_EVENT_WALL_TIME;
	return JFR_EVENT_OTHER;
}

/* The shorter of two intervals, 0 meaning none */
static int64
shortest(int64 a, int64 b)
{
	return a == 0 ? b : b == 0 ? a : Min(a, b);
}

void
jfr_read_setting(JfrDecoder *decoder, const JfrClass *cls, JfrReader *r, int64 sample_type)
{
	JfrValue   *values = palloc(sizeof(JfrValue) * Max(cls->nfields, 1));
	JfrSettings *settings = &decoder->settings;
	int			id_f = jfr_field_index(cls, "id");
	const char *name;
	const char *value;

	jfr_read_struct(decoder, r, cls, values);
	name = jfr_string_field(decoder, cls, values, "name");
	value = jfr_string_field(decoder, cls, values, "value");
	if (name == NULL || value == NULL)
		return;
	if (strcmp(name, "event") == 0)
	{
		settings->event = recorded_event(value);
		return;
	}
	/* the rest are settings of the execution sample's type */
	if (id_f < 0 || cls->fields[id_f].array || cls->fields[id_f].constant_pool ||
		sample_type < 0 || values[id_f].num != sample_type)
		return;
	if (strcmp(name, "period") == 0)
		settings->period = shortest(settings->period, parse_timespan(value));
	else if (strcmp(name, "interval") == 0)
		settings->interval = shortest(settings->interval, parse_count(value));
	else if (strcmp(name, "wall") == 0)
		settings->wall = shortest(settings->wall, parse_count(value));
}

void
jfr_settings_sampling(const JfrSettings *settings, JfrSampling *sampling)
{
	memset(sampling, 0, sizeof(*sampling));
	switch (settings->event)
	{
		case JFR_EVENT_UNSET:
			sampling->cpu_interval = settings->period;
			break;
		case JFR_EVENT_CPU_TIME:
			sampling->cpu_interval = settings->interval;
			sampling->wall_interval = settings->wall;
			break;
		case JFR_EVENT_WALL_TIME:
			/* the execution samples are wall-clock samples, also CPU time when running */
			sampling->cpu_interval = settings->interval;
			sampling->wall_interval = settings->interval;
			break;
		case JFR_EVENT_OTHER:
			sampling->wall_interval = settings->wall;
			break;
	}
}
