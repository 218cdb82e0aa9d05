/*
 * func_names.h
 *	  What calltree.func says about the funcs of one tree: name, file and
 *	  resource, fetched in one query (func_names.c).
 *
 * Every reader that names a tree's funcs (nodes(), the exporters) uses it,
 * so that each pays one round trip to calltree.func however many nodes the
 * tree has, and the query is written once.
 */
#ifndef CALLTREE_FUNC_NAMES_H
#define CALLTREE_FUNC_NAMES_H

#include "postgres.h"

#include "tree/calltree.h"

typedef struct FuncNames FuncNames;

/*
 * Every func of the tree, or every func of a list (in any order, repeats
 * allowed), with what calltree.func holds about it.
 */
extern FuncNames *func_names_fetch(const CallTree *tree);
extern FuncNames *func_names_fetch_funcs(const int32 *funcs, int32 count);

/* A func's name, file or resource; NULL for a func id that calltree.func does not hold, or a column that is NULL. */
extern const char *func_names_get(const FuncNames *names, int32 func);
extern const char *func_names_file(const FuncNames *names, int32 func);
extern const char *func_names_resource(const FuncNames *names, int32 func);

/* The distinct funcs, sorted: their number, a func's index, the func at one */
extern int32 func_names_count(const FuncNames *names);
extern int32 func_names_index(const FuncNames *names, int32 func);
extern int32 func_names_id(const FuncNames *names, int32 index);

#endif							/* CALLTREE_FUNC_NAMES_H */
