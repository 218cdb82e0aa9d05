/*
 * import_speedscope.c
 *	  The speedscope file format: the JSON files speedscope saves, whose
 *	  "$schema" names the format's published JSON schema.
 *
 *	{ "$schema": ..., "shared": { "frames": [ {name, file?, line?, col?} ] },
 *	  "profiles": [ { "type": "sampled", name, unit, startValue, endValue,
 *	                  "samples": [[frame index, ...root first], ...], "weights": [...] }
 *	              | { "type": "evented", name, unit, startValue, endValue,
 *	                  "events": [ {"type": "O"|"C", "frame": index, "at": value} ] } ] }
 *
 * Each profile is one thread, named by the profile's name, or by its index
 * ("0", "1", ...) if it has none.  func = (name, file), frame = (line, col)
 * as given (speedscope's are 1-based already).  A frame without a name
 * ("" or "(anonymous)", as speedscope names V8's unnamed functions) is
 * named by its file, line and column: "(anonymous) app.js:20:5"
 * (js_names.h).
 *
 * Units: "none" keeps the weights as they are (weight_unit 'samples');
 * "bytes" too ('bytes'); the time units become integer nanoseconds
 * ('nanoseconds'), rounded half away from zero.  One file, one unit: a file
 * whose profiles mix units is rejected, since the samples of one profile
 * row share one weight_unit.
 *
 * Evented profiles are replayed: between two consecutive events the open
 * frames form a stack, and that interval becomes one sample of that stack
 * weighted by its length (intervals of length 0 and with no open frame add
 * nothing).  "at" values are converted to the unit first, so the weights
 * of a profile add up to exactly last-minus-first event time.  An event
 * that goes back in time, closes a frame that is not on top, or leaves a
 * frame open at the end is an error naming it (index and frame).  Evented
 * samples of time units keep ts = at - startValue in ns; other samples have
 * no ts.  Sampled stacks that are empty carry no frame and are skipped.
 */
#include "postgres.h"

#include "common/int.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "formats/json_reader.h"
#include "module.h"
#include "import/importer.h"
#include "import/js_names.h"

PG_FUNCTION_INFO_V1(calltree_import_speedscope);

static const JsonFormat speedscope_format = {
	"speedscope",
	"See https://www.speedscope.app/file-format-schema.json for the speedscope file format."
};

#define FMT (&speedscope_format)

typedef struct SpeedscopeFrame
{
	const char *name;
	const char *file;
	OptionalInt line;
	OptionalInt col;
	int64		frame_id;		/* 0 until first used */
} SpeedscopeFrame;

typedef struct SpeedscopeFile
{
	ProfileWriter *writer;
	SpeedscopeFrame *frames;
	int			nframes;
	const char *unit;			/* the unit of the file, from its first profile */
	int64		scale;			/* multiplier to the stored unit */
	int64		skipped;		/* empty sampled stacks */
} SpeedscopeFile;

typedef struct OpenFrame
{
	int			frame;
	int			event;			/* the event that opened it */
	int64		stack;
} OpenFrame;

/* ---------------------------------------------------------------- frames */

static OptionalInt
optional_position(JsonbContainer *object, const char *key, const JsonPath *parent)
{
	JsonPath	path = JSON_KEY(parent, key);
	JsonbValue	value;

	if (!json_member(object, key, &value))
		return NO_INT;
	return SOME_INT(json_integer(FMT, json_as_number(FMT, &value, &path), 0, PG_INT32_MAX, &path));
}

