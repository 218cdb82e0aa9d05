/*
 * format_weight.c
 *	  format_weight(weight, unit, scale): a weight as pprof prints it, by
 *	  weight_format() (formats/weight_format.h).
 *
 * The names are lower-cased here, in the call's collation, as lower()
 * did in the SQL function this one replaced.
 */
#include "postgres.h"

#include "catalog/pg_collation.h"
#include "utils/builtins.h"
#include "utils/formatting.h"

#include "formats/weight_format.h"

PG_FUNCTION_INFO_V1(calltree_format_weight);

/*
 * format_weight(weight bigint, unit text, scale text DEFAULT 'auto') → text
 *
 * Strict and immutable: the unit table is fixed.
 */
Datum
calltree_format_weight(PG_FUNCTION_ARGS)
{
	int64		weight = PG_GETARG_INT64(0);
	char	   *unit = text_to_cstring(PG_GETARG_TEXT_PP(1));
	char	   *scale = text_to_cstring(PG_GETARG_TEXT_PP(2));
	Oid			collation = OidIsValid(PG_GET_COLLATION()) ? PG_GET_COLLATION() : DEFAULT_COLLATION_OID;

	PG_RETURN_TEXT_P(cstring_to_text(weight_format(weight, str_tolower(unit, strlen(unit), collation), scale,
												   str_tolower(scale, strlen(scale), collation))));
}
