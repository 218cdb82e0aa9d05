/*
 * export_flamegraph_diff.c
 *	  flamegraph_diff(): Brendan Gregg's differential flame graph of two
 *	  trees, drawn by export_flamegraph_svg.c.
 *
 * The boxes are the CallNodes of the union of both trees (tree/compare.h),
 * as wide as their running weight in test, the newer profile: the picture
 * is test's flame graph.  The color says how the node's share of its
 * tree's total changed from base to test:
 *
 *	delta = test_running / test_total - base_running / base_total
 *
 * red where the share grew, blue where it shrank, white where it is the
 * same.  The shade is linear in |delta|, relative to the largest |delta|
 * among the boxes drawn: that box is pure red or blue, rgb(255,0,0) or
 * rgb(0,0,255); a box of half that change is halfway between it and the
 * lightest shade, rgb(255,210,210) or rgb(210,210,255), flamegraph.pl's
 * palette.  (flamegraph.pl colors by the change of self weight; shares of
 * running weight color a caller too when its callees grew.)  Shares
 * rather than weights, so that two profiles of different lengths compare
 * (pprof's -normalize); the tooltip gives both weights and both shares.
 *
 * Nodes of base that test lacks (or holds with weight 0) have no width in
 * test and are not drawn, as in flamegraph.pl; a legend line under the
 * title says how many there are and what share of base they held.
 * flamegraph_diff(test, base) draws them: base's picture, colored the
 * other way round.
 */
#include "postgres.h"

#include <math.h>

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "tree/calltree.h"
#include "tree/compare.h"
#include "store/store.h"
#include "export/export.h"

PG_FUNCTION_INFO_V1(calltree_flamegraph_diff);

/* The lightest shade of a change, in each channel but the dominant one. */
#define LIGHTEST_SHADE	210

/* A share of a whole: 0 of an empty whole. */
static double
share(int64 weight, int64 total)
{
	return total != 0 ? (double) weight / (double) total : 0.0;
}

/* Both sides are shares of a whole: neither may have a negative weight. */
static void
check_side(const CallTree *tree, const char *side)
{
	const int64 *self = calltree_self(tree);

	for (int32 i = 0; i < tree->nnodes; i++)
		if (self[i] < 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("cannot draw a differential flame graph of negative weights"),
					 errdetail("Node %d (func %d) of %s has self weight " INT64_FORMAT ".",
							   i + 1, calltree_func(tree)[i], side, self[i]),
					 errhint("Pass the two trees themselves, not their difference.")));
}

/* Per union node, the change of its share from base to test. */
static double *
share_deltas(const TreePair *pair)
{
	double	   *delta = palloc_extended(sizeof(double) * Max(pair->nnodes, 1), MCXT_ALLOC_HUGE);

	for (int32 i = 0; i < pair->nnodes; i++)
		delta[i] = share(pair->test_running[i], pair->test_total) -
			share(pair->base_running[i], pair->base_total);
	return delta;
}

/*
 * The color of a change, given the largest change drawn: white for none,
 * else red (growth) or blue, the deeper the larger.
 */
static char *
delta_color(double delta, double max_change)
{
	int			light;

	if (delta == 0 || max_change <= 0)
		return pstrdup("rgb(255,255,255)");
	light = (int) rint(LIGHTEST_SHADE * (1.0 - fabs(delta) / max_change));
	if (delta > 0)
		return psprintf("rgb(255,%d,%d)", light, light);
	return psprintf("rgb(%d,%d,255)", light, light);
}

/* A signed weight: "+5", "-5" or "0" ("+1.50s" in a unit). */
static char *
signed_weight(const FlameOptions *options, int64 w)
{
	return psprintf("%s%s", w > 0 ? "+" : "", flame_weight(options, w));
}

static char *
frame_stats(const TreePair *pair, int32 i, double delta, const FlameOptions *options)
{
	int64		base = pair->base_running[i];
	int64		test = pair->test_running[i];

	return psprintf("base %s (%.2f%%), test %s (%.2f%%), delta %s (%+.2f points); self: base %s, test %s",
					flame_weight(options, base), 100 * share(base, pair->base_total),
					flame_weight(options, test), 100 * share(test, pair->test_total),
					signed_weight(options, test - base), 100 * delta,
					flame_weight(options, pair->base_self[i]), flame_weight(options, pair->test_self[i]));
}

/*
 * The nodes with no width in test: their number, and the base weight of
 * the topmost ones (their descendants' is inside theirs).
 */
