/*
 * otlp_json.c
 *	  OTLP/JSON made protobuf (otlp_json.h).
 *
 * OTLP/JSON is protobuf's JSON mapping of the messages of the .proto
 * files, with OTLP's own rules: members named in lowerCamelCase, trace,
 * span and profile ids in hex rather than base64, enums as integers (the
 * profiles signal has none), unknown members ignored.  As in the JSON
 * mapping, 64-bit integers are numbers or strings of digits, other bytes
 * base64, a double may be "NaN", "Infinity" or "-Infinity", and null is a
 * field's default.  The proto names of the members are taken too, as the
 * Collector takes them.
 *
 * One walk over the text, the messages described by the tables of
 * otlp_messages.c: each member present is written as its field, zero
 * values too (proto3 reads a zero field as an absent one, but AnyValue's
 * oneof needs the field written); repeated numbers packed.  A message is
 * written into a buffer of its own, then after its tag and length into
 * its parent's.  Bounded: messages nest at most 150 deep (an attribute
 * value of arrays 64 deep, the most import_otlp takes, fits), and the bytes of
 * all the buffers being written may not pass the limit.
 */
#include "otlp_json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "json_reader.h"
#include "otlp_messages.h"
#include "protobuf.h"

#define MAX_DEPTH 150
#define MAX_PATH 200

typedef struct Converter
{
	JsonReader	r;
	const char *text;
	const char *value;			/* the scalar being read, for its errors; or NULL */
	size_t		limit;
	size_t		live;			/* bytes in the buffers being written */
	int			depth;
	char		path[MAX_PATH + 1]; /* the member being read: a.b[2].c */
	size_t		path_len;
	Buffer	   *error;
	bool		too_large;
} Converter;

static bool fail(Converter *c, const char *fmt,...) __attribute__((format(printf, 2, 3)));

/* Records the first error, with where it is; false */
static bool
fail(Converter *c, const char *fmt,...)
{
	va_list		args;

	if (c->error->len > 0)
		return false;
	buf_printf(c->error, "invalid OTLP/JSON at byte %zu%s%s%s: ",
			   c->value ? (size_t) (c->value - c->text) : json_offset(&c->r, c->text),
			   c->path_len ? " (" : "", c->path, c->path_len ? ")" : "");
	va_start(args, fmt);
	buf_vprintf(c->error, fmt, args);
	va_end(args);
	return false;
}

/* Counts the bytes that out grew by since before; false past the limit */
static bool
grew(Converter *c, const Buffer *out, size_t before)
{
	c->live += out->len - before;
	if (out->failed)
		return fail(c, "out of memory");
	if (c->live > c->limit)
	{
		c->too_large = true;
		return fail(c, "the request makes more than %zu bytes of protobuf", c->limit);
	}
	return true;
}

/* Appends .name or [index] to the path; the length to go back to */
static size_t
path_push(Converter *c, const char *name, long index)
{
	size_t		old = c->path_len;
	int			n;

	if (name != NULL)
		n = snprintf(c->path + old, MAX_PATH + 1 - old, "%s%s", old ? "." : "", name);
	else
		n = snprintf(c->path + old, MAX_PATH + 1 - old, "[%ld]", index);
	c->path_len = n < 0 || old + (size_t) n > MAX_PATH ? MAX_PATH : old + (size_t) n;
	return old;
}

static void
path_pop(Converter *c, size_t old)
{
	c->path_len = old;
	c->path[old] = '\0';
}

static const FieldType *
find_field(const MessageType *type, const char *name)
{
	for (const FieldType *f = type->fields; f->json_name != NULL; f++)
		if (strcmp(name, f->json_name) == 0 || strcmp(name, f->proto_name) == 0)
			return f;
	return NULL;
}

static PbWireType
wire_type_of(FieldKind kind)
{
	switch (kind)
	{
		case FIELD_FIXED64:
		case FIELD_DOUBLE:
			return PB_FIXED64;
		case FIELD_STRING:
		case FIELD_BYTES:
		case FIELD_ID:
		case FIELD_MESSAGE:
			return PB_LEN;
		default:
			return PB_VARINT;
	}
}

/* The text of a number, or of a string that holds one, into text */
static bool
number_text(Converter *c, Buffer *text)
{
	const char *start;
	size_t		len;

	if (json_peek(&c->r) == '"')
		return json_string(&c->r, text) || fail(c, "a malformed string");
	if (!json_number(&c->r, &start, &len))
		return fail(c, "a number was expected");
	return buf_append(text, start, len) || fail(c, "out of memory");
}

