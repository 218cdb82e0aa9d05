/*
 * weight_format.h
 *	  Weights as pprof prints them (its measurement package): a weight in a
 *	  unit scaled to a unit of the same family (time, bytes, gcu), or to the
 *	  largest in which it is at least 1, two decimals at most, ".00" dropped,
 *	  then the unit: 250ms, 1.50MB, 42.  weight_format.c defines it; the SQL
 *	  function format_weight() and the flame graphs' tooltips print with it.
 *
 * The unit table is the SQL function weight_units()'s (72_answers.sql),
 * which scale_weight() and report_scale() read: sql/answers checks that
 * both give the same weights.
 */
#ifndef CALLTREE_FORMATS_WEIGHT_FORMAT_H
#define CALLTREE_FORMATS_WEIGHT_FORMAT_H

#include "postgres.h"

/*
 * weight in unit, scaled to scale ("auto" or "minimum": the largest unit
 * of unit's family in which it is at least 1) and printed, palloc'd.
 * unit_lower and scale_lower are unit and scale in lower case (the
 * caller's collation decides what that is); scale as given is what a
 * count (a unit of no family) is shown in, unless it names a count.
 */
extern char *weight_format(int64 weight, const char *unit_lower, const char *scale,
						   const char *scale_lower);

#endif							/* CALLTREE_FORMATS_WEIGHT_FORMAT_H */
