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
 * stream can be recognized from its head.
 */
#include "postgres.h"

#include <ctype.h>

#include "mb/pg_wchar.h"

#include "formats/gzip.h"
#include "formats/jfr.h"
#include "import/importer.h"

/* Whether a control character other than white space (or ESC) is in data */
static bool
has_control_character(const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) data[i];

		if ((c < 0x20 && !isspace(c) && c != 0x1B) || c == 0x7F)
			return true;
	}
	return false;
}

/*
 * Whether the data is not text: a NUL byte, or invalid UTF-8 together with
 * control characters, as protobuf has from its first bytes on (field tags
 * 0x08, 0x10, 0x12..., varints of 0x80 and up).  Invalid UTF-8 alone, or a
 * control character alone, is a damaged text file, whose error should name
 * its line.
 */
static bool
looks_binary(const char *data, size_t len)
{
	size_t		window = Min(len, PROFILE_DETECT_WINDOW);

	if (memchr(data, '\0', window) != NULL)
		return true;
	/* a cut multibyte character at the window's end is not evidence */
	return pg_encoding_verifymbstr(PG_UTF8, data, (int) window) < (int) window - 3 &&
		has_control_character(data, window);
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

static const Importer *
json_importer(const char *data, size_t len, char first)
{
	if (mentions(data, len, "\"traceEvents\"") || (first == '[' && mentions(data, len, "\"ph\"")))
		return &trace_events_importer;
	if ((mentions(data, len, "\"nodes\"") && mentions(data, len, "\"callFrame\"")) ||
		mentions(data, len, "\"head\""))
		return &cpuprofile_importer;
	if (mentions(data, len, "speedscope.app/file-format-schema") ||
		(mentions(data, len, "\"shared\"") && mentions(data, len, "\"profiles\"")))
		return &speedscope_importer;
	if (mentions(data, len, "\"threads\"") || mentions(data, len, "\"preprocessedProfileVersion\"") ||
		mentions(data, len, "\"libs\"") ||
		/* Firefox DevTools' Recorded Performance Data wraps a Gecko profile */
		(mentions(data, len, "\"ticks\"") && mentions(data, len, "\"allocations\"")))
		return &firefox_importer;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized JSON profile"),
			 errdetail("The JSON is neither trace events, a V8 .cpuprofile, a speedscope file nor a Firefox Profiler profile."),
			 errhint("Call the importer of its format directly if you know it.")));
}

/* A `perf script` stack line: white space, then a hexadecimal address and a space. */
static bool
has_perf_stack_line(const char *data, size_t len)
{
	size_t		window = Min(len, PROFILE_DETECT_WINDOW);

	for (size_t i = 0; i < window; i++)
	{
		size_t		j = i;
		size_t		digits = 0;

		if (i > 0 && data[i - 1] != '\n')
			continue;
		while (j < window && (data[j] == ' ' || data[j] == '\t'))
			j++;
		if (j == i)
			continue;
		while (j < window && isxdigit((unsigned char) data[j]))
			j++, digits++;
		if (digits > 0 && j < window && data[j] == ' ')
			return true;
	}
	return false;
}

const Importer *
profile_detect(const char *data, size_t len)
{
	size_t		i = 0;

	if (jfr_is_recording(data, len))
		return &jfr_importer;
	if (looks_binary(data, len))
		return &pprof_importer;
	while (i < len && isspace((unsigned char) data[i]))
		i++;
	if (i < len && (data[i] == '{' || data[i] == '['))
		return json_importer(data, len, data[i]);
	return has_perf_stack_line(data, len) ? &perf_script_importer : &collapsed_importer;
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
