/*
 * analysis.c
 *	  Analyses of a tree: hot spots (functions), the butterfly (callers,
 *	  callees), cumulated outgoing calls, backtraces (the call tree analyses
 *	  that JProfiler offers) and the collapse-recursions view.  The first
 *	  three are a tree's weights per key (tree/key_weights.h).
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "tree/calltree.h"
#include "tree/builder.h"
#include "tree/key_weights.h"
#include "tree/path.h"

PG_FUNCTION_INFO_V1(calltree_functions);
PG_FUNCTION_INFO_V1(calltree_callers);
PG_FUNCTION_INFO_V1(calltree_callees);
PG_FUNCTION_INFO_V1(calltree_outgoing_calls);
PG_FUNCTION_INFO_V1(calltree_backtraces);
PG_FUNCTION_INFO_V1(calltree_collapse_recursions);

/* the key of a root's caller: written as NULL */
#define ROOT_KEY (PG_INT64_MIN + 1)

static int64
key_caller(const CallTree *tree, int32 i, int32 func)
{
	int32		parent = calltree_parent(tree)[i];

	if (calltree_func(tree)[i] != func)
		return KEY_WEIGHTS_NO_KEY;
	return parent < 0 ? ROOT_KEY : calltree_func(tree)[parent];
}

static int64
key_callee(const CallTree *tree, int32 i, int32 func)
{
	int32		parent = calltree_parent(tree)[i];

	if (parent < 0 || calltree_func(tree)[parent] != func)
		return KEY_WEIGHTS_NO_KEY;
	return calltree_func(tree)[i];
}

/* (key, running, self) rows, hottest first; the root key is written as NULL */
static void
put_key_weights(FunctionCallInfo fcinfo, const KeyWeight *weights, int32 nkeys)
{
	ReturnSetInfo *rsinfo;

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	for (int32 k = 0; k < nkeys; k++)
	{
		Datum		values[3];
		bool		nulls[3] = {false};

		values[0] = Int32GetDatum((int32) weights[k].key);
		nulls[0] = weights[k].key == ROOT_KEY;
		values[1] = Int64GetDatum(weights[k].running);
		values[2] = Int64GetDatum(weights[k].self);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

static void
weights_by_key(FunctionCallInfo fcinfo, const CallTree *tree, NodeKey node_key, int32 func)
{
	int32		nkeys;
	KeyWeight  *weights = calltree_key_weights(tree, node_key, func, &nkeys);

	put_key_weights(fcinfo, weights, nkeys);
}

/* functions(tree) → (func, running, self): hot spots */
Datum
calltree_functions(PG_FUNCTION_ARGS)
{
	int32		nfuncs;
	KeyWeight  *weights = calltree_func_weights(PG_GETARG_CALLTREE_P(0), &nfuncs);

	put_key_weights(fcinfo, weights, nfuncs);
	return (Datum) 0;
}

/*
 * callers(tree, func) → (caller, running, self): the direct callers of the
 * function, NULL for a root call; running counts the samples in which that
 * caller calls the function, self those where the function is the leaf.
 */
Datum
calltree_callers(PG_FUNCTION_ARGS)
{
	weights_by_key(fcinfo, PG_GETARG_CALLTREE_P(0), key_caller, PG_GETARG_INT32(1));
	return (Datum) 0;
}

/* callees(tree, func) → (callee, running, self): the direct callees */
Datum
calltree_callees(PG_FUNCTION_ARGS)
{
	weights_by_key(fcinfo, PG_GETARG_CALLTREE_P(0), key_callee, PG_GETARG_INT32(1));
	return (Datum) 0;
}

/*
 * For each node, the depth of the outermost node of `func` on its path
 * (itself included), or -1; `depth` from calltree_depths().
 */
static int32 *
outermost_depths(const CallTree *tree, int32 func, const int32 *depth)
{
	int32		n = tree->nnodes;
	const int32 *funcs = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int32	   *outer = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);

	for (int32 i = 0; i < n; i++)
	{
		outer[i] = parent[i] < 0 ? -1 : outer[parent[i]];
		if (outer[i] < 0 && funcs[i] == func)
			outer[i] = depth[i];
	}
	return outer;
}

/*
 * outgoing_calls(tree, func) → (call_sites, outgoing): every top-level call
 * of the function (one with no call of it above) summed into one tree
 * rooted at the function, and how many such call sites were summed.
 * Recursive calls stay inside the tree and are not counted twice.
 */
Datum
calltree_outgoing_calls(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	int32		func = PG_GETARG_INT32(1);
	int32		n = tree->nnodes;
	int32	   *depth = calltree_depths(tree);
	int32	   *outer = outermost_depths(tree, func, depth);
	int32	   *node_at = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);
	const int32 *funcs = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int64		call_sites = 0;
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	for (int32 i = 0; i < n; i++)
	{
		CHECK_FOR_INTERRUPTS();
		node_at[i] = -1;
		if (outer[i] < 0)
			continue;
		if (outer[i] == depth[i])
			call_sites++;
		node_at[i] = tree_builder_child(builder, outer[i] == depth[i] ? -1 : node_at[parent[i]], funcs[i]);
		tree_builder_add_self(builder, node_at[i], calltree_self(tree)[i]);
	}
	values[0] = Int64GetDatum(call_sites);
	values[1] = PointerGetDatum(tree_builder_finish(builder));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/*
 * The func path elements backtraces() reads back: from the outermost call
 * of the function (from the function itself in 'self' mode) to the root,
 * for each node that holds samples below such a call.
 */
static int64
backtrace_elements(const CallTree *tree, int32 func, bool self_mode,
				   const int32 *depth, const int32 *outer)
{
	int64		elements = 0;

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		if (outer[i] < 0 || !calltree_holds_samples(tree, i))
			continue;
		if (self_mode && calltree_func(tree)[i] != func)
			continue;
		elements += (int64) (self_mode ? depth[i] : outer[i]) + 1;
	}
	return elements;
}