static void
read_frames(SpeedscopeFile *file, JsonbContainer *root, const JsonPath *root_path)
{
	JsonPath	shared_path = JSON_KEY(root_path, "shared");
	JsonPath	frames_path = JSON_KEY(&shared_path, "frames");
	JsonbContainer *shared = json_required_object(FMT, root, "shared", root_path);
	JsonbContainer *frames = json_required_array(FMT, shared, "frames", &shared_path);

	file->nframes = json_length(frames);
	file->frames = palloc_extended(sizeof(SpeedscopeFrame) * Max(file->nframes, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int i = 0; i < file->nframes; i++)
	{
		JsonPath	path = JSON_INDEX(&frames_path, i);
		JsonbValue	value;
		JsonbContainer *object;

		CHECK_FOR_INTERRUPTS();
		json_element(frames, i, &value);
		object = json_as_container(FMT, &value, false, &path);
		file->frames[i].name = json_required_string(FMT, object, "name", &path);
		file->frames[i].file = json_optional_string(FMT, object, "file", &path);
		file->frames[i].line = optional_position(object, "line", &path);
		file->frames[i].col = optional_position(object, "col", &path);
		file->frames[i].name = js_function_name(file->frames[i].name, file->frames[i].file,
												file->frames[i].line, file->frames[i].col);
	}
}

/* The frame index in value, checked against shared.frames */
static int
frame_index(SpeedscopeFile *file, const JsonbValue *value, const JsonPath *path)
{
	Numeric		number = json_as_number(FMT, value, path);

	if (file->nframes == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("speedscope %s refers to a frame, but shared.frames is empty", json_path_string(path)),
				 errhint("%s", FMT->hint)));
	return (int) json_integer(FMT, number, 0, file->nframes - 1, path);
}

static int64
push_frame(SpeedscopeFile *file, int64 prefix, int index)
{
	SpeedscopeFrame *frame = &file->frames[index];

	if (frame->frame_id == 0)
		frame->frame_id = profile_writer_func_frame(file->writer, frame->name, frame->file, NULL,
													NO_INT, frame->line, frame->col, NULL);
	return profile_writer_stack(file->writer, prefix, frame->frame_id);
}

/* ---------------------------------------------------------------- units */

static void
set_unit(SpeedscopeFile *file, const char *unit, int profile, const JsonPath *path)
{
	static const struct
	{
		const char *unit;
		const char *stored;
		int64		scale;
	}			units[] = {
		{"none", "samples", 1},
		{"bytes", "bytes", 1},
		{"nanoseconds", "nanoseconds", 1},
		{"microseconds", "nanoseconds", 1000},
		{"milliseconds", "nanoseconds", 1000000},
		{"seconds", "nanoseconds", 1000000000},
	};

	if (file->unit != NULL)
	{
		if (strcmp(unit, file->unit) != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("speedscope profiles mix units: %s is \"%s\" but earlier profiles are \"%s\"",
							json_path_string(path), unit, file->unit),
					 errdetail("The profiles of one imported file share one weight unit."),
					 errhint("Split the file into one file per unit.")));
		return;
	}
	for (int i = 0; i < lengthof(units); i++)
		if (strcmp(unit, units[i].unit) == 0)
		{
			file->unit = units[i].unit;
			file->scale = units[i].scale;
			profile_writer_set_unit(file->writer, units[i].stored);
			return;
		}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("speedscope %s has unknown unit \"%s\"", json_path_string(path), unit),
			 errdetail("Profile %d; known units are none, bytes, nanoseconds, microseconds, milliseconds and seconds.",
					   profile),
			 errhint("%s", FMT->hint)));
}

static bool
is_time_unit(const SpeedscopeFile *file)
{
	return strcmp(file->unit, "none") != 0 && strcmp(file->unit, "bytes") != 0;
}

/* ---------------------------------------------------------------- sampled */

static void
read_sampled(SpeedscopeFile *file, JsonbContainer *profile, const char *thread, const JsonPath *path)
{
	JsonPath	samples_path = JSON_KEY(path, "samples");
	JsonPath	weights_path = JSON_KEY(path, "weights");
	JsonbContainer *samples = json_required_array(FMT, profile, "samples", path);
	JsonbContainer *weights = json_required_array(FMT, profile, "weights", path);
	int			n = json_length(samples);

	if (json_length(weights) != n)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("speedscope %s has %d samples but %d weights",
						json_path_string(path), n, json_length(weights)),
				 errhint("%s", FMT->hint)));
	for (int i = 0; i < n; i++)
	{
		JsonPath	sample_path = JSON_INDEX(&samples_path, i);
		JsonPath	weight_path = JSON_INDEX(&weights_path, i);
		JsonbValue	value;
		JsonbContainer *frames;
		int64		stack = 0;
		int64		weight;

		CHECK_FOR_INTERRUPTS();
		json_element(weights, i, &value);
		weight = json_scaled_int64(FMT, json_as_number(FMT, &value, &weight_path), file->scale,
								   false, &weight_path);
		json_element(samples, i, &value);
		frames = json_as_container(FMT, &value, true, &sample_path);
		for (int f = 0; f < json_length(frames); f++)
		{
			JsonPath	frame_path = JSON_INDEX(&sample_path, f);

			json_element(frames, f, &value);
			stack = push_frame(file, stack, frame_index(file, &value, &frame_path));
		}
		if (stack == 0)
			file->skipped++;
		else
			profile_writer_sample(file->writer, thread, false, 0, stack, weight, 0);
	}
}

