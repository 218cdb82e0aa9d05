/*
 * import_perf_script.c
 *	  The text output of `perf script` (Linux perf).
 *
 * A sample is a header line and, below it, its stack, leaf first, one frame
 * a line, each starting with a tab; a blank line or the next header ends it:
 *
 *	 java  1234/1240 [003] 198792.736893:    1001001 cpu-clock:
 *			   643 _Z4betav+0x12 (/workdir/simple)
 *			 21b97 __libc_start_main (/lib/x86_64-linux-gnu/libc-2.27.so)
 *
 * Header: comm (may hold spaces), then optionally pid/tid or one of them,
 * optionally [cpu], then the timestamp "seconds.fraction:" (always there),
 * then optionally the period and the event name with a trailing colon;
 * whatever follows (a tracepoint's payload, or the ip, symbol and dso of a
 * profile recorded without -g) is ignored unless the sample has no stack
 * lines, in which case it must be that one frame.  Lines starting with '#'
 * are comments (perf's header block).
 *
 * The thread is "comm pid/tid" as perf prints it, with one space between
 * the two; ts is the time in ns since the first imported sample; the weight
 * is the period, or 1 without one.  One event per import: the requested
 * one, or the first seen; samples of other events are skipped and counted.
 * The weight unit follows the event (weight_unit below): nanoseconds for
 * cpu-clock and task-clock, the event's name for the others (a count of
 * cycles...), samples when perf printed no period.
 *
 * A frame "address symbol+0xoffset (dso)" has the func (symbol, NULL, dso),
 * the offset dropped, and keeps its address; a frame whose symbol is
 * [unknown] (or missing) is an address frame of its dso (intern_address),
 * which symbolicate() can later give a func.
 *
 * The parser is fed a line at a time (importer.h): from a whole text by
 * import_perf_script and import_profile, from gzip as it inflates by
 * import_profile, from chunks by import_stream.
 */
#include "postgres.h"

#include <ctype.h>

#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "import/importer.h"

PG_FUNCTION_INFO_V1(calltree_import_perf_script);

/* A sample header, parsed */
typedef struct PerfHeader
{
	int64		lineno;
	char	   *thread;			/* NULL: neither comm nor pid */
	int64		ts;				/* ns */
	bool		has_period;
	int64		period;
	char	   *event;			/* NULL: not printed */
	char	   *rest;			/* text after the event, NULL if none */
} PerfHeader;

/* A stack line, parsed */
typedef struct PerfFrame
{
	uint64		address;
	char	   *symbol;			/* NULL: [unknown] or missing */
	char	   *dso;
} PerfFrame;

/* Which samples are imported */
typedef struct EventChoice
{
	const char *requested;		/* the event argument, or NULL */
	const ImportOptions *options;	/* for hints */
	char	   *chosen;			/* the full event name imported */
	int64		skipped;		/* samples of other events */
	List	   *seen;			/* distinct event names, for messages */
} EventChoice;

#define MAX_TOKENS 64

typedef struct Token
{
	int			start;
	int			end;			/* exclusive */
} Token;

static void
malformed_header(int64 lineno, const char *line, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("malformed perf script sample header at line " INT64_FORMAT, lineno),
			 errdetail("%s Found \"%.200s\".", detail, line),
			 errhint("Expected \"comm pid/tid [cpu] seconds.fraction: [period] event:\" as perf script prints it.")));
}

static int
tokenize(const char *line, Token *tokens)
{
	int			n = 0;
	int			i = 0;

	while (line[i] != '\0' && n < MAX_TOKENS)
	{
		while (line[i] == ' ' || line[i] == '\t')
			i++;
		if (line[i] == '\0')
			break;
		tokens[n].start = i;
		while (line[i] != '\0' && line[i] != ' ' && line[i] != '\t')
			i++;
		tokens[n++].end = i;
	}
	return n;
}

