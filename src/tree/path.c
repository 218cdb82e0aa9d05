/*
 * path.c
 *	  Func paths as SQL values: one-dimensional int4 arrays, root first.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

#include "tree/calltree.h"

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
