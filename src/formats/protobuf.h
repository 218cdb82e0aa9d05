/*
 * protobuf.h
 *	  A small reader and writer of the protocol buffers wire format.
 *
 * The reader walks one message at a time: pb_next_field() returns each
 * field's number and wire type, and the caller reads the value with the
 * function that fits, or skips it.  It knows nothing about any schema.
 * Every length is checked against the bytes that are left before anything
 * is read or allocated, and every error is an ereport naming the format
 * (the reader's "format", e.g. "pprof") and the byte offset from the start
 * of the whole input, so a caller never sees a half-read value.
 *
 * Groups (wire types 3 and 4) are deprecated and rejected, as Go's pprof
 * does.
 */
#ifndef CALLTREE_PROTOBUF_H
#define CALLTREE_PROTOBUF_H

#include "postgres.h"

#include "lib/stringinfo.h"

#define PB_VARINT	0
#define PB_FIXED64	1
#define PB_LEN		2
#define PB_FIXED32	5

typedef struct PbReader
{
	const uint8 *data;			/* the whole input */
	size_t		pos;			/* next byte to read, from data */
	size_t		end;			/* end of the current message, from data */
	const char *format;			/* for error messages: "pprof" */
	const char *message;		/* the message being read: "Location" */
	size_t		field_at;		/* offset of the current field's tag */
} PbReader;

extern void pb_reader_init(PbReader *reader, const uint8 *data, size_t len,
						   const char *format, const char *message);
extern uint64 pb_read_fixed64(PbReader *reader);
extern uint32 pb_read_fixed32(PbReader *reader);
extern void pb_skip(PbReader *reader, int wiretype);

extern void pb_error(const PbReader *reader, size_t at, const char *detail_fmt,...)
			pg_attribute_printf(3, 4) pg_attribute_noreturn();

/*
 * The readers below are inline: a profile has hundreds of thousands of
 * fields, most of them a one-byte tag and a varint of one to four bytes.
 * The common case is read here without a call; every other case, and
 * every check that fails, goes through the out-of-line functions, which
 * read from the same position again and raise the errors.
 */
extern uint64 pb_read_varint_slow(PbReader *reader);
extern uint64 pb_read_tag_slow(PbReader *reader);
extern void pb_length_error(const PbReader *reader, size_t at, uint64 len) pg_attribute_noreturn();
extern void pb_wiretype_error(const PbReader *reader, int wiretype, const char *field_name,
							  int expected) pg_attribute_noreturn();

/*
 * A varint.  Most varints of a profile (ids, counts, tags, string
 * indexes, addresses below 256 MB) take one to four bytes, read here when
 * they end inside the message; the rest, and every check of a long or
 * truncated varint, in pb_read_varint_slow.
 */
static inline uint64
pb_read_varint(PbReader *reader)
{
	const uint8 *p = reader->data + reader->pos;
	size_t		left = reader->end - reader->pos;

	if (likely(left >= 1) && p[0] < 0x80)
	{
		reader->pos += 1;
		return p[0];
	}
	if (likely(left >= 2) && p[1] < 0x80)
	{
		reader->pos += 2;
		return (uint64) (p[0] & 0x7F) | (uint64) p[1] << 7;
	}
	if (likely(left >= 3) && p[2] < 0x80)
	{
		reader->pos += 3;
		return (uint64) (p[0] & 0x7F) | (uint64) (p[1] & 0x7F) << 7 | (uint64) p[2] << 14;
	}
	if (likely(left >= 4) && p[3] < 0x80)
	{
		reader->pos += 4;
		return (uint64) (p[0] & 0x7F) | (uint64) (p[1] & 0x7F) << 7 | (uint64) (p[2] & 0x7F) << 14 |
			(uint64) p[3] << 21;
	}
	return pb_read_varint_slow(reader);
}

/* Whether each byte is a whole tag that pb_next_field accepts (protobuf.c) */
extern const bool pb_short_tag[256];

/*
 * The next field of the current message: false at its end.  A tag is a
 * varint holding the field number and the wire type; a one-byte tag
 * (fields 1 to 15) of a supported wire type is read here.
 */
static inline bool
pb_next_field(PbReader *reader, uint32 *field, int *wiretype)
{
	uint64		tag;

	if (reader->pos >= reader->end)
		return false;
	reader->field_at = reader->pos;
	tag = reader->data[reader->pos];
	if (likely(pb_short_tag[tag]))
		reader->pos++;
	else
		tag = pb_read_tag_slow(reader);
	*field = (uint32) (tag >> 3);
	*wiretype = (int) (tag & 7);
	return true;
}