/*
 * backtraces(tree, func, mode) → calltree: the paths that lead to the
 * function, read upwards from it, so the roots are the function and the
 * leaves the outermost callers.
 *	'total': every sample that contains the function, cut at its outermost
 *			 call; the root's running weight is the function's running weight.
 *	'self':  only samples where the function is the leaf; the root's running
 *			 weight is the function's self weight, as in functions().
 */
Datum
calltree_backtraces(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	int32		func = PG_GETARG_INT32(1);
	char	   *mode = text_to_cstring(PG_GETARG_TEXT_PP(2));
	bool		self_mode;
	int32		n = tree->nnodes;
	const int32 *funcs = calltree_func(tree);
	const int64 *self = calltree_self(tree);
	int32	   *depth = calltree_depths(tree);
	int32	   *outer = outermost_depths(tree, func, depth);
	int32	   *path = palloc(sizeof(int32) * 64);
	int32		path_capacity = 64;
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);

	if (strcmp(mode, "total") == 0)
		self_mode = false;
	else if (strcmp(mode, "self") == 0)
		self_mode = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unknown backtraces mode \"%s\"", mode),
				 errhint("The mode is 'total' (all samples that contain the function) or 'self' (samples where it is the leaf).")));

	calltree_check_path_elements("backtraces()", backtrace_elements(tree, func, self_mode, depth, outer));
	for (int32 i = 0; i < n; i++)
	{
		int32		from;
		int32		node = -1;

		CHECK_FOR_INTERRUPTS();
		if (depth[i] >= path_capacity)
		{
			path_capacity *= 2;
			path = repalloc_huge(path, sizeof(int32) * (Size) path_capacity);
		}
		path[depth[i]] = funcs[i];
		if (outer[i] < 0 || !calltree_holds_samples(tree, i))
			continue;
		if (self_mode && funcs[i] != func)
			continue;
		from = self_mode ? depth[i] : outer[i];
		for (int32 d = from; d >= 0; d--)
			node = tree_builder_child(builder, node, path[d]);
		tree_builder_add_self(builder, node, self[i]);
	}
	PG_RETURN_CALLTREE_P(tree_builder_finish(builder));
}

/*
 * Adds every node of `tree` to `builder` with each recursion stitched back
 * to the earlier call of its function on the path; per builder node,
 * counts the recursions stitched back to it and the original nodes merged
 * into it.
 */
