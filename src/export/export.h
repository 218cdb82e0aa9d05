/*
 * export.h
 *	  The exporters' C entry points: each writes a tree, with what
 *	  calltree.func says about its funcs (func_names_fetch), into a
 *	  StringInfo, after what it already holds.
 *
 * Each SQL function of export_*.c reads its arguments, fetches the names
 * and calls one of these; a C caller can do the same with a tree and names
 * of its own.  Each checks its tree first, with the errors of its SQL
 * function: the number of path elements it would write
 * (calltree.max_path_output), or negative weights where the format draws
 * shares of a whole.  A func that calltree.func does not hold is named
 * "#<id>".
 */
#ifndef CALLTREE_EXPORT_H
#define CALLTREE_EXPORT_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "tree/calltree.h"
#include "store/store.h"
#include "export/export_flamegraph_svg.h"

/* to_collapsed(): collapsed stacks, a line per node with self weight or no child */
extern void export_collapsed(const CallTree *tree, const FuncNames *names, StringInfo out);

/*
 * to_speedscope(): a speedscope file of one sampled profile named `name`,
 * its weights in `unit` (NULL: counts)
 */
extern void export_speedscope(const CallTree *tree, const FuncNames *names,
							  const char *name, const char *unit, StringInfo out);

/* flamegraph(): an SVG flame graph */
extern void export_flamegraph(const CallTree *tree, const FuncNames *names,
							  const FlameOptions *options, StringInfo out);

/*
 * flamegraph_diff(): an SVG differential flame graph of base and test;
 * the names are test's, which name every box
 */
extern void export_flamegraph_diff(const CallTree *base, const CallTree *test,
								   const FuncNames *test_names, const FlameOptions *options,
								   StringInfo out);

/* to_pprof(): a gzip-compressed pprof profile of one sample type */
extern void export_pprof(const CallTree *tree, const FuncNames *names,
						 const char *sample_type, const char *unit, StringInfo out);

/*
 * The SQL functions build their text or bytea result in place: a buffer
 * begun with room for the varlena header, and the value it holds.
 */
static inline void
export_buffer_begin(StringInfo out)
{
	initStringInfo(out);
	appendStringInfoSpaces(out, VARHDRSZ);
}

static inline struct varlena *
export_buffer_value(StringInfo out)
{
	SET_VARSIZE(out->data, out->len);
	return (struct varlena *) out->data;
}

#endif							/* CALLTREE_EXPORT_H */
