/*
 * result_rows.h
 *	  The rows of a materialized set-returning function, kept at their
 *	  exact size (result_rows.c).
 *
 * A function that returns a set in materialize mode writes its rows into a
 * tuplestore, which keeps them in memory up to work_mem.  The tuplestore
 * that InitMaterializedSRF makes lives in the per-query context, whose
 * allocator rounds every chunk up to a power of two: a row of 260 bytes
 * takes 512.  On a result of hundreds of thousands of rows the rows' memory,
 * and the first writes to it, are most of the function's cost.  Here the
 * tuplestore lives in a generation context instead, which stores each row
 * at its own size (plus a small header) and frees it as cheaply.
 */
#ifndef CALLTREE_RESULT_ROWS_H
#define CALLTREE_RESULT_ROWS_H

#include "postgres.h"

#include "fmgr.h"

/*
 * InitMaterializedSRF(fcinfo, 0), the same checks and result descriptor,
 * with the tuplestore in the call site's generation context: made on the
 * first call, reused by every later call from the same place (a rescan,
 * one call per input row), as long as the call site lives.
 */
extern void result_rows_init(FunctionCallInfo fcinfo);

#endif							/* CALLTREE_RESULT_ROWS_H */