/* ---------------------------------------------------------------- evented */

static void
event_error(SpeedscopeFile *file, const JsonPath *events_path, int event, int frame,
			const char *what, const char *detail)
{
	JsonPath	path = JSON_INDEX(events_path, event);

	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("speedscope event %s (frame %d, \"%s\") %s",
					json_path_string(&path), frame, file->frames[frame].name, what),
			 errdetail_internal("%s", detail),
			 errhint("Events must be in time order and close frames in the reverse order they opened them.")));
}

/*
 * to - from for two times of a profile (event times, its startValue), or
 * an error naming the event: far-apart times must not wrap into a negative
 * or a wrong weight.
 */
static int64
event_interval(SpeedscopeFile *file, const JsonPath *events_path, int event, int frame,
			   int64 from, int64 to, const char *from_what)
{
	int64		interval;
	JsonPath	path = JSON_INDEX(events_path, event);

	if (!pg_sub_s64_overflow(to, from, &interval))
		return interval;
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("speedscope event %s (frame %d, \"%s\") is too far from %s",
					json_path_string(&path), frame, file->frames[frame].name, from_what),
			 errdetail("It is at " INT64_FORMAT "%s, %s at " INT64_FORMAT "%s: the interval does not fit in bigint.",
					   to, is_time_unit(file) ? " ns" : "", from_what, from, is_time_unit(file) ? " ns" : ""),
			 errhint("A profile's times must lie within 2^63 of each other in its unit (about 292 years in nanoseconds).")));
}

static void
read_evented(SpeedscopeFile *file, JsonbContainer *profile, const char *thread, int64 start,
			 const JsonPath *path)
{
	JsonPath	events_path = JSON_KEY(path, "events");
	JsonbContainer *events = json_required_array(FMT, profile, "events", path);
	int			n = json_length(events);
	OpenFrame  *open = palloc(sizeof(OpenFrame) * 64);
	int			capacity = 64;
	int			depth = 0;
	int64		previous_at = 0;
	bool		time = is_time_unit(file);

	for (int i = 0; i < n; i++)
	{
		JsonPath	event_path = JSON_INDEX(&events_path, i);
		JsonPath	frame_path = JSON_KEY(&event_path, "frame");
		JsonPath	at_path = JSON_KEY(&event_path, "at");
		JsonbValue	value;
		JsonbContainer *event;
		char	   *type;
		int			frame;
		int64		at;

		CHECK_FOR_INTERRUPTS();
		json_element(events, i, &value);
		event = json_as_container(FMT, &value, false, &event_path);
		type = json_required_string(FMT, event, "type", &event_path);
		if (!json_member(event, "frame", &value))
			json_required_number(FMT, event, "frame", &event_path);	/* the "missing" error */
		frame = frame_index(file, &value, &frame_path);
		at = json_scaled_int64(FMT, json_required_number(FMT, event, "at", &event_path),
							   file->scale, true, &at_path);
		if (strcmp(type, "O") != 0 && strcmp(type, "C") != 0)
			event_error(file, &events_path, i, frame, "has an unknown type",
						psprintf("Its type is \"%s\"; expected \"O\" (open) or \"C\" (close).", type));
		if (i > 0 && at < previous_at)
			event_error(file, &events_path, i, frame, "goes back in time",
						psprintf("It is at " INT64_FORMAT "%s, after an event at " INT64_FORMAT "%s.",
								 at, time ? " ns" : "", previous_at, time ? " ns" : ""));

		/* the interval since the previous event belongs to the open stack */
		if (depth > 0 && at > previous_at)
			profile_writer_sample(file->writer, thread, time,
								  event_interval(file, &events_path, i, frame, start, previous_at,
												 "the profile's startValue"),
								  open[depth - 1].stack,
								  event_interval(file, &events_path, i, frame, previous_at, at,
												 "the previous event"),
								  0);
		previous_at = at;

		if (type[0] == 'O')
		{
			if (depth == capacity)
				open = repalloc_huge(open, sizeof(OpenFrame) * (capacity *= 2));
			open[depth].frame = frame;
			open[depth].event = i;
			open[depth].stack = push_frame(file, depth > 0 ? open[depth - 1].stack : 0, frame);
			depth++;
		}
		else if (depth == 0)
			event_error(file, &events_path, i, frame, "closes a frame that is not open",
						"No frame is open at that point.");
		else if (open[depth - 1].frame != frame)
			event_error(file, &events_path, i, frame, "closes a frame that is not on top",
						psprintf("The frame on top is frame %d (\"%s\"), opened by event %d.",
								 open[depth - 1].frame, file->frames[open[depth - 1].frame].name,
								 open[depth - 1].event));
		else
			depth--;
	}
	if (depth > 0)
		event_error(file, &events_path, open[depth - 1].event, open[depth - 1].frame,
					"opens a frame that is never closed",
					psprintf("%d frame%s still open after the last event.", depth, depth == 1 ? " is" : "s are"));
	pfree(open);
}