/* A whole number of the field's range as the 64 bits protobuf writes */
static bool
parse_integer(const char *s, size_t len, FieldKind kind, uint64_t *bits)
{
	bool		negative = len > 0 && s[0] == '-';
	uint64_t	v = 0;
	uint64_t	max;

	if (len == (size_t) negative)
		return false;
	for (size_t i = negative; i < len; i++)
	{
		unsigned int digit = (unsigned int) (s[i] - '0');

		if (digit > 9 || v > (UINT64_MAX - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	if (kind == FIELD_INT32)
		max = negative ? (uint64_t) INT32_MAX + 1 : INT32_MAX;
	else if (kind == FIELD_INT64)
		max = negative ? (uint64_t) INT64_MAX + 1 : INT64_MAX;
	else if (kind == FIELD_UINT32)
		max = negative ? 0 : UINT32_MAX;
	else
		max = negative ? 0 : UINT64_MAX;
	if (v > max)
		return false;
	/* two's complement: a negative int32 is written as 64 bits, as protobuf does */
	*bits = negative ? (uint64_t) 0 - v : v;
	return true;
}

static const char *
kind_name(FieldKind kind)
{
	switch (kind)
	{
		case FIELD_INT32: return "int32";
		case FIELD_INT64: return "int64";
		case FIELD_UINT32: return "uint32";
		case FIELD_UINT64: return "uint64";
		default: return "fixed64";
	}
}

static bool
write_integer(Converter *c, FieldKind kind, Buffer *out)
{
	Buffer		text;
	uint64_t	bits = 0;
	bool		ok;

	buf_init(&text);
	ok = number_text(c, &text);
	if (ok && !parse_integer(text.data ? text.data : "", text.len, kind, &bits))
		ok = fail(c, "\"%.40s\" is not a whole number in the range of %s", text.data ? text.data : "",
				  kind_name(kind));
	buf_free(&text);
	if (!ok)
		return false;
	if (kind == FIELD_FIXED64)
		pb_append_fixed64(out, bits);
	else
		pb_append_varint(out, bits);
	return true;
}

static bool
write_double(Converter *c, Buffer *out)
{
	Buffer		text;
	double		value = 0;
	uint64_t	bits;
	char	   *end = NULL;
	bool		ok;

	buf_init(&text);
	ok = number_text(c, &text);
	if (ok && text.len > 0 && text.len < 400)
	{
		if (strcmp(text.data, "NaN") == 0)
			value = NAN;
		else if (strcmp(text.data, "Infinity") == 0)
			value = INFINITY;
		else if (strcmp(text.data, "-Infinity") == 0)
			value = -INFINITY;
		else
			value = strtod(text.data, &end);
	}
	if (ok && (text.len == 0 || text.len >= 400 || (end != NULL && *end != '\0')))
		ok = fail(c, "\"%.40s\" is not a double", text.data ? text.data : "");
	buf_free(&text);
	if (!ok)
		return false;
	memcpy(&bits, &value, sizeof(bits));
	pb_append_fixed64(out, bits);
	return true;
}

static int
hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string's bytes: as they are, from base64, or from hex (ids); written with their length */
static bool
write_bytes(Converter *c, FieldKind kind, Buffer *out)
{
	Buffer		text;
	char	   *bytes = NULL;
	size_t		len = 0;
	bool		ok;

	buf_init(&text);
	if (!json_string(&c->r, &text))
		ok = fail(c, "a string was expected");
	else if (kind == FIELD_STRING)
		ok = true;
	else if ((bytes = malloc(text.len + 4)) == NULL)
		ok = fail(c, "out of memory");
	else if (kind == FIELD_BYTES)
		ok = base64_decode(text.data ? text.data : "", text.len, bytes, &len) ||
			fail(c, "bytes must be base64");
	else
	{
		ok = text.len % 2 == 0 || fail(c, "an id must be an even number of hex digits");
		for (size_t i = 0; ok && i < text.len; i += 2)
		{
			int			high = hex_digit(text.data[i]);
			int			low = hex_digit(text.data[i + 1]);

			if (high < 0 || low < 0)
				ok = fail(c, "an id must be hex digits, not \"%.40s\"", text.data);
			else
				bytes[len++] = (char) (high << 4 | low);
		}
	}
	if (ok && kind == FIELD_STRING)
	{
		pb_append_varint(out, text.len);
		buf_append(out, text.data ? text.data : "", text.len);
	}
	else if (ok)
	{
		pb_append_varint(out, len);
		buf_append(out, bytes, len);
	}
	free(bytes);
	buf_free(&text);
	return ok;
}

/* One scalar value of the field, without its tag */
static bool
write_scalar(Converter *c, const FieldType *f, Buffer *out)
{
	bool		value;
	bool		ok;

	json_peek(&c->r);
	c->value = c->r.p;
	switch (f->kind)
	{
		case FIELD_BOOL:
			ok = json_take_bool(&c->r, &value) || fail(c, "true or false was expected");
			if (ok)
				pb_append_varint(out, value);
			break;
		case FIELD_DOUBLE:
			ok = write_double(c, out);
			break;
		case FIELD_STRING:
		case FIELD_BYTES:
		case FIELD_ID:
			ok = write_bytes(c, f->kind, out);
			break;
		default:
			ok = write_integer(c, f->kind, out);
			break;
	}
	if (ok)
		c->value = NULL;
	return ok;
}

static bool convert_message(Converter *c, const MessageType *type, Buffer *out);

/* Appends a buffer written apart (a message, packed numbers) to out as a field */
static bool
append_nested(Converter *c, uint32_t number, Buffer *nested, Buffer *out)
{
	size_t		before = out->len;

	pb_append_tag(out, number, PB_LEN);
	pb_append_varint(out, nested->len);
	buf_append(out, nested->data ? nested->data : "", nested->len);
	/* the nested bytes were counted as they were written */
	c->live -= nested->len;
	buf_free(nested);
	return grew(c, out, before);
}

/* One value of the field, with its tag */
static bool
convert_value(Converter *c, const FieldType *f, Buffer *out)
{
	size_t		before = out->len;
	Buffer		nested;

	if (f->kind != FIELD_MESSAGE)
	{
		pb_append_tag(out, f->number, wire_type_of(f->kind));
		return write_scalar(c, f, out) && grew(c, out, before);
	}
	buf_init(&nested);
	if (!convert_message(c, f->message, &nested))
	{
		c->live -= nested.len;
		buf_free(&nested);
		return false;
	}
	return append_nested(c, f->number, &nested, out);
}

/* The elements of an array: each a value of the field, numbers packed */
static bool
convert_array(Converter *c, const FieldType *f, Buffer *out)
{
	bool		packed = wire_type_of(f->kind) != PB_LEN;
	Buffer		numbers;
	bool		ok = true;

	if (!json_take(&c->r, '['))
		return fail(c, "an array was expected");
	buf_init(&numbers);
	for (long i = 0; ok && !json_take(&c->r, ']'); i++)
	{
		size_t		path = path_push(c, NULL, i);
		size_t		before = numbers.len;

		if (i > 0 && !json_take(&c->r, ','))
			ok = fail(c, "',' or ']' was expected");
		else if (json_peek(&c->r) == 'n')
			ok = fail(c, "an element of an array may not be null");
		else if (packed)
			ok = write_scalar(c, f, &numbers) && grew(c, &numbers, before);
		else
			ok = convert_value(c, f, out);
		path_pop(c, path);
	}
	if (ok && packed && numbers.len > 0)
		return append_nested(c, f->number, &numbers, out);
	c->live -= numbers.len;
	buf_free(&numbers);
	return ok;
}

/* A member's value: null (the default, nothing written), one value or an array */
static bool
convert_field(Converter *c, const FieldType *f, Buffer *out)
{
	if (json_take_null(&c->r))
		return true;
	if (f->repeated)
		return convert_array(c, f, out);
	return convert_value(c, f, out);
}

/* One member of an object: its field, or skipped when unknown */
static bool
convert_member(Converter *c, const MessageType *type, Buffer *out)
{
	Buffer		name;
	const FieldType *f;
	size_t		path;
	bool		ok;

	buf_init(&name);
	if (!json_string(&c->r, &name) || !json_take(&c->r, ':'))
	{
		buf_free(&name);
		return fail(c, "a member of %s (\"name\": value) was expected", type->name);
	}
	f = find_field(type, name.data ? name.data : "");
	path = path_push(c, name.data ? name.data : "", 0);
	if (f != NULL)
		ok = convert_field(c, f, out);
	else
		ok = json_skip(&c->r) || fail(c, "malformed JSON");
	path_pop(c, path);
	buf_free(&name);
	return ok;
}

static bool
convert_message(Converter *c, const MessageType *type, Buffer *out)
{
	bool		ok = true;

	if (c->depth >= MAX_DEPTH)
		return fail(c, "values nest more than %d deep", MAX_DEPTH);
	if (!json_take(&c->r, '{'))
		return fail(c, "an object (%s) was expected", type->name);
	c->depth++;
	for (int i = 0; ok && !json_take(&c->r, '}'); i++)
	{
		if (i > 0 && !json_take(&c->r, ','))
			ok = fail(c, "',' or '}' was expected");
		else
			ok = convert_member(c, type, out);
	}
	c->depth--;
	return ok;
}

bool
otlp_json_to_protobuf(const char *text, size_t len, size_t limit, Buffer *out, Buffer *error,
					  bool *too_large)
{
	Converter	c = {.text = text, .limit = limit, .error = error};
	bool		ok;

	json_reader_init(&c.r, text, len);
	ok = convert_message(&c, &otlp_export_request, out) &&
		(json_at_end(&c.r) || fail(&c, "the request's object is followed by more than white space"));
	*too_large = c.too_large;
	return ok;
}
