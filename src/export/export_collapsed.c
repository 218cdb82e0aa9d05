/*
 * export_collapsed.c
 *	  Trees to collapsed stacks (Brendan Gregg's "folded" format), the
 *	  inverse of import_collapsed.
 *
 * One line per node that holds self weight, and one per leaf even when its
 * weight is 0 (so that a zero-weight leaf survives a round trip):
 *
 *		root;caller;leaf self\n
 *
 * in the tree's preorder.  A func the tree names but calltree.func does not
 * hold is written '#<id>', as report() does.  An empty name is written as it
 * is ("a;;b", "a; 5"), as import_collapsed reads it, but at the root, where
 * it would leave a line " 5" without a stack: there it is '#<id>' too.  The format has no escapes, so a name that
 * holds a ';' or a line break cannot be written faithfully: ';' becomes ':'
 * and CR and LF become spaces.
 */
#include "postgres.h"

#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "tree/calltree.h"
#include "tree/path.h"
#include "store/store.h"
#include "export/export.h"

PG_FUNCTION_INFO_V1(calltree_to_collapsed);

/* Appends one func name, made safe for the format (see above). */
static void
append_collapsed_name(StringInfo buf, const char *name, int32 func, bool root)
{
	if (name == NULL || (root && name[0] == '\0'))
	{
		appendStringInfo(buf, "#%d", func);
		return;
	}
	for (const char *c = name; *c; c++)
	{
		switch (*c)
		{
			case ';':
				appendStringInfoChar(buf, ':');
				break;
			case '\n':
			case '\r':
				appendStringInfoChar(buf, ' ');
				break;
			default:
				appendStringInfoChar(buf, *c);
				break;
		}
	}
}

/*
 * The path of the current node is kept in one buffer: end[d] is where the
 * name at depth d ends, so moving to the next node in preorder cuts the
 * buffer back to its parent's path and appends one name.
 */
void
export_collapsed(const CallTree *tree, const FuncNames *names, StringInfo out)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	int32	   *depth = calltree_depths(tree);
	int32	   *end = palloc_extended(sizeof(int32) * Max(n, 1), MCXT_ALLOC_HUGE);
	StringInfoData path;

	calltree_check_path_elements("to_collapsed()", calltree_path_elements(tree, depth, true));
	initStringInfo(&path);
	for (int32 i = 0; i < n; i++)
	{
		int32		d = depth[i];
		bool		leaf = (i + 1 == n || parent[i + 1] != i);

		if ((i & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		path.len = d == 0 ? 0 : end[d - 1];
		if (d > 0)
			appendStringInfoChar(&path, ';');
		append_collapsed_name(&path, func_names_get(names, func[i]), func[i], d == 0);
		end[d] = path.len;

		if (self[i] != 0 || leaf)
		{
			appendBinaryStringInfo(out, path.data, path.len);
			appendStringInfo(out, " " INT64_FORMAT "\n", self[i]);
		}
	}
	pfree(path.data);
	pfree(end);
}

/* to_collapsed(tree calltree) → text */
Datum
calltree_to_collapsed(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	StringInfoData out;

	export_buffer_begin(&out);
	export_collapsed(tree, func_names_fetch(tree), &out);
	PG_RETURN_TEXT_P(export_buffer_value(&out));
}
