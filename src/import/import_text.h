/*
 * import_text.h
 *	  Line-oriented text formats, parsed a line at a time.
 *
 * A LineReader cuts text into lines as it arrives, in pieces of any size (a
 * line may span pieces), and hands each line and its number to a handler.
 * The parsers of collapsed stacks and of perf script take their input that
 * way, so the same code reads a whole text value (import_collapsed,
 * import_perf_script) and a stream of chunks (import_stream), the latter in
 * memory bounded by the longest line.
 */
#ifndef CALLTREE_IMPORT_TEXT_H
#define CALLTREE_IMPORT_TEXT_H

#include "postgres.h"

#include "lib/stringinfo.h"

#include "writer/writer.h"

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

/*
 * The parsers.  _feed_line is a LineHandler whose arg is the parser; _finish
 * reads the end of the input and reports what was skipped; then the caller
 * finishes the writer.
 */
typedef struct CollapsedParser CollapsedParser;

extern CollapsedParser *collapsed_parser_begin(ProfileWriter *writer, bool strict);
extern void collapsed_parser_feed_line(void *parser, const char *line, int len, int64 lineno);
extern void collapsed_parser_finish(CollapsedParser *parser);

typedef struct PerfParser PerfParser;

/* event: the event to import, or NULL for the first one seen */
extern PerfParser *perf_parser_begin(ProfileWriter *writer, const char *event);
extern void perf_parser_feed_line(void *parser, const char *line, int len, int64 lineno);
/* lines: how many the input had, for the error when there is no sample */
extern void perf_parser_finish(PerfParser *parser, int64 lines);

#endif							/* CALLTREE_IMPORT_TEXT_H */