static int32
absent_from_test(const TreePair *pair, int64 *base_weight)
{
	int32		absent = 0;

	*base_weight = 0;
	for (int32 i = 0; i < pair->nnodes; i++)
	{
		int32		p = pair->parent[i];

		if (pair->test_running[i] != 0 || pair->base_running[i] == 0)
			continue;
		absent++;
		if (p < 0 || pair->test_running[p] != 0)
			*base_weight += pair->base_running[i];
	}
	return absent;
}

static void
pair_to_flamegraph(const TreePair *pair, const FuncNames *names, const FlameOptions *options,
				   StringInfo out)
{
	double	   *delta = share_deltas(pair);
	double		max_change = 0;
	int64		absent_weight;
	int32		absent = absent_from_test(pair, &absent_weight);
	const char *legend[3] = {NULL, NULL, NULL};
	FlameLayout *layout;
	MemoryContext frame_cxt;

	layout = flame_layout(pair->nnodes, pair->test_running, pair->parent, pair->depth,
						  pair->test_total, options, absent > 0 ? 2 : 1);
	for (int32 i = 0; i < pair->nnodes; i++)
		if (layout->visible[i])
			max_change = Max(max_change, fabs(delta[i]));

	/* the legend under the title: the colors, and what the picture leaves out */
	legend[0] = psprintf("Widths: test. Red: a larger share of the total than in base, "
						 "blue: a smaller one, white: the same; full color at %.2f points.",
						 100 * max_change);
	if (absent > 0)
		legend[1] = psprintf("Not drawn: %d node%s only in base, %.2f%% of base.",
							 absent, absent == 1 ? "" : "s",
							 100 * share(absent_weight, pair->base_total));

	frame_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree flamegraph_diff frame",
									  ALLOCSET_SMALL_SIZES);
	flame_begin_document(out, layout, options,
						 options->icicle ? "Differential Icicle Graph" : "Differential Flame Graph",
						 legend);

	for (int32 i = 0; i < layout->nnodes; i++)
	{
		MemoryContext old;
		const char *name;

		if ((i & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!layout->visible[i])
			continue;

		/* the strings of a box live only as long as the box */
		old = MemoryContextSwitchTo(frame_cxt);
		name = flame_func_name(func_names_get(names, pair->func[i]), pair->func[i]);
		flame_append_frame(out, layout, i, name, frame_stats(pair, i, delta[i], options),
						   delta_color(delta[i], max_change), options->icicle);
		MemoryContextSwitchTo(old);
		MemoryContextReset(frame_cxt);
	}
	flame_end_document(out);
	MemoryContextDelete(frame_cxt);
}

void
export_flamegraph_diff(const CallTree *base, const CallTree *test, const FuncNames *test_names,
					   const FlameOptions *options, StringInfo out)
{
	check_side(base, "base");
	check_side(test, "test");
	pair_to_flamegraph(tree_pair_make(base, test), test_names, options, out);
}

/*
 * flamegraph_diff(base calltree, test calltree, title text, icicle boolean,
 *				   min_width float8, unit text) → text
 *
 * Not strict: a NULL tree gives NULL; a NULL title means the default one,
 * a NULL icicle or min_width their defaults, a NULL unit weights as they are.
 * flamegraph_diff() of 0.1 and 0.2, declared until ALTER EXTENSION UPDATE,
 * calls this with five arguments: no unit.
 */
Datum
calltree_flamegraph_diff(PG_FUNCTION_ARGS)
{
	CallTree   *base;
	CallTree   *test;
	FlameOptions options;
	bool		no_unit;
	StringInfoData out;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	base = PG_GETARG_CALLTREE_P(0);
	test = PG_GETARG_CALLTREE_P(1);
	options.title = PG_ARGISNULL(2) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(2));
	options.icicle = !PG_ARGISNULL(3) && PG_GETARG_BOOL(3);
	options.min_width = flame_min_width_arg(PG_ARGISNULL(4), PG_ARGISNULL(4) ? 0 : PG_GETARG_FLOAT8(4));
	no_unit = PG_NARGS() < 6 || PG_ARGISNULL(5);
	flame_unit_arg(&options, no_unit, no_unit ? NULL : PG_GETARG_TEXT_PP(5));

	/* every box is a node of test, so test's funcs name them all */
	export_buffer_begin(&out);
	export_flamegraph_diff(base, test, func_names_fetch(test), &options, &out);
	PG_RETURN_TEXT_P(export_buffer_value(&out));
}