static bool
all_digits(const char *s, int len)
{
	if (len <= 0)
		return false;
	for (int i = 0; i < len; i++)
		if (!isdigit((unsigned char) s[i]))
			return false;
	return true;
}

/* "123.456789:" → ns; false if the token is not a timestamp */
static bool
parse_timestamp(const char *s, int len, int64 *ns)
{
	const char *dot = memchr(s, '.', len);
	int			int_len;
	int			frac_len;
	int64		seconds = 0;
	int64		fraction = 0;

	if (dot == NULL || len < 4 || s[len - 1] != ':')
		return false;
	int_len = dot - s;
	frac_len = len - 1 - int_len - 1;
	if (!all_digits(s, int_len) || !all_digits(dot + 1, frac_len) || int_len > 9 || frac_len > 9)
		return false;
	for (int i = 0; i < int_len; i++)
		seconds = seconds * 10 + (s[i] - '0');
	for (int i = 0; i < 9; i++)
		fraction = fraction * 10 + (i < frac_len ? dot[1 + i] - '0' : 0);
	*ns = seconds * INT64CONST(1000000000) + fraction;
	return true;
}

static bool
is_pid_token(const char *s, int len)
{
	const char *slash = memchr(s, '/', len);

	if (slash == NULL)
		return all_digits(s, len);
	return all_digits(s, slash - s) && all_digits(slash + 1, len - (slash - s) - 1);
}

/* The thread: "comm pid/tid" from tokens [0, last], one space before pid/tid. */
static char *
header_thread(const char *line, Token *tokens, int last)
{
	StringInfoData buf;
	int			comm_last = last;

	if (last < 0)
		return NULL;
	if (is_pid_token(line + tokens[last].start, tokens[last].end - tokens[last].start))
		comm_last = last - 1;
	initStringInfo(&buf);
	if (comm_last >= 0)
		appendBinaryStringInfo(&buf, line + tokens[0].start, tokens[comm_last].end - tokens[0].start);
	if (comm_last < last)
	{
		if (comm_last >= 0)
			appendStringInfoChar(&buf, ' ');
		appendBinaryStringInfo(&buf, line + tokens[last].start, tokens[last].end - tokens[last].start);
	}
	return buf.data;
}

static void
parse_header(char *line, int64 lineno, PerfHeader *h)
{
	Token		tokens[MAX_TOKENS];
	int			n = tokenize(line, tokens);
	int			t;
	int			j;

	memset(h, 0, sizeof(PerfHeader));
	h->lineno = lineno;
	for (t = 0; t < n; t++)
		if (parse_timestamp(line + tokens[t].start, tokens[t].end - tokens[t].start, &h->ts))
			break;
	if (t == n)
		malformed_header(lineno, line, "It has no timestamp.");

	j = t - 1;
	if (j >= 0 && line[tokens[j].start] == '[' && line[tokens[j].end - 1] == ']')
		j--;					/* [cpu] */
	h->thread = header_thread(line, tokens, j);

	j = t + 1;
	if (j < n && all_digits(line + tokens[j].start, tokens[j].end - tokens[j].start))
	{
		h->has_period = true;
		h->period = strtoll(line + tokens[j].start, NULL, 10);
		if (tokens[j].end - tokens[j].start > 18)
			malformed_header(lineno, line, "Its period is too large.");
		j++;
	}
	if (j < n)
	{
		if (line[tokens[j].end - 1] != ':' || tokens[j].end - tokens[j].start < 2)
			malformed_header(lineno, line, "The event name does not end with a colon.");
		h->event = pnstrdup(line + tokens[j].start, tokens[j].end - tokens[j].start - 1);
		j++;
	}
	if (j < n)
		h->rest = pstrdup(line + tokens[j].start);
}

/*
 * "address symbol+0xoff (dso)"; the dso is the last parenthesized group
 * (it may itself hold parentheses: "(/lib/x.so (deleted))", and so may
 * symbols: "operator new(unsigned long)").  False if malformed.
 */
