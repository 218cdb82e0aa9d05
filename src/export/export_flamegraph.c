/*
 * export_flamegraph.c
 *	  flamegraph(): a tree as an interactive flame graph, drawn by
 *	  export_flamegraph_svg.c.
 *
 * Each box is a CallNode of the tree, as wide as its running weight, in
 * the tree's own order (siblings heaviest first).  Colors come from a hash
 * of the func's name into a warm palette, so a function has the same color
 * in every graph.  A tree with negative weights (a difference of trees) has
 * no widths: flamegraph_diff() (export_flamegraph_diff.c) draws the two
 * trees it came from.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "tree/calltree.h"
#include "tree/hash64.h"
#include "store/store.h"
#include "export/export.h"

PG_FUNCTION_INFO_V1(calltree_flamegraph);

/*
 * A flame graph draws shares of a whole: a negative weight (a differential
 * tree) has no width.
 */
static void
check_weights(const CallTree *tree)
{
	const int64 *self = calltree_self(tree);

	for (int32 i = 0; i < tree->nnodes; i++)
		if (self[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot draw a flame graph of negative weights"),
					 errdetail("Node %d (func %d) has self weight " INT64_FORMAT ".",
							   i + 1, calltree_func(tree)[i], self[i]),
					 errhint("A tree with negative weights is a difference of trees: "
							 "draw flamegraph_diff(base, test) of the two trees instead.")));
}

/*
 * A warm color from the name: red 205-255, green 0-230, blue 0-55, as in
 * flamegraph.pl's "hot" palette.  FNV-1a over the UTF-8 bytes, then a
 * 64-bit finalizer so that similar names get unrelated colors.
 */
static char *
name_color(const char *name)
{
	uint64		h = UINT64CONST(0xcbf29ce484222325);
	uint32		mixed;

	for (const unsigned char *c = (const unsigned char *) name; *c; c++)
	{
		h ^= *c;
		h *= UINT64CONST(0x100000001b3);
	}
	mixed = calltree_hash64(h);
	return psprintf("rgb(%u,%u,%u)",
					205 + 50 * (mixed & 0x3FF) / 0x3FF,
					230 * ((mixed >> 10) & 0x3FF) / 0x3FF,
					55 * ((mixed >> 20) & 0x3FF) / 0x3FF);
}

void
export_flamegraph(const CallTree *tree, const FuncNames *names, const FlameOptions *options,
				  StringInfo out)
{
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	FlameLayout *layout;
	MemoryContext frame_cxt;

	check_weights(tree);
	layout = flame_layout(tree->nnodes, calltree_running(tree), calltree_parent(tree),
						  calltree_depths(tree), calltree_total_weight(tree), options, 0);
	frame_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree flamegraph frame",
									  ALLOCSET_SMALL_SIZES);
	flame_begin_document(out, layout, options,
						 options->icicle ? "Icicle Graph" : "Flame Graph", NULL);

	for (int32 i = 0; i < layout->nnodes; i++)
	{
		int64		running = layout->running[i];
		const char *name;
		char	   *stats;
		MemoryContext old;

		if ((i & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!layout->visible[i])
			continue;

		/* the strings of a box live only as long as the box */
		old = MemoryContextSwitchTo(frame_cxt);
		name = flame_func_name(func_names_get(names, func[i]), func[i]);
		stats = psprintf("running %s (%.2f%%), self %s (%.2f%%)",
						 flame_weight(options, running), 100.0 * running / layout->total,
						 flame_weight(options, self[i]), 100.0 * self[i] / layout->total);
		flame_append_frame(out, layout, i, name, stats, name_color(name), options->icicle);
		MemoryContextSwitchTo(old);
		MemoryContextReset(frame_cxt);
	}
	flame_end_document(out);
	MemoryContextDelete(frame_cxt);
}

/*
 * flamegraph(tree calltree, title text, icicle boolean, min_width float8,
 *			  unit text) → text
 *
 * Not strict: a NULL title means the default one, a NULL icicle or
 * min_width their defaults, a NULL unit weights as they are.  The
 * flamegraph() of 0.1 and 0.2, declared until ALTER EXTENSION UPDATE,
 * calls this with four arguments: no unit.
 */
Datum
calltree_flamegraph(PG_FUNCTION_ARGS)
{
	CallTree   *tree;
	FlameOptions options;
	bool		no_unit;
	StringInfoData out;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	tree = PG_GETARG_CALLTREE_P(0);
	options.title = PG_ARGISNULL(1) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(1));
	options.icicle = !PG_ARGISNULL(2) && PG_GETARG_BOOL(2);
	options.min_width = flame_min_width_arg(PG_ARGISNULL(3), PG_ARGISNULL(3) ? 0 : PG_GETARG_FLOAT8(3));
	no_unit = PG_NARGS() < 5 || PG_ARGISNULL(4);
	flame_unit_arg(&options, no_unit, no_unit ? NULL : PG_GETARG_TEXT_PP(4));

	export_buffer_begin(&out);
	export_flamegraph(tree, func_names_fetch(tree), &options, &out);
	PG_RETURN_TEXT_P(export_buffer_value(&out));
}
