/*
 * profile_lookup.c
 *	  The check that a profile id names a row of calltree.profile
 *	  (store.h): one probe of its primary key, with the caller's
 *	  privileges and row security.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"

#include "store/store.h"

void
profile_lookup_check(int64 profile_id, const char *function)
{
	Oid			argtype = INT8OID;
	Datum		arg = Int64GetDatum(profile_id);
	int			ret;
	bool		found;

	SPI_connect();
	ret = SPI_execute_with_args("SELECT FROM calltree.profile WHERE id OPERATOR(pg_catalog.=) $1",
								1, &argtype, &arg, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "looking up calltree.profile failed: %s", SPI_result_code_string(ret));
	found = SPI_processed > 0;
	SPI_finish();
	if (!found)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("profile " INT64_FORMAT " given to %s does not exist", profile_id, function),
				 errhint("Profile ids are the ids of calltree.profile, as the importers return them.")));
}
