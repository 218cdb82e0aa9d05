/*
 * json_reader.c
 *	  A reader of JSON text (json_reader.h).  Strings may hold any escape,
 *	  \u escapes of surrogate pairs joined into one character; a lone
 *	  surrogate, a control character or a bad escape is malformed.
 */
#include "json_reader.h"

#include <string.h>

#define MAX_DEPTH 64

void
json_reader_init(JsonReader *r, const char *data, size_t len)
{
	r->p = data;
	r->end = data + len;
	r->depth = 0;
}

static void
skip_space(JsonReader *r)
{
	while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
		r->p++;
}

char
json_peek(JsonReader *r)
{
	skip_space(r);
	return r->p < r->end ? *r->p : '\0';
}

bool
json_take(JsonReader *r, char c)
{
	if (json_peek(r) != c)
		return false;
	r->p++;
	return true;
}

static bool
take_word(JsonReader *r, const char *word)
{
	size_t		len = strlen(word);

	skip_space(r);
	if ((size_t) (r->end - r->p) < len || memcmp(r->p, word, len) != 0)
		return false;
	r->p += len;
	return true;
}

bool
json_take_null(JsonReader *r)
{
	return take_word(r, "null");
}

static int
hex4(const char *p)
{
	int			v = 0;

	for (int i = 0; i < 4; i++)
	{
		char		c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static bool
append_utf8(Buffer *out, unsigned int c)
{
	char		bytes[4];
	size_t		n;

	if (c < 0x80)
	{
		bytes[0] = (char) c;
		n = 1;
	}
	else if (c < 0x800)
	{
		bytes[0] = (char) (0xC0 | (c >> 6));
		bytes[1] = (char) (0x80 | (c & 0x3F));
		n = 2;
	}
	else if (c < 0x10000)
	{
		bytes[0] = (char) (0xE0 | (c >> 12));
		bytes[1] = (char) (0x80 | ((c >> 6) & 0x3F));
		bytes[2] = (char) (0x80 | (c & 0x3F));
		n = 3;
	}
	else
	{
		bytes[0] = (char) (0xF0 | (c >> 18));
		bytes[1] = (char) (0x80 | ((c >> 12) & 0x3F));
		bytes[2] = (char) (0x80 | ((c >> 6) & 0x3F));
		bytes[3] = (char) (0x80 | (c & 0x3F));
		n = 4;
	}
	return buf_append(out, bytes, n);
}

/* A \uXXXX escape at r->p, a surrogate pair's second half with it */
static bool
unicode_escape(JsonReader *r, Buffer *out)
{
	int			c;
	int			low;

	if (r->end - r->p < 6 || (c = hex4(r->p + 2)) < 0)
		return false;
	r->p += 6;
	if (c >= 0xDC00 && c <= 0xDFFF)
		return false;
	if (c >= 0xD800 && c <= 0xDBFF)
	{
		if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' ||
			(low = hex4(r->p + 2)) < 0xDC00 || low > 0xDFFF)
			return false;
		r->p += 6;
		c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
	}
	return append_utf8(out, (unsigned int) c);
}

bool
json_string(JsonReader *r, Buffer *out)
{
	static const char escapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";

	if (!json_take(r, '"'))
		return false;
	while (r->p < r->end && *r->p != '"')
	{
		const char *run = r->p;

		while (r->p < r->end && *r->p != '"' && *r->p != '\\' && (unsigned char) *r->p >= 0x20)
			r->p++;
		if (!buf_append(out, run, (size_t) (r->p - run)) || r->p == r->end)
			return false;
		if ((unsigned char) *r->p < 0x20)
			return false;
		if (*r->p == '\\')
		{
			const char *e;

			if (r->end - r->p < 2)
				return false;
			if (r->p[1] == 'u')
			{
				if (!unicode_escape(r, out))
					return false;
				continue;
			}
			for (e = escapes; *e && *e != r->p[1]; e += 2)
				;
			if (*e == '\0' || !buf_append(out, e + 1, 1))
				return false;
			r->p += 2;
		}
	}
	return json_take(r, '"');
}

static bool
skip_number(JsonReader *r)
{
	const char *start = r->p;

	while (r->p < r->end && strchr("+-0123456789.eE", *r->p) != NULL)
		r->p++;
	return r->p > start;
}

static void
take_digits(JsonReader *r)
{
	while (r->p < r->end && *r->p >= '0' && *r->p <= '9')
		r->p++;
}

bool
json_number(JsonReader *r, const char **start, size_t *len)
{
	const char *digits;

	skip_space(r);
	*start = r->p;
	if (r->p < r->end && *r->p == '-')
		r->p++;
	digits = r->p;
	take_digits(r);
	if (r->p == digits || (*digits == '0' && r->p - digits > 1))
		return false;
	if (r->p < r->end && *r->p == '.')
	{
		digits = ++r->p;
		take_digits(r);
		if (r->p == digits)
			return false;
	}
	if (r->p < r->end && (*r->p == 'e' || *r->p == 'E'))
	{
		r->p++;
		if (r->p < r->end && (*r->p == '+' || *r->p == '-'))
			r->p++;
		digits = r->p;
		take_digits(r);
		if (r->p == digits)
			return false;
	}
	*len = (size_t) (r->p - *start);
	return true;
}

bool
json_take_bool(JsonReader *r, bool *value)
{
	if (take_word(r, "true"))
		*value = true;
	else if (take_word(r, "false"))
		*value = false;
	else
		return false;
	return true;
}

size_t
json_offset(const JsonReader *r, const char *data)
{
	return (size_t) (r->p - data);
}

/* The members or elements of an object or array, its opening taken */
static bool
skip_container(JsonReader *r, char close)
{
	if (json_take(r, close))
		return true;
	for (;;)
	{
		if (close == '}')
		{
			Buffer		key;
			bool		ok;

			buf_init(&key);
			ok = json_string(r, &key) && json_take(r, ':');
			buf_free(&key);
			if (!ok)
				return false;
		}
		if (!json_skip(r))
			return false;
		if (json_take(r, close))
			return true;
		if (!json_take(r, ','))
			return false;
	}
}

bool
json_skip(JsonReader *r)
{
	char		c = json_peek(r);
	bool		ok;

	if (c == '"')
	{
		Buffer		s;

		buf_init(&s);
		ok = json_string(r, &s);
		buf_free(&s);
		return ok;
	}
	if (c == '{' || c == '[')
	{
		if (++r->depth > MAX_DEPTH)
			return false;
		r->p++;
		ok = skip_container(r, c == '{' ? '}' : ']');
		r->depth--;
		return ok;
	}
	if (c == 't')
		return take_word(r, "true");
	if (c == 'f')
		return take_word(r, "false");
	if (c == 'n')
		return take_word(r, "null");
	return skip_number(r);
}

bool
json_at_end(JsonReader *r)
{
	return json_peek(r) == '\0' && r->p == r->end;
}
