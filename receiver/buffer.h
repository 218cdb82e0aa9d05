/*
 * buffer.h
 *	  A growable byte buffer, always NUL-terminated, that refuses to grow
 *	  past a limit instead of failing the whole program on a big request.
 */
#ifndef RECEIVER_BUFFER_H
#define RECEIVER_BUFFER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct Buffer
{
	char	   *data;			/* NULL until something is appended */
	size_t		len;
	size_t		cap;
	bool		failed;			/* an append ran out of memory */
} Buffer;

extern void buf_init(Buffer *buf);
extern bool buf_append(Buffer *buf, const void *data, size_t len);
extern bool buf_append_str(Buffer *buf, const char *s);
extern bool buf_printf(Buffer *buf, const char *fmt,...) __attribute__((format(printf, 2, 3)));
extern bool buf_vprintf(Buffer *buf, const char *fmt, va_list args) __attribute__((format(printf, 2, 0)));
extern void buf_free(Buffer *buf);

/* A JSON string literal of len bytes (quotes included); bytes >= 0x80 pass as they are */
extern bool buf_append_json_string(Buffer *buf, const char *s, size_t len);

#endif
