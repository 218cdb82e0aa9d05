/*
 * significant_changes.c
 *	  significant_changes(base calltree[], test calltree[], alpha): per
 *	  function, whether its running share differs between two sets of trees,
 *	  by the Mann-Whitney U test of tree/significance.h, with q-values by
 *	  Benjamini-Hochberg over the functions tested.
 *
 * Each tree's weights per function are functions()'s (tree/key_weights.h).
 * They are read one tree at a time (each tree is detoasted, read and let
 * go), then laid out as a matrix of exact weights, one row per function of
 * the union and one column per tree, a function that a tree lacks having
 * weight 0 there.  Memory is that matrix and each tree's list of functions:
 * bounded by the functions times the trees.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "tree/calltree.h"
#include "tree/key_weights.h"
#include "tree/significance.h"
#include "store/store.h"

PG_FUNCTION_INFO_V1(calltree_significant_changes);

#define CHANGE_COLUMNS	12

/* The trees of both sides, base first, as their functions' exact weights */
typedef struct Evidence
{
	int32		nbase;
	int32		ntest;
	int32		ntrees;			/* nbase + ntest */
	int64	   *total;			/* per tree */
	int32		nfuncs;			/* of the union of every tree's functions */
	int32	   *func;			/* per function, ascending */
	int64	   *running;		/* [function * ntrees + tree] */
	int64	   *self;
} Evidence;

/* One row of the result */
typedef struct Change
{
	int32		func;
	double		base_running;	/* means over each side's trees */
	double		test_running;
	double		base_self;
	double		test_self;
	RankTest	test;
	double		q;
} Change;

static int
compare_func_keys(const void *a, const void *b)
{
	const KeyWeight *x = a;
	const KeyWeight *y = b;

	return (x->key > y->key) - (x->key < y->key);
}

/* The array's elements, which must number at least 2 */
static Datum *
side_trees(ArrayType *array, const char *side, int32 *count, bool **nulls)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elements;
	int			n;

	get_typlenbyvalalign(ARR_ELEMTYPE(array), &typlen, &typbyval, &typalign);
	deconstruct_array(array, ARR_ELEMTYPE(array), typlen, typbyval, typalign, &elements, nulls, &n);
	if (n < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("significant_changes() needs at least 2 trees on each side, and %s has %d", side, n),
				 errhint("Each tree is one unit of evidence, such as a profile or a host's hour: "
						 "pass the trees one by one, as array_agg(tree), not merged into one.")));
	*count = n;
	return elements;
}

/* Tree k of a side (numbered from 1 in messages): its functions sorted by func, and its total */
static KeyWeight *
tree_functions(Datum element, bool isnull, const char *side, int32 k, int64 *total, int32 *nfuncs)
{
	CallTree   *tree;
	KeyWeight  *weights;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("tree %d of %s of significant_changes() is NULL", k + 1, side),
				 errhint("Leave out the NULL trees, as with array_agg(tree) FILTER (WHERE tree IS NOT NULL).")));
	tree = DatumGetCallTreeP(element);
	*total = calltree_total_weight(tree);
	if (*total <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("tree %d of %s of significant_changes() has total weight " INT64_FORMAT ", and shares need a positive total",
						k + 1, side, *total),
				 errhint("Leave out the empty trees, as with array_agg(tree) FILTER (WHERE total(tree) > 0).")));
	weights = calltree_func_weights(tree, nfuncs);
	qsort(weights, *nfuncs, sizeof(KeyWeight), compare_func_keys);
	if ((Pointer) tree != DatumGetPointer(element))
		pfree(tree);
	return weights;
}

/*
 * The sorted union of funcs[0 .. n-1] and a tree's functions, into out
 * (room for n + count); returns its length.
 */
