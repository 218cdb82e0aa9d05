/*
 * path.c
 *	  Func paths (path.h): as SQL values, one-dimensional int4 arrays root
 *	  first; and the count and limit of the path elements a call writes.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

#include "module.h"
#include "tree/path.h"

/*
 * The funcs of a path argument: a one-dimensional int4[] without nulls.
 * An empty array has length 0 (and no funcs).  `what` names the argument
 * in errors.
 */
const int32 *
path_argument(ArrayType *array, const char *what, int32 *len)
{
	if (ARR_NDIM(array) == 0)
	{
		*len = 0;
		return NULL;
	}
	if (ARR_NDIM(array) != 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s must be a one-dimensional array", what),
				 errdetail("The array has %d dimensions.", ARR_NDIM(array))));
	if (ARR_HASNULL(array) && array_contains_nulls(array))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not contain nulls", what),
				 errhint("A func path is an int4[] of func ids, root first.")));
	*len = ARR_DIMS(array)[0];
	return (const int32 *) ARR_DATA_PTR(array);
}

/* A new int4[] of `len` values (built in place: this is on per-row paths). */
ArrayType *
int4_array(const int32 *values, int32 len)
{
	Size		size = ARR_OVERHEAD_NONULLS(1) + sizeof(int32) * (Size) len;
	ArrayType  *array;

	if (len == 0)
		return construct_empty_array(INT4OID);
	array = palloc0(size);
	SET_VARSIZE(array, size);
	array->ndim = 1;
	array->dataoffset = 0;
	array->elemtype = INT4OID;
	ARR_DIMS(array)[0] = len;
	ARR_LBOUND(array)[0] = 1;
	memcpy(ARR_DATA_PTR(array), values, sizeof(int32) * (Size) len);
	return array;
}

/*
 * The number of func path elements in the paths of the nodes of a tree,
 * with `depth` from calltree_depths(): of every node, or with samples_only
 * of the nodes that stand for samples of their own (what the exporters
 * write, one sample per such node).  A chain n deep has n (n + 1) / 2.
 */
int64
calltree_path_elements(const CallTree *tree, const int32 *depth, bool samples_only)
{
	int64		elements = 0;

	for (int32 i = 0; i < tree->nnodes; i++)
		if (!samples_only || calltree_holds_samples(tree, i))
			elements += (int64) depth[i] + 1;
	return elements;
}

/*
 * Refuses work whose size grows with the square of the tree's depth before
 * any of it is done: `function` would write or walk `elements` func path
 * elements.  Without this, a few hundred kilobytes of a deep chain become
 * gigabytes of rows or temporary files.
 */
void
calltree_check_path_elements(const char *function, int64 elements)
{
	if (elements > calltree_max_path_output)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs " INT64_FORMAT " func path elements, more than calltree.max_path_output (%d)",
						function, elements, calltree_max_path_output),
				 errdetail("It writes or walks the whole func path of each node, which grows with the square of the tree's depth."),
				 errhint("Make the tree shallower first (focus_subtree, merge_subtree, collapse_recursion), "
						 "or raise calltree.max_path_output.")));
}
