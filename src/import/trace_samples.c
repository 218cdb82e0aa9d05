/*
 * trace_samples.c
 *	  The CPU samples inside trace-event files, as a sampled profile.
 *
 * Two shapes carry them:
 *
 * - Chrome 70 and later (the DevTools Performance panel's saved traces): a
 *   "Profile" event (ph "P", args.data.startTime in µs on the trace clock)
 *   starts a V8 CPU profile; "ProfileChunk" events with the same "id" in the
 *   same process continue it: args.data.cpuProfile.nodes (id, callFrame,
 *   parent, and from Chrome 116 children too) add to its node table,
 *   args.data.cpuProfile.samples (node ids) and args.data.timeDeltas (µs,
 *   each from the previous sample, the first from startTime) add samples,
 *   and args.data.endTime (µs, on the last chunk) ends it.  Chunks are
 *   written by V8's profiler thread, and a file may hold them before their
 *   Profile event (each thread's events are written together): they are
 *   matched by pid and id, and read in file order.  The samples are those
 *   of the thread of the Profile event.
 *
 * - Chrome 66 to 69: a "CpuProfile" event (ph "I") holds a whole
 *   .cpuprofile in args.data.cpuProfile (nodes with children, samples,
 *   timeDeltas, startTime and endTime in µs on the trace clock), the
 *   profile of the event's thread.
 *
 *   Each profile, chunked or whole, is a node table of its own (ids repeat
 *   across profiles), and a thread of its own: the main thread's and each
 *   worker's.
 *
 * - Hermes: the object around "traceEvents" also holds "samples" ([{ts
 *   (µs), pid, tid, sf}]) and "stackFrames" ({id: {name, category,
 *   parent}}).  A frame's name is its func, whole; a parentless frame of
 *   category "root" plays the part of V8's "(root)".  A sample's "weight"
 *   is not read: samples weigh time.  Numbers may come as strings.
 *
 * The node tables, links and the samples' stacks and weights follow the
 * .cpuprofile rules (v8_profile.c).  ts is ns from the earliest profile
 * start or Hermes sample of the file, so threads share one timeline;
 * each sample weighs the ns to the next sample of its thread, and the last
 * one until its profile's endTime (Chrome, when there is one) or 0.
 */
#include "postgres.h"

#include <ctype.h>

#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"

#include "import/trace_samples.h"
#include "import/v8_profile.h"

#define FMT (&trace_event_format)

/*
 * A Chrome CPU profile: a Profile event and its chunks, or a CpuProfile
 * event that holds it whole
 */
typedef struct ChromeProfile
{
	char	   *key;			/* "pid:id" of a chunked profile; NULL if whole */
	bool		whole;			/* a CpuProfile event */
	int32		thread;
	int			event;			/* index of its Profile or CpuProfile event; -1: none yet */
	int			first_chunk;	/* index of its first ProfileChunk event */
	int64		start;			/* ns on the trace clock */
	List	   *chunks;			/* indices of its ProfileChunk events, in file order */
} ChromeProfile;

/* The paths to the parts of one event, on the caller's stack */
typedef struct EventPaths
{
	JsonPath	event;
	JsonPath	args;
	JsonPath	data;
	JsonPath	cpu;
} EventPaths;

static void
event_paths(EventPaths *paths, const JsonPath *events_path, int index)
{
	paths->event = JSON_INDEX(events_path, index);
	paths->args = JSON_KEY(&paths->event, "args");
	paths->data = JSON_KEY(&paths->args, "data");
	paths->cpu = JSON_KEY(&paths->data, "cpuProfile");
}

static JsonbContainer *
event_object(JsonbContainer *events, int index, const EventPaths *paths)
{
	JsonbValue	value;

	json_element(events, index, &value);
	return json_as_container(FMT, &value, false, &paths->event);
}

/* args.data of a Profile or ProfileChunk event */
static JsonbContainer *
event_data(JsonbContainer *events, int index, const EventPaths *paths)
{
	JsonbContainer *args = json_required_object(FMT, event_object(events, index, paths), "args",
												&paths->event);

	return json_required_object(FMT, args, "data", &paths->args);
}

