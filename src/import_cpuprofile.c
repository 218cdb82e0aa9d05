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
 * Rules (issue 5): "(root)" is not a frame, so its children are the root
 * funcs; "(program)", "(idle)" and "(garbage collector)" are children of
 * "(root)" and stay root-level funcs.  An empty functionName is
 * "(anonymous)".  func = (functionName, url), with an empty url as NULL;
 * frame = (line, col), 1-based (the file's are 0-based; negative means
 * unknown, stored as NULL).  A sample that lands on the (root) node itself
 * has no other frame: it keeps a "(root)" func so its time is not lost.
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

#include "import.h"
#include "json_reader.h"

PG_FUNCTION_INFO_V1(calltree_import_cpuprofile);

static const JsonFormat cpuprofile_format = {
	"cpuprofile",
	"A .cpuprofile is the JSON that Chrome DevTools, node --cpu-prof and V8's CpuProfiler write: "
	"nodes (id, callFrame, children), samples, timeDeltas, startTime and endTime."
};

#define FMT (&cpuprofile_format)

typedef struct CpuNode
{
	int64		id;
	int			parent;			/* index, -1 for none */
	int			parent_seen_from;	/* index of the node listing it, -1 */
	const char *name;
	const char *url;
	OptionalInt line;
	OptionalInt col;
	int64		stack;			/* 0: not interned yet (or the root) */
	bool		interned;
} CpuNode;

typedef struct CpuProfile
{
	CpuNode    *nodes;
	int			nnodes;
	int			capacity;
	int64	   *sorted_ids;		/* (id, index) pairs sorted by id, for lookups */
	int		   *sorted_index;
} CpuProfile;

typedef struct CpuSample
{
	int64		ts;				/* ns after startTime */
	int			order;			/* position in the file, for a stable sort */
	int			node;
} CpuSample;

/* ---------------------------------------------------------------- nodes */

static int
add_node(CpuProfile *profile)
{
	if (profile->nnodes == profile->capacity)
	{
		profile->capacity = Max(64, profile->capacity * 2);
		profile->nodes = profile->nodes
			? repalloc_huge(profile->nodes, sizeof(CpuNode) * profile->capacity)
			: palloc_extended(sizeof(CpuNode) * profile->capacity, MCXT_ALLOC_HUGE);
	}
	memset(&profile->nodes[profile->nnodes], 0, sizeof(CpuNode));
	profile->nodes[profile->nnodes].parent = -1;
	profile->nodes[profile->nnodes].parent_seen_from = -1;
	return profile->nnodes++;
}

/* A 0-based position from the file as a 1-based frame field */
static OptionalInt
position_field(JsonbContainer *object, const char *key, const JsonPath *parent)
{
	JsonPath	path = JSON_KEY(parent, key);
	JsonbValue	value;
	int64		position;

	if (!json_member(object, key, &value))
		return NO_INT;
	position = json_integer(FMT, json_as_number(FMT, &value, &path), -1, PG_INT32_MAX - 1, &path);
	return position < 0 ? NO_INT : SOME_INT(position + 1);
}

/* The call frame fields, from "callFrame" or (old format) the node itself */
static void
read_call_frame(CpuNode *node, JsonbContainer *frame, const JsonPath *path)
{
	node->name = json_required_string(FMT, frame, "functionName", path);
	node->url = json_optional_string(FMT, frame, "url", path);
	if (node->name[0] == '\0')
		node->name = "(anonymous)";
	if (node->url && node->url[0] == '\0')
		node->url = NULL;
	node->line = position_field(frame, "lineNumber", path);
	node->col = position_field(frame, "columnNumber", path);
}

static int64
node_id(JsonbContainer *object, const JsonPath *path)
{
	JsonPath	id_path = JSON_KEY(path, "id");

	return json_integer(FMT, json_required_number(FMT, object, "id", path),
						PG_INT64_MIN, PG_INT64_MAX, &id_path);
}

