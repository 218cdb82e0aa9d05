/*
 * firefox_location.c
 *	  The Gecko form of a frame: its location string, from which the func
 *	  and the frame's file, line and library are read, as the Firefox
 *	  Profiler reads them:
 *
 *	  "0x1a2b"								an unsymbolicated address
 *	  "name (in library)" [+ " + 123" | " (file:line)"]	a C++ func of a library
 *	  "name (file:line[:col])" or "file:line[:col]"		a JS func
 *	  anything else							a bare name
 *
 * Pure string work: no JSON, no tables, no errors (what does not parse is a
 * bare name).
 */
#include "postgres.h"

#include "import/firefox_profile.h"
#include "import/js_names.h"

/* Parses the digits in s[start, end) into *value; false if not all digits */
static bool
parse_digits(const char *s, int start, int end, int64 *value)
{
	int64		v = 0;

	if (end <= start || end - start > 9)
		return false;
	for (int i = start; i < end; i++)
	{
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*value = v;
	return true;
}

/* "0x1a2b": an unsymbolicated address */
static bool
parse_address(const char *s, Location *loc)
{
	uint64		v = 0;
	int			len = strlen(s);

	if (len < 3 || len > 18 || s[0] != '0' || s[1] != 'x')
		return false;
	for (int i = 2; i < len; i++)
	{
		int			c = s[i];
		int			d = (c >= '0' && c <= '9') ? c - '0' :
			(c >= 'a' && c <= 'f') ? c - 'a' + 10 :
			(c >= 'A' && c <= 'F') ? c - 'A' + 10 : -1;

		if (d < 0)
			return false;
		v = v * 16 + d;
	}
	loc->address = SOME_INT((int64) v);
	return true;
}

/* The last occurrence of needle in s that starts before `before` (NULL: anywhere) */
static const char *
last_before(const char *s, const char *needle, const char *before)
{
	const char *last = NULL;

	for (const char *p = strstr(s, needle); p && (before == NULL || p < before); p = strstr(p + 1, needle))
		last = p;
	return last;
}

/* What may follow "(in library)": nothing, " + 123" or " (file:line)" */
static bool
cpp_suffix_ok(const char *rest)
{
	size_t		len = strlen(rest);

	if (len == 0)
		return true;
	if (strncmp(rest, " + ", 3) == 0)
		return len > 3 && strspn(rest + 3, "0123456789") == len - 3;
	return strncmp(rest, " (", 2) == 0 && rest[len - 1] == ')' && strchr(rest, ':') != NULL;
}

/*
 * "name (in library)", optionally followed by " + 123" or " (file:line)":
 * a C++ func of a library, the library as its resource.  The candidates
 * for " (in " are tried from the last one back, as the Firefox Profiler's
 * greedy regular expression does; a library name holds no ')'.
 */
static bool
parse_cpp(const char *s, Location *loc)
{
	static const char thunk[] = "non-virtual thunk to ";

	for (const char *in = last_before(s, " (in ", NULL); in; in = last_before(s, " (in ", in))
	{
		const char *lib = in + 5;
		const char *close = strchr(lib, ')');
		const char *name = s;

		if (in == s || close == NULL || !cpp_suffix_ok(close + 1))
			continue;
		if (strncmp(name, thunk, sizeof(thunk) - 1) == 0 && name + sizeof(thunk) - 1 < in)
			name += sizeof(thunk) - 1;
		loc->name = pnstrdup(name, in - name);
		loc->resource = pnstrdup(lib, close - lib);
		return true;
	}
	return false;
}

/* The origin (scheme://host) of web and extension URLs, else NULL */
static char *
url_origin(const char *url)
{
	static const char *const schemes[] = {"http://", "https://", "moz-extension://"};

	for (int i = 0; i < lengthof(schemes); i++)
	{
		int			n = strlen(schemes[i]);

		if (strncmp(url, schemes[i], n) == 0)
		{
			const char *end = url + n + strcspn(url + n, "/?#");

			return end > url + n ? pnstrdup(url, end - url) : NULL;
		}
	}
	return NULL;
}

/* The index of the last ':' in s[0, end), or -1 */
static int
last_colon(const char *s, int end)
{
	while (--end >= 0 && s[end] != ':')
		;
	return end;
}

/* Splits s[0, len), "file:line" or "file:line:col"; false without a line. */
static bool
split_file_line(const char *s, int len, Location *loc)
{
	int			colon = last_colon(s, len);
	int			colon2;
	int64		n;
	int64		m;
	char	   *file;
	char	   *arrow;

	if (colon <= 0 || !parse_digits(s, colon + 1, len, &n))
		return false;
	loc->line = SOME_INT(n);
	colon2 = last_colon(s, colon);
	if (colon2 > 0 && parse_digits(s, colon2 + 1, colon, &m))
	{
		loc->line = SOME_INT(m);
		loc->col = SOME_INT(n);
		colon = colon2;
	}
	file = pnstrdup(s, colon);
	/* a chain of loaders, "loader.js -> module.js": the code is in the last */
	while ((arrow = strstr(file, " -> ")) != NULL)
		file = arrow + 4;
	loc->file = file;
	loc->resource = url_origin(file);
	return true;
}

/*
 * "name (file:line)", "name (file:line:col)" or "file:line": a JS func.  As
 * in the Firefox Profiler, the name ends at the last " (".  A frame without
 * a name (an anonymous function, or a script's top level: SpiderMonkey
 * writes both so) is named by where it starts, "(anonymous) file:line:col"
 * (js_names.h), where the Firefox Profiler says "(root scope) file" for
 * all of them and so merges them.
 */
static bool
parse_js(const char *s, Location *loc)
{
	int			len = strlen(s);

	if (len > 0 && s[len - 1] == ')')
	{
		const char *open = last_before(s, " (", NULL);

		if (open == NULL || open == s ||
			!split_file_line(open + 2, len - (int) (open - s) - 3, loc))
			return false;
		loc->name = pnstrdup(s, open - s);
		return true;
	}
	if (!split_file_line(s, len, loc))
		return false;
	loc->name = unconstify(char *, js_function_name(NULL, loc->file, loc->line, loc->col));
	return true;
}

/* A location string's func and frame; anything else is a bare name */
void
gecko_parse_location(const char *s, Location *loc)
{
	memset(loc, 0, sizeof(Location));
	if (parse_address(s, loc))
		loc->name = pstrdup(s);
	else if (!parse_cpp(s, loc) && !parse_js(s, loc))
	{
		memset(loc, 0, sizeof(Location));
		loc->name = pstrdup(s);
	}
}
