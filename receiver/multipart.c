/*
 * multipart.c
 *	  multipart/form-data bodies (multipart.h).  Each part is a line
 *	  "--BOUNDARY", headers, an empty line and the content, which ends
 *	  where "\r\n--BOUNDARY" begins; "--BOUNDARY--" closes the body.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* memmem, strcasestr */
#endif
#include "multipart.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_BOUNDARY 70			/* RFC 2046 */

bool
multipart_is(const char *content_type)
{
	return content_type != NULL && strncasecmp(content_type, "multipart/form-data", 19) == 0;
}

/* The boundary parameter of the Content-Type, quoted or not */
static bool
boundary_of(const char *content_type, char *boundary)
{
	const char *p = strcasestr(content_type, "boundary=");
	size_t		len;

	if (p == NULL)
		return false;
	p += 9;
	if (*p == '"')
	{
		const char *close = strchr(++p, '"');

		if (close == NULL)
			return false;
		len = (size_t) (close - p);
	}
	else
		len = strcspn(p, "; \t");
	if (len == 0 || len > MAX_BOUNDARY)
		return false;
	memcpy(boundary, p, len);
	boundary[len] = '\0';
	return true;
}

/* Whether the part's headers say Content-Disposition: form-data; name="name" */
static bool
part_is_named(const char *headers, size_t len, const char *name)
{
	char		wanted[128];
	const char *end = headers + len;

	snprintf(wanted, sizeof(wanted), "name=\"%s\"", name);
	for (const char *line = headers; line < end;)
	{
		const char *eol = memmem(line, (size_t) (end - line), "\r\n", 2);
		size_t		line_len = eol ? (size_t) (eol - line) : (size_t) (end - line);

		if (line_len > 20 && strncasecmp(line, "content-disposition:", 20) == 0)
		{
			const char *found = memmem(line, line_len, wanted, strlen(wanted));

			/* name=, not filename= */
			return found != NULL && (found == line || !isalpha((unsigned char) found[-1]));
		}
		line += line_len + 2;
	}
	return false;
}

bool
multipart_find(const char *content_type, const char *body, size_t len, const char *name,
			   const char **part, size_t *part_len, const char **error)
{
	char		boundary[MAX_BOUNDARY + 1];
	char		delimiter[MAX_BOUNDARY + 5];
	size_t		dlen;
	const char *end = body + len;
	const char *p;

	*part = NULL;
	if (!boundary_of(content_type, boundary))
	{
		*error = "multipart/form-data without a boundary of 1 to 70 characters";
		return false;
	}
	dlen = (size_t) snprintf(delimiter, sizeof(delimiter), "\r\n--%s", boundary);
	/* the first delimiter may start the body, without its line break */
	if (len >= dlen - 2 && memcmp(body, delimiter + 2, dlen - 2) == 0)
		p = body + dlen - 2;
	else if ((p = memmem(body, len, delimiter, dlen)) != NULL)
		p += dlen;
	else
	{
		*error = "the multipart body has no part (its boundary is not in it)";
		return false;
	}
	for (;;)
	{
		const char *headers_end;
		const char *next;

		if (end - p >= 2 && memcmp(p, "--", 2) == 0)
			return true;		/* the closing delimiter */
		if (end - p < 2 || memcmp(p, "\r\n", 2) != 0 ||
			(headers_end = memmem(p + 2, (size_t) (end - p - 2), "\r\n\r\n", 4)) == NULL)
		{
			*error = "a part of the multipart body has no headers ending in an empty line";
			return false;
		}
		next = memmem(headers_end + 4, (size_t) (end - headers_end - 4), delimiter, dlen);
		if (next == NULL)
		{
			*error = "the multipart body is cut short: its last part has no closing boundary";
			return false;
		}
		if (*part == NULL && part_is_named(p + 2, (size_t) (headers_end - p - 2), name))
		{
			*part = headers_end + 4;
			*part_len = (size_t) (next - *part);
		}
		p = next + dlen;
	}
}
