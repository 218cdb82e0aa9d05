/*
 * protobuf.c
 *	  The protocol buffers wire format: reading and writing (see protobuf.h).
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "formats/protobuf.h"

/* A varint is at most 10 bytes: 64 bits, 7 per byte. */
#define PB_MAX_VARINT_BYTES 10

void
pb_reader_init(PbReader *reader, const uint8 *data, size_t len,
			   const char *format, const char *message)
{
	reader->data = data;
	reader->pos = 0;
	reader->end = len;
	reader->format = format;
	reader->message = message;
	reader->field_at = 0;
}

/* "an" before the names of formats and messages that start with a vowel: OTLP, AnyValue */
static const char *
article(const char *name)
{
	return name[0] != '\0' && strchr("AEIOU", name[0]) ? "an" : "a";
}

void
pb_error(const PbReader *reader, size_t at, const char *detail_fmt,...)
{
	char		detail[256];
	va_list		args;

	va_start(args, detail_fmt);
	vsnprintf(detail, sizeof(detail), detail_fmt, args);
	va_end(args);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
			 errmsg("invalid %s data at byte %zu", reader->format, at),
			 errdetail("In %s %s message: %s", article(reader->message), reader->message, detail),
			 errhint("The data may be truncated or corrupt, or not %s %s profile.",
					 article(reader->format), reader->format)));
	pg_unreachable();
}

/*
 * The next field of the current message: false at its end.  A tag is a
 * varint holding the field number and the wire type.
 */
bool
pb_next_field(PbReader *reader, uint32 *field, int *wiretype)
{
	uint64		tag;

	if (reader->pos >= reader->end)
		return false;
	reader->field_at = reader->pos;
	tag = pb_read_varint(reader);
	*wiretype = (int) (tag & 7);
	if ((tag >> 3) == 0 || (tag >> 3) > PG_INT32_MAX)
		pb_error(reader, reader->field_at, "field number " UINT64_FORMAT " is out of range.", tag >> 3);
	*field = (uint32) (tag >> 3);
	if (*wiretype != PB_VARINT && *wiretype != PB_FIXED64 &&
		*wiretype != PB_LEN && *wiretype != PB_FIXED32)
		pb_error(reader, reader->field_at, "field %u has wire type %d, which is not supported.",
				 *field, *wiretype);
	return true;
}

uint64
pb_read_varint_slow(PbReader *reader)
{
	size_t		start = reader->pos;
	uint64		value = 0;

	/* far from the end: no bound to check byte by byte */
	if (reader->end - reader->pos >= PB_MAX_VARINT_BYTES)
	{
		const uint8 *p = reader->data + reader->pos;

		for (int i = 0; i < PB_MAX_VARINT_BYTES - 1; i++)
		{
			value |= (uint64) (p[i] & 0x7F) << (7 * i);
			if ((p[i] & 0x80) == 0)
			{
				reader->pos += i + 1;
				return value;
			}
		}
	}
	value = 0;
	for (int i = 0; i < PB_MAX_VARINT_BYTES; i++)
	{
		uint8		byte;

		if (reader->pos >= reader->end)
			pb_error(reader, start, "a varint runs past the end of its message.");
		byte = reader->data[reader->pos++];
		/* the tenth byte may only hold the 64th bit */
		if (i == PB_MAX_VARINT_BYTES - 1 && byte > 1)
			pb_error(reader, start, "a varint does not fit in 64 bits.");
		value |= (uint64) (byte & 0x7F) << (7 * i);
		if ((byte & 0x80) == 0)
			return value;
	}
	pb_error(reader, start, "a varint is longer than 10 bytes.");
}

uint64
pb_read_fixed64(PbReader *reader)
{
	uint64		value = 0;

	if (reader->end - reader->pos < 8)
		pb_error(reader, reader->pos, "a 64-bit value runs past the end of its message.");
	for (int i = 0; i < 8; i++)
		value |= (uint64) reader->data[reader->pos + i] << (8 * i);
	reader->pos += 8;
	return value;
}

uint32
pb_read_fixed32(PbReader *reader)
{
	uint32		value = 0;

	if (reader->end - reader->pos < 4)
		pb_error(reader, reader->pos, "a 32-bit value runs past the end of its message.");
	for (int i = 0; i < 4; i++)
		value |= (uint32) reader->data[reader->pos + i] << (8 * i);
	reader->pos += 4;
	return value;
}

/* The length of a length-delimited field, checked against what is left. */
size_t
pb_read_length(PbReader *reader)
{
	size_t		at = reader->pos;
	uint64		len = pb_read_varint(reader);

	if (len > reader->end - reader->pos)
		pb_error(reader, at, "a length of " UINT64_FORMAT " bytes runs past the end of its message (%zu bytes left).",
				 len, reader->end - reader->pos);
	return (size_t) len;
}