static void
read_flat_nodes(CpuProfile *profile, JsonbContainer *root, const JsonPath *root_path)
{
	JsonPath	nodes_path = JSON_KEY(root_path, "nodes");
	JsonbContainer *nodes = json_required_array(FMT, root, "nodes", root_path);

	for (int i = 0; i < json_length(nodes); i++)
	{
		JsonPath	path = JSON_INDEX(&nodes_path, i);
		JsonPath	frame_path = JSON_KEY(&path, "callFrame");
		JsonbValue	value;
		JsonbContainer *object;
		CpuNode    *node;
		int			index;

		CHECK_FOR_INTERRUPTS();
		json_element(nodes, i, &value);
		object = json_as_container(FMT, &value, false, &path);
		index = add_node(profile);	/* may move the array: index first */
		node = &profile->nodes[index];
		node->id = node_id(object, &path);
		read_call_frame(node, json_required_object(FMT, object, "callFrame", &path), &frame_path);
	}
}

/* Old format: a nested tree of node objects; parents are known right away */
static void
read_nested_node(CpuProfile *profile, JsonbContainer *object, int parent, const JsonPath *path)
{
	JsonPath	children_path = JSON_KEY(path, "children");
	JsonbValue	value;
	int			index;

	check_stack_depth();
	CHECK_FOR_INTERRUPTS();
	index = add_node(profile);
	profile->nodes[index].id = node_id(object, path);
	profile->nodes[index].parent = parent;
	read_call_frame(&profile->nodes[index], object, path);
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

static CpuProfile *current_profile;	/* for the qsort comparator */

static int
compare_index_by_id(const void *a, const void *b)
{
	int64		x = current_profile->nodes[*(const int *) a].id;
	int64		y = current_profile->nodes[*(const int *) b].id;

	return x < y ? -1 : x > y;
}

static void
index_node_ids(CpuProfile *profile, bool nested)
{
	profile->sorted_index = palloc_extended(sizeof(int) * Max(profile->nnodes, 1), MCXT_ALLOC_HUGE);
	profile->sorted_ids = palloc_extended(sizeof(int64) * Max(profile->nnodes, 1), MCXT_ALLOC_HUGE);
	for (int i = 0; i < profile->nnodes; i++)
		profile->sorted_index[i] = i;
	current_profile = profile;
	qsort(profile->sorted_index, profile->nnodes, sizeof(int), compare_index_by_id);
	for (int i = 0; i < profile->nnodes; i++)
	{
		profile->sorted_ids[i] = profile->nodes[profile->sorted_index[i]].id;
		if (i > 0 && profile->sorted_ids[i] == profile->sorted_ids[i - 1])
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cpuprofile node id " INT64_FORMAT " is used by more than one node",
							profile->sorted_ids[i]),
					 errdetail(nested ? "Nodes %d and %d of $.head, counted in preorder from 0, have the same id." :
							   "$.nodes[%d] and $.nodes[%d] have the same id.",
							   Min(profile->sorted_index[i], profile->sorted_index[i - 1]),
							   Max(profile->sorted_index[i], profile->sorted_index[i - 1])),
					 errhint("%s", FMT->hint)));
	}
}

/* The index of the node with this id; ERROR naming where the id was found */
static int
find_node(CpuProfile *profile, int64 id, const JsonPath *path)
{
	int			lo = 0,
				hi = profile->nnodes - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (profile->sorted_ids[mid] == id)
			return profile->sorted_index[mid];
		if (profile->sorted_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("cpuprofile %s refers to node id " INT64_FORMAT ", which does not exist",
					json_path_string(path), id),
			 errhint("%s", FMT->hint)));
	return -1;					/* keep the compiler quiet */
}

/* New format: parents come from each node's "children" (or "parent") ids */
static void
link_flat_nodes(CpuProfile *profile, JsonbContainer *root, const JsonPath *root_path)
{
	JsonPath	nodes_path = JSON_KEY(root_path, "nodes");
	JsonbContainer *nodes = json_required_array(FMT, root, "nodes", root_path);

	for (int i = 0; i < profile->nnodes; i++)
	{
		JsonPath	path = JSON_INDEX(&nodes_path, i);
		JsonPath	children_path = JSON_KEY(&path, "children");
		JsonbValue	value;
		JsonbContainer *object;
		JsonbContainer *children;

		CHECK_FOR_INTERRUPTS();
		json_element(nodes, i, &value);
		object = value.val.binary.data;
		if (!json_member(object, "children", &value))
			continue;
		children = json_as_container(FMT, &value, true, &children_path);
		for (int c = 0; c < json_length(children); c++)
		{
			JsonPath	child_path = JSON_INDEX(&children_path, c);
			int			child;

			json_element(children, c, &value);
			child = find_node(profile, json_integer(FMT, json_as_number(FMT, &value, &child_path),
													PG_INT64_MIN, PG_INT64_MAX, &child_path),
							  &child_path);
			if (profile->nodes[child].parent >= 0 || child == i)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("cpuprofile node id " INT64_FORMAT " has more than one parent",
								profile->nodes[child].id),
						 errdetail("%s lists it, and so does node id " INT64_FORMAT ".",
								   json_path_string(&child_path),
								   profile->nodes[Max(profile->nodes[child].parent, 0)].id),
						 errhint("%s", FMT->hint)));
			profile->nodes[child].parent = i;
		}
	}
}

