/*
 * nodes.c
 *	  Reading a tree as rows: nodes() and report().
 *
 * Both results are materialized (InitMaterializedSRF): the tree is walked
 * once, in stored order, which is already the order both promise, so
 * neither needs a sort.  report() is nodes() with the func names, fetched
 * in one query for the whole tree, and the shares of the total, which is
 * computed once.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "tree/calltree.h"
#include "tree/path.h"
#include "store/store.h"
#include "query/result_rows.h"

PG_FUNCTION_INFO_V1(calltree_nodes);
PG_FUNCTION_INFO_V1(calltree_report);

#define REPORT_COLUMNS	12		/* nodes() has the first 8 */

/* What report() adds to each row of nodes() */
typedef struct ReportExtras
{
	const FuncNames *funcs;		/* the tree's distinct funcs and their names */
	text	  **names;			/* the name of each, as text; '#<id>' if unknown */
	int64		total;			/* the tree's total weight */
	Datum		total_numeric;
	Datum		hundred;		/* numeric 100.0 */
	Datum	   *shares;			/* numeric 0.00 .. 100.00 by hundredths, made on first use */
	MemoryContext cxt;			/* the function's: holds the shares */
	MemoryContext row_cxt;		/* reset after each row */
} ReportExtras;

#define SHARES	10001			/* 0.00 .. 100.00 */

