/*
 * import_collapsed.c
 *	  Collapsed stacks (Brendan Gregg's "folded" format): one sample per
 *	  line, `root;caller;leaf count`.
 *
 * The count is the last space-separated field; everything before it is the
 * stack, funcs separated by semicolons (a func name may hold spaces, and may
 * be empty, as flamegraph.pl allows).  CR before LF is dropped and blank
 * lines are skipped.  The count may be negative, as in the difference of
 * two trees.  A line without a stack or without an integer count is
 * malformed: an error that names the line, or, with
 * strict => false, skipped and counted.  Input without a sample line is an
 * error.
 *
 * The parser is fed a line at a time (importer.h): from a whole text by
 * import_collapsed and import_profile, from gzip as it inflates by
 * import_profile, from chunks by import_stream.
 */
#include "postgres.h"

#include <ctype.h>

#include "miscadmin.h"
#include "utils/builtins.h"

#include "import/importer.h"

PG_FUNCTION_INFO_V1(calltree_import_collapsed);

/*
 * The count at the end of a line, and the length of the stack before it;
 * false if malformed.
 */
static bool
parse_collapsed_count(const char *line, int len, int *stack_len, int64 *count)
{
	int			space;
	bool		negative;
	int64		value = 0;

	while (len > 0 && isspace((unsigned char) line[len - 1]))
		len--;
	space = len - 1;
	while (space >= 0 && isdigit((unsigned char) line[space]))
		space--;
	if (space <= 0 || space == len - 1)
		return false;
	/* a signed tree (the difference of two) writes negative counts */
	negative = line[space] == '-';
	if (negative)
		space--;
	if (space <= 0 || line[space] != ' ')
		return false;
	for (int i = space + 1 + negative; i < len; i++)
	{
		/* accumulated negative, so that -2^63 is read too */
		if (value < (PG_INT64_MIN + (line[i] - '0')) / 10)
			return false;
		value = value * 10 - (line[i] - '0');
	}
	if (!negative && value == PG_INT64_MIN)
		return false;
	value = negative ? value : -value;
	while (space > 0 && line[space - 1] == ' ')
		space--;
	/* spaces only before the count are no stack, as no character is */
	if (space == 0)
		return false;
	*stack_len = space;
	*count = value;
	return true;
}

/* A stack's text split in place at its semicolons into func names. */
static void
split_collapsed_stack(char *stack, char ***names, int *nnames, int *capacity)
{
	*nnames = 0;
	for (char *name = stack;; name++)
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
}

/* The parse state between lines */
typedef struct CollapsedParser
{
	ProfileWriter *writer;
	bool		strict;
	int64		samples;
	int64		skipped;
	int64		lines;			/* the number of the last line seen */
	StringInfoData line;		/* a copy of the line, split in place */
	char	  **names;
	int			capacity;
} CollapsedParser;

static void *
collapsed_begin(ProfileWriter *writer, const ImportOptions *options)
{
	CollapsedParser *parser = palloc0(sizeof(CollapsedParser));

	parser->writer = writer;
	parser->strict = options->strict;
	/* it holds no ids from one line to the next */
	profile_writer_bound_memory(writer);
	initStringInfo(&parser->line);
	parser->capacity = 64;
	parser->names = palloc(sizeof(char *) * parser->capacity);
	return parser;
}

/* One line into the writer; a LineHandler. */
static void
collapsed_feed_line(void *arg, const char *line, int len, int64 lineno)
{
	CollapsedParser *parser = (CollapsedParser *) arg;
	int			nnames;
	int			stack_len;
	int64		count;
	int64		stack;
	bool		blank = true;

	parser->lines = lineno;
	for (int i = 0; i < len && blank; i++)
		blank = isspace((unsigned char) line[i]);
	if (blank)
		return;

	if (!parse_collapsed_count(line, len, &stack_len, &count))
	{
		if (parser->strict)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("malformed collapsed stack at line " INT64_FORMAT, lineno),
					 errdetail("Expected \"func;func;... count\" with an integer count, found \"%.*s\".",
							   Min(len, 200), line),
					 errhint("Pass strict => false to skip malformed lines.")));
		parser->skipped++;
		return;
	}
	/* a file may name the same stack on many lines (several hosts' files) */
	if (!profile_writer_memo_get(parser->writer, line, stack_len, &stack))
	{
		resetStringInfo(&parser->line);
		appendBinaryStringInfo(&parser->line, line, stack_len);
		split_collapsed_stack(parser->line.data, &parser->names, &nnames, &parser->capacity);
		stack = profile_writer_named_stack(parser->writer, parser->names, nnames);
		profile_writer_memo_put(parser->writer, line, stack_len, stack);
	}
	profile_writer_sample(parser->writer, NULL, false, 0, stack, count, 0);
	parser->samples++;
}

/*
 * Reports the skipped lines and frees the parser.  Input without a sample
 * (empty, blank lines only, or nothing but malformed lines skipped) is an
 * error, as it is for import_profile and the other importers.
 */
static void
collapsed_finish(void *arg, int64 lines)
{
	CollapsedParser *parser = (CollapsedParser *) arg;

	if (parser->samples == 0)
		ereport(ERROR,
				(errcode(ERRCODE_NO_DATA_FOUND),
				 errmsg("collapsed stacks have no samples"),
				 parser->lines == 0 ? errdetail("The input is empty.") :
				 errdetail("Read " INT64_FORMAT " line%s: " INT64_FORMAT " blank, " INT64_FORMAT " malformed and skipped.",
						   parser->lines, parser->lines == 1 ? "" : "s",
						   parser->lines - parser->skipped, parser->skipped),
				 errhint("Each sample is a line \"func;func;... count\".")));
	if (parser->skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " malformed line%s", parser->skipped,
						parser->skipped == 1 ? "" : "s")));
	pfree(parser->line.data);
	pfree(parser->names);
	pfree(parser);
}

static int64
collapsed_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	return line_import_text(&collapsed_importer, info, data, len, options);
}

const Importer collapsed_importer = {
	.name = "collapsed",
	.format = "collapsed",
	.import = collapsed_import,
	.begin = collapsed_begin,
	.feed_line = collapsed_feed_line,
	.finish = collapsed_finish,
};

/* import_collapsed(data text, name text, meta jsonb, strict boolean) → profile id */
Datum
calltree_import_collapsed(PG_FUNCTION_ARGS)
{
	static const ImportArgs args = {.strict = 3, .event = -1, .sample_type = -1, .source = -1};

	return import_sql_call(fcinfo, &collapsed_importer, 1, &args);
}
