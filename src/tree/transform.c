/*
 * transform.c
 *	  The call-tree transforms as path rewriters (see transform.h), and
 *	  their application to one path.
 *
 * transform_tree.c applies the same rewriters to a stored tree; the SQL
 * functions of both are in query/transform.c.
 */
#include "postgres.h"

#include "tree/func_ids.h"
#include "tree/transform.h"

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

bool
transform_path(const Transform *transform, const int32 *funcs, int32 len,
			   int32 *out, int32 *out_len)
{
	PathSink	sink = {0, path_array_append, path_array_last, out};
	PathState	state;

	transform_init(transform, &sink, &state);
	for (int32 i = 0; i < len; i++)
		transform_step(transform, &sink, &state, funcs[i]);
	*out_len = state.out;
	return transform_keeps(&state, &sink);
}
