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
extern bool pb_next_field(PbReader *reader, uint32 *field, int *wiretype);
extern uint64 pb_read_varint_slow(PbReader *reader);
extern uint64 pb_read_fixed64(PbReader *reader);
extern uint32 pb_read_fixed32(PbReader *reader);
extern size_t pb_read_length(PbReader *reader);
extern void pb_read_submessage(PbReader *reader, PbReader *sub, const char *message);
extern void pb_skip(PbReader *reader, int wiretype);

/* A scalar field of varint type read as such, or an error if its wire type is not 0. */
extern uint64 pb_expect_varint(PbReader *reader, int wiretype, const char *field_name);

/* A submessage field, or an error if its wire type is not 2. */
extern void pb_expect_submessage(PbReader *reader, int wiretype, const char *field_name,
								 PbReader *sub, const char *message);

/*
 * A repeated varint field, packed (wire type 2) or not (wire type 0): the
 * values are appended to *values (count and capacity updated; *values may
 * be NULL with capacity 0).
 */
extern void pb_append_varints(PbReader *reader, int wiretype, const char *field_name,
							  uint64 **values, int *count, int *capacity);

extern void pb_error(const PbReader *reader, size_t at, const char *detail_fmt,...)
			pg_attribute_printf(3, 4) pg_attribute_noreturn();

/* Writing: appends to a StringInfo */
/*
 * A varint.  Most varints of a profile (ids, small counts, tags) take one
 * byte: that case is read here, without a call; the rest, and every check
 * of a long or truncated varint, in pb_read_varint_slow.
 */
static inline uint64
pb_read_varint(PbReader *reader)
{
	if (likely(reader->pos < reader->end) && (reader->data[reader->pos] & 0x80) == 0)
		return reader->data[reader->pos++];
	return pb_read_varint_slow(reader);
}

extern void pb_put_varint(StringInfo buf, uint64 value);
extern void pb_put_tag(StringInfo buf, uint32 field, int wiretype);
extern void pb_put_varint_field(StringInfo buf, uint32 field, uint64 value);
extern void pb_put_bytes_field(StringInfo buf, uint32 field, const char *data, size_t len);
extern void pb_put_packed_varints(StringInfo buf, uint32 field, const uint64 *values, int count);

#endif							/* CALLTREE_PROTOBUF_H */