/* ---------------------------------------------------------------- profiles */

static void
read_profile(SpeedscopeFile *file, JsonbContainer *profile, int index, const JsonPath *path)
{
	JsonPath	type_path = JSON_KEY(path, "type");
	JsonPath	start_path = JSON_KEY(path, "startValue");
	JsonPath	end_path = JSON_KEY(path, "endValue");
	char	   *type = json_required_string(FMT, profile, "type", path);
	char	   *name = json_optional_string(FMT, profile, "name", path);
	char	   *unit = json_required_string(FMT, profile, "unit", path);
	JsonPath	unit_path = JSON_KEY(path, "unit");
	int64		start;

	set_unit(file, unit, index, &unit_path);
	start = json_scaled_int64(FMT, json_required_number(FMT, profile, "startValue", path),
							  file->scale, true, &start_path);
	(void) json_scaled_int64(FMT, json_required_number(FMT, profile, "endValue", path),
							 file->scale, true, &end_path);
	if (name == NULL || name[0] == '\0')
		name = psprintf("%d", index);
	if (strcmp(type, "sampled") == 0)
		read_sampled(file, profile, name, path);
	else if (strcmp(type, "evented") == 0)
		read_evented(file, profile, name, start, path);
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("speedscope %s is \"%s\", not \"sampled\" or \"evented\"",
						json_path_string(&type_path), type),
				 errhint("%s", FMT->hint)));
}

/* Parses a whole speedscope file into the writer; the count of empty samples skipped */
static int64
parse_speedscope(ProfileWriter *writer, const char *data, int len)
{
	JsonbContainer *root = json_read_document(FMT, data, len, calltree_import_work_mem);
	JsonPath	root_path = JSON_ROOT;
	JsonPath	profiles_path = JSON_KEY(&root_path, "profiles");
	SpeedscopeFile file = {0};
	JsonbContainer *profiles;

	file.writer = writer;
	read_frames(&file, root, &root_path);
	profiles = json_required_array(FMT, root, "profiles", &root_path);
	for (int i = 0; i < json_length(profiles); i++)
	{
		JsonPath	path = JSON_INDEX(&profiles_path, i);
		JsonbValue	value;

		json_element(profiles, i, &value);
		read_profile(&file, json_as_container(FMT, &value, false, &path), i, &path);
	}
	return file.skipped;
}

static int64
speedscope_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	ProfileWriter *writer = profile_writer_begin(info);
	int64		skipped = parse_speedscope(writer, data, (int) len);

	if (skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " empty speedscope sample%s", skipped, skipped == 1 ? "" : "s"),
				 errdetail("A sample with no frame has no place in a call tree.")));
	return profile_writer_finish(writer);
}

const Importer speedscope_importer = {
	.name = "speedscope",
	.format = "speedscope",
	.import = speedscope_import,
};

/* import_speedscope(data text, name text, meta jsonb) → profile id */
Datum
calltree_import_speedscope(PG_FUNCTION_ARGS)
{
	return import_sql_call(fcinfo, &speedscope_importer, 1, NULL);
}
