/*
 * profile_detect.c
 *	  Recognizing a profile's format from its first bytes, for
 *	  import_profile and import_stream.
 *
 * Wrapped data (gzip, UTF-16 with its byte-order mark) is unwrapped before
 * it is looked at.  Then:
 *	- bytes that are not text (a NUL byte, or invalid UTF-8 with control
 *	  characters) are pprof protobuf;
 *	- JSON is told apart by its members: trace events ("traceEvents", or an
 *	  array of objects with "ph"), a V8 .cpuprofile ("nodes" with "callFrame",
 *	  or the old "head"), speedscope ("shared" and "profiles", or its
 *	  schema URL) and the Firefox Profiler ("threads", "libs", or DevTools'
 *	  recording around it);
 *	- other text is `perf script` output when a line starts with white space
 *	  and a hexadecimal address, and collapsed stacks otherwise.
 * Only the first PROFILE_DETECT_WINDOW bytes are looked at, so that a
 * stream can be recognized from its head.  What was seen is kept with the
 * format's name (a FormatGuess), for errors that say why the file was
 * taken for it (import_guess.c).  Formats are named, not pointed to: the
 * importers' own SQL functions use the guess too (import_sql_call), and
 * importer.c turns a name into its importer.
 */
#include "postgres.h"

#include <ctype.h>

#include "mb/pg_wchar.h"

#include "formats/gzip.h"
#include "formats/jfr.h"
#include "import/importer.h"

/* The offset of the first control character other than white space (or ESC), or -1 */
static ssize_t
control_character_at(const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) data[i];

		if ((c < 0x20 && !isspace(c) && c != 0x1B) || c == 0x7F)
			return (ssize_t) i;
	}
	return -1;
}

/*
 * Whether the data is not text: a NUL byte, or invalid UTF-8 together with
 * control characters, as protobuf has from its first bytes on (field tags
 * 0x08, 0x10, 0x12..., varints of 0x80 and up).  Invalid UTF-8 alone, or a
 * control character alone, is a damaged text file, whose error should name
 * its line.  *why: what tells, for errors.
 */
static bool
looks_binary(const char *data, size_t len, const char **why)
{
	size_t		window = Min(len, PROFILE_DETECT_WINDOW);
	const char *nul = memchr(data, '\0', window);
	int			valid;
	ssize_t		control;

	if (nul != NULL)
	{
		*why = psprintf("byte %zu is NUL", (size_t) (nul - data));
		return true;
	}
	/* a cut multibyte character at the window's end is not evidence */
	valid = pg_encoding_verifymbstr(PG_UTF8, data, (int) window);
	if (valid >= (int) window - 3)
		return false;
	control = control_character_at(data, window);
	if (control < 0)
		return false;
	*why = psprintf("byte %d is not UTF-8 and byte %zd is a control character", valid, control);
	return true;
}

/* Whether `needle` occurs in the window of the data. */
static bool
mentions(const char *data, size_t len, const char *needle)
{
	size_t		window = Min(len, PROFILE_DETECT_WINDOW);
	size_t		n = strlen(needle);

	for (size_t i = 0; i + n <= window; i++)
		if (data[i] == needle[0] && memcmp(data + i, needle, n) == 0)
			return true;
	return false;
}

