/*
 * v8_profile.c
 *	  V8 CPU profiles: the node table, parent links, timed samples, and
 *	  their stacks and weights written to a ProfileWriter.  Shared by the
 *	  .cpuprofile importer and the CPU samples of trace-event files; see
 *	  v8_profile.h for the rules.
 *
 * Time: samples are put in time order, stably (V8 emits negative time
 * deltas: samples recorded out of order), per thread.  Each weighs the ns
 * until the next sample of its thread; the last lasts until the end time
 * when there is one (0 if it comes before), and weighs 0 otherwise.
 */
#include "postgres.h"

#include "common/int.h"
#include "miscadmin.h"

#include "import/js_names.h"
#include "import/v8_profile.h"

/* ---------------------------------------------------------------- nodes */

int
v8_add_node(V8Profile *profile)
{
	if (profile->nnodes == profile->capacity)
	{
		profile->capacity = Max(64, profile->capacity * 2);
		profile->nodes = profile->nodes
			? repalloc_huge(profile->nodes, sizeof(V8Node) * profile->capacity)
			: palloc_extended(sizeof(V8Node) * profile->capacity, MCXT_ALLOC_HUGE);
	}
	memset(&profile->nodes[profile->nnodes], 0, sizeof(V8Node));
	profile->nodes[profile->nnodes].parent = -1;
	return profile->nnodes++;
}

/* A 0-based position from the file as a 1-based frame field */
static OptionalInt
position_field(const JsonFormat *format, JsonbContainer *object, const char *key,
			   const JsonPath *parent)
{
	JsonPath	path = JSON_KEY(parent, key);
	JsonbValue	value;
	int64		position;

	if (!json_member(object, key, &value))
		return NO_INT;
	position = json_integer(format, json_as_number(format, &value, &path), -1, PG_INT32_MAX - 1, &path);
	return position < 0 ? NO_INT : SOME_INT(position + 1);
}

/* The call frame fields (functionName, url, lineNumber, columnNumber) */
void
v8_read_call_frame(V8Profile *profile, V8Node *node, JsonbContainer *frame, const JsonPath *path)
{
	const JsonFormat *format = profile->format;

	node->name = json_required_string(format, frame, "functionName", path);
	node->url = json_optional_string(format, frame, "url", path);
	node->root_marker = strcmp(node->name, "(root)") == 0;
	if (node->url && node->url[0] == '\0')
		node->url = NULL;
	node->line = position_field(format, frame, "lineNumber", path);
	node->col = position_field(format, frame, "columnNumber", path);
	/* a call frame's position is where its function starts: its identity */
	node->name = js_function_name(node->name, node->url, node->line, node->col);
	if (node->name[0] == '\0')
		node->name = JS_ANONYMOUS;
}

int64
v8_node_id(V8Profile *profile, JsonbContainer *object, const JsonPath *path)
{
	JsonPath	id_path = JSON_KEY(path, "id");

	return json_integer(profile->format, json_required_number(profile->format, object, "id", path),
						PG_INT64_MIN, PG_INT64_MAX, &id_path);
}

static V8Profile *current_profile;	/* for the qsort comparator */

static int
compare_index_by_id(const void *a, const void *b)
{
	int64		x = current_profile->nodes[*(const int *) a].id;
	int64		y = current_profile->nodes[*(const int *) b].id;

	return x < y ? -1 : x > y;
}

void
v8_index_node_ids(V8Profile *profile)
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
					 errmsg("%s node id " INT64_FORMAT " is used by more than one node",
							profile->format->name, profile->sorted_ids[i]),
					 errdetail("Nodes %d and %d have the same id.",
							   Min(profile->sorted_index[i], profile->sorted_index[i - 1]),
							   Max(profile->sorted_index[i], profile->sorted_index[i - 1])),
					 errhint("%s", profile->format->hint)));
	}
}

/* The index of the node with this id; ERROR naming where the id was found */
int
v8_find_node(V8Profile *profile, int64 id, const JsonPath *path)
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
			 errmsg("%s %s refers to node id " INT64_FORMAT ", which does not exist",
					profile->format->name, json_path_string(path), id),
			 errhint("%s", profile->format->hint)));
	return -1;					/* keep the compiler quiet */
}

/* The node a JSON number names */
int
v8_find_node_value(V8Profile *profile, const JsonbValue *value, const JsonPath *path)
{
	const JsonFormat *format = profile->format;

	return v8_find_node(profile, json_integer(format, json_as_number(format, value, path),
											  PG_INT64_MIN, PG_INT64_MAX, path),
						path);
}

