/*
 * transform.c
 *	  The call-tree transforms as path rewriters (see transform.h), and
 *	  their SQL functions on func paths (int4[] → int4[]).
 *
 * A path function returns NULL when the sample is dropped, so
 * calltree_agg(transform(path), weight) applies the transform sample by
 * sample; transform_tree.c applies the same rewriter to a stored tree.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "tree/path.h"
#include "tree/func_ids.h"
#include "query/func_arg.h"
#include "query/transform.h"

void
transform_init(const Transform *transform, const PathSink *sink, PathState *state)
{
	state->out = sink->empty;
	state->anchor = sink->empty;
	state->matched = 0;
	state->seen = false;
	state->last_renamed = false;
	state->phase = (transform->kind == TRANSFORM_FOCUS_SUBTREE ||
					transform->kind == TRANSFORM_FOCUS_FUNCTION) ? PHASE_WAITING : PHASE_OPEN;
}

static inline void
write_func(const PathSink *sink, PathState *state, int32 func)
{
	state->out = sink->append(sink->arg, state->out, func);
}

/*
 * Follows the node path: true when `func` completes it, that is when the
 * path so far is exactly the node path.
 */
static bool
completes_node_path(const Transform *transform, PathState *state, int32 func)
{
	if (state->matched < 0)
		return false;
	if (state->matched < transform->node_path_len &&
		transform->node_path[state->matched] == func)
	{
		state->matched++;
		return state->matched == transform->node_path_len;
	}
	state->matched = -1;		/* off the node path, or below it */
	return false;
}

/* index of func in the sorted transform->funcs, or -1 */
static int32
find_func(const Transform *transform, int32 func)
{
	if (transform->nfuncs == 1)
		return transform->funcs[0] == func ? 0 : -1;
	return func_ids_find(transform->funcs, transform->nfuncs, func);
}

/* Whether func is one of the transform's function */
static inline bool
is_function(const Transform *transform, int32 func)
{
	return find_func(transform, func) >= 0;
}

/*
 * remap_functions: rename, then merge a func into the one before it when
 * they are equal and at least one of the two was renamed.  So a library's
 * funcs mapped to one func become one node, while a recursion that was
 * already in the data stays.
 */
static void
step_remap(const Transform *transform, const PathSink *sink, PathState *state, int32 func)
{
	int32		index = find_func(transform, func);
	bool		renamed = index >= 0;
	int32		written = renamed ? transform->to[index] : func;

	if (state->out != sink->empty &&
		(renamed || state->last_renamed) &&
		sink->last(sink->arg, state->out) == written)
	{
		state->last_renamed = true;
		return;
	}
	write_func(sink, state, written);
	state->last_renamed = renamed;
}

void
transform_step(const Transform *transform, const PathSink *sink, PathState *state, int32 func)
{
	if (state->phase == PHASE_CUT || state->phase == PHASE_DROPPED)
		return;

	switch (transform->kind)
	{
		case TRANSFORM_MERGE_CALL_NODE:
			/* the node itself goes; its self and its children go to its parent */
			if (!completes_node_path(transform, state, func))
				write_func(sink, state, func);
			break;

		case TRANSFORM_MERGE_FUNCTION:
		case TRANSFORM_MERGE_FUNCTIONS:
			if (!is_function(transform, func))
				write_func(sink, state, func);
			break;

		case TRANSFORM_MERGE_SUBTREE:
			/* the node and all below it are charged to its parent */
			if (completes_node_path(transform, state, func))
				state->phase = PHASE_CUT;
			else
				write_func(sink, state, func);
			break;

		case TRANSFORM_COLLAPSE_FUNCTION_SUBTREE:
			write_func(sink, state, func);
			if (is_function(transform, func))
				state->phase = PHASE_CUT;
			break;

		case TRANSFORM_HIDE_CALL_NODE:
			if (completes_node_path(transform, state, func))
				state->phase = PHASE_DROPPED;
			else
				write_func(sink, state, func);
			break;

		case TRANSFORM_DROP_FUNCTION:
			if (is_function(transform, func))
				state->phase = PHASE_DROPPED;
			else
				write_func(sink, state, func);
			break;

		case TRANSFORM_FOCUS_SUBTREE:
			/* the node becomes the root: nothing above it is kept */
			if (state->phase == PHASE_OPEN)
				write_func(sink, state, func);
			else if (completes_node_path(transform, state, func))
			{
				write_func(sink, state, func);
				state->phase = PHASE_OPEN;
			}
			else if (state->matched < 0)
				state->phase = PHASE_DROPPED;
			break;

		case TRANSFORM_FOCUS_FUNCTION:
			/* from the outermost call of the function on */
			if (state->phase == PHASE_OPEN || is_function(transform, func))
			{
				write_func(sink, state, func);
				state->phase = PHASE_OPEN;
			}
			break;

		case TRANSFORM_COLLAPSE_DIRECT_RECURSION:
			/* the function called by itself: by another of its funcs too */
			if (!(is_function(transform, func) && state->out != sink->empty &&
				  is_function(transform, sink->last(sink->arg, state->out))))
				write_func(sink, state, func);
			break;

		case TRANSFORM_COLLAPSE_RECURSION:
			/* back to the outermost call: what lies between is removed */
			if (!is_function(transform, func))
				write_func(sink, state, func);
			else if (state->seen)
				state->out = state->anchor;
			else
			{
				write_func(sink, state, func);
				state->anchor = state->out;
				state->seen = true;
			}
			break;

		case TRANSFORM_REMAP_FUNCTIONS:
			step_remap(transform, sink, state, func);
			break;
	}
}

