/*
 * export_speedscope.c
 *	  to_speedscope(calltree, name): a speedscope file with one sampled
 *	  profile.
 *
 * Every tree node with self weight becomes one sample (its func path as
 * frame indexes, root first) weighted by that self weight, in the tree's
 * canonical order.  A leaf with self weight 0 becomes a sample of weight 0,
 * so that import_speedscope() gives back exactly the same nodes.  The unit
 * is "none": a calltree value does not know its profile's unit.  Frames are
 * the tree's funcs in order of first appearance, named from calltree.func
 * (with their file when they have one); a func id that is not there (a tree
 * built from made-up paths) is named "#<id>".
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/json.h"

#include "tree/calltree.h"
#include "tree/path.h"

PG_FUNCTION_INFO_V1(calltree_to_speedscope);

typedef struct ExportFrame
{
	int32		func;
	const char *name;
	const char *file;
	int32		index;			/* its place in the frames array */
} ExportFrame;

static int
compare_int32(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return x < y ? -1 : x > y;
}

/*
 * The frames of the tree in order of first appearance; node_frame[i] is the
 * frame index of node i.
 */
static ExportFrame *
collect_frames(const CallTree *tree, int32 *node_frame, int32 *nframes)
{
	int32		n = tree->nnodes;
	const int32 *func = calltree_func(tree);
	int32	   *sorted = palloc(sizeof(int32) * Max(n, 1));
	int32	   *frame_of = palloc(sizeof(int32) * Max(n, 1));
	ExportFrame *frames = palloc_extended(sizeof(ExportFrame) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int32		distinct = 0;

	memcpy(sorted, func, sizeof(int32) * n);
	qsort(sorted, n, sizeof(int32), compare_int32);
	for (int32 i = 0; i < n; i++)
		if (distinct == 0 || sorted[distinct - 1] != sorted[i])
			sorted[distinct++] = sorted[i];
	for (int32 i = 0; i < distinct; i++)
		frame_of[i] = -1;

	*nframes = 0;
	for (int32 i = 0; i < n; i++)
	{
		int32	   *slot = bsearch(&func[i], sorted, distinct, sizeof(int32), compare_int32);
		int32		k = slot - sorted;

		if (frame_of[k] < 0)
		{
			frame_of[k] = (*nframes)++;
			frames[frame_of[k]].func = func[i];
		}
		node_frame[i] = frame_of[k];
	}
	pfree(sorted);
	pfree(frame_of);
	return frames;
}

static int
compare_frame_func(const void *a, const void *b)
{
	return compare_int32(&((const ExportFrame *) a)->func, &((const ExportFrame *) b)->func);
}

/* Names the frames from calltree.func; unknown ids become "#<id>". */
static void
name_frames(ExportFrame *frames, int32 nframes)
{
	MemoryContext cxt = CurrentMemoryContext;
	ExportFrame *by_func;
	Datum	   *ids = palloc(sizeof(Datum) * Max(nframes, 1));
	int			dims[1] = {nframes};
	int			lbs[1] = {1};
	Oid			argtypes[1] = {INT4ARRAYOID};
	Datum		args[1];

	for (int32 i = 0; i < nframes; i++)
	{
		ids[i] = Int32GetDatum(frames[i].func);
		frames[i].name = psprintf("#%d", frames[i].func);
	}
	args[0] = PointerGetDatum(construct_md_array(ids, NULL, 1, dims, lbs, INT4OID, 4, true, TYPALIGN_INT));

	/* a copy sorted by func, for the lookups below */
	by_func = palloc_extended(sizeof(ExportFrame) * Max(nframes, 1), MCXT_ALLOC_HUGE);
	for (int32 i = 0; i < nframes; i++)
	{
		by_func[i] = frames[i];
		by_func[i].index = i;
	}
	qsort(by_func, nframes, sizeof(ExportFrame), compare_frame_func);

	SPI_connect();
	if (SPI_execute_with_args("SELECT id, name, file FROM calltree.func "
							  "WHERE id OPERATOR(pg_catalog.=) ANY ($1)",
							  1, argtypes, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "looking up func names failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[r];
		bool		isnull;
		ExportFrame probe;
		ExportFrame *found;
		ExportFrame *frame;
		char	   *file;

		probe.func = DatumGetInt32(SPI_getbinval(tuple, SPI_tuptable->tupdesc, 1, &isnull));
		found = bsearch(&probe, by_func, nframes, sizeof(ExportFrame), compare_frame_func);
		if (found == NULL)
			continue;
		frame = &frames[found->index];
		frame->name = MemoryContextStrdup(cxt, SPI_getvalue(tuple, SPI_tuptable->tupdesc, 2));
		file = SPI_getvalue(tuple, SPI_tuptable->tupdesc, 3);
		frame->file = file ? MemoryContextStrdup(cxt, file) : NULL;
	}
	SPI_finish();
	pfree(by_func);
	pfree(ids);
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

/* Which nodes become samples: those with self weight, and leaves */
static bool *
sampled_nodes(const CallTree *tree)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *parent = calltree_parent(tree);
	bool	   *has_child = palloc0(sizeof(bool) * Max(n, 1));
	bool	   *sampled = palloc(sizeof(bool) * Max(n, 1));

	for (int32 i = 0; i < n; i++)
		if (parent[i] >= 0)
			has_child[parent[i]] = true;
	for (int32 i = 0; i < n; i++)
		sampled[i] = self[i] != 0 || !has_child[i];
	pfree(has_child);
	return sampled;
}

static void
append_samples(StringInfo out, const CallTree *tree, const int32 *node_frame, const bool *sampled)
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
		if (!sampled[i])
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
		if (sampled[i])
		{
			appendStringInfo(out, first ? INT64_FORMAT : "," INT64_FORMAT, self[i]);
			first = false;
		}
	appendStringInfoChar(out, ']');
	pfree(path);
}

/* The whole file for a tree */
static char *
speedscope_file(const CallTree *tree, const char *name)
{
	StringInfoData out;
	int32	   *node_frame;
	int32		nframes;
	ExportFrame *frames;

	calltree_check_path_elements("to_speedscope()",
								 calltree_path_elements(tree, calltree_depths(tree), true));
	node_frame = palloc(sizeof(int32) * Max(tree->nnodes, 1));
	frames = collect_frames(tree, node_frame, &nframes);
	name_frames(frames, nframes);
	initStringInfo(&out);
	appendStringInfoString(&out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
						   "\"exporter\":\"calltree\",\"name\":");
	escape_json(&out, name);
	appendStringInfoString(&out, ",\"activeProfileIndex\":0,");
	append_frames(&out, frames, nframes);
	appendStringInfoString(&out, ",\"profiles\":[{\"type\":\"sampled\",\"name\":");
	escape_json(&out, name);
	appendStringInfo(&out, ",\"unit\":\"none\",\"startValue\":0,\"endValue\":" INT64_FORMAT ",",
					 calltree_total_weight(tree));
	append_samples(&out, tree, node_frame, sampled_nodes(tree));
	appendStringInfoString(&out, "}]}");
	return out.data;
}

/* to_speedscope(tree calltree, name text) → json */
Datum
calltree_to_speedscope(PG_FUNCTION_ARGS)
{
	CallTree   *tree;
	const char *name = PG_ARGISNULL(1) ? "calltree" : text_to_cstring(PG_GETARG_TEXT_PP(1));

	/* not STRICT: a NULL name means the default one */
	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	tree = PG_GETARG_CALLTREE_P(0);

	PG_RETURN_TEXT_P(cstring_to_text(speedscope_file(tree, name)));
}