/*
 * child's parent is parent.  A link given twice is consistent (Chrome 116
 * and later write both a node's "parent" and its parent's "children"); an
 * ERROR if child already has another parent, or is parent.
 */
void
v8_set_parent(V8Profile *profile, int child, int parent, const JsonPath *path)
{
	if (child == parent)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s node id " INT64_FORMAT " is its own parent",
						profile->format->name, profile->nodes[child].id),
				 errdetail("%s names the node itself.", json_path_string(path)),
				 errhint("%s", profile->format->hint)));
	if (profile->nodes[child].parent == parent)
		return;
	if (profile->nodes[child].parent >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s node id " INT64_FORMAT " has more than one parent",
						profile->format->name, profile->nodes[child].id),
				 errdetail("%s makes it a child of node id " INT64_FORMAT ", and it already is one of node id " INT64_FORMAT ".",
						   json_path_string(path), profile->nodes[parent].id,
						   profile->nodes[profile->nodes[child].parent].id),
				 errhint("%s", profile->format->hint)));
	profile->nodes[child].parent = parent;
}

/* The links of the node at index: its "parent" id, its "children" ids */
void
v8_link_node(V8Profile *profile, int index, JsonbContainer *object, const JsonPath *path)
{
	JsonPath	parent_path = JSON_KEY(path, "parent");
	JsonPath	children_path = JSON_KEY(path, "children");
	JsonbValue	value;

	if (json_member(object, "parent", &value))
		v8_set_parent(profile, index, v8_find_node_value(profile, &value, &parent_path), &parent_path);
	if (json_member(object, "children", &value))
	{
		JsonbContainer *children = json_as_container(profile->format, &value, true, &children_path);

		for (int c = 0; c < json_length(children); c++)
		{
			JsonPath	child_path = JSON_INDEX(&children_path, c);

			json_element(children, c, &value);
			v8_set_parent(profile, v8_find_node_value(profile, &value, &child_path), index, &child_path);
		}
	}
}

/* The nodes of a "nodes" array (id and callFrame each) into the table */
void
v8_read_nodes(V8Profile *profile, JsonbContainer *nodes, const JsonPath *nodes_path)
{
	for (int i = 0; i < json_length(nodes); i++)
	{
		JsonPath	path = JSON_INDEX(nodes_path, i);
		JsonPath	frame_path = JSON_KEY(&path, "callFrame");
		JsonbValue	value;
		JsonbContainer *object;
		int			index;

		CHECK_FOR_INTERRUPTS();
		json_element(nodes, i, &value);
		object = json_as_container(profile->format, &value, false, &path);
		index = v8_add_node(profile);	/* may move the array: index first */
		profile->nodes[index].id = v8_node_id(profile, object, &path);
		v8_read_call_frame(profile, &profile->nodes[index],
						   json_required_object(profile->format, object, "callFrame", &path), &frame_path);
	}
}

/*
 * The parent links of a "nodes" array read by v8_read_nodes, once every
 * node is in the table; `first` is the table index of its first node.
 */
void
v8_link_nodes(V8Profile *profile, JsonbContainer *nodes, const JsonPath *nodes_path, int first)
{
	for (int i = 0; i < json_length(nodes); i++)
	{
		JsonPath	path = JSON_INDEX(nodes_path, i);
		JsonbValue	value;

		CHECK_FOR_INTERRUPTS();
		json_element(nodes, i, &value);
		v8_link_node(profile, first + i, value.val.binary.data, &path);
	}
}

/* ---------------------------------------------------------------- stacks */

static bool
is_root_marker(const V8Node *node)
{
	return node->parent < 0 && node->root_marker;
}

static int64
intern_node_frame(ProfileWriter *writer, const V8Node *node)
{
	return profile_writer_func_frame(writer, node->name, node->url, NULL, NO_INT, node->line, node->col, NULL);
}

/*
 * The stack id of a node: its ancestors' chain, interned from the top down.
 * Iterative, since JS stacks can be thousands of frames deep; a chain
 * longer than the node count is a cycle of parent links.
 */
