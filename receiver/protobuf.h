/*
 * protobuf.h
 *	  A reader of protobuf's wire format: the fields of one message, in
 *	  order, each a varint, a fixed number or a length-delimited slice of
 *	  the message (bytes, a string or an embedded message, read in turn);
 *	  and a writer of fields, for replies and for OTLP/JSON made protobuf.
 */
#ifndef RECEIVER_PROTOBUF_H
#define RECEIVER_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buffer.h"

typedef enum PbWireType
{
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2,
	PB_FIXED32 = 5
} PbWireType;

typedef struct PbReader
{
	const uint8_t *p;
	const uint8_t *end;
} PbReader;

typedef struct PbField
{
	uint32_t	number;
	PbWireType	wire_type;
	uint64_t	value;			/* varint and fixed fields */
	const char *data;			/* length-delimited fields */
	size_t		len;
} PbField;

extern void pb_reader_init(PbReader *r, const void *data, size_t len);

/* The next field: 1, 0 at the end of the message, -1 if it is malformed */
extern int	pb_next(PbReader *r, PbField *field);

/* Appends a varint, a field's tag, a fixed 64-bit value (little-endian) */
extern void pb_append_varint(Buffer *buf, uint64_t value);
extern void pb_append_tag(Buffer *buf, uint32_t number, PbWireType wire_type);
extern void pb_append_fixed64(Buffer *buf, uint64_t value);

/* Appends a varint field, or a length-delimited one (bytes, a string) */
extern void pb_append_varint_field(Buffer *buf, uint32_t number, uint64_t value);
extern void pb_append_bytes_field(Buffer *buf, uint32_t number, const void *data, size_t len);

#endif
