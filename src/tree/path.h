/*
 * path.h
 *	  Func paths: as SQL values (one-dimensional int4 arrays, root first),
 *	  and the limit on how many path elements one call may write or walk.
 *
 * Functions that write each node's whole path, or walk it, do work that
 * grows with the square of a tree's depth; they count it first with
 * calltree_path_elements and refuse it with calltree_check_path_elements
 * when it passes calltree.max_path_output.
 */
#ifndef CALLTREE_PATH_H
#define CALLTREE_PATH_H

#include "postgres.h"

#include "tree/calltree.h"

struct ArrayType;

extern const int32 *path_argument(struct ArrayType *array, const char *what, int32 *len);
extern struct ArrayType *int4_array(const int32 *values, int32 len);

extern int64 calltree_path_elements(const CallTree *tree, const int32 *depth, bool samples_only);
extern void calltree_check_path_elements(const char *function, int64 elements);

#endif							/* CALLTREE_PATH_H */
