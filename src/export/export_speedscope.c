/*
 * export_speedscope.c
 *	  to_speedscope(calltree, name, unit): a speedscope file with one
 *	  sampled profile.
 *
 * Every tree node with self weight becomes one sample (its func path as
 * frame indexes, root first) weighted by that self weight, in the tree's
 * canonical order.  A leaf with self weight 0 becomes a sample of weight 0,
 * so that import_speedscope() gives back exactly the same nodes.
 *
 * The unit: a calltree value does not know its profile's, so the caller
 * names it (profile.weight_unit of the profiles the tree came from).
 * speedscope's own names (nanoseconds, microseconds, milliseconds,
 * seconds, bytes, none) are written as they are, and the weights are taken
 * to be in that unit; any other unit ("samples", pprof's "count", a perf
 * event's count) and NULL are counts: "none".  Frames are
 * the tree's funcs in order of first appearance, named from calltree.func
 * (with their file when they have one); a func id that is not there (a tree
 * built from made-up paths) is named "#<id>".
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "tree/calltree.h"
#include "tree/path.h"
#include "store/store.h"
#include "export/export.h"

PG_FUNCTION_INFO_V1(calltree_to_speedscope);

typedef struct ExportFrame
{
	const char *name;
	const char *file;
} ExportFrame;

/*
 * The frames of the tree in order of first appearance, named from
 * calltree.func ("#<id>" for an id it does not hold); node_frame[i] is the
 * frame index of node i.
 */
static ExportFrame *
collect_frames(const CallTree *tree, const FuncNames *names, int32 *node_frame, int32 *nframes)
{
	int32		n = tree->nnodes;
	const int32 *func = calltree_func(tree);
	int32		distinct = func_names_count(names);
	int32	   *frame_of = palloc(sizeof(int32) * Max(distinct, 1));
	ExportFrame *frames = palloc_extended(sizeof(ExportFrame) * Max(distinct, 1), MCXT_ALLOC_HUGE);

	for (int32 k = 0; k < distinct; k++)
		frame_of[k] = -1;
	*nframes = 0;
	for (int32 i = 0; i < n; i++)
	{
		int32		k = func_names_index(names, func[i]);

		if (frame_of[k] < 0)
		{
			const char *name = func_names_get(names, func[i]);
			ExportFrame *frame = &frames[*nframes];

			frame->name = name ? name : psprintf("#%d", func[i]);
			frame->file = func_names_file(names, func[i]);
			frame_of[k] = (*nframes)++;
		}
		node_frame[i] = frame_of[k];
	}
	pfree(frame_of);
	return frames;
}

static void
append_frames(StringInfo out, const ExportFrame *frames, int32 nframes)
{
	appendStringInfoString(out, "\"shared\":{\"frames\":[");
	for (int32 i = 0; i < nframes; i++)
	{
		appendStringInfoString(out, i > 0 ? ",{\"name\":" : "{\"name\":");
		escape_json(out, frames[i].name);
		if (frames[i].file)
		{
			appendStringInfoString(out, ",\"file\":");
			escape_json(out, frames[i].file);
		}
		appendStringInfoChar(out, '}');
	}
	appendStringInfoString(out, "]}");
}

static void
append_samples(StringInfo out, const CallTree *tree, const int32 *node_frame)
{
	const int32 *parent = calltree_parent(tree);
	const int64 *self = calltree_self(tree);
	int32	   *path = palloc(sizeof(int32) * Max(tree->nnodes, 1));
	bool		first = true;

	appendStringInfoString(out, "\"samples\":[");
	for (int32 i = 0; i < tree->nnodes; i++)
	{
		int32		depth = 0;

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!calltree_holds_samples(tree, i))
			continue;
		for (int32 at = i; at >= 0; at = parent[at])
			path[depth++] = node_frame[at];
		appendStringInfoString(out, first ? "[" : ",[");
		first = false;
		while (depth-- > 0)
			appendStringInfo(out, depth > 0 ? "%d," : "%d", path[depth]);
		appendStringInfoChar(out, ']');
	}
	appendStringInfoString(out, "],\"weights\":[");
	first = true;
	for (int32 i = 0; i < tree->nnodes; i++)
		if (calltree_holds_samples(tree, i))
		{
			appendStringInfo(out, first ? INT64_FORMAT : "," INT64_FORMAT, self[i]);
			first = false;
		}
	appendStringInfoChar(out, ']');
	pfree(path);
}

/* speedscope's name of a unit of calltree's; see the file header */
static const char *
speedscope_unit(const char *unit)
{
	static const char *const known[] = {
		"nanoseconds", "microseconds", "milliseconds", "seconds", "bytes", "none"
	};

	for (int i = 0; unit != NULL && i < lengthof(known); i++)
		if (strcmp(unit, known[i]) == 0)
			return known[i];
	return "none";
}

void
export_speedscope(const CallTree *tree, const FuncNames *names, const char *name,
				  const char *unit, StringInfo out)
{
	int32	   *node_frame;
	int32		nframes;
	ExportFrame *frames;

	calltree_check_path_elements("to_speedscope()",
								 calltree_path_elements(tree, calltree_depths(tree), true));
	node_frame = palloc(sizeof(int32) * Max(tree->nnodes, 1));
	frames = collect_frames(tree, names, node_frame, &nframes);
	appendStringInfoString(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
						   "\"exporter\":\"calltree\",\"name\":");
	escape_json(out, name);
	appendStringInfoString(out, ",\"activeProfileIndex\":0,");
	append_frames(out, frames, nframes);
	appendStringInfoString(out, ",\"profiles\":[{\"type\":\"sampled\",\"name\":");
	escape_json(out, name);
	appendStringInfo(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":" INT64_FORMAT ",",
					 speedscope_unit(unit), calltree_total_weight(tree));
	append_samples(out, tree, node_frame);
	appendStringInfoString(out, "}]}");
	pfree(node_frame);
}

/*
 * to_speedscope(tree calltree, name text, unit text) → json.  0.1's
 * to_speedscope(tree, name), still declared until ALTER EXTENSION UPDATE,
 * calls this too: no unit.
 */
Datum
calltree_to_speedscope(PG_FUNCTION_ARGS)
{
	CallTree   *tree;
	const char *name = PG_ARGISNULL(1) ? "calltree" : text_to_cstring(PG_GETARG_TEXT_PP(1));
	const char *unit = PG_NARGS() < 3 || PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2));
	StringInfoData out;

	/* not STRICT: a NULL name or unit means the default one */
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	tree = PG_GETARG_CALLTREE_P(0);

	export_buffer_begin(&out);
	export_speedscope(tree, func_names_fetch(tree), name, unit, &out);
	PG_RETURN_TEXT_P(export_buffer_value(&out));
}