/* ---------------------------------------------------------------- stacks */

static bool
is_root_marker(const CpuNode *node)
{
	return node->parent < 0 && strcmp(node->name, "(root)") == 0;
}

static int64
intern_node_frame(ProfileWriter *writer, const CpuNode *node)
{
	int32		func = profile_writer_func(writer, node->name, node->url, NULL);

	return profile_writer_frame(writer, func, NO_INT, node->line, node->col, NULL);
}

/*
 * The stack id of a node: its ancestors' chain, interned from the top down.
 * Iterative, since JS stacks can be thousands of frames deep; a chain
 * longer than the node count is a cycle of parent links.
 */
static int64
node_stack(ProfileWriter *writer, CpuProfile *profile, int index)
{
	int		   *chain = palloc(sizeof(int) * 64);
	int			capacity = 64;
	int			depth = 0;
	int64		stack = 0;

	for (int at = index; at >= 0 && !profile->nodes[at].interned; at = profile->nodes[at].parent)
	{
		if (depth == profile->nnodes)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cpuprofile node id " INT64_FORMAT " is its own ancestor",
							profile->nodes[index].id),
					 errdetail("Following \"children\" links from it leads back to it."),
					 errhint("%s", FMT->hint)));
		if (depth == capacity)
			chain = repalloc_huge(chain, sizeof(int) * (capacity *= 2));
		chain[depth++] = at;
	}
	if (depth > 0 && profile->nodes[chain[depth - 1]].parent >= 0)
		stack = profile->nodes[profile->nodes[chain[depth - 1]].parent].stack;
	while (depth-- > 0)
	{
		CpuNode    *node = &profile->nodes[chain[depth]];

		if (!is_root_marker(node))
			stack = profile_writer_stack(writer, stack, intern_node_frame(writer, node));
		node->stack = stack;
		node->interned = true;
	}
	pfree(chain);
	if (profile->nodes[index].stack == 0)
	{
		/* a sample on (root) itself: keep its time under a "(root)" func */
		stack = profile_writer_stack(writer, 0, intern_node_frame(writer, &profile->nodes[index]));
		return stack;
	}
	return profile->nodes[index].stack;
}

/* ---------------------------------------------------------------- samples */

static int
compare_samples(const void *a, const void *b)
{
	const CpuSample *x = a;
	const CpuSample *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void
overflow_error(const JsonPath *path)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("cpuprofile time at %s is out of range", json_path_string(path)),
			 errdetail("Times in nanoseconds after startTime must fit in a 64-bit integer."),
			 errhint("%s", FMT->hint)));
}

/*
 * Sample times in ns after startTime.  New format: running sums of
 * timeDeltas (µs).  Old format: absolute "timestamps" (µs) minus startTime
 * (seconds).  *end is endTime in ns after startTime.
 */
