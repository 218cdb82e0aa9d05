/*
 * unify.c
 *	  unify_funcs(tree, by): the tree with one func per name, or per name
 *	  and file (unify.h).
 *
 * The representatives come from calltree.func in one query over the
 * tree's distinct funcs (func_lookup.c).  The tree is then rebuilt with
 * each node's func renamed: the builder finds siblings that became equal
 * and merges them, adding up what they hold, so a unified tree keeps the
 * call counts and latencies of a traced tree.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "tree/builder.h"
#include "tree/func_ids.h"
#include "query/unify.h"

PG_FUNCTION_INFO_V1(calltree_unify_funcs);

/* The tree's distinct funcs, sorted; their number in *count */
static int32 *
distinct_funcs(const CallTree *tree, int32 *count)
{
	int32	   *ids = palloc_extended(sizeof(int32) * Max(tree->nnodes, 1), MCXT_ALLOC_HUGE);

	memcpy(ids, calltree_func(tree), sizeof(int32) * tree->nnodes);
	*count = func_ids_sort_distinct(ids, tree->nnodes);
	return ids;
}

CallTree *
unify_tree(const CallTree *tree, FuncKey key)
{
	int32		count;
	int32	   *ids = distinct_funcs(tree, &count);
	int32	   *representative = palloc_extended(sizeof(int32) * Max(count, 1), MCXT_ALLOC_HUGE);
	bool		renames = false;
	CallTree   *renamed;
	int32	   *funcs;
	TreeBuilder *builder;

	func_lookup_representatives(ids, count, key, representative);
	for (int32 i = 0; i < count && !renames; i++)
		renames = representative[i] != ids[i];
	if (!renames)
		return (CallTree *) tree;

	/*
	 * A copy with the funcs renamed is no longer in canonical order, which
	 * adding it to a builder does not need: it reads parents and what each
	 * node holds.
	 */
	renamed = palloc_extended(VARSIZE(tree), MCXT_ALLOC_HUGE);
	memcpy(renamed, tree, VARSIZE(tree));
	funcs = calltree_func(renamed);
	for (int32 i = 0; i < renamed->nnodes; i++)
		funcs[i] = representative[func_ids_find(ids, count, funcs[i])];
	builder = tree_builder_create(CurrentMemoryContext);
	tree_builder_add_tree(builder, renamed);
	return tree_builder_finish(builder);
}

/*
 * unify_funcs(tree calltree, by text DEFAULT 'name') → calltree
 *	'name': one func per name; 'file': one per name and file;
 *	'func': the tree unchanged.
 */
Datum
calltree_unify_funcs(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	char	   *by = text_to_cstring(PG_GETARG_TEXT_PP(1));

	if (strcmp(by, "name") == 0)
		PG_RETURN_CALLTREE_P(unify_tree(tree, FUNC_KEY_NAME));
	if (strcmp(by, "file") == 0)
		PG_RETURN_CALLTREE_P(unify_tree(tree, FUNC_KEY_NAME_FILE));
	if (strcmp(by, "func") == 0)
		PG_RETURN_CALLTREE_P(tree);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown unify_funcs key \"%s\"", by),
			 errhint("by is 'name' (one func per name), 'file' (one per name and file) or 'func' (the tree unchanged).")));
}