static bool
parse_frame(char *text, PerfFrame *f)
{
	char	   *p = text;
	char	   *end;
	char	   *open;
	int			depth = 0;
	int			digits = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	f->address = 0;
	for (; isxdigit((unsigned char) *p); p++, digits++)
	{
		int			c = tolower((unsigned char) *p);

		f->address = (f->address << 4) | (uint64) (isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	if (digits == 0 || digits > 16 || (*p != ' ' && *p != '\t'))
		return false;
	end = p + strlen(p);
	while (end > p && isspace((unsigned char) end[-1]))
		end--;
	if (end == p || end[-1] != ')')
		return false;
	for (open = end - 1; open >= p; open--)
	{
		if (*open == ')')
			depth++;
		else if (*open == '(' && --depth == 0)
			break;
	}
	if (open < p || open == end - 2)
		return false;			/* no matching '(' or an empty dso */
	f->dso = pnstrdup(open + 1, end - 1 - (open + 1));
	while (open > p && isspace((unsigned char) open[-1]))
		open--;
	while (*p == ' ' || *p == '\t')
		p++;
	f->symbol = NULL;
	if (open > p)
	{
		char	   *sym = pnstrdup(p, open - p);
		char	   *plus = strstr(sym, "+0x");

		/* drop the offset: the last "+0x" followed by hex digits only */
		while (plus && strstr(plus + 1, "+0x"))
			plus = strstr(plus + 1, "+0x");
		if (plus && plus[3] != '\0' && strspn(plus + 3, "0123456789abcdefABCDEF") == strlen(plus + 3))
			*plus = '\0';
		if (strcmp(sym, "[unknown]") != 0 && sym[0] != '\0')
			f->symbol = sym;
	}
	return true;
}

/* The event name without perf's modifiers: "cycles:uppp" → "cycles". */
static char *
event_base(const char *event)
{
	const char *colon = strrchr(event, ':');

	if (colon && colon[1] != '\0' && strspn(colon + 1, "ukhHGIpPSDWe") == strlen(colon + 1))
		return pnstrdup(event, colon - event);
	return pstrdup(event);
}

/*
 * The unit of the weights of an import, from its first sample: the period
 * counts nanoseconds for perf's clock events (cpu-clock, task-clock), and
 * otherwise occurrences of the event, named after it ("cycles",
 * "instructions"; "events" when the header names none); without a period,
 * each sample weighs 1 and the unit is "samples".
 */
static const char *
weight_unit(const PerfHeader *h)
{
	char	   *base;

	if (!h->has_period)
		return "samples";
	if (h->event == NULL || h->event[0] == '\0')
		return "events";
	base = event_base(h->event);
	if (strcmp(base, "cpu-clock") == 0 || strcmp(base, "task-clock") == 0)
		return "nanoseconds";
	return base;
}

static void
note_event(EventChoice *choice, const char *event)
{
	ListCell   *lc;

	foreach(lc, choice->seen)
		if (strcmp((char *) lfirst(lc), event) == 0)
			return;
	if (list_length(choice->seen) < 20)
	{
		MemoryContext old = MemoryContextSwitchTo(GetMemoryChunkContext(choice));

		choice->seen = lappend(choice->seen, pstrdup(event));
		MemoryContextSwitchTo(old);
	}
}

static char *
seen_events(const EventChoice *choice)
{
	StringInfoData buf;
	ListCell   *lc;

	initStringInfo(&buf);
	foreach(lc, choice->seen)
		appendStringInfo(&buf, "%s\"%s\"", buf.len ? ", " : "", (char *) lfirst(lc));
	return buf.len ? buf.data : pstrdup("none");
}

/* Whether to import a sample of this event; the first one sets the default. */
static bool
event_selected(EventChoice *choice, const PerfHeader *h)
{
	const char *event = h->event ? h->event : "";
	bool		match;

	note_event(choice, event);
	if (choice->requested == NULL)
		match = choice->chosen == NULL || strcmp(choice->chosen, event) == 0;
	else
		match = strcmp(choice->requested, event) == 0 ||
			strcmp(choice->requested, event_base(event)) == 0;
	if (match && choice->chosen != NULL && strcmp(choice->chosen, event) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("event \"%s\" matches two events of the perf script, \"%s\" and \"%s\" (line " INT64_FORMAT ")",
						choice->requested, choice->chosen, event, h->lineno),
				 errdetail("An import holds one event; their weights do not add up."),
				 errhint("Pass the full event name, e.g. %s.",
						 import_option_text(choice->options, "event", choice->chosen, true))));
	if (match && choice->chosen == NULL)
		choice->chosen = MemoryContextStrdup(GetMemoryChunkContext(choice), event);
	if (!match)
		choice->skipped++;
	return match;
}

/* The parse state between lines */
typedef struct PerfParser
{
	ProfileWriter *writer;
	EventChoice *choice;
	MemoryContext sample_cxt;	/* reset after every sample */
	bool		open;			/* a header was read, its sample not ended */
	bool		selected;
	PerfHeader	header;
	int64	   *frames;			/* frame ids, leaf first */
	int			nframes;
	int			capacity;
	bool		has_first_ts;
	int64		first_ts;
	int64		imported;
	StringInfoData line;		/* a copy of the line, cut and parsed in place */
} PerfParser;

static void
add_frame(PerfParser *p, const PerfFrame *f)
{
	int64		frame;

	if (!p->selected)
		return;
	if (f->symbol == NULL)
		frame = profile_writer_address(p->writer, f->dso, (int64) f->address);
	else
		frame = profile_writer_func_frame(p->writer, f->symbol, NULL, f->dso,
										  SOME_INT((int64) f->address), NO_INT, NO_INT, NULL);
	if (p->nframes == p->capacity)
	{
		p->capacity *= 2;
		p->frames = repalloc(p->frames, sizeof(int64) * p->capacity);
	}
	p->frames[p->nframes++] = frame;
}

static void
stack_line(PerfParser *p, char *line, int64 lineno)
{
	PerfFrame	f;

	if (!p->open)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("perf script stack line without a sample header at line " INT64_FORMAT, lineno),
				 errdetail("Found \"%.200s\" after a blank line.", line),
				 errhint("Each stack follows its sample header line, with no blank line between.")));
	if (!parse_frame(line, &f))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("malformed perf script stack line at line " INT64_FORMAT, lineno),
				 errdetail("Found \"%.200s\".", line),
				 errhint("Expected \"address symbol+0xoffset (dso)\", perf script's default ip, sym and dso fields.")));
	add_frame(p, &f);
	p->nframes += p->selected ? 0 : 1;	/* counted for the empty-stack check */
}

