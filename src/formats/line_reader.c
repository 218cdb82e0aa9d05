/*
 * line_reader.c
 *	  Text cut into lines across pieces of any size (line_reader.h).
 *
 * Lines end with '\n'; the handler gets them without it (a CR before it is
 * the parser's business).  A line that lies whole inside a piece is handed
 * out in place; only a line cut at the end of a piece is copied, to be
 * completed by the next one.  Text that ends without a newline has a last
 * line all the same; text that ends with one has no empty line after it.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "formats/line_reader.h"

void
line_reader_init(LineReader *reader, LineHandler handler, void *arg, bool from_utf8)
{
	reader->handler = handler;
	reader->arg = arg;
	reader->from_utf8 = from_utf8;
	initStringInfo(&reader->partial);
	reader->lineno = 0;
	reader->current = 0;
}

/*
 * Hands one line out, converted if asked.  The handler may leave any memory
 * context current (the ProfileWriter switches to its own): the reader's
 * caller gets its own back.
 */
static void
emit_line(LineReader *reader, const char *line, int len)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *converted = NULL;

	reader->current = ++reader->lineno;
	if ((reader->lineno & 0x3FF) == 0)
		CHECK_FOR_INTERRUPTS();
	if (reader->from_utf8)
	{
		/* validates the line; returns it as is when no conversion is needed */
		converted = pg_any_to_server(line, len, PG_UTF8);
		if (converted == line)
			converted = NULL;
		else
		{
			line = converted;
			len = strlen(converted);
		}
	}
	reader->handler(reader->arg, line, len, reader->lineno);
	reader->current = 0;
	MemoryContextSwitchTo(cxt);
	if (converted)
		pfree(converted);
}

/* A line as long as a StringInfo can hold is not a line of a text profile. */
static void
check_line_length(LineReader *reader, size_t len)
{
	if ((size_t) reader->partial.len + len >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("line " INT64_FORMAT " of the profile is longer than 1 GB", reader->lineno + 1),
				 errhint("Is this a line-oriented text file?")));
}

void
line_reader_feed(LineReader *reader, const char *data, size_t len)
{
	const char *end = data + len;
	const char *p = data;

	while (p < end)
	{
		const char *newline = memchr(p, '\n', end - p);
		size_t		n = (newline ? newline : end) - p;

		check_line_length(reader, n);
		if (newline == NULL)
		{
			/* the start of a line, kept for the next piece */
			appendBinaryStringInfo(&reader->partial, p, (int) n);
			return;
		}
		if (reader->partial.len > 0)
		{
			appendBinaryStringInfo(&reader->partial, p, (int) n);
			emit_line(reader, reader->partial.data, reader->partial.len);
			resetStringInfo(&reader->partial);
		}
		else
			emit_line(reader, p, (int) n);
		p = newline + 1;
	}
}

void
line_reader_finish(LineReader *reader)
{
	if (reader->partial.len > 0)
		emit_line(reader, reader->partial.data, reader->partial.len);
	resetStringInfo(&reader->partial);
}