static void
stitch_recursions(const CallTree *tree, TreeBuilder *builder, int64 *recursions, int64 *merged)
{
	int32		n = tree->nnodes;
	const int32 *funcs = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	const int64 *self = calltree_self(tree);
	int32	   *node_at = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);

	for (int32 i = 0; i < n; i++)
	{
		int32		above = parent[i] < 0 ? -1 : node_at[parent[i]];
		int32		earlier = above;

		CHECK_FOR_INTERRUPTS();
		/* an earlier call of this func on the (collapsed) path? */
		while (earlier >= 0 && tree_builder_func(builder, earlier) != funcs[i])
			earlier = tree_builder_parent(builder, earlier);
		if (earlier >= 0)
		{
			node_at[i] = earlier;
			recursions[earlier]++;
		}
		else
			node_at[i] = tree_builder_child(builder, above, funcs[i]);
		merged[node_at[i]]++;
		tree_builder_add_self(builder, node_at[i], self[i]);
	}
	pfree(node_at);
}

/* Per-builder-node counts moved to the stored tree's order (`placed`) */
static int64 *
in_stored_order(const int64 *counts, const int32 *placed, int32 nbuilt, int32 nstored)
{
	int64	   *out = palloc_extended(sizeof(int64) * Max(nstored, 1), MCXT_ALLOC_HUGE);

	for (int32 b = 0; b < nbuilt; b++)
		if (placed[b] >= 0)
			out[placed[b]] = counts[b];
	return out;
}

/* One row per node of the collapsed tree, with its counts */
static void
put_collapsed_rows(ReturnSetInfo *rsinfo, const CallTree *collapsed,
				   const int64 *recursions, const int64 *merged)
{
	int64	   *running = calltree_running(collapsed);
	int32	   *depth = calltree_depths(collapsed);
	int32	   *path = palloc_extended(sizeof(int32) * Max(collapsed->nnodes, 1), MCXT_ALLOC_HUGE);

	for (int32 i = 0; i < collapsed->nnodes; i++)
	{
		int32		p = calltree_parent(collapsed)[i];
		Datum		values[9];
		bool		nulls[9] = {false};

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		path[depth[i]] = calltree_func(collapsed)[i];
		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(p + 1);
		nulls[1] = p < 0;
		values[2] = Int32GetDatum(depth[i]);
		values[3] = Int32GetDatum(path[depth[i]]);
		values[4] = PointerGetDatum(int4_array(path, depth[i] + 1));
		values[5] = Int64GetDatum(running[i]);
		values[6] = Int64GetDatum(calltree_self(collapsed)[i]);
		values[7] = Int64GetDatum(recursions[i]);
		values[8] = Int64GetDatum(merged[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/*
 * collapse_recursions(tree) → the nodes of the tree in which every
 * recursion is stitched back to the first call of its function (JProfiler's
 * "Collapse recursions"): a func already on the path sends the rest of the
 * path back to that earlier node.  Each node says how many recursions were
 * stitched back to it and how many nodes of the original tree (stacks from
 * different depths) were merged into it.
 */
Datum
calltree_collapse_recursions(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	int32		n = tree->nnodes;
	int64	   *recursions = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int64	   *merged = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int32	   *placed = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);
	CallTree   *collapsed;
	int32		nbuilt;

	/*
	 * The search for an earlier call walks at most the node's path, and the
	 * collapsed tree's paths are no longer than the original ones: both are
	 * bounded by the paths of the original tree.
	 */
	calltree_check_path_elements("collapse_recursions()",
								 calltree_path_elements(tree, calltree_depths(tree), false));
	InitMaterializedSRF(fcinfo, 0);
	stitch_recursions(tree, builder, recursions, merged);
	collapsed = tree_builder_finish_mapped(builder, placed);
	nbuilt = tree_builder_count(builder);
	put_collapsed_rows((ReturnSetInfo *) fcinfo->resultinfo, collapsed,
					   in_stored_order(recursions, placed, nbuilt, collapsed->nnodes),
					   in_stored_order(merged, placed, nbuilt, collapsed->nnodes));
	return (Datum) 0;
}
