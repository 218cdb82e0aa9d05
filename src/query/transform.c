/*
 * transform.c
 *	  The SQL functions of the call-tree transforms: each reads a Transform
 *	  (tree/transform.h) from its arguments, checks the funcs they name, and
 *	  applies it to a func path (int4[] → int4[]) or to a stored tree
 *	  (calltree → calltree).
 *
 * A path function returns NULL when the sample is dropped, so
 * calltree_agg(transform(path), weight) applies the transform sample by
 * sample; the tree function applies the same rewriter to every node of a
 * stored tree.  Each SQL function has its own C entry point, named after
 * it (merge_function_path, merge_function_tree), calling the two shared
 * helpers transform_path_call and transform_tree_call.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "tree/func_ids.h"
#include "tree/path.h"
#include "tree/transform.h"
#include "query/func_arg.h"

static void
node_path_from_arg(FunctionCallInfo fcinfo, int argno, Transform *transform)
{
	transform->node_path = path_argument(PG_GETARG_ARRAYTYPE_P(argno), "node path",
										 &transform->node_path_len);
	if (transform->node_path_len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("node path must not be empty"),
				 errhint("A node path is the func path of a CallNode, root first, such as '{1,2,3}'.")));
}

/* A function transform's funcs: a func, a func array or a name */
static void
func_set_from_arg(FunctionCallInfo fcinfo, int argno, Transform *transform)
{
	FuncSet		set = func_arg_set(fcinfo, argno);

	transform->funcs = set.ids;
	transform->nfuncs = set.count;
}

typedef struct FuncPair
{
	int32		from;
	int32		to;
} FuncPair;

static int
compare_func_pairs(const void *a, const void *b)
{
	return func_id_compare(&((const FuncPair *) a)->from, &((const FuncPair *) b)->from);
}

/* remap_functions: from[] sorted, with to[] alongside; one target per func */
static void
func_map_from_args(FunctionCallInfo fcinfo, Transform *transform)
{
	int32		nfrom;
	int32		nto;
	const int32 *from = path_argument(PG_GETARG_ARRAYTYPE_P(1), "from funcs", &nfrom);
	const int32 *to = path_argument(PG_GETARG_ARRAYTYPE_P(2), "to funcs", &nto);
	FuncPair   *pairs = palloc(sizeof(FuncPair) * Max(nfrom, 1));
	int32	   *sorted_from = palloc(sizeof(int32) * Max(nfrom, 1));
	int32	   *sorted_to = palloc(sizeof(int32) * Max(nfrom, 1));
	int32		distinct = 0;

	if (nfrom != nto)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("from and to funcs must have the same length"),
				 errdetail("from has %d funcs, to has %d.", nfrom, nto)));
	for (int32 i = 0; i < nfrom; i++)
	{
		pairs[i].from = from[i];
		pairs[i].to = to[i];
	}
	qsort(pairs, nfrom, sizeof(FuncPair), compare_func_pairs);
	for (int32 i = 0; i < nfrom; i++)
	{
		if (distinct > 0 && sorted_from[distinct - 1] == pairs[i].from)
		{
			if (sorted_to[distinct - 1] != pairs[i].to)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("func %d is mapped to both %d and %d",
								pairs[i].from, sorted_to[distinct - 1], pairs[i].to),
						 errhint("Map each func to one func.")));
			continue;
		}
		sorted_from[distinct] = pairs[i].from;
		sorted_to[distinct] = pairs[i].to;
		distinct++;
	}
	transform->funcs = sorted_from;
	transform->to = sorted_to;
	transform->nfuncs = distinct;
}

/*
 * The transform described by a SQL call: argument 0 is the path or tree,
 * the rest depend on the kind.
 */
