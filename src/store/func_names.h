/*
 * export.h
 *	  Declarations shared by the exporters (src/export_*.c).
 *
 * Every exporter writes func names, and every one of them fetches the names
 * of all the funcs of a tree in one query: FuncNames holds the answer.
 */
#ifndef CALLTREE_EXPORT_H
#define CALLTREE_EXPORT_H

#include "postgres.h"

#include "tree/calltree.h"

typedef struct FuncNames FuncNames;

/* The names of every func of the tree, fetched from calltree.func. */
extern FuncNames *func_names_fetch(const CallTree *tree);

/* A func's name, or NULL for a func id that calltree.func does not hold. */
extern const char *func_names_get(const FuncNames *names, int32 func);

/* The tree's distinct funcs, sorted: their number, a func's index, the func at one */
extern int32 func_names_count(const FuncNames *names);
extern int32 func_names_index(const FuncNames *names, int32 func);
extern int32 func_names_id(const FuncNames *names, int32 index);

#endif							/* CALLTREE_EXPORT_H */