/* The length of a length-delimited field, checked against what is left. */
static inline size_t
pb_read_length(PbReader *reader)
{
	size_t		at = reader->pos;
	uint64		len = pb_read_varint(reader);

	if (unlikely(len > reader->end - reader->pos))
		pb_length_error(reader, at, len);
	return (size_t) len;
}

/* Reads a length-delimited field as a message of its own. */
static pg_attribute_always_inline void
pb_read_submessage(PbReader *reader, PbReader *sub, const char *message)
{
	size_t		len = pb_read_length(reader);

	*sub = *reader;
	sub->end = reader->pos + len;
	sub->message = message;
	reader->pos += len;
}

/* A scalar field of varint type read as such, or an error if its wire type is not 0. */
static inline uint64
pb_expect_varint(PbReader *reader, int wiretype, const char *field_name)
{
	if (unlikely(wiretype != PB_VARINT))
		pb_wiretype_error(reader, wiretype, field_name, PB_VARINT);
	return pb_read_varint(reader);
}

/* A submessage field, or an error if its wire type is not 2 (inline: tables have thousands) */
static pg_attribute_always_inline void
pb_expect_submessage(PbReader *reader, int wiretype, const char *field_name,
					 PbReader *sub, const char *message)
{
	if (unlikely(wiretype != PB_LEN))
		pb_wiretype_error(reader, wiretype, field_name, PB_LEN);
	pb_read_submessage(reader, sub, message);
}

/*
 * A repeated varint field, packed (wire type 2) or not (wire type 0): the
 * values are appended to *values (count and capacity updated; *values may
 * be NULL with capacity 0).
 */
extern void pb_append_varints(PbReader *reader, int wiretype, const char *field_name,
							  uint64 **values, int *count, int *capacity);
/* Makes room for `more` values after *count in such an array */
extern void pb_reserve_varints(uint64 **values, int count, int *capacity, size_t more);

/*
 * Packed varints read backward, from the end of their field: a varint's
 * last byte is its only byte below 0x80, so the varint that ends at a
 * place is the byte before it and the bytes of 0x80 and over before that.
 * Read so, a field's varints are those that reading it forward gives, the
 * last first, when the field's last byte is below 0x80 (else its last
 * varint runs past its end, an error forward).  The byte before the
 * field's first (start) is the last of its length, below 0x80 too: it
 * ends every backward read there, without a check of the bounds.
 *
 * pb_packed_varint_before reads the varint of one to four bytes that ends
 * at *p (after start) into *value and moves *p to its first byte; false,
 * without moving, for a longer one, which only the forward reader reads
 * (or refuses).
 */
static inline bool
pb_packed_varint_before(const uint8 **p, uint64 *value)
{
	const uint8 *q = *p - 1;
	uint64		v = q[0];

	if (likely(q[-1] < 0x80))
	{
		*value = v;
		*p = q;
		return true;
	}
	v = v << 7 | (q[-1] & 0x7F);
	if (q[-2] < 0x80)
	{
		*value = v;
		*p = q - 1;
		return true;
	}
	v = v << 7 | (q[-2] & 0x7F);
	if (q[-3] < 0x80)
	{
		*value = v;
		*p = q - 2;
		return true;
	}
	v = v << 7 | (q[-3] & 0x7F);
	if (q[-4] < 0x80)
	{
		*value = v;
		*p = q - 3;
		return true;
	}
	return false;
}

/*
 * Whether the packed varints [start, end), after their length, read
 * backward to start: the last byte is below 0x80 and no varint has more
 * than four bytes.  Then the forward reader reads them without an error,
 * to the same values.
 */
extern bool pb_packed_varints_short(const uint8 *start, const uint8 *end);

/* Writing: appends to a StringInfo */
extern void pb_put_varint(StringInfo buf, uint64 value);
extern void pb_put_tag(StringInfo buf, uint32 field, int wiretype);
extern void pb_put_varint_field(StringInfo buf, uint32 field, uint64 value);
extern void pb_put_bytes_field(StringInfo buf, uint32 field, const char *data, size_t len);
extern void pb_put_packed_varints(StringInfo buf, uint32 field, const uint64 *values, int count);

#endif							/* CALLTREE_PROTOBUF_H */
