/*
 * regressions.c
 *	  regressions(base, test, min_share): the functions of two trees side by
 *	  side, as shares of each tree's total, the ones that grew most first.
 *
 * Each tree's weights per function are functions()'s (tree/key_weights.h:
 * a sample counts once per function, even under recursion).  The two
 * lists are joined by func in one merge over both sorted by func, the
 * small ones filtered out, and the rest sorted by the change of the self
 * share.
 */
#include "postgres.h"

#include <math.h>

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "tree/calltree.h"
#include "tree/key_weights.h"
#include "store/store.h"

PG_FUNCTION_INFO_V1(calltree_regressions);

#define REGRESSION_COLUMNS	8

/* A share is a float8, or NaN standing for NULL (a side whose total is zero) */
typedef struct Regression
{
	int32		func;
	double		base_self;
	double		test_self;
	double		delta_self;
	double		base_running;
	double		test_running;
	double		delta_running;
} Regression;

static int
compare_func_keys(const void *a, const void *b)
{
	const KeyWeight *x = a;
	const KeyWeight *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* functions() of a tree, sorted by func */
static KeyWeight *
weights_by_func(const CallTree *tree, int32 *nfuncs)
{
	KeyWeight  *weights = calltree_func_weights(tree, nfuncs);

	qsort(weights, *nfuncs, sizeof(KeyWeight), compare_func_keys);
	return weights;
}

static double
share(int64 weight, int64 total)
{
	return total == 0 ? NAN : (double) weight / (double) total;
}

/* Whether the share is at least min_share in magnitude (NULL is not) */
static bool
is_large(double share, double min_share)
{
	return !isnan(share) && fabs(share) >= min_share;
}

/*
 * The row of one function from its weights on each side (NULL where the
 * side lacks it), or false if all four shares are small.
 */
static bool
make_regression(int32 func, const KeyWeight *base, int64 base_total,
				const KeyWeight *test, int64 test_total, double min_share, Regression *r)
{
	r->func = func;
	r->base_self = share(base ? base->self : 0, base_total);
	r->test_self = share(test ? test->self : 0, test_total);
	r->base_running = share(base ? base->running : 0, base_total);
	r->test_running = share(test ? test->running : 0, test_total);
	r->delta_self = r->test_self - r->base_self;
	r->delta_running = r->test_running - r->base_running;
	return is_large(r->base_self, min_share) || is_large(r->test_self, min_share) ||
		is_large(r->base_running, min_share) || is_large(r->test_running, min_share);
}

/* delta_self_share descending, NULLs last, then func ascending */
static int
compare_regressions(const void *a, const void *b)
{
	const Regression *x = a;
	const Regression *y = b;

	if (isnan(x->delta_self) != isnan(y->delta_self))
		return isnan(x->delta_self) ? 1 : -1;
	if (!isnan(x->delta_self) && x->delta_self != y->delta_self)
		return x->delta_self > y->delta_self ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

/*
 * Joins both trees' functions by func (a merge of the two lists sorted by
 * func) into the kept rows, sorted.
 */
static Regression *
join_functions(const CallTree *base, const CallTree *test, double min_share, int32 *nrows)
{
	int32		nbase;
	int32		ntest;
	KeyWeight  *b = weights_by_func(base, &nbase);
	KeyWeight  *t = weights_by_func(test, &ntest);
	int64		base_total = calltree_total_weight(base);
	int64		test_total = calltree_total_weight(test);
	Regression *rows = palloc(sizeof(Regression) * Max(nbase + ntest, 1));
	int32		i = 0;
	int32		j = 0;
	int32		count = 0;

	while (i < nbase || j < ntest)
	{
		bool		in_base = i < nbase && (j >= ntest || b[i].key <= t[j].key);
		bool		in_test = j < ntest && (i >= nbase || t[j].key <= b[i].key);
		int32		func = (int32) (in_base ? b[i].key : t[j].key);

		CHECK_FOR_INTERRUPTS();
		if (make_regression(func, in_base ? &b[i] : NULL, base_total,
							in_test ? &t[j] : NULL, test_total, min_share, &rows[count]))
			count++;
		i += in_base;
		j += in_test;
	}
	pfree(b);
	pfree(t);
	qsort(rows, count, sizeof(Regression), compare_regressions);
	*nrows = count;
	return rows;
}

/* A float8 column, NULL for NaN */
static void
share_column(double value, Datum *datum, bool *isnull)
{
	*isnull = isnan(value);
	*datum = Float8GetDatum(value);
}

/* What calltree.func holds of the rows' funcs: of these only, however many the trees hold */
static FuncNames *
names_of_rows(const Regression *rows, int32 nrows)
{
	int32	   *funcs = palloc(sizeof(int32) * Max(nrows, 1));
	FuncNames  *names;

	for (int32 k = 0; k < nrows; k++)
		funcs[k] = rows[k].func;
	names = func_names_fetch_funcs(funcs, nrows);
	pfree(funcs);
	return names;
}

/* The func's name from calltree.func, or '#<id>' */
static Datum
func_name(int32 func, const FuncNames *names)
{
	const char *name = func_names_get(names, func);

	return CStringGetTextDatum(name ? name : psprintf("#%d", func));
}

/*
 * regressions(base, test, min_share) → (func, name, base_self_share,
 * test_self_share, delta_self_share, base_running_share, test_running_share,
 * delta_running_share): per function of either tree, its self and running
 * weights as shares of each tree's total (NULL for a tree whose total is
 * zero) and their changes, test minus base; ordered by delta_self_share
 * descending (NULLs last), then func.  A function whose four shares are
 * all below min_share in magnitude is left out.
 */
Datum
calltree_regressions(PG_FUNCTION_ARGS)
{
	CallTree   *base = PG_GETARG_CALLTREE_P(0);
	CallTree   *test = PG_GETARG_CALLTREE_P(1);
	double		min_share = PG_GETARG_FLOAT8(2);
	ReturnSetInfo *rsinfo;
	Regression *rows;
	int32		nrows;
	const FuncNames *names;
	MemoryContext row_cxt;

	if (isnan(min_share))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_share of regressions() must not be NaN"),
				 errhint("min_share is a share of the total, such as 0.005 for half a percent; 0 keeps every function.")));
	rows = join_functions(base, test, min_share, &nrows);
	names = names_of_rows(rows, nrows);
	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	row_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree regressions row",
									ALLOCSET_DEFAULT_SIZES);
	for (int32 k = 0; k < nrows; k++)
	{
		Datum		values[REGRESSION_COLUMNS];
		bool		nulls[REGRESSION_COLUMNS] = {false};
		const Regression *r = &rows[k];
		MemoryContext old = MemoryContextSwitchTo(row_cxt);

		if ((k & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		values[0] = Int32GetDatum(r->func);
		values[1] = func_name(r->func, names);
		share_column(r->base_self, &values[2], &nulls[2]);
		share_column(r->test_self, &values[3], &nulls[3]);
		share_column(r->delta_self, &values[4], &nulls[4]);
		share_column(r->base_running, &values[5], &nulls[5]);
		share_column(r->test_running, &values[6], &nulls[6]);
		share_column(r->delta_running, &values[7], &nulls[7]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		MemoryContextSwitchTo(old);
		MemoryContextReset(row_cxt);
	}
	return (Datum) 0;
}