/* An optional member that must be an array or an object when present */
static JsonbContainer *
optional_container(JsonbContainer *object, const char *key, bool array, const JsonPath *parent)
{
	JsonPath	path = JSON_KEY(parent, key);
	JsonbValue	value;

	if (object == NULL || !json_member(object, key, &value))
		return NULL;
	return json_as_container(FMT, &value, array, &path);
}

/*
 * Whether a string is a number as JSON writes one: an optional minus,
 * digits, an optional fraction and exponent (no hexadecimal, no "inf" or
 * "nan", which strtod would take and numeric_in refuse without a path).
 */
static bool
json_number_text(const char *s)
{
	const char *digits;

	if (*s == '-')
		s++;
	for (digits = s; isdigit((unsigned char) *s); s++)
		;
	if (s == digits)
		return false;
	if (*s == '.')
	{
		for (digits = ++s; isdigit((unsigned char) *s); s++)
			;
		if (s == digits)
			return false;
	}
	if (*s == 'e' || *s == 'E')
	{
		s++;
		if (*s == '+' || *s == '-')
			s++;
		for (digits = s; isdigit((unsigned char) *s); s++)
			;
		if (s == digits)
			return false;
	}
	return *s == '\0';
}

/* A number, or (as Hermes writes them) a string holding one */
static Numeric
number_or_string(const JsonbValue *value, const JsonPath *path)
{
	char	   *text;

	if (value->type != jbvString)
		return json_as_number(FMT, value, path);
	text = pnstrdup(value->val.string.val, value->val.string.len);
	if (!json_number_text(text))
		json_type_error(FMT, path, "a number", value);
	return DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(text),
											   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1)));
}

/* Whether a member is this string, compared in place (called per event) */
static bool
member_is(JsonbContainer *object, const char *key, const char *expected)
{
	JsonbValue	value;

	return json_member(object, key, &value) && value.type == jbvString &&
		value.val.string.len == (int) strlen(expected) &&
		memcmp(value.val.string.val, expected, value.val.string.len) == 0;
}

/* Whether an event object is a "P" event of this name */
static bool
is_profile_event(JsonbContainer *object, const char *name)
{
	return member_is(object, "ph", "P") && member_is(object, "name", name);
}

bool
trace_has_cpu_samples(JsonbContainer *root, JsonbContainer *events)
{
	JsonbValue	value;

	if (JsonContainerIsObject(root) && json_member(root, "samples", &value) &&
		json_member(root, "stackFrames", &value))
		return true;
	for (int i = 0; i < json_length(events); i++)
	{
		CHECK_FOR_INTERRUPTS();
		json_element(events, i, &value);
		if (value.type == jbvBinary && JsonContainerIsObject(value.val.binary.data) &&
			(is_profile_event(value.val.binary.data, "Profile") ||
			 member_is(value.val.binary.data, "name", "CpuProfile")))
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------- Chrome */

static char *
profile_key(JsonbContainer *event)
{
	JsonbValue	id;

	return psprintf("%s:%s", trace_id_text(event, "pid"),
					json_member(event, "id", &id) ? trace_id_text(event, "id") : "");
}

/* The chunked profile of this key, added (with no Profile event yet) if new */
static ChromeProfile *
profile_of_key(List **profiles, const char *key)
{
	ChromeProfile *profile;
	ListCell   *lc;

	foreach(lc, *profiles)
	{
		profile = lfirst(lc);
		if (profile->key != NULL && strcmp(profile->key, key) == 0)
			return profile;
	}
	profile = palloc0(sizeof(ChromeProfile));
	profile->key = pstrdup(key);
	profile->event = -1;
	*profiles = lappend(*profiles, profile);
	return profile;
}

/*
 * When a profile starts: holder.startTime (µs on the trace clock), or the
 * event's ts when there is none.
 */
static int64
start_time(JsonbContainer *event, JsonbContainer *holder, const JsonPath *holder_path,
		   const EventPaths *paths, int index, const char *what)
{
	JsonPath	start_path = JSON_KEY(holder_path, "startTime");
	JsonbValue	value;

	if (!json_member(holder, "startTime", &value))
	{
		JsonPath	ts_path = JSON_KEY(&paths->event, "ts");

		if (!json_member(event, "ts", &value))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("trace-event %s event %d has no start time", what, index),
					 errdetail("Neither %s nor %s is there.", json_path_string(&start_path),
							   json_path_string(&ts_path)),
					 errhint("%s", FMT->hint)));
		start_path = ts_path;
	}
	return json_scaled_int64(FMT, number_or_string(&value, &start_path), 1000, false, &start_path);
}

