/*
 * transform.h
 *	  Call-tree transforms as path rewriters.
 *
 * Every transform of a call tree is a rewrite of each sample's func path
 * (merge, merge subtree, hide, focus ...).  Here a
 * transform is a small state machine fed one func at a time, root first,
 * that writes its output through a PathSink:
 *
 *	- on a path, the sink is an array, and the output is the transformed
 *	  path (transform.c);
 *	- on a stored tree, the sink is a TreeBuilder and each node's state is
 *	  its parent's state stepped with the node's func, so the whole tree is
 *	  rewritten in one preorder pass (transform_tree.c).
 *
 * One definition serves both, so the path twin and the tree twin agree on
 * every input by construction.  All of it is pure: the SQL functions, which
 * read a Transform from their arguments and check the funcs they name, are
 * in query/transform.c.
 */
#ifndef CALLTREE_TRANSFORM_H
#define CALLTREE_TRANSFORM_H

#include "postgres.h"

#include "tree/calltree.h"

typedef enum TransformKind
{
	TRANSFORM_MERGE_CALL_NODE,
	TRANSFORM_MERGE_FUNCTION,	/* the same as TRANSFORM_MERGE_FUNCTIONS */
	TRANSFORM_MERGE_FUNCTIONS,
	TRANSFORM_MERGE_SUBTREE,
	TRANSFORM_COLLAPSE_FUNCTION_SUBTREE,
	TRANSFORM_HIDE_CALL_NODE,
	TRANSFORM_DROP_FUNCTION,
	TRANSFORM_FOCUS_SUBTREE,
	TRANSFORM_FOCUS_FUNCTION,
	TRANSFORM_COLLAPSE_DIRECT_RECURSION,
	TRANSFORM_COLLAPSE_RECURSION,
	TRANSFORM_REMAP_FUNCTIONS
} TransformKind;

/*
 * A function transform takes a set of funcs, which it treats as one
 * function: the funcs of a name (one function in several builds), of an
 * array, or a single func.
 */
typedef struct Transform
{
	TransformKind kind;
	const int32 *node_path;		/* the CallNode of a call-node transform */
	int32		node_path_len;
	const int32 *funcs;			/* the function's funcs, sorted, distinct */
	const int32 *to;			/* remap_functions: funcs[i] becomes to[i] */
	int32		nfuncs;
} Transform;

/* Where a path stands while it is rewritten. */
typedef enum PathPhase
{
	PHASE_OPEN,					/* funcs are written out */
	PHASE_WAITING,				/* focus: nothing kept until the focus is reached */
	PHASE_CUT,					/* the rest of the path is charged to where it stands */
	PHASE_DROPPED				/* the sample is dropped */
} PathPhase;

typedef struct PathState
{
	int32		out;			/* the sink's position: the output so far */
	int32		anchor;			/* collapse_recursion: position after the outermost func */
	int32		matched;		/* call-node transforms: node path funcs matched, -1 once off it */
	uint8		phase;			/* PathPhase */
	bool		seen;			/* collapse_recursion: the func has been written */
	bool		last_renamed;	/* remap_functions: the last func written was renamed */
} PathState;

/*
 * An output: positions are int32, `empty` is the position of no output.
 * append() writes a func after a position and returns the new position;
 * last() reads the func at a non-empty position.
 */
typedef struct PathSink
{
	int32		empty;
	int32		(*append) (void *arg, int32 out, int32 func);
	int32		(*last) (void *arg, int32 out);
	void	   *arg;
} PathSink;

extern void transform_init(const Transform *transform, const PathSink *sink, PathState *state);
extern void transform_step(const Transform *transform, const PathSink *sink,
						   PathState *state, int32 func);
extern bool transform_keeps(const PathState *state, const PathSink *sink);

/*
 * The transform applied to the path funcs[0 .. len), root first: false
 * when it drops the sample, else true with the new path in out[0 ..
 * *out_len).  out has room for len funcs: every step writes at most one.
 */
extern bool transform_path(const Transform *transform, const int32 *funcs, int32 len,
						   int32 *out, int32 *out_len);

/* transform_tree.c: the transform applied to every node's path; the bottom-up tree */
extern CallTree *transform_tree(const CallTree *tree, const Transform *transform);
extern CallTree *invert_tree(const CallTree *tree);

#endif							/* CALLTREE_TRANSFORM_H */
