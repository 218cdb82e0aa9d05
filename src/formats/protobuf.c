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
 * The tag of a field whose tag pb_next_field() does not read inline: one
 * of two bytes or more, or one that is refused.
 */
uint64
pb_read_tag_slow(PbReader *reader)
{
	uint64		tag = pb_read_varint(reader);
	int			wiretype = (int) (tag & 7);

	if ((tag >> 3) == 0 || (tag >> 3) > PG_INT32_MAX)
		pb_error(reader, reader->field_at, "field number " UINT64_FORMAT " is out of range.", tag >> 3);
	if (wiretype != PB_VARINT && wiretype != PB_FIXED64 &&
		wiretype != PB_LEN && wiretype != PB_FIXED32)
		pb_error(reader, reader->field_at, "field %u has wire type %d, which is not supported.",
				 (uint32) (tag >> 3), wiretype);
	return tag;
}

uint64
pb_read_varint_slow(PbReader *reader)
{
	const uint8 *p = reader->data + reader->pos;
	size_t		n = Min(reader->end - reader->pos, PB_MAX_VARINT_BYTES);
	uint64		value = 0;

	for (size_t i = 0; i < n; i++)
	{
		/* the tenth byte may only hold the 64th bit */
		if (i == PB_MAX_VARINT_BYTES - 1 && p[i] > 1)
			pb_error(reader, reader->pos, "a varint does not fit in 64 bits.");
		value |= (uint64) (p[i] & 0x7F) << (7 * i);
		if ((p[i] & 0x80) == 0)
		{
			reader->pos += i + 1;
			return value;
		}
	}
	/* (ten bytes without an end would have failed on the tenth) */
	pb_error(reader, reader->pos, "a varint runs past the end of its message.");
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

/* The error of pb_read_length(): len, read at `at`, is more than what is left. */
void
pb_length_error(const PbReader *reader, size_t at, uint64 len)
{
	pb_error(reader, at, "a length of " UINT64_FORMAT " bytes runs past the end of its message (%zu bytes left).",
			 len, reader->end - reader->pos);
}

/* The error of pb_expect_varint() and pb_expect_submessage(): the field has another wire type. */
void
pb_wiretype_error(const PbReader *reader, int wiretype, const char *field_name, int expected)
{
	pb_error(reader, reader->field_at, "field %s has wire type %d, expected %s.", field_name, wiretype,
			 expected == PB_VARINT ? "0 (varint)" : "2 (length-delimited)");
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

/*
 * Decodes the packed varints of `packed` into out, which has room for one
 * per byte; their number.  Values of one to three bytes are read in a loop
 * of locals (writes to out could alias the reader's fields otherwise), as
 * long as three bytes are left; the rest through pb_read_varint.
 */
static int
read_packed_varints(PbReader *packed, uint64 *out)
{
	const uint8 *p = packed->data + packed->pos;
	const uint8 *end = packed->data + packed->end;
	const uint8 *three_left = end - Min(packed->end - packed->pos, 2);
	uint64	   *o = out;

	for (;;)
	{
		uint64		value;

		while (p < three_left)
		{
			value = p[0];
			if (value < 0x80)
				p += 1;
			else if (p[1] < 0x80)
			{
				value = (value & 0x7F) | (uint64) p[1] << 7;
				p += 2;
			}
			else if (p[2] < 0x80)
			{
				value = (value & 0x7F) | (uint64) (p[1] & 0x7F) << 7 | (uint64) p[2] << 14;
				p += 3;
			}
			else
				break;
			*o++ = value;
		}
		if (p == end)
			break;
		packed->pos = p - packed->data;
		*o++ = pb_read_varint(packed);
		p = packed->data + packed->pos;
	}
	packed->pos = packed->end;
	return (int) (o - out);
}

void
pb_append_varints(PbReader *reader, int wiretype, const char *field_name,
				  uint64 **values, int *count, int *capacity)
{
	PbReader	packed;

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
	if (packed.pos == packed.end)
		return;
	reserve_varints(values, *count, capacity, packed.end - packed.pos);
	*count += read_packed_varints(&packed, *values + *count);
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