/* A Profile event: the start of the chunked profile of its pid and id */
static void
start_profile(ChromeProfile *profile, TraceThreads *threads, JsonbContainer *events, int index,
			  const EventPaths *paths)
{
	JsonbContainer *event = event_object(events, index, paths);

	if (profile->event >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trace-event Profile event %d repeats the profile id of event %d",
						index, profile->event),
				 errdetail("Both have the pid and id \"%s\".", profile->key),
				 errhint("%s", FMT->hint)));
	profile->thread = trace_event_thread(threads, event);
	profile->event = index;
	profile->start = start_time(event, event_data(events, index, paths), &paths->data, paths, index,
								"Profile");
}

/* A CpuProfile event: a whole profile in args.data.cpuProfile */
static ChromeProfile *
whole_profile(TraceThreads *threads, JsonbContainer *events, int index, const EventPaths *paths)
{
	JsonbContainer *event = event_object(events, index, paths);
	JsonbContainer *cpu = json_required_object(FMT, event_data(events, index, paths), "cpuProfile",
											   &paths->data);
	ChromeProfile *profile = palloc0(sizeof(ChromeProfile));

	profile->whole = true;
	profile->thread = trace_event_thread(threads, event);
	profile->event = index;
	profile->start = start_time(event, cpu, &paths->cpu, paths, index, "CpuProfile");
	return profile;
}

static int
compare_by_event(const ListCell *a, const ListCell *b)
{
	int			x = ((const ChromeProfile *) lfirst(a))->event;
	int			y = ((const ChromeProfile *) lfirst(b))->event;

	return (x > y) - (x < y);
}

/*
 * The file's CPU profiles, in the order of their Profile or CpuProfile
 * events.  Chunks are matched to their Profile by pid and id, whichever
 * comes first: a worker's chunks may precede its Profile event.
 */
static List *
scan_profiles(TraceThreads *threads, JsonbContainer *events, const JsonPath *events_path)
{
	List	   *profiles = NIL;
	ListCell   *lc;

	for (int i = 0; i < json_length(events); i++)
	{
		EventPaths	paths;
		JsonbContainer *event;
		ChromeProfile *profile;

		CHECK_FOR_INTERRUPTS();
		event_paths(&paths, events_path, i);
		event = event_object(events, i, &paths);
		if (is_profile_event(event, "Profile"))
			start_profile(profile_of_key(&profiles, profile_key(event)), threads, events, i, &paths);
		else if (is_profile_event(event, "ProfileChunk"))
		{
			profile = profile_of_key(&profiles, profile_key(event));
			if (profile->chunks == NIL)
				profile->first_chunk = i;
			profile->chunks = lappend_int(profile->chunks, i);
		}
		else if (member_is(event, "name", "CpuProfile"))
			profiles = lappend(profiles, whole_profile(threads, events, i, &paths));
	}
	foreach(lc, profiles)
	{
		ChromeProfile *profile = lfirst(lc);

		if (profile->event < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("trace-event ProfileChunk event %d has no Profile event", profile->first_chunk),
					 errdetail("No Profile event has the pid and id \"%s\".", profile->key),
					 errhint("%s", FMT->hint)));
	}
	/* in the order of their starting events, not of their first chunks */
	list_sort(profiles, compare_by_event);
	return profiles;
}

/* The nodes of one chunk into the table */
static void
read_chunk_nodes(V8Profile *table, JsonbContainer *events, int index, const JsonPath *events_path)
{
	EventPaths	paths;
	JsonbContainer *cpu;
	JsonbContainer *nodes;
	JsonPath	nodes_path;

	event_paths(&paths, events_path, index);
	nodes_path = JSON_KEY(&paths.cpu, "nodes");
	cpu = optional_container(event_data(events, index, &paths), "cpuProfile", false, &paths.data);
	nodes = optional_container(cpu, "nodes", true, &paths.cpu);
	if (nodes != NULL)
		v8_read_nodes(table, nodes, &nodes_path);
}

