/*
 * buffer.c
 *	  A growable byte buffer (buffer.h).
 */
#include "buffer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
buf_init(Buffer *buf)
{
	memset(buf, 0, sizeof(Buffer));
}

static bool
buf_reserve(Buffer *buf, size_t extra)
{
	size_t		need;
	size_t		cap;
	char	   *data;

	if (buf->failed)
		return false;
	need = buf->len + extra + 1;
	if (need <= buf->cap)
		return true;
	cap = buf->cap ? buf->cap : 256;
	while (cap < need)
		cap *= 2;
	data = realloc(buf->data, cap);
	if (data == NULL)
	{
		buf->failed = true;
		return false;
	}
	buf->data = data;
	buf->cap = cap;
	return true;
}

bool
buf_append(Buffer *buf, const void *data, size_t len)
{
	if (!buf_reserve(buf, len))
		return false;
	if (len > 0)
		memcpy(buf->data + buf->len, data, len);
	buf->len += len;
	buf->data[buf->len] = '\0';
	return true;
}

bool
buf_append_str(Buffer *buf, const char *s)
{
	return buf_append(buf, s, strlen(s));
}

bool
buf_vprintf(Buffer *buf, const char *fmt, va_list args)
{
	va_list		again;
	int			n;

	va_copy(again, args);
	n = vsnprintf(NULL, 0, fmt, args);
	if (n < 0 || !buf_reserve(buf, (size_t) n))
	{
		va_end(again);
		return false;
	}
	vsnprintf(buf->data + buf->len, (size_t) n + 1, fmt, again);
	va_end(again);
	buf->len += (size_t) n;
	return true;
}

bool
buf_printf(Buffer *buf, const char *fmt,...)
{
	va_list		args;
	bool		ok;

	va_start(args, fmt);
	ok = buf_vprintf(buf, fmt, args);
	va_end(args);
	return ok;
}

void
buf_free(Buffer *buf)
{
	free(buf->data);
	buf_init(buf);
}

bool
buf_append_json_string(Buffer *buf, const char *s, size_t len)
{
	bool		ok = buf_append(buf, "\"", 1);

	for (size_t i = 0; i < len && ok; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c == '"' || c == '\\')
			ok = buf_printf(buf, "\\%c", c);
		else if (c < 0x20)
			ok = buf_printf(buf, "\\u%04x", c);
		else
			ok = buf_append(buf, &s[i], 1);
	}
	return ok && buf_append(buf, "\"", 1);
}