/* Reads a length-delimited field as a message of its own. */
void
pb_read_submessage(PbReader *reader, PbReader *sub, const char *message)
{
	size_t		len = pb_read_length(reader);

	*sub = *reader;
	sub->end = reader->pos + len;
	sub->message = message;
	reader->pos += len;
}

void
pb_skip(PbReader *reader, int wiretype)
{
	switch (wiretype)
	{
		case PB_VARINT:
			(void) pb_read_varint(reader);
			break;
		case PB_FIXED64:
			(void) pb_read_fixed64(reader);
			break;
		case PB_LEN:
			reader->pos += pb_read_length(reader);
			break;
		case PB_FIXED32:
			(void) pb_read_fixed32(reader);
			break;
		default:
			pb_error(reader, reader->field_at, "wire type %d is not supported.", wiretype);
	}
}

uint64
pb_expect_varint(PbReader *reader, int wiretype, const char *field_name)
{
	if (wiretype != PB_VARINT)
		pb_error(reader, reader->field_at, "field %s has wire type %d, expected 0 (varint).",
				 field_name, wiretype);
	return pb_read_varint(reader);
}

void
pb_expect_submessage(PbReader *reader, int wiretype, const char *field_name,
					 PbReader *sub, const char *message)
{
	if (wiretype != PB_LEN)
		pb_error(reader, reader->field_at, "field %s has wire type %d, expected 2 (length-delimited).",
				 field_name, wiretype);
	pb_read_submessage(reader, sub, message);
}

/* Makes room for `more` values in a growing array */
static void
reserve_varints(uint64 **values, int count, int *capacity, size_t more)
{
	size_t		needed = (size_t) count + more;

	if (needed <= (size_t) *capacity)
		return;
	if (needed > MaxAllocSize / sizeof(uint64))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a repeated field holds more values than fit in memory")));
	*capacity = (int) Max(needed, (size_t) Max(*capacity, 4) * 2);
	if (*values == NULL)
		*values = palloc(sizeof(uint64) * *capacity);
	else
		*values = repalloc(*values, sizeof(uint64) * *capacity);
}

void
pb_append_varints(PbReader *reader, int wiretype, const char *field_name,
				  uint64 **values, int *count, int *capacity)
{
	PbReader	packed;
	uint64	   *out;
	int			n;

	if (wiretype == PB_VARINT)
	{
		uint64		value = pb_read_varint(reader);

		reserve_varints(values, *count, capacity, 1);
		(*values)[(*count)++] = value;
		return;
	}
	if (wiretype != PB_LEN)
		pb_error(reader, reader->field_at, "repeated field %s has wire type %d, expected 0 or 2 (packed).",
				 field_name, wiretype);
	/* every varint takes at least one byte, so the count is bounded by the length */
	pb_read_submessage(reader, &packed, reader->message);
	reserve_varints(values, *count, capacity, packed.end - packed.pos);
	out = *values;
	n = *count;
	while (packed.pos < packed.end)
		out[n++] = pb_read_varint(&packed);
	*count = n;
}

/* ---------------------------------------------------------------- writing */

void
pb_put_varint(StringInfo buf, uint64 value)
{
	char		bytes[PB_MAX_VARINT_BYTES];
	int			n = 0;

	do
	{
		bytes[n] = (char) (value & 0x7F);
		value >>= 7;
		if (value)
			bytes[n] |= (char) 0x80;
		n++;
	} while (value);
	appendBinaryStringInfo(buf, bytes, n);
}

void
pb_put_tag(StringInfo buf, uint32 field, int wiretype)
{
	pb_put_varint(buf, ((uint64) field << 3) | (uint64) wiretype);
}

void
pb_put_varint_field(StringInfo buf, uint32 field, uint64 value)
{
	pb_put_tag(buf, field, PB_VARINT);
	pb_put_varint(buf, value);
}

void
pb_put_bytes_field(StringInfo buf, uint32 field, const char *data, size_t len)
{
	pb_put_tag(buf, field, PB_LEN);
	pb_put_varint(buf, len);
	appendBinaryStringInfo(buf, data, (int) len);
}

/* A packed repeated varint field; nothing when count is 0. */
void
pb_put_packed_varints(StringInfo buf, uint32 field, const uint64 *values, int count)
{
	StringInfoData packed;

	if (count == 0)
		return;
	initStringInfo(&packed);
	for (int i = 0; i < count; i++)
		pb_put_varint(&packed, values[i]);
	pb_put_bytes_field(buf, field, packed.data, packed.len);
	pfree(packed.data);
}