/* The parent links of one chunk's nodes; *next is the first node's index */
static void
link_chunk_nodes(V8Profile *table, JsonbContainer *events, int index, const JsonPath *events_path,
				 int *next)
{
	EventPaths	paths;
	JsonbContainer *nodes;
	JsonPath	nodes_path;

	event_paths(&paths, events_path, index);
	nodes_path = JSON_KEY(&paths.cpu, "nodes");
	nodes = optional_container(optional_container(event_data(events, index, &paths), "cpuProfile",
												  false, &paths.data),
							   "nodes", true, &paths.cpu);
	if (nodes == NULL)
		return;
	v8_link_nodes(table, nodes, &nodes_path, *next);
	*next += json_length(nodes);
}

/*
 * The samples of an event (its node ids, and its timeDeltas in µs, which
 * must be as many), each time from the previous sample's.
 */
static void
read_timed_samples(V8Profile *table, V8Samples *samples, int index, const char *what,
				   JsonbContainer *nodes, const JsonPath *nodes_path,
				   JsonbContainer *deltas, const JsonPath *deltas_path)
{
	if ((nodes ? json_length(nodes) : 0) != (deltas ? json_length(deltas) : 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trace-event %s event %d has %d samples but %d timeDeltas",
						what, index, nodes ? json_length(nodes) : 0, deltas ? json_length(deltas) : 0),
				 errdetail("Each sample in %s needs its time in %s.",
						   json_path_string(nodes_path), json_path_string(deltas_path)),
				 errhint("%s", FMT->hint)));
	if (nodes != NULL)
		v8_read_samples(table, samples, nodes, nodes_path, deltas, deltas_path, true, 0);
}

/* An endTime member (µs on the trace clock) sets *end, in ns after origin */
static void
read_end_time(JsonbContainer *holder, const JsonPath *holder_path, int64 origin, bool *has_end,
			  int64 *end)
{
	JsonPath	end_path = JSON_KEY(holder_path, "endTime");
	JsonbValue	value;

	if (!json_member(holder, "endTime", &value))
		return;
	/* times are not negative, so this cannot overflow */
	*end = json_scaled_int64(FMT, json_as_number(FMT, &value, &end_path), 1000, false, &end_path) - origin;
	*has_end = true;
}

/* The samples of one chunk; an endTime (ns after origin) sets *end */
static void
read_chunk_samples(V8Profile *table, V8Samples *samples, JsonbContainer *events, int index,
				   const JsonPath *events_path, int64 origin, bool *has_end, int64 *end)
{
	EventPaths	paths;
	JsonbContainer *data;
	JsonPath	samples_path;
	JsonPath	deltas_path;

	event_paths(&paths, events_path, index);
	samples_path = JSON_KEY(&paths.cpu, "samples");
	deltas_path = JSON_KEY(&paths.data, "timeDeltas");
	data = event_data(events, index, &paths);
	read_timed_samples(table, samples, index, "ProfileChunk",
					   optional_container(optional_container(data, "cpuProfile", false, &paths.data),
										  "samples", true, &paths.cpu),
					   &samples_path,
					   optional_container(data, "timeDeltas", true, &paths.data), &deltas_path);
	read_end_time(data, &paths.data, origin, has_end, end);
}

static void
write_chunked_profile(ProfileWriter *writer, const TraceThreads *threads, ChromeProfile *profile,
					  JsonbContainer *events, const JsonPath *events_path, int64 origin)
{
	V8Profile	table = {FMT};
	V8Samples	samples = {0};
	const char *label = trace_thread_label(threads, profile->thread);
	bool		has_end = false;
	int64		end = 0;
	int			next = 0;
	ListCell   *lc;

	foreach(lc, profile->chunks)
		read_chunk_nodes(&table, events, lfirst_int(lc), events_path);
	v8_index_node_ids(&table);
	foreach(lc, profile->chunks)
		link_chunk_nodes(&table, events, lfirst_int(lc), events_path, &next);
	samples.clock = profile->start - origin;
	foreach(lc, profile->chunks)
		read_chunk_samples(&table, &samples, events, lfirst_int(lc), events_path, origin,
						   &has_end, &end);
	v8_write_samples(writer, &table, &samples, &label, has_end, end);
}

