/*
 * first_profile.c
 *	  The one id that callers taking one get from the import of a file that
 *	  makes several profiles (a JFR recording's kinds of samples, an OTLP
 *	  request's profiles): the first, with a NOTICE naming the others.
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "import/importer.h"

/*
 * The first of `count` profiles a file made, with a NOTICE naming the
 * others: `what` names them ("JFR"), `function` the SQL function that
 * returns every id.
 */
int64
importer_first_id(const char *what, const char *function, const int64 *ids, int count)
{
	StringInfoData others;

	if (count > 1)
	{
		initStringInfo(&others);
		for (int i = 1; i < count; i++)
			appendStringInfo(&others, "%s" INT64_FORMAT, i > 1 ? ", " : "", ids[i]);
		ereport(NOTICE,
				(errmsg("imported %d %s profiles; the first, " INT64_FORMAT ", is returned, the others are %s",
						count, what, ids[0], others.data),
				 errhint("%s returns every id.", function)));
	}
	return ids[0];
}
