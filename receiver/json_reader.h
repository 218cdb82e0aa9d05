/*
 * json_reader.h
 *	  A reader of JSON text (RFC 8259), a token at a time: enough to walk
 *	  a known message, take its strings and skip what it does not know.
 */
#ifndef RECEIVER_JSON_READER_H
#define RECEIVER_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "buffer.h"

typedef struct JsonReader
{
	const char *p;
	const char *end;
	int			depth;			/* of the values being skipped */
} JsonReader;

extern void json_reader_init(JsonReader *r, const char *data, size_t len);

/* The next character after white space, without taking it; '\0' at the end */
extern char json_peek(JsonReader *r);

/* Takes c (after white space); false if the next character is another */
extern bool json_take(JsonReader *r, char c);

/* Takes the literal null if it comes next */
extern bool json_take_null(JsonReader *r);

/* A string, unescaped into out as UTF-8 */
extern bool json_string(JsonReader *r, Buffer *out);

/* A number, as RFC 8259 writes it: its text, in place */
extern bool json_number(JsonReader *r, const char **start, size_t *len);

/* true or false */
extern bool json_take_bool(JsonReader *r, bool *value);

/* How far the reader is into the text that starts at data */
extern size_t json_offset(const JsonReader *r, const char *data);

/* Skips a value of any kind, nested up to 64 deep */
extern bool json_skip(JsonReader *r);

/* Whether only white space is left */
extern bool json_at_end(JsonReader *r);

#endif
