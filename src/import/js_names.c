/*
 * js_names.c
 *	  The func name of an anonymous JavaScript function: its location (see
 *	  js_names.h for the form and why).
 */
#include "postgres.h"

#include "import/js_names.h"

/*
 * "" and "(anonymous)" are what V8 and the tools built on it write today;
 * "(anonymous function)" is what older V8 (Chrome before 60) wrote.
 */
bool
js_name_is_anonymous(const char *name)
{
	return name == NULL || name[0] == '\0' ||
		strcmp(name, JS_ANONYMOUS) == 0 ||
		strcmp(name, "(anonymous function)") == 0;
}

/*
 * The last path segment of a file or URL, without query or fragment:
 * "file:///srv/app.js" → "app.js", "https://a.com/b.js?v=2" → "b.js".
 * A URL that ends in '/' (a page's inline script) is shown whole.
 */
static char *
file_basename(const char *file)
{
	size_t		end = strcspn(file, "?#");
	size_t		start = end;

	while (start > 0 && file[start - 1] != '/' && file[start - 1] != '\\')
		start--;
	if (start == end)
		return pstrdup(file);
	return pnstrdup(file + start, end - start);
}

const char *
js_function_name(const char *name, const char *file, OptionalInt line, OptionalInt col)
{
	char	   *shown;

	if (!js_name_is_anonymous(name) || file == NULL || file[0] == '\0' || !line.present)
		return name ? name : JS_ANONYMOUS;
	shown = file_basename(file);
	if (col.present)
		return psprintf(JS_ANONYMOUS " %s:" INT64_FORMAT ":" INT64_FORMAT, shown, line.value, col.value);
	return psprintf(JS_ANONYMOUS " %s:" INT64_FORMAT, shown, line.value);
}
