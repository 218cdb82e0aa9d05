/*
 * import_collapsed.c
 *	  Collapsed stacks (Brendan Gregg's "folded" format): one sample per
 *	  line, `root;caller;leaf count`.
 *
 * The count is the last space-separated field; everything before it is the
 * stack, funcs separated by semicolons (a func name may hold spaces, and may
 * be empty, as flamegraph.pl allows).  CR before LF is dropped and blank
 * lines are skipped.  A line without a stack or without a non-negative
 * integer count is malformed: an error that names the line, or, with
 * strict => false, skipped and counted.
 */
#include "postgres.h"

#include <ctype.h>

#include "miscadmin.h"
#include "utils/builtins.h"

#include "import.h"

PG_FUNCTION_INFO_V1(calltree_import_collapsed);

/* One line split into its funcs and count; false if malformed. */
static bool
split_collapsed_line(char *line, int len, char ***names, int *nnames, int *capacity, int64 *count)
{
	char	   *space;
	char	   *end;
	char	   *name;

	while (len > 0 && isspace((unsigned char) line[len - 1]))
		len--;
	line[len] = '\0';
	space = strrchr(line, ' ');
	if (space == NULL || space == line || space[1] == '\0' || !isdigit((unsigned char) space[1]))
		return false;
	errno = 0;
	*count = strtoll(space + 1, &end, 10);
	if (errno != 0 || *end != '\0')
		return false;
	while (space > line && space[-1] == ' ')
		space--;
	*space = '\0';

	*nnames = 0;
	for (name = line;; name++)
	{
		char	   *semicolon = strchr(name, ';');

		if (semicolon)
			*semicolon = '\0';
		if (*nnames == *capacity)
		{
			*capacity *= 2;
			*names = repalloc(*names, sizeof(char *) * *capacity);
		}
		(*names)[(*nnames)++] = name;
		if (!semicolon)
			break;
		name = semicolon;
	}
	return true;
}

/* Parses the whole text into the writer; the number of skipped lines. */
static int64
parse_collapsed(ProfileWriter *writer, const char *data, int len, bool strict)
{
	int			capacity = 64;
	char	  **names = palloc(sizeof(char *) * capacity);
	char	   *line = palloc(len + 1);
	int64		skipped = 0;
	int			lineno = 0;
	int			start = 0;

	while (start < len)
	{
		const char *newline = memchr(data + start, '\n', len - start);
		int			line_len = newline ? (int) (newline - (data + start)) : len - start;
		int			nnames;
		int64		count;
		bool		blank = true;

		lineno++;
		if ((lineno & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		memcpy(line, data + start, line_len);
		line[line_len] = '\0';
		start += line_len + 1;
		for (int i = 0; i < line_len && blank; i++)
			blank = isspace((unsigned char) line[i]);
		if (blank)
			continue;

		if (!split_collapsed_line(line, line_len, &names, &nnames, &capacity, &count))
		{
			if (strict)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						 errmsg("malformed collapsed stack at line %d", lineno),
						 errdetail("Expected \"func;func;... count\" with a non-negative integer count, found \"%.*s\".",
								   Min(line_len, 200), data + start - line_len - 1),
						 errhint("Pass strict => false to skip malformed lines.")));
			skipped++;
			continue;
		}
		profile_writer_sample(writer, NULL, false, 0,
							  profile_writer_named_stack(writer, names, nnames), count, 0);
	}
	pfree(line);
	pfree(names);
	return skipped;
}

/* import_collapsed(data text, name text, meta jsonb, strict boolean) → profile id */
Datum
calltree_import_collapsed(PG_FUNCTION_ARGS)
{
	text	   *data;
	ProfileInfo info;
	ProfileWriter *writer;
	int64		skipped;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	data = PG_GETARG_TEXT_PP(0);
	profile_info_from_args(fcinfo, 1, 2, "collapsed", &info);
	writer = profile_writer_begin(&info);
	skipped = parse_collapsed(writer, VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data),
							  PG_ARGISNULL(3) || PG_GETARG_BOOL(3));
	if (skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " malformed line%s", skipped, skipped == 1 ? "" : "s")));
	PG_RETURN_INT64(profile_writer_finish(writer));
}