/* *guess from the members of JSON that starts with `first` */
static void
guess_json(const char *data, size_t len, char first, FormatGuess *guess)
{
	guess->looks_like = "JSON";
	if (mentions(data, len, "\"traceEvents\""))
		guess->format = "trace_events", guess->why = "its JSON has a \"traceEvents\" member";
	else if (first == '[' && mentions(data, len, "\"ph\""))
		guess->format = "trace_events", guess->why = "it is a JSON array of objects with \"ph\" members";
	else if (mentions(data, len, "\"nodes\"") && mentions(data, len, "\"callFrame\""))
		guess->format = "cpuprofile", guess->why = "its JSON has \"nodes\" with \"callFrame\" members";
	else if (mentions(data, len, "\"head\""))
		guess->format = "cpuprofile", guess->why = "its JSON has a \"head\" member";
	else if (mentions(data, len, "speedscope.app/file-format-schema"))
		guess->format = "speedscope", guess->why = "its JSON names speedscope's file format schema";
	else if (mentions(data, len, "\"shared\"") && mentions(data, len, "\"profiles\""))
		guess->format = "speedscope", guess->why = "its JSON has \"shared\" and \"profiles\" members";
	else if (mentions(data, len, "\"threads\""))
		guess->format = "firefox", guess->why = "its JSON has a \"threads\" member";
	else if (mentions(data, len, "\"preprocessedProfileVersion\""))
		guess->format = "firefox", guess->why = "its JSON has a \"preprocessedProfileVersion\" member";
	else if (mentions(data, len, "\"libs\""))
		guess->format = "firefox", guess->why = "its JSON has a \"libs\" member";
	/* Firefox DevTools' Recorded Performance Data wraps a Gecko profile */
	else if (mentions(data, len, "\"ticks\"") && mentions(data, len, "\"allocations\""))
		guess->format = "firefox", guess->why = "its JSON has \"ticks\" and \"allocations\" members";
	else
		guess->format = NULL, guess->why = psprintf("it starts with \"%c\" and has none of the members "
													   "that tell the JSON profile formats apart", first);
}

/*
 * A line, printable ASCII only (a tab as a space, anything else as '?'),
 * at most 60 bytes: quoted in messages whatever its bytes and the
 * database's encoding.
 */
static char *
quoted_line(const char *line, size_t window)
{
	const char *end = memchr(line, '\n', window);
	size_t		len = end ? (size_t) (end - line) : window;
	char	   *out = palloc(Min(len, 60) + 1);

	for (size_t i = 0; i < Min(len, 60); i++)
		out[i] = line[i] == '\t' ? ' ' : line[i] >= 0x20 && line[i] < 0x7F ? line[i] : '?';
	out[Min(len, 60)] = '\0';
	return len > 60 ? psprintf("%s...", out) : out;
}

/*
 * A `perf script` stack line: white space, then a hexadecimal address and
 * a space.  *why names the first such line.
 */
static bool
has_perf_stack_line(const char *data, size_t len, const char **why)
{
	size_t		window = Min(len, PROFILE_DETECT_WINDOW);
	int64		lineno = 0;

	for (size_t i = 0; i < window; i++)
	{
		size_t		j = i;
		size_t		digits = 0;

		if (i > 0 && data[i - 1] != '\n')
			continue;
		lineno++;
		while (j < window && (data[j] == ' ' || data[j] == '\t'))
			j++;
		if (j == i)
			continue;
		while (j < window && isxdigit((unsigned char) data[j]))
			j++, digits++;
		if (digits > 0 && j < window && data[j] == ' ')
		{
			*why = psprintf("line " INT64_FORMAT " starts with white space and a hexadecimal word, "
							"as perf script's stack lines do: \"%s\"",
							lineno, quoted_line(data + i, window - i));
			return true;
		}
	}
	return false;
}

void
profile_guess(const char *data, size_t len, FormatGuess *guess)
{
	size_t		i = 0;

	guess->looks_like = "binary data";
	if (jfr_is_recording(data, len))
	{
		guess->format = "jfr";
		guess->why = "it starts with the magic bytes of a JFR recording";
		return;
	}
	if (looks_binary(data, len, &guess->why))
	{
		guess->format = "pprof";
		return;
	}
	while (i < len && isspace((unsigned char) data[i]))
		i++;
	if (i < len && (data[i] == '{' || data[i] == '['))
	{
		guess_json(data, len, data[i], guess);
		return;
	}
	/* white space alone looks like nothing: an empty file, of any format */
	guess->looks_like = i >= Min(len, PROFILE_DETECT_WINDOW) ? NULL : "text";
	if (!has_perf_stack_line(data, len, &guess->why))
	{
		guess->format = "collapsed";
		guess->why = "it is neither JSON nor perf script output "
			"(no line starts with white space and a hexadecimal word)";
		return;
	}
	guess->format = "perf_script";
}

bool
profile_is_wrapped(const char *data, size_t len)
{
	return gzip_is_compressed(data, len) ||
		(len >= 2 && (unsigned char) data[0] == 0xFF && (unsigned char) data[1] == 0xFE) ||
		(len >= 2 && (unsigned char) data[0] == 0xFE && (unsigned char) data[1] == 0xFF);
}

size_t
profile_utf8_bom_length(const char *data, size_t len)
{
	return len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}
