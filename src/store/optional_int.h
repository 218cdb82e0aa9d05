/*
 * optional_int.h
 *	  An integer that may be absent: the address, line and column of a
 *	  frame, which calltree.frame keeps in nullable columns.
 *
 * The importers pass a frame's fields to the writer in this form, the
 * writer encodes them into its cache keys, and the probes search the frame
 * table's key with them (an absent field is searched as NULL).  It lives
 * here, below both, so that the store needs nothing from the writer.
 */
#ifndef CALLTREE_OPTIONAL_INT_H
#define CALLTREE_OPTIONAL_INT_H

#include "postgres.h"

typedef struct OptionalInt
{
	bool		present;
	int64		value;
} OptionalInt;

#define NO_INT ((OptionalInt) {false, 0})
#define SOME_INT(v) ((OptionalInt) {true, (v)})

#endif							/* CALLTREE_OPTIONAL_INT_H */