static int32
merge_functions(const int32 *funcs, int32 n, const KeyWeight *list, int32 count, int32 *out)
{
	int32		i = 0;
	int32		j = 0;
	int32		length = 0;

	while (i < n || j < count)
	{
		bool		from_union = i < n && (j >= count || funcs[i] <= (int32) list[j].key);
		bool		from_list = j < count && (i >= n || (int32) list[j].key <= funcs[i]);

		if ((length & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		out[length++] = from_union ? funcs[i] : (int32) list[j].key;
		i += from_union;
		j += from_list;
	}
	return length;
}

/*
 * The union of the trees' functions, ascending: merged in one tree at a
 * time, so that it costs the functions times the trees, and answers a
 * cancel.
 */
static void
union_of_functions(Evidence *ev, KeyWeight **lists, const int32 *counts)
{
	int32	   *funcs = palloc(sizeof(int32));
	int32		n = 0;

	for (int32 k = 0; k < ev->ntrees; k++)
	{
		int32	   *merged = palloc(sizeof(int32) * ((Size) n + counts[k] + 1));

		n = merge_functions(funcs, n, lists[k], counts[k], merged);
		pfree(funcs);
		funcs = merged;
	}
	ev->nfuncs = n;
	ev->func = funcs;
}

/* Column k of the matrix from tree k's functions (a merge: both sorted by func) */
static void
fill_column(Evidence *ev, int32 k, const KeyWeight *list, int32 count)
{
	int32		i = 0;

	for (int32 f = 0; f < ev->nfuncs && i < count; f++)
	{
		if (ev->func[f] != (int32) list[i].key)
			continue;
		ev->running[(Size) f * ev->ntrees + k] = list[i].running;
		ev->self[(Size) f * ev->ntrees + k] = list[i].self;
		i++;
	}
}

/* Both sides' trees as the matrix of their functions' weights */
static Evidence *
read_evidence(ArrayType *base, ArrayType *test)
{
	Evidence   *ev = palloc0(sizeof(Evidence));
	bool	   *base_nulls;
	bool	   *test_nulls;
	Datum	   *base_trees = side_trees(base, "base", &ev->nbase, &base_nulls);
	Datum	   *test_trees = side_trees(test, "test", &ev->ntest, &test_nulls);
	KeyWeight **lists;
	int32	   *counts;
	Size		cells;

	ev->ntrees = ev->nbase + ev->ntest;
	ev->total = palloc(sizeof(int64) * ev->ntrees);
	lists = palloc(sizeof(KeyWeight *) * ev->ntrees);
	counts = palloc(sizeof(int32) * ev->ntrees);
	for (int32 k = 0; k < ev->ntrees; k++)
	{
		bool		in_base = k < ev->nbase;
		int32		i = in_base ? k : k - ev->nbase;

		CHECK_FOR_INTERRUPTS();
		lists[k] = tree_functions(in_base ? base_trees[i] : test_trees[i],
								  in_base ? base_nulls[i] : test_nulls[i],
								  in_base ? "base" : "test", i, &ev->total[k], &counts[k]);
	}
	union_of_functions(ev, lists, counts);
	cells = (Size) ev->nfuncs * ev->ntrees;
	ev->running = palloc_extended(sizeof(int64) * Max(cells, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	ev->self = palloc_extended(sizeof(int64) * Max(cells, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int32 k = 0; k < ev->ntrees; k++)
	{
		CHECK_FOR_INTERRUPTS();
		fill_column(ev, k, lists[k], counts[k]);
		pfree(lists[k]);
	}
	pfree(lists);
	pfree(counts);
	return ev;
}

/* The mean over trees first .. first + n - 1 of weight / total */
static double
mean_share(const Evidence *ev, const int64 *row, int32 first, int32 n)
{
	double		sum = 0;

	for (int32 k = first; k < first + n; k++)
		sum += (double) row[k] / (double) ev->total[k];
	return sum / n;
}

/* Function f's shares, means and test */
static void
test_function(const Evidence *ev, int32 f, MannWhitney *mw, Share *shares, Change *change)
{
	const int64 *running = &ev->running[(Size) f * ev->ntrees];
	const int64 *self = &ev->self[(Size) f * ev->ntrees];

	for (int32 k = 0; k < ev->ntrees; k++)
		shares[k] = (Share) {running[k], ev->total[k]};
	change->func = ev->func[f];
	change->base_running = mean_share(ev, running, 0, ev->nbase);
	change->test_running = mean_share(ev, running, ev->nbase, ev->ntest);
	change->base_self = mean_share(ev, self, 0, ev->nbase);
	change->test_self = mean_share(ev, self, ev->nbase, ev->ntest);
	mann_whitney_test(mw, shares, shares + ev->nbase, &change->test);
}

/* q-values of the tested functions; 1 for the others */
static void
correct_for_many(Change *changes, int32 n)
{
	double	   *p = palloc(sizeof(double) * Max(n, 1));
	double	   *q = palloc(sizeof(double) * Max(n, 1));
	int32		ntested = 0;

	for (int32 i = 0; i < n; i++)
		if (changes[i].test.tested)
			p[ntested++] = changes[i].test.p;
	benjamini_hochberg(p, ntested, q);
	ntested = 0;
	for (int32 i = 0; i < n; i++)
		changes[i].q = changes[i].test.tested ? q[ntested++] : 1.0;
	pfree(p);
	pfree(q);
}

/* p_value ascending, then func */
static int
compare_changes(const void *a, const void *b)
{
	const Change *x = a;
	const Change *y = b;

	if (x->test.p != y->test.p)
		return x->test.p < y->test.p ? -1 : 1;
	return (x->func > y->func) - (x->func < y->func);
}

/* Every function's row, sorted */
static Change *
test_functions(const Evidence *ev)
{
	Change	   *changes = palloc_extended(sizeof(Change) * Max(ev->nfuncs, 1), MCXT_ALLOC_HUGE);
	Share	   *shares = palloc(sizeof(Share) * ev->ntrees);
	MannWhitney *mw = mann_whitney_begin(ev->nbase, ev->ntest);

	for (int32 f = 0; f < ev->nfuncs; f++)
	{
		CHECK_FOR_INTERRUPTS();
		test_function(ev, f, mw, shares, &changes[f]);
	}
	mann_whitney_end(mw);
	pfree(shares);
	correct_for_many(changes, ev->nfuncs);
	qsort(changes, ev->nfuncs, sizeof(Change), compare_changes);
	return changes;
}

/* A warning when no function could be significant, whatever the trees */
static void
warn_if_too_few(int32 nbase, int32 ntest, double alpha)
{
	double		smallest = mann_whitney_smallest_p(nbase, ntest);

	if (smallest < alpha)
		return;
	ereport(WARNING,
			(errmsg("significant_changes() cannot find a change significant at alpha %g with %d trees in base and %d in test",
					alpha, nbase, ntest),
			 errdetail("The smallest p-value sides of these sizes can give is %.3g.", smallest),
			 errhint("Give each side more trees, such as one profile per host or per hour: with 4 trees "
					 "on each side, a share larger in every tree of one side than in any of the other gets p = 2/70 = 0.029.")));
}

/* The func's name from calltree.func, or '#<id>' */
static Datum
func_name(int32 func, const FuncNames *names)
{
	const char *name = func_names_get(names, func);

	return CStringGetTextDatum(name ? name : psprintf("#%d", func));
}

static void
put_change(ReturnSetInfo *rsinfo, const Change *c, const FuncNames *names, double alpha)
{
	Datum		values[CHANGE_COLUMNS];
	bool		nulls[CHANGE_COLUMNS] = {false};

	values[0] = Int32GetDatum(c->func);
	values[1] = func_name(c->func, names);
	values[2] = Float8GetDatum(c->base_running);
	values[3] = Float8GetDatum(c->test_running);
	values[4] = Float8GetDatum(c->test_running - c->base_running);
	values[5] = Float8GetDatum(c->base_self);
	values[6] = Float8GetDatum(c->test_self);
	values[7] = Float8GetDatum(c->test_self - c->base_self);
	values[8] = Float8GetDatum(c->test.effect);
	values[9] = Float8GetDatum(c->test.p);
	values[10] = Float8GetDatum(c->q);
	values[11] = BoolGetDatum(c->q < alpha);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/*
 * significant_changes(base calltree[], test calltree[], alpha) → (func,
 * name, base_running_share, test_running_share, delta_running_share,
 * base_self_share, test_self_share, delta_self_share, effect_size, p_value,
 * q_value, significant): one row per function of any tree, ordered by
 * p_value, then func.
 */
Datum
calltree_significant_changes(PG_FUNCTION_ARGS)
{
	ArrayType  *base = PG_GETARG_ARRAYTYPE_P(0);
	ArrayType  *test = PG_GETARG_ARRAYTYPE_P(1);
	double		alpha = PG_GETARG_FLOAT8(2);
	MemoryContext work_cxt;
	MemoryContext row_cxt;
	MemoryContext caller_cxt;
	Evidence   *ev;
	Change	   *changes;
	FuncNames  *names;
	ReturnSetInfo *rsinfo;

	if (isnan(alpha) || alpha <= 0 || alpha >= 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("alpha of significant_changes() must be between 0 and 1, not %g", alpha),
				 errhint("alpha is the false discovery rate to control, such as 0.05.")));
	/* all but the rows in a context of the call's own, deleted at its end (a LATERAL call per row piles nothing up) */
	work_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree significant_changes",
									 ALLOCSET_DEFAULT_SIZES);
	caller_cxt = MemoryContextSwitchTo(work_cxt);
	ev = read_evidence(base, test);
	warn_if_too_few(ev->nbase, ev->ntest, alpha);
	changes = test_functions(ev);
	names = func_names_fetch_funcs(ev->func, ev->nfuncs);
	MemoryContextSwitchTo(caller_cxt);

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	row_cxt = AllocSetContextCreate(work_cxt, "calltree significant_changes row", ALLOCSET_DEFAULT_SIZES);
	for (int32 i = 0; i < ev->nfuncs; i++)
	{
		MemoryContext old = MemoryContextSwitchTo(row_cxt);

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		put_change(rsinfo, &changes[i], names, alpha);
		MemoryContextSwitchTo(old);
		MemoryContextReset(row_cxt);
	}
	MemoryContextDelete(work_cxt);
	return (Datum) 0;
}
