/*
 * line_reader.h
 *	  Text cut into lines as it arrives, in pieces of any size.
 *
 * A LineReader hands each line and its number to a handler; a line may span
 * pieces.  The text importers read a whole value and a stream of chunks the
 * same way, in memory bounded by the longest line.
 */
#ifndef CALLTREE_LINE_READER_H
#define CALLTREE_LINE_READER_H

#include "postgres.h"

#include "lib/stringinfo.h"

/* A line without its '\n' (len bytes, not NUL-terminated) and its number, from 1 */
typedef void (*LineHandler) (void *arg, const char *line, int len, int64 lineno);

typedef struct LineReader
{
	LineHandler handler;
	void	   *arg;
	bool		from_utf8;		/* convert lines from UTF-8 to the database encoding */
	StringInfoData partial;		/* the start of a line cut at the end of a piece */
	int64		lineno;			/* lines handed out so far */
	int64		current;		/* the line being handed out, 0 between lines */
} LineReader;

extern void line_reader_init(LineReader *reader, LineHandler handler, void *arg, bool from_utf8);
extern void line_reader_feed(LineReader *reader, const char *data, size_t len);
/* hands out the last line if the text does not end with a newline */
extern void line_reader_finish(LineReader *reader);

#endif							/* CALLTREE_LINE_READER_H */