static int64
node_stack(ProfileWriter *writer, V8Profile *profile, int index)
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
					 errmsg("%s node id " INT64_FORMAT " is its own ancestor",
							profile->format->name, profile->nodes[index].id),
					 errdetail("Following its parent links leads back to it."),
					 errhint("%s", profile->format->hint)));
		if (depth == capacity)
			chain = repalloc_huge(chain, sizeof(int) * (capacity *= 2));
		chain[depth++] = at;
	}
	if (depth > 0 && profile->nodes[chain[depth - 1]].parent >= 0)
		stack = profile->nodes[profile->nodes[chain[depth - 1]].parent].stack;
	while (depth-- > 0)
	{
		V8Node	   *node = &profile->nodes[chain[depth]];

		if (!is_root_marker(node))
			stack = profile_writer_stack(writer, stack, intern_node_frame(writer, node));
		node->stack = stack;
		node->interned = true;
	}
	pfree(chain);
	if (profile->nodes[index].stack == 0)
	{
		/* a sample on the root marker itself: keep its time under its name */
		return profile_writer_stack(writer, 0, intern_node_frame(writer, &profile->nodes[index]));
	}
	return profile->nodes[index].stack;
}

/* ---------------------------------------------------------------- samples */

void
v8_add_sample(V8Samples *samples, int32 thread, int64 ts, int node)
{
	V8Sample   *sample;

	if (samples->n == samples->capacity)
	{
		samples->capacity = Max(256, samples->capacity * 2);
		samples->items = samples->items
			? repalloc_huge(samples->items, sizeof(V8Sample) * samples->capacity)
			: palloc_extended(sizeof(V8Sample) * samples->capacity, MCXT_ALLOC_HUGE);
	}
	sample = &samples->items[samples->n];
	sample->thread = thread;
	sample->order = samples->n++;
	sample->ts = ts;
	sample->node = node;
}

static void
overflow_error(const JsonFormat *format, const JsonPath *path)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("%s time at %s is out of range", format->name, json_path_string(path)),
			 errdetail("Times in nanoseconds after startTime must fit in a 64-bit integer."),
			 errhint("%s", format->hint)));
}

/*
 * Samples from parallel arrays of node ids and times (µs), on thread 0.
 * Times are deltas (each sample's time is the clock plus its delta) or
 * absolute (minus base, in ns).  times must have at least as many
 * elements as nodes; the caller checks.
 */
void
v8_read_samples(V8Profile *profile, V8Samples *samples,
				JsonbContainer *nodes, const JsonPath *nodes_path,
				JsonbContainer *times, const JsonPath *times_path,
				bool deltas, int64 base)
{
	const JsonFormat *format = profile->format;

	Assert(json_length(times) >= json_length(nodes));
	for (int i = 0; i < json_length(nodes); i++)
	{
		JsonPath	node_path = JSON_INDEX(nodes_path, i);
		JsonPath	time_path = JSON_INDEX(times_path, i);
		JsonbValue	value;
		int			node;
		int64		t;

		CHECK_FOR_INTERRUPTS();
		json_element(nodes, i, &value);
		node = v8_find_node_value(profile, &value, &node_path);
		json_element(times, i, &value);
		t = json_scaled_int64(format, json_as_number(format, &value, &time_path), 1000, true, &time_path);
		if (deltas ? pg_add_s64_overflow(samples->clock, t, &samples->clock)
			: pg_sub_s64_overflow(t, base, &samples->clock))
			overflow_error(format, &time_path);
		v8_add_sample(samples, 0, samples->clock, node);
	}
}

static int
compare_samples(const void *a, const void *b)
{
	const V8Sample *x = a;
	const V8Sample *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The ns from sample i to the next of its thread, or to the end */
static int64
sample_weight(const V8Profile *profile, const V8Samples *samples, int i, bool has_end, int64 end)
{
	const V8Sample *sample = &samples->items[i];
	int64		next = sample->ts;
	int64		weight;

	if (i + 1 < samples->n && samples->items[i + 1].thread == sample->thread)
		next = samples->items[i + 1].ts;
	else if (has_end)
		next = Max(end, sample->ts);
	if (pg_sub_s64_overflow(next, sample->ts, &weight))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s sample times are out of range", profile->format->name),
				 errdetail("The time between two samples does not fit in a 64-bit integer of nanoseconds."),
				 errhint("%s", profile->format->hint)));
	return weight;
}

void
v8_write_samples(ProfileWriter *writer, V8Profile *profile, V8Samples *samples,
				 const char *const *thread_labels, bool has_end, int64 end)
{
	qsort(samples->items, samples->n, sizeof(V8Sample), compare_samples);
	for (int i = 0; i < samples->n; i++)
	{
		const V8Sample *sample = &samples->items[i];

		CHECK_FOR_INTERRUPTS();
		profile_writer_sample(writer, thread_labels[sample->thread], true, sample->ts,
							  node_stack(writer, profile, sample->node),
							  sample_weight(profile, samples, i, has_end, end), 0);
	}
}
