/*
 * import_cpuprofile.c
 *	  V8 / Chrome / Node .cpuprofile files.
 *
 * The format (Chrome DevTools protocol, Profiler.Profile):
 *
 *	{ "nodes": [ { "id": 1, "callFrame": { "functionName", "url", "scriptId",
 *	               "lineNumber", "columnNumber" }, "children": [2, 3], ... } ],
 *	  "samples": [node id, ...], "timeDeltas": [µs, ...],
 *	  "startTime": µs, "endTime": µs }
 *
 * Older Node versions (the v8-profiler module) wrote a nested tree instead:
 * "head" is the root node, its "children" are node objects with the call
 * frame fields on the node itself, "timestamps" are absolute µs, and
 * startTime and endTime are in seconds.  Both become the same node table.
 *
 * Rules: "(root)" is not a frame, so its children are the root
 * funcs; "(program)", "(idle)" and "(garbage collector)" are children of
 * "(root)" and stay root-level funcs.  An empty functionName is
 * "(anonymous)", followed by its url's basename, line and column when
 * known ("(anonymous) app.js:20:5", js_names.h), so that the unnamed
 * functions of a script stay apart.  func = (functionName, url), with an
 * empty url as NULL;
 * frame = (line, col), 1-based (the file's are 0-based; negative means
 * unknown, stored as NULL).  A sample that lands on the (root) node itself
 * has no other frame: it keeps a "(root)" func so its time is not lost.
 * The node table, the links and the samples' stacks and weights are
 * v8_profile.c's, which trace-event files' CPU samples share.
 *
 * Time: sample i happens at startTime + Σ timeDeltas[0..i].  V8 emits
 * negative deltas (samples recorded out of order), so samples are ordered
 * by time, stably, rather than rejected.  Each keeps its ts (ns after
 * startTime) and weighs the ns until the next sample in that order; the
 * last lasts until endTime, or 0 if endTime comes before it.  The thread is
 * NULL: a .cpuprofile is the profile of one V8 isolate, the JS thread.
 */
#include "postgres.h"

#include "common/int.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "formats/json_reader.h"
#include "module.h"
#include "import/importer.h"
#include "import/v8_profile.h"

PG_FUNCTION_INFO_V1(calltree_import_cpuprofile);

static const JsonFormat cpuprofile_format = {
	"cpuprofile",
	"A .cpuprofile is the JSON that Chrome DevTools, node --cpu-prof and V8's CpuProfiler write: "
	"nodes (id, callFrame, children), samples, timeDeltas, startTime and endTime."
};

#define FMT (&cpuprofile_format)

static void
read_flat_nodes(V8Profile *profile, JsonbContainer *root, const JsonPath *root_path)
{
	JsonPath	nodes_path = JSON_KEY(root_path, "nodes");

	v8_read_nodes(profile, json_required_array(FMT, root, "nodes", root_path), &nodes_path);
}

/* Old format: a nested tree of node objects; parents are known right away */
static void
read_nested_node(V8Profile *profile, JsonbContainer *object, int parent, const JsonPath *path)
{
	JsonPath	children_path = JSON_KEY(path, "children");
	JsonbValue	value;
	int			index;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	index = v8_add_node(profile);
	profile->nodes[index].id = v8_node_id(profile, object, path);
	profile->nodes[index].parent = parent;
	v8_read_call_frame(profile, &profile->nodes[index], object, path);
	if (!json_member(object, "children", &value))
		return;
	{
		JsonbContainer *children = json_as_container(FMT, &value, true, &children_path);

		for (int i = 0; i < json_length(children); i++)
		{
			JsonPath	child_path = JSON_INDEX(&children_path, i);

			json_element(children, i, &value);
			read_nested_node(profile, json_as_container(FMT, &value, false, &child_path),
							 index, &child_path);
		}
	}
}

/* New format: parents come from each node's "children" (or "parent") ids */
static void
link_flat_nodes(V8Profile *profile, JsonbContainer *root, const JsonPath *root_path)
{
	JsonPath	nodes_path = JSON_KEY(root_path, "nodes");

	v8_link_nodes(profile, json_required_array(FMT, root, "nodes", root_path), &nodes_path, 0);
}