/*
 * A CpuProfile event's args.data.cpuProfile, read as a .cpuprofile: nodes,
 * samples, timeDeltas (there, or beside it in args.data), endTime.
 */
static void
write_whole_profile(ProfileWriter *writer, const TraceThreads *threads, ChromeProfile *profile,
					JsonbContainer *events, const JsonPath *events_path, int64 origin)
{
	V8Profile	table = {FMT};
	V8Samples	samples = {0};
	const char *label = trace_thread_label(threads, profile->thread);
	bool		has_end = false;
	int64		end = 0;
	EventPaths	paths;
	JsonbContainer *data;
	JsonbContainer *cpu;
	JsonbContainer *nodes;
	JsonbContainer *deltas;
	JsonPath	nodes_path;
	JsonPath	samples_path;
	JsonPath	deltas_path;

	event_paths(&paths, events_path, profile->event);
	nodes_path = JSON_KEY(&paths.cpu, "nodes");
	samples_path = JSON_KEY(&paths.cpu, "samples");
	data = event_data(events, profile->event, &paths);
	cpu = json_required_object(FMT, data, "cpuProfile", &paths.data);
	nodes = json_required_array(FMT, cpu, "nodes", &paths.cpu);
	v8_read_nodes(&table, nodes, &nodes_path);
	v8_index_node_ids(&table);
	v8_link_nodes(&table, nodes, &nodes_path, 0);

	deltas_path = JSON_KEY(&paths.cpu, "timeDeltas");
	deltas = optional_container(cpu, "timeDeltas", true, &paths.cpu);
	if (deltas == NULL)
	{
		deltas_path = JSON_KEY(&paths.data, "timeDeltas");
		deltas = optional_container(data, "timeDeltas", true, &paths.data);
	}
	samples.clock = profile->start - origin;
	read_timed_samples(&table, &samples, profile->event, "CpuProfile",
					   optional_container(cpu, "samples", true, &paths.cpu), &samples_path,
					   deltas, &deltas_path);
	read_end_time(cpu, &paths.cpu, origin, &has_end, &end);
	v8_write_samples(writer, &table, &samples, &label, has_end, end);
}

/* ---------------------------------------------------------------- Hermes */

static int64
hermes_integer(const JsonbValue *value, const JsonPath *path)
{
	return json_integer(FMT, number_or_string(value, path), PG_INT64_MIN, PG_INT64_MAX, path);
}

/* "stackFrames": one node per member, its key the id */
static void
read_stack_frames(V8Profile *table, JsonbContainer *frames, const JsonPath *frames_path)
{
	JsonbIterator *it = JsonbIteratorInit(frames);
	JsonbIteratorToken token;
	JsonbValue	value;
	char	   *key = NULL;

	while ((token = JsonbIteratorNext(&it, &value, true)) != WJB_DONE)
	{
		JsonPath	path;
		JsonbValue	id;
		JsonbContainer *object;
		const char *category;
		int			node;

		if (token == WJB_KEY)
			key = pnstrdup(value.val.string.val, value.val.string.len);
		if (token != WJB_VALUE)
			continue;
		CHECK_FOR_INTERRUPTS();
		path = JSON_KEY(frames_path, key);
		object = json_as_container(FMT, &value, false, &path);
		id.type = jbvString;
		id.val.string.val = key;
		id.val.string.len = strlen(key);
		node = v8_add_node(table);
		table->nodes[node].id = hermes_integer(&id, &path);
		table->nodes[node].name = json_required_string(FMT, object, "name", &path);
		category = json_optional_string(FMT, object, "category", &path);
		table->nodes[node].root_marker = category && strcmp(category, "root") == 0;
	}
}

