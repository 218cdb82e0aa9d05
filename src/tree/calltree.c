/*
 * calltree.c
 *	  The module: its settings, and the calltree type's operators (equality,
 *	  hashing, merging, total).
 *
 * Stored trees are canonical (calltree.h), so equal trees have equal bytes
 * and both equality and hashing work on the bytes.
 */
#include "postgres.h"

#include <limits.h>

#include "common/hashfn.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "tree/calltree.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

static const struct config_enum_entry stack_read_options[] = {
	{"auto", STACK_READ_AUTO, false},
	{"index", STACK_READ_INDEX, false},
	{"scan", STACK_READ_SCAN, false},
	{NULL, 0, false}
};

void
_PG_init(void)
{
	DefineCustomEnumVariable("calltree.stack_read",
							 "How stack_agg and imports read calltree.stack.",
							 "auto reads the whole table when a query or an import needs a good share "
							 "of it and probes its indexes otherwise; index and scan force one way.",
							 &calltree_stack_read, STACK_READ_AUTO, stack_read_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("calltree.import_work_mem",
							"Memory an import may use for its caches of funcs, frames and stacks.",
							"Collapsed stacks and perf script empty their caches when they would "
							"pass it; every import reads the stack table whole only if it fits.",
							&calltree_import_work_mem, 128 * 1024, 1024, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("calltree.max_path_output",
							"Most func path elements one call may write or walk.",
							"nodes(), report(), latency(), collapse_recursions() and the exporters "
							"write each node's whole path, and invert(), backtraces(), lines() and "
							"estimated_calls() walk them: that grows with the square of the depth. "
							"Larger work is refused with an error.",
							&calltree_max_path_output, 100000000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	MarkGUCPrefixReserved("calltree");
}

PG_FUNCTION_INFO_V1(calltree_eq);
PG_FUNCTION_INFO_V1(calltree_ne);
PG_FUNCTION_INFO_V1(calltree_hash);
PG_FUNCTION_INFO_V1(calltree_add);
PG_FUNCTION_INFO_V1(calltree_total);

static bool
calltree_equal(const CallTree *a, const CallTree *b)
{
	return VARSIZE(a) == VARSIZE(b) && memcmp(a, b, VARSIZE(a)) == 0;
}

Datum
calltree_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(calltree_equal(PG_GETARG_CALLTREE_P(0), PG_GETARG_CALLTREE_P(1)));
}

Datum
calltree_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!calltree_equal(PG_GETARG_CALLTREE_P(0), PG_GETARG_CALLTREE_P(1)));
}

Datum
calltree_hash(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);

	PG_RETURN_DATUM(hash_any((const unsigned char *) VARDATA(tree), VARSIZE(tree) - VARHDRSZ));
}

/* tree + tree: the tree of the union of both trees' samples */
Datum
calltree_add(PG_FUNCTION_ARGS)
{
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);

	tree_builder_add_tree(builder, PG_GETARG_CALLTREE_P(0));
	tree_builder_add_tree(builder, PG_GETARG_CALLTREE_P(1));
	PG_RETURN_CALLTREE_P(tree_builder_finish(builder));
}

Datum
calltree_total(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(calltree_total_weight(PG_GETARG_CALLTREE_P(0)));
}