/* Ends the open sample: its stack, root first, and the sample row. */
static void
end_sample(PerfParser *p)
{
	int64		stack = 0;
	PerfFrame	f;

	if (!p->open)
		return;
	p->open = false;
	if (p->nframes == 0)
	{
		if (p->header.rest == NULL || !parse_frame(p->header.rest, &f))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
					 errmsg("perf script sample at line " INT64_FORMAT " has no stack", p->header.lineno),
					 errdetail("No stack lines follow the header, and it holds no \"address symbol (dso)\"."),
					 errhint("Record with perf record -g, and keep the ip, sym and dso fields of perf script.")));
		add_frame(p, &f);
	}
	if (p->selected)
	{
		if (!p->has_first_ts)
		{
			p->has_first_ts = true;
			p->first_ts = p->header.ts;
			profile_writer_set_unit(p->writer, weight_unit(&p->header));
		}
		profile_writer_walk_begin(p->writer);
		for (int i = p->nframes - 1; i >= 0; i--)
			profile_writer_walk_push(p->writer, p->frames[i]);
		stack = profile_writer_walk_end(p->writer);
		profile_writer_sample(p->writer, p->header.thread, true, p->header.ts - p->first_ts, stack,
							  p->header.has_period ? p->header.period : 1, 0);
		p->imported++;
	}
	p->nframes = 0;
	MemoryContextReset(p->sample_cxt);
}

