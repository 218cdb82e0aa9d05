/*
 * func_arg.h
 *	  The funcs a SQL argument names, for every transform and analysis that
 *	  takes a function (func_arg.c).
 *
 * Such an argument is an int4 func id, an int4[] of func ids, or a text
 * name, which stands for every func of that exact name (the same function
 * in several builds is several funcs).  However it is given, the function
 * sees a set of funcs that it treats as one function.
 *
 * A func id must name something: it must be held by the tree (or path)
 * the function is given, or by calltree.func.  A func of calltree.func that
 * the tree does not hold gives an empty result or an unchanged tree; an id
 * known to neither, or a name calltree.func does not hold, is an error.
 * Trees of bare ids (calltree_agg over literal paths) and trees whose funcs
 * were deleted since stay usable, as the funcs they hold are known.
 *
 * What an argument resolves to is cached for the call site (fn_extra) as
 * long as the argument stays the same, so a function called once per row
 * looks up calltree.func once per statement, not once per row.
 */
#ifndef CALLTREE_FUNC_ARG_H
#define CALLTREE_FUNC_ARG_H

#include "postgres.h"

#include "fmgr.h"

/* A set of funcs: sorted, distinct ids */
typedef struct FuncSet
{
	const int32 *ids;
	int32		count;
} FuncSet;

extern bool func_set_has(const FuncSet *set, int32 func);

/* The funcs that argument argno names (int4, int4[] or text) */
extern FuncSet func_arg_set(FunctionCallInfo fcinfo, int argno);

/*
 * Errors when one of ids[0 .. n), the funcs of argument argno, is neither
 * among held[0 .. nheld) (the funcs of the tree or path given) nor in
 * calltree.func; `what` names them in the message ("func", "node path
 * func" ...).
 */
extern void func_arg_check(FunctionCallInfo fcinfo, int argno, const char *what,
						   const int32 *ids, int32 n, const int32 *held, int32 nheld);

#endif							/* CALLTREE_FUNC_ARG_H */