/* Every func's name as a text value, made once */
static void
name_funcs(ReportExtras *extras, const CallTree *tree)
{
	int32		count;

	extras->funcs = func_names_fetch(tree);
	count = func_names_count(extras->funcs);
	extras->names = palloc_extended(sizeof(text *) * Max(count, 1), MCXT_ALLOC_HUGE);
	for (int32 k = 0; k < count; k++)
	{
		int32		func = func_names_id(extras->funcs, k);
		const char *name = func_names_get(extras->funcs, func);

		if ((k & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		extras->names[k] = cstring_to_text(name ? name : psprintf("#%d", func));
	}
}

static const text *
func_name(const ReportExtras *extras, int32 func)
{
	return extras->names[func_names_index(extras->funcs, func)];
}

/* The name indented by two spaces per level */
static text *
indented(const text *name, int32 depth)
{
	Size		len = VARSIZE_ANY_EXHDR(name);
	text	   *label = palloc(VARHDRSZ + 2 * (Size) depth + len);

	SET_VARSIZE(label, VARHDRSZ + 2 * (Size) depth + len);
	memset(VARDATA(label), ' ', 2 * (Size) depth);
	memcpy(VARDATA(label) + 2 * (Size) depth, VARDATA_ANY(name), len);
	return label;
}

/* hundredths / 100 as numeric; the shares of a whole are made once each */
static Datum
hundredths_numeric(ReportExtras *extras, int64 hundredths)
{
	MemoryContext old;

	if (hundredths < 0 || hundredths >= SHARES)
		return NumericGetDatum(int64_div_fast_to_numeric(hundredths, 2));
	if (extras->shares[hundredths] == (Datum) 0)
	{
		old = MemoryContextSwitchTo(extras->cxt);
		extras->shares[hundredths] = NumericGetDatum(int64_div_fast_to_numeric(hundredths, 2));
		MemoryContextSwitchTo(old);
	}
	return extras->shares[hundredths];
}

/*
 * round(100.0 * part / total, 2), as SQL computes it, for a nonzero total.
 *
 * numeric_div rounds the quotient to rscale decimals, and round() rounds
 * that to 2.  While |part| < 100 |total|, the quotient is below 10000 and
 * rscale is at least 12, so the two roundings give the quotient rounded
 * once to 2 decimals, unless its hundredths lie within 0.5e-10 below a
 * half: there, and for larger quotients, the numeric functions decide.
 * The shortcut is exact integer arithmetic, several times cheaper.
 */
static Datum
percent_of(ReportExtras *extras, int64 part)
{
#ifdef HAVE_INT128
	bool		negative = (part < 0) != (extras->total < 0);
	uint128		a = (uint128) (part < 0 ? -(int128) part : (int128) part) * 10000;
	uint64		b = extras->total < 0 ? -(uint64) extras->total : (uint64) extras->total;

	if (a < (uint128) b * 1000000)
	{
		int64		hundredths;
		uint64		rem;

		if ((a >> 64) == 0)
		{
			/* a 64-bit division where it is enough: most weights */
			hundredths = (int64) ((uint64) a / b);
			rem = (uint64) a % b;
		}
		else
		{
			hundredths = (int64) (a / b);
			rem = (uint64) (a % b);
		}
		if (2 * (uint128) rem >= b)
			hundredths++;
		if (2 * (uint128) rem >= b || (b - 2 * (uint128) rem) * UINT64CONST(10000000000) > b)
			return hundredths_numeric(extras, negative ? -hundredths : hundredths);
	}
#endif
	return DirectFunctionCall2(numeric_round,
							   DirectFunctionCall2(numeric_div,
												   DirectFunctionCall2(numeric_mul, extras->hundred,
																	   DirectFunctionCall1(int8_numeric, Int64GetDatum(part))),
												   extras->total_numeric),
							   Int32GetDatum(2));
}

/*
 * report()'s columns of node i: name (the func's, or '#<id>' for a func
 * that calltree.func does not hold), running_pct and self_pct (NULL when
 * the total is zero), and the name indented by two spaces per level.
 */
static void
report_columns(ReportExtras *extras, const CallTree *tree, int32 i, int32 depth,
			   int64 running, Datum *values, bool *nulls)
{
	const text *name = func_name(extras, calltree_func(tree)[i]);

	values[8] = PointerGetDatum(name);
	nulls[9] = nulls[10] = extras->total == 0;
	if (extras->total != 0)
	{
		values[9] = percent_of(extras, running);
		values[10] = percent_of(extras, calltree_self(tree)[i]);
	}
	values[11] = PointerGetDatum(indented(name, depth));
}

/*
 * The rows of nodes(), and with `extras` those of report().
 *
 * node and parent are 1-based preorder indexes; depth is 0 for roots.  The
 * path of node i is the path of its parent plus its func.  One int4[] as
 * deep as the tree holds the path of the current node in its data area:
 * each row sets its length and its last func, and the tuplestore copies it,
 * so a row of nodes() costs no allocation.  The rows hold as many func path
 * elements as the nodes' depths sum to, which calltree.max_path_output
 * bounds (checked by the callers before any row).
 */
static void
write_node_rows(ReturnSetInfo *rsinfo, const CallTree *tree, const int32 *depth,
				ReportExtras *extras)
{
	const int64 *self = calltree_self(tree);
	const int64 *calls = calltree_calls(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int64	   *running = calltree_running(tree);
	int32		max_depth = 0;
	int32		no_func = 0;
	ArrayType  *path;
	int32	   *path_funcs;

	for (int32 i = 0; i < tree->nnodes; i++)
		max_depth = Max(max_depth, depth[i]);
	path = int4_array(&no_func, 1); /* the shape of a one-dimensional int4[] */
	path = repalloc(path, ARR_OVERHEAD_NONULLS(1) + sizeof(int32) * ((Size) max_depth + 1));
	path_funcs = (int32 *) ARR_DATA_PTR(path);

	for (int32 i = 0; i < tree->nnodes; i++)
	{
		Datum		values[REPORT_COLUMNS];
		bool		nulls[REPORT_COLUMNS] = {false};

		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		path_funcs[depth[i]] = func[i];
		SET_VARSIZE(path, ARR_OVERHEAD_NONULLS(1) + sizeof(int32) * (depth[i] + 1));
		ARR_DIMS(path)[0] = depth[i] + 1;

		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum(parent[i] + 1);
		nulls[1] = parent[i] < 0;
		values[2] = Int32GetDatum(depth[i]);
		values[3] = Int32GetDatum(func[i]);
		values[4] = PointerGetDatum(path);
		values[5] = Int64GetDatum(running[i]);
		values[6] = Int64GetDatum(self[i]);
		values[7] = calls ? Int64GetDatum(calls[i]) : (Datum) 0;
		nulls[7] = calls == NULL;
		if (extras)
		{
			MemoryContext old = MemoryContextSwitchTo(extras->row_cxt);

			report_columns(extras, tree, i, depth[i], running[i], values, nulls);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
			MemoryContextSwitchTo(old);
			MemoryContextReset(extras->row_cxt);
		}
		else
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* nodes(tree) → (node, parent, depth, func, path, running, self, calls) */
Datum
calltree_nodes(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	int32	   *depth = calltree_depths(tree);

	calltree_check_path_elements("nodes()", calltree_path_elements(tree, depth, false));
	result_rows_init(fcinfo);
	write_node_rows((ReturnSetInfo *) fcinfo->resultinfo, tree, depth, NULL);
	return (Datum) 0;
}

/*
 * report(tree) → the columns of nodes(), then name, running_pct, self_pct
 * and label.  The labels hold two characters per level of each node, no
 * more than twice the path elements that calltree.max_path_output bounds.
 */
Datum
calltree_report(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	int32	   *depth = calltree_depths(tree);
	ReportExtras extras;

	calltree_check_path_elements("report()", calltree_path_elements(tree, depth, false));
	InitMaterializedSRF(fcinfo, 0);
	extras.total = calltree_total_weight(tree);
	name_funcs(&extras, tree);
	extras.total_numeric = DirectFunctionCall1(int8_numeric, Int64GetDatum(extras.total));
	extras.hundred = DirectFunctionCall3(numeric_in, CStringGetDatum("100.0"),
										 ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	extras.shares = palloc0(sizeof(Datum) * SHARES);
	extras.cxt = CurrentMemoryContext;
	extras.row_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree report row",
										   ALLOCSET_DEFAULT_SIZES);
	write_node_rows((ReturnSetInfo *) fcinfo->resultinfo, tree, depth, &extras);
	return (Datum) 0;
}