static void
header_line(PerfParser *p, char *line, int64 lineno)
{
	end_sample(p);
	MemoryContextSwitchTo(p->sample_cxt);
	parse_header(line, lineno, &p->header);
	p->selected = event_selected(p->choice, &p->header);
	p->open = true;
}

static void *
perf_begin(ProfileWriter *writer, const ImportOptions *options)
{
	PerfParser *p = palloc0(sizeof(PerfParser));

	p->writer = writer;
	/* it holds no ids from one sample to the next */
	profile_writer_bound_memory(writer);
	p->choice = palloc0(sizeof(EventChoice));
	p->choice->requested = options->event;
	p->choice->options = palloc(sizeof(ImportOptions));
	*(ImportOptions *) p->choice->options = *options;
	p->capacity = 256;
	p->frames = palloc(sizeof(int64) * p->capacity);
	p->sample_cxt = AllocSetContextCreate(CurrentMemoryContext, "perf script sample",
										  ALLOCSET_DEFAULT_SIZES);
	initStringInfo(&p->line);
	return p;
}

/* One line into the parser; a LineHandler. */
static void
perf_feed_line(void *arg, const char *text, int len, int64 lineno)
{
	PerfParser *p = (PerfParser *) arg;
	MemoryContext cxt = CurrentMemoryContext;
	char	   *line;

	while (len > 0 && isspace((unsigned char) text[len - 1]))
		len--;
	resetStringInfo(&p->line);
	appendBinaryStringInfo(&p->line, text, len);
	line = p->line.data;

	MemoryContextSwitchTo(p->sample_cxt);
	if (len == 0)
		end_sample(p);
	else if (line[0] == '#')
		end_sample(p);
	else if (line[0] == '\t')
		stack_line(p, line, lineno);
	else
		header_line(p, line, lineno);
	MemoryContextSwitchTo(cxt);
}

/* Ends the last sample; errors if nothing was imported, reports what was skipped. */
static void
perf_finish(void *parser, int64 lines)
{
	PerfParser *p = (PerfParser *) parser;
	EventChoice *choice = p->choice;
	MemoryContext cxt = CurrentMemoryContext;

	MemoryContextSwitchTo(p->sample_cxt);
	end_sample(p);
	MemoryContextSwitchTo(cxt);
	if (p->imported == 0)
		ereport(ERROR,
				(errcode(ERRCODE_NO_DATA_FOUND),
				 choice->requested ?
				 errmsg("perf script has no samples of event \"%s\"", choice->requested) :
				 errmsg("perf script has no samples"),
				 errdetail("Read " INT64_FORMAT " line%s; events seen: %s.", lines, lines == 1 ? "" : "s",
						   seen_events(choice)),
				 choice->seen == NIL ?
				 errhint("The file may be cut before its first sample, or not be the output of perf script.") :
				 errhint("Pass one of the events seen, or NULL for the first one.")));
	if (choice->skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " sample%s of events other than \"%s\"",
						choice->skipped, choice->skipped == 1 ? "" : "s", choice->chosen),
				 errdetail("Events seen: %s.", seen_events(choice))));
	MemoryContextDelete(p->sample_cxt);
}

static int64
perf_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	return line_import_text(&perf_script_importer, info, data, len, options);
}

const Importer perf_script_importer = {
	.name = "perf_script",
	.format = "perf script",
	.import = perf_import,
	.begin = perf_begin,
	.feed_line = perf_feed_line,
	.finish = perf_finish,
};

/* import_perf_script(data text, event text, name text, meta jsonb) → profile id */
Datum
calltree_import_perf_script(PG_FUNCTION_ARGS)
{
	static const ImportArgs args = {.strict = -1, .event = 1, .sample_type = -1, .source = -1};

	return import_sql_call(fcinfo, &perf_script_importer, 2, &args);
}