static void
transform_from_args(FunctionCallInfo fcinfo, TransformKind kind, Transform *transform)
{
	memset(transform, 0, sizeof(Transform));
	transform->kind = kind;
	switch (kind)
	{
		case TRANSFORM_MERGE_CALL_NODE:
		case TRANSFORM_MERGE_SUBTREE:
		case TRANSFORM_HIDE_CALL_NODE:
		case TRANSFORM_FOCUS_SUBTREE:
			node_path_from_arg(fcinfo, 1, transform);
			break;
		case TRANSFORM_REMAP_FUNCTIONS:
			func_map_from_args(fcinfo, transform);
			break;
		case TRANSFORM_MERGE_FUNCTION:
		case TRANSFORM_MERGE_FUNCTIONS:
		case TRANSFORM_COLLAPSE_FUNCTION_SUBTREE:
		case TRANSFORM_DROP_FUNCTION:
		case TRANSFORM_FOCUS_FUNCTION:
		case TRANSFORM_COLLAPSE_DIRECT_RECURSION:
		case TRANSFORM_COLLAPSE_RECURSION:
			func_set_from_arg(fcinfo, 1, transform);
			break;
	}
}

/*
 * Errors when a func the arguments name does not exist: neither the tree
 * or path given (`held`) nor calltree.func holds it (func_arg.h).
 */
static void
transform_check_funcs(FunctionCallInfo fcinfo, const Transform *transform,
					  const int32 *held, int32 nheld)
{
	switch (transform->kind)
	{
		case TRANSFORM_MERGE_CALL_NODE:
		case TRANSFORM_MERGE_SUBTREE:
		case TRANSFORM_HIDE_CALL_NODE:
		case TRANSFORM_FOCUS_SUBTREE:
			func_arg_check(fcinfo, 1, "node path func", transform->node_path,
						   transform->node_path_len, held, nheld);
			break;
		case TRANSFORM_REMAP_FUNCTIONS:
			func_arg_check(fcinfo, 1, "func", transform->funcs, transform->nfuncs, held, nheld);
			func_arg_check(fcinfo, 2, "func", transform->to, transform->nfuncs, held, nheld);
			break;
		default:
			func_arg_check(fcinfo, 1, "func", transform->funcs, transform->nfuncs, held, nheld);
			break;
	}
}

/*
 * transform(path int4[], ...) → int4[]: the path in argument 0 rewritten,
 * or NULL when the transform drops the sample.
 */
static Datum
transform_path_call(FunctionCallInfo fcinfo, TransformKind kind)
{
	Transform	transform;
	int32		len;
	const int32 *funcs;
	int32	   *out;
	int32		out_len;

	transform_from_args(fcinfo, kind, &transform);
	funcs = path_argument(PG_GETARG_ARRAYTYPE_P(0), "func path", &len);
	out = palloc(sizeof(int32) * Max(len, 1));
	transform_check_funcs(fcinfo, &transform, funcs, len);
	if (!transform_path(&transform, funcs, len, out, &out_len))
		PG_RETURN_NULL();
	PG_RETURN_ARRAYTYPE_P(int4_array(out, out_len));
}

/* transform(tree calltree, ...) → calltree: the tree in argument 0 rewritten */
static Datum
transform_tree_call(FunctionCallInfo fcinfo, TransformKind kind)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	Transform	transform;

	transform_from_args(fcinfo, kind, &transform);
	transform_check_funcs(fcinfo, &transform, calltree_func(tree), tree->nnodes);
	PG_RETURN_CALLTREE_P(transform_tree(tree, &transform));
}

/* The SQL functions on paths: transform(path int4[], ...) → int4[] */

PG_FUNCTION_INFO_V1(merge_call_node_path);
Datum
merge_call_node_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_MERGE_CALL_NODE);
}

PG_FUNCTION_INFO_V1(merge_function_path);
Datum
merge_function_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_MERGE_FUNCTION);
}

PG_FUNCTION_INFO_V1(merge_functions_path);
Datum
merge_functions_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_MERGE_FUNCTIONS);
}

PG_FUNCTION_INFO_V1(merge_subtree_path);
Datum
merge_subtree_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_MERGE_SUBTREE);
}

PG_FUNCTION_INFO_V1(collapse_function_subtree_path);
Datum
collapse_function_subtree_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_COLLAPSE_FUNCTION_SUBTREE);
}