/*
 * Sample times in ns after startTime.  New format: running sums of
 * timeDeltas (µs).  Old format: absolute "timestamps" (µs) minus startTime
 * (seconds).  *end is endTime in ns after startTime.
 */
static void
read_samples(V8Profile *profile, JsonbContainer *root, bool nested, V8Samples *samples, int64 *end)
{
	JsonPath	root_path = JSON_ROOT;
	JsonPath	samples_path = JSON_KEY(&root_path, "samples");
	const char *times_key = nested ? "timestamps" : "timeDeltas";
	JsonPath	times_path = JSON_KEY(&root_path, times_key);
	JsonPath	end_path = JSON_KEY(&root_path, "endTime");
	JsonPath	start_path = JSON_KEY(&root_path, "startTime");
	JsonbContainer *nodes = json_required_array(FMT, root, "samples", &root_path);
	JsonbContainer *times = json_required_array(FMT, root, times_key, &root_path);
	int64		scale = nested ? 1000000000 : 1000;
	int64		start = json_scaled_int64(FMT, json_required_number(FMT, root, "startTime", &root_path),
										  scale, true, &start_path);
	int64		end_abs = json_scaled_int64(FMT, json_required_number(FMT, root, "endTime", &root_path),
											scale, true, &end_path);
	int			n = json_length(nodes);

	/* old files hold one timestamp more than samples (the end); extras are ignored */
	if (json_length(times) < n || (!nested && json_length(times) != n))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cpuprofile has %d samples but %d %s", n, json_length(times), times_key),
				 errdetail("Each sample needs its time."),
				 errhint("%s", FMT->hint)));
	if (pg_sub_s64_overflow(end_abs, start, end))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("cpuprofile time at %s is out of range", json_path_string(&end_path)),
				 errdetail("Times in nanoseconds after startTime must fit in a 64-bit integer."),
				 errhint("%s", FMT->hint)));
	v8_read_samples(profile, samples, nodes, &samples_path, times, &times_path, !nested, start);
}

/* Parses a whole .cpuprofile into the writer */
static void
parse_cpuprofile(ProfileWriter *writer, const char *data, int len)
{
	JsonbContainer *root = json_read_document(FMT, data, len, calltree_import_work_mem);
	JsonPath	root_path = JSON_ROOT;
	V8Profile	profile = {FMT};
	V8Samples	samples = {0};
	JsonbValue	head;
	bool		nested = !json_member(root, "nodes", &head) && json_member(root, "head", &head);
	const char *thread = NULL;	/* a .cpuprofile is one isolate's JS thread */
	int64		end;

	if (nested)
	{
		JsonPath	head_path = JSON_KEY(&root_path, "head");

		read_nested_node(&profile, json_as_container(FMT, &head, false, &head_path), -1, &head_path);
		v8_index_node_ids(&profile);
	}
	else
	{
		read_flat_nodes(&profile, root, &root_path);
		v8_index_node_ids(&profile);
		link_flat_nodes(&profile, root, &root_path);
	}
	read_samples(&profile, root, nested, &samples, &end);
	v8_write_samples(writer, &profile, &samples, &thread, true, end);
}

/* Samples keep their ts; weights are their durations, in ns */
static int64
cpuprofile_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	ProfileInfo in_ns = *info;
	ProfileWriter *writer;

	in_ns.weight_unit = "nanoseconds";
	writer = profile_writer_begin(&in_ns);
	parse_cpuprofile(writer, data, (int) len);
	return profile_writer_finish(writer);
}

const Importer cpuprofile_importer = {
	.name = "cpuprofile",
	.format = "cpuprofile",
	.import = cpuprofile_import,
};

/* import_cpuprofile(data text, name text, meta jsonb) → profile id */
Datum
calltree_import_cpuprofile(PG_FUNCTION_ARGS)
{
	return import_sql_call(fcinfo, &cpuprofile_importer, 1, NULL);
}
