/*
 * unify.h
 *	  One func per function: the funcs of a tree replaced by one
 *	  representative per name, or per name and file (unify.c).
 *
 * A func is keyed by name, file and resource, and the resource of a
 * native func carries its build id: one function of a fleet that runs two
 * builds is two funcs, and the trees of two builds share no CallNode.
 * Unified, they compare node by node, and functions() counts the function
 * once, as pprof does.
 */
#ifndef CALLTREE_UNIFY_H
#define CALLTREE_UNIFY_H

#include "tree/calltree.h"
#include "store/store.h"

/*
 * The tree with each func replaced by the smallest id of calltree.func
 * with the same key, the CallNodes that become equal merged (their self
 * weights, calls and latencies added up).  Funcs that calltree.func does
 * not hold stay as they are.
 */
extern CallTree *unify_tree(const CallTree *tree, FuncKey key);

#endif							/* CALLTREE_UNIFY_H */