PG_FUNCTION_INFO_V1(hide_call_node_path);
Datum
hide_call_node_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_HIDE_CALL_NODE);
}

PG_FUNCTION_INFO_V1(drop_function_path);
Datum
drop_function_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_DROP_FUNCTION);
}

PG_FUNCTION_INFO_V1(focus_subtree_path);
Datum
focus_subtree_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_FOCUS_SUBTREE);
}

PG_FUNCTION_INFO_V1(focus_function_path);
Datum
focus_function_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_FOCUS_FUNCTION);
}

PG_FUNCTION_INFO_V1(collapse_direct_recursion_path);
Datum
collapse_direct_recursion_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_COLLAPSE_DIRECT_RECURSION);
}

PG_FUNCTION_INFO_V1(collapse_recursion_path);
Datum
collapse_recursion_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_COLLAPSE_RECURSION);
}

PG_FUNCTION_INFO_V1(remap_functions_path);
Datum
remap_functions_path(PG_FUNCTION_ARGS)
{
	return transform_path_call(fcinfo, TRANSFORM_REMAP_FUNCTIONS);
}

/* invert(path): the path read from the leaf up */
PG_FUNCTION_INFO_V1(invert_path);
Datum
invert_path(PG_FUNCTION_ARGS)
{
	int32		len;
	const int32 *funcs = path_argument(PG_GETARG_ARRAYTYPE_P(0), "func path", &len);
	int32	   *out = palloc(sizeof(int32) * Max(len, 1));

	if (len == 0)
		PG_RETURN_NULL();
	for (int32 i = 0; i < len; i++)
		out[i] = funcs[len - 1 - i];
	PG_RETURN_ARRAYTYPE_P(int4_array(out, len));
}

/* The SQL functions on trees: transform(tree calltree, ...) → calltree */

PG_FUNCTION_INFO_V1(merge_call_node_tree);
Datum
merge_call_node_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_MERGE_CALL_NODE);
}

PG_FUNCTION_INFO_V1(merge_function_tree);
Datum
merge_function_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_MERGE_FUNCTION);
}

PG_FUNCTION_INFO_V1(merge_functions_tree);
Datum
merge_functions_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_MERGE_FUNCTIONS);
}

PG_FUNCTION_INFO_V1(merge_subtree_tree);
Datum
merge_subtree_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_MERGE_SUBTREE);
}

PG_FUNCTION_INFO_V1(collapse_function_subtree_tree);
Datum
collapse_function_subtree_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_COLLAPSE_FUNCTION_SUBTREE);
}

PG_FUNCTION_INFO_V1(hide_call_node_tree);
Datum
hide_call_node_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_HIDE_CALL_NODE);
}

PG_FUNCTION_INFO_V1(drop_function_tree);
Datum
drop_function_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_DROP_FUNCTION);
}

PG_FUNCTION_INFO_V1(focus_subtree_tree);
Datum
focus_subtree_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_FOCUS_SUBTREE);
}

PG_FUNCTION_INFO_V1(focus_function_tree);
Datum
focus_function_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_FOCUS_FUNCTION);
}

PG_FUNCTION_INFO_V1(collapse_direct_recursion_tree);
Datum
collapse_direct_recursion_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_COLLAPSE_DIRECT_RECURSION);
}

PG_FUNCTION_INFO_V1(collapse_recursion_tree);
Datum
collapse_recursion_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_COLLAPSE_RECURSION);
}

PG_FUNCTION_INFO_V1(remap_functions_tree);
Datum
remap_functions_tree(PG_FUNCTION_ARGS)
{
	return transform_tree_call(fcinfo, TRANSFORM_REMAP_FUNCTIONS);
}

/* invert(tree): the bottom-up tree */
PG_FUNCTION_INFO_V1(invert_tree_sql);
Datum
invert_tree_sql(PG_FUNCTION_ARGS)
{
	PG_RETURN_CALLTREE_P(invert_tree(PG_GETARG_CALLTREE_P(0)));
}