/* Parent links, walking the members in the order read_stack_frames did */
static void
link_stack_frames(V8Profile *table, JsonbContainer *frames, const JsonPath *frames_path)
{
	JsonbIterator *it = JsonbIteratorInit(frames);
	JsonbIteratorToken token;
	JsonbValue	value;
	char	   *key = NULL;
	int			node = 0;

	while ((token = JsonbIteratorNext(&it, &value, true)) != WJB_DONE)
	{
		JsonPath	path;
		JsonPath	parent_path;

		if (token == WJB_KEY)
			key = pnstrdup(value.val.string.val, value.val.string.len);
		if (token != WJB_VALUE)
			continue;
		CHECK_FOR_INTERRUPTS();
		path = JSON_KEY(frames_path, key);
		parent_path = JSON_KEY(&path, "parent");
		if (json_member(value.val.binary.data, "parent", &value))
			v8_set_parent(table, node, v8_find_node(table, hermes_integer(&value, &parent_path), &parent_path),
						  &parent_path);
		node++;
	}
}

/* "samples": ts in ns on the trace clock, until the origin is known */
static void
read_hermes_samples(V8Profile *table, V8Samples *samples, TraceThreads *threads,
					JsonbContainer *list, const JsonPath *list_path)
{
	for (int i = 0; i < json_length(list); i++)
	{
		JsonPath	path = JSON_INDEX(list_path, i);
		JsonPath	ts_path = JSON_KEY(&path, "ts");
		JsonPath	sf_path = JSON_KEY(&path, "sf");
		JsonbValue	value;
		JsonbContainer *object;
		int64		ts;
		int			node;

		CHECK_FOR_INTERRUPTS();
		json_element(list, i, &value);
		object = json_as_container(FMT, &value, false, &path);
		if (!json_member(object, "ts", &value))
			json_type_error(FMT, &ts_path, "a number", NULL);
		ts = json_scaled_int64(FMT, number_or_string(&value, &ts_path), 1000, false, &ts_path);
		if (!json_member(object, "sf", &value))
			json_type_error(FMT, &sf_path, "a stack frame id", NULL);
		node = v8_find_node(table, hermes_integer(&value, &sf_path), &sf_path);
		v8_add_sample(samples, trace_event_thread(threads, object), ts, node);
	}
}

/* ---------------------------------------------------------------- both */

void
trace_write_cpu_samples(ProfileWriter *writer, TraceThreads *threads, JsonbContainer *root,
						JsonbContainer *events)
{
	JsonPath	root_path = JSON_ROOT;
	JsonPath	events_path = JsonContainerIsArray(root) ? JSON_ROOT : JSON_KEY(&root_path, "traceEvents");
	JsonPath	frames_path = JSON_KEY(&root_path, "stackFrames");
	JsonPath	samples_path = JSON_KEY(&root_path, "samples");
	List	   *profiles = scan_profiles(threads, events, &events_path);
	V8Profile	frames = {FMT};
	V8Samples	samples = {0};
	int64		origin = PG_INT64_MAX;
	ListCell   *lc;

	if (JsonContainerIsObject(root) && optional_container(root, "stackFrames", false, &root_path))
	{
		JsonbContainer *table = json_required_object(FMT, root, "stackFrames", &root_path);

		read_stack_frames(&frames, table, &frames_path);
		v8_index_node_ids(&frames);
		link_stack_frames(&frames, table, &frames_path);
		read_hermes_samples(&frames, &samples, threads,
							json_required_array(FMT, root, "samples", &root_path), &samples_path);
	}
	foreach(lc, profiles)
		origin = Min(origin, ((ChromeProfile *) lfirst(lc))->start);
	for (int i = 0; i < samples.n; i++)
		origin = Min(origin, samples.items[i].ts);
	for (int i = 0; i < samples.n; i++)
		samples.items[i].ts -= origin;

	foreach(lc, profiles)
	{
		ChromeProfile *profile = lfirst(lc);

		if (profile->whole)
			write_whole_profile(writer, threads, profile, events, &events_path, origin);
		else
			write_chunked_profile(writer, threads, profile, events, &events_path, origin);
	}
	if (samples.n > 0)
	{
		const char **labels = palloc(sizeof(char *) * Max(threads->n, 1));

		for (int32 t = 0; t < threads->n; t++)
			labels[t] = trace_thread_label(threads, t);
		v8_write_samples(writer, &frames, &samples, labels, false, 0);
	}
}