static CpuSample *
read_samples(CpuProfile *profile, JsonbContainer *root, bool nested, int *nsamples, int64 *end)
{
	JsonPath	root_path = JSON_ROOT;
	JsonPath	samples_path = JSON_KEY(&root_path, "samples");
	const char *times_key = nested ? "timestamps" : "timeDeltas";
	JsonPath	times_path = JSON_KEY(&root_path, times_key);
	JsonPath	start_path = JSON_KEY(&root_path, "startTime");
	JsonPath	end_path = JSON_KEY(&root_path, "endTime");
	JsonbContainer *samples = json_required_array(FMT, root, "samples", &root_path);
	JsonbContainer *times = json_required_array(FMT, root, times_key, &root_path);
	int64		scale = nested ? 1000000000 : 1000;
	int64		start = json_scaled_int64(FMT, json_required_number(FMT, root, "startTime", &root_path),
										  scale, true, &start_path);
	int64		end_abs = json_scaled_int64(FMT, json_required_number(FMT, root, "endTime", &root_path),
											scale, true, &end_path);
	int			n = json_length(samples);
	CpuSample  *result = palloc_extended(sizeof(CpuSample) * Max(n, 1), MCXT_ALLOC_HUGE);
	int64		ts = 0;

	/* old files hold one timestamp more than samples (the end); extras are ignored */
	if (json_length(times) < n || (!nested && json_length(times) != n))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cpuprofile has %d samples but %d %s", n, json_length(times), times_key),
				 errdetail("Each sample needs its time."),
				 errhint("%s", FMT->hint)));
	if (pg_sub_s64_overflow(end_abs, start, end))
		overflow_error(&end_path);
	for (int i = 0; i < n; i++)
	{
		JsonPath	sample_path = JSON_INDEX(&samples_path, i);
		JsonPath	time_path = JSON_INDEX(&times_path, i);
		JsonbValue	value;
		int64		t;

		CHECK_FOR_INTERRUPTS();
		json_element(samples, i, &value);
		result[i].node = find_node(profile,
								   json_integer(FMT, json_as_number(FMT, &value, &sample_path),
												PG_INT64_MIN, PG_INT64_MAX, &sample_path),
								   &sample_path);
		json_element(times, i, &value);
		t = json_scaled_int64(FMT, json_as_number(FMT, &value, &time_path), 1000, true, &time_path);
		if (nested ? pg_sub_s64_overflow(t, start, &ts) : pg_add_s64_overflow(ts, t, &ts))
			overflow_error(&time_path);
		result[i].ts = ts;
		result[i].order = i;
	}
	qsort(result, n, sizeof(CpuSample), compare_samples);
	*nsamples = n;
	return result;
}

static void
write_samples(ProfileWriter *writer, CpuProfile *profile, CpuSample *samples, int n, int64 end)
{
	for (int i = 0; i < n; i++)
	{
		int64		next = i + 1 < n ? samples[i + 1].ts : Max(end, samples[i].ts);
		int64		weight;

		CHECK_FOR_INTERRUPTS();
		if (pg_sub_s64_overflow(next, samples[i].ts, &weight))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("cpuprofile sample times are out of range"),
					 errdetail("The time between two samples does not fit in a 64-bit integer of nanoseconds."),
					 errhint("%s", FMT->hint)));
		profile_writer_sample(writer, NULL, true, samples[i].ts,
							  node_stack(writer, profile, samples[i].node), weight, 0);
	}
}

/* Parses a whole .cpuprofile into the writer */
static void
parse_cpuprofile(ProfileWriter *writer, const char *data, int len)
{
	JsonbContainer *root = json_read_document(FMT, data, len);
	JsonPath	root_path = JSON_ROOT;
	CpuProfile	profile = {0};
	JsonbValue	head;
	bool		nested = !json_member(root, "nodes", &head) && json_member(root, "head", &head);
	CpuSample  *samples;
	int			nsamples;
	int64		end;

	if (nested)
	{
		JsonPath	head_path = JSON_KEY(&root_path, "head");

		read_nested_node(&profile, json_as_container(FMT, &head, false, &head_path), -1, &head_path);
		index_node_ids(&profile, nested);
	}
	else
	{
		read_flat_nodes(&profile, root, &root_path);
		index_node_ids(&profile, nested);
		link_flat_nodes(&profile, root, &root_path);
	}
	samples = read_samples(&profile, root, nested, &nsamples, &end);
	write_samples(writer, &profile, samples, nsamples, end);
}

/* import_cpuprofile(data text, name text, meta jsonb) → profile id */
Datum
calltree_import_cpuprofile(PG_FUNCTION_ARGS)
{
	text	   *data;
	ProfileInfo info;
	ProfileWriter *writer;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	data = PG_GETARG_TEXT_PP(0);
	profile_info_from_args(fcinfo, 1, 2, "cpuprofile", &info);
	info.weight_unit = "nanoseconds";
	writer = profile_writer_begin(&info);
	parse_cpuprofile(writer, VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data));
	PG_RETURN_INT64(profile_writer_finish(writer));
}