/* Whether the sample survives, once its whole path has been stepped. */
bool
transform_keeps(const PathState *state, const PathSink *sink)
{
	return (state->phase == PHASE_OPEN || state->phase == PHASE_CUT) &&
		state->out != sink->empty;
}

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
void
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
void
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

/* The array sink: positions are output lengths. */
static int32
path_array_append(void *arg, int32 out, int32 func)
{
	((int32 *) arg)[out] = func;
	return out + 1;
}

static int32
path_array_last(void *arg, int32 out)
{
	return ((int32 *) arg)[out - 1];
}

/*
 * Rewrites the path in argument 0.  The output is never longer than the
 * input: every step writes at most one func.
 */
static Datum
transform_path(FunctionCallInfo fcinfo, const Transform *transform)
{
	int32		len;
	const int32 *funcs = path_argument(PG_GETARG_ARRAYTYPE_P(0), "func path", &len);
	int32	   *out = palloc(sizeof(int32) * Max(len, 1));
	PathSink	sink = {0, path_array_append, path_array_last, out};
	PathState	state;

	transform_check_funcs(fcinfo, transform, funcs, len);
	transform_init(transform, &sink, &state);
	for (int32 i = 0; i < len; i++)
		transform_step(transform, &sink, &state, funcs[i]);
	if (!transform_keeps(&state, &sink))
		PG_RETURN_NULL();
	PG_RETURN_ARRAYTYPE_P(int4_array(out, state.out));
}

/* The SQL functions on paths: transform(path int4[], ...) → int4[] */
#define PATH_TRANSFORM(sqlname, kind) \
PG_FUNCTION_INFO_V1(sqlname##_path); \
Datum \
sqlname##_path(PG_FUNCTION_ARGS) \
{ \
	Transform	transform; \
\
	transform_from_args(fcinfo, kind, &transform); \
	return transform_path(fcinfo, &transform); \
}

PATH_TRANSFORM(merge_call_node, TRANSFORM_MERGE_CALL_NODE)
PATH_TRANSFORM(merge_function, TRANSFORM_MERGE_FUNCTION)
PATH_TRANSFORM(merge_functions, TRANSFORM_MERGE_FUNCTIONS)
PATH_TRANSFORM(merge_subtree, TRANSFORM_MERGE_SUBTREE)
PATH_TRANSFORM(collapse_function_subtree, TRANSFORM_COLLAPSE_FUNCTION_SUBTREE)
PATH_TRANSFORM(hide_call_node, TRANSFORM_HIDE_CALL_NODE)
PATH_TRANSFORM(drop_function, TRANSFORM_DROP_FUNCTION)
PATH_TRANSFORM(focus_subtree, TRANSFORM_FOCUS_SUBTREE)
PATH_TRANSFORM(focus_function, TRANSFORM_FOCUS_FUNCTION)
PATH_TRANSFORM(collapse_direct_recursion, TRANSFORM_COLLAPSE_DIRECT_RECURSION)
PATH_TRANSFORM(collapse_recursion, TRANSFORM_COLLAPSE_RECURSION)
PATH_TRANSFORM(remap_functions, TRANSFORM_REMAP_FUNCTIONS)

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
