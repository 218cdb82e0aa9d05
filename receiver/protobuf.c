/*
 * protobuf.c
 *	  A reader of protobuf's wire format (protobuf.h).  Every length is
 *	  checked against what is left of the message; groups (wire types 3
 *	  and 4, deprecated) are malformed here.
 */
#include "protobuf.h"

#include <string.h>

void
pb_reader_init(PbReader *r, const void *data, size_t len)
{
	r->p = data;
	r->end = r->p + len;
}

static bool
read_varint(PbReader *r, uint64_t *value)
{
	uint64_t	v = 0;

	for (int shift = 0; shift < 64; shift += 7)
	{
		uint8_t		byte;

		if (r->p >= r->end)
			return false;
		byte = *r->p++;
		v |= (uint64_t) (byte & 0x7F) << shift;
		if ((byte & 0x80) == 0)
		{
			*value = v;
			return true;
		}
	}
	return false;
}

static bool
read_fixed(PbReader *r, size_t size, uint64_t *value)
{
	uint64_t	v = 0;

	if ((size_t) (r->end - r->p) < size)
		return false;
	for (size_t i = 0; i < size; i++)
		v |= (uint64_t) r->p[i] << (8 * i);
	r->p += size;
	*value = v;
	return true;
}

int
pb_next(PbReader *r, PbField *field)
{
	uint64_t	key;
	uint64_t	len;

	if (r->p >= r->end)
		return 0;
	memset(field, 0, sizeof(PbField));
	if (!read_varint(r, &key) || (key >> 3) == 0 || (key >> 3) > 0x1FFFFFFF)
		return -1;
	field->number = (uint32_t) (key >> 3);
	field->wire_type = (PbWireType) (key & 7);
	switch (field->wire_type)
	{
		case PB_VARINT:
			return read_varint(r, &field->value) ? 1 : -1;
		case PB_FIXED64:
			return read_fixed(r, 8, &field->value) ? 1 : -1;
		case PB_FIXED32:
			return read_fixed(r, 4, &field->value) ? 1 : -1;
		case PB_LEN:
			if (!read_varint(r, &len) || len > (uint64_t) (r->end - r->p))
				return -1;
			field->data = (const char *) r->p;
			field->len = (size_t) len;
			r->p += len;
			return 1;
	}
	return -1;
}

void
pb_append_varint(Buffer *buf, uint64_t value)
{
	uint8_t		bytes[10];
	size_t		n = 0;

	do
	{
		bytes[n++] = (uint8_t) ((value & 0x7F) | (value > 0x7F ? 0x80 : 0));
		value >>= 7;
	} while (value != 0);
	buf_append(buf, bytes, n);
}

void
pb_append_varint_field(Buffer *buf, uint32_t number, uint64_t value)
{
	pb_append_varint(buf, (uint64_t) number << 3 | PB_VARINT);
	pb_append_varint(buf, value);
}

void
pb_append_bytes_field(Buffer *buf, uint32_t number, const void *data, size_t len)
{
	pb_append_varint(buf, (uint64_t) number << 3 | PB_LEN);
	pb_append_varint(buf, len);
	buf_append(buf, data, len);
}

void
pb_append_tag(Buffer *buf, uint32_t number, PbWireType wire_type)
{
	pb_append_varint(buf, (uint64_t) number << 3 | wire_type);
}

void
pb_append_fixed64(Buffer *buf, uint64_t value)
{
	uint8_t		bytes[8];

	for (int i = 0; i < 8; i++)
		bytes[i] = (uint8_t) (value >> (8 * i));
	buf_append(buf, bytes, 8);
}
