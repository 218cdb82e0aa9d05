/*
 * protobuf.c
 *	  The protocol buffers wire format: reading and writing (see protobuf.h).
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "formats/protobuf.h"

/* A varint is at most 10 bytes: 64 bits, 7 per byte. */
#define PB_MAX_VARINT_BYTES 10

/*
 * The one-byte tags: fields 1 to 15 (bytes 0x08 to 0x7F), of wire types
 * 0, 1, 2 and 5, i.e. bytes whose low three bits are 0, 1, 2 or 5.
 */
#define SHORT_TAGS(f) \
	[(f) * 8 + PB_VARINT] = true, [(f) * 8 + PB_FIXED64] = true, \
	[(f) * 8 + PB_LEN] = true, [(f) * 8 + PB_FIXED32] = true
const bool	pb_short_tag[256] = {
	SHORT_TAGS(1), SHORT_TAGS(2), SHORT_TAGS(3), SHORT_TAGS(4), SHORT_TAGS(5),
	SHORT_TAGS(6), SHORT_TAGS(7), SHORT_TAGS(8), SHORT_TAGS(9), SHORT_TAGS(10),
	SHORT_TAGS(11), SHORT_TAGS(12), SHORT_TAGS(13), SHORT_TAGS(14), SHORT_TAGS(15)
};

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
	size_t		left = reader->end - reader->pos;
	size_t		n = Min(left, PB_MAX_VARINT_BYTES - 1);
	uint64		value = 0;
	int			shift = 0;

	for (size_t i = 0; i < n; i++, shift += 7)
	{
		value |= (uint64) (p[i] & 0x7F) << shift;
		if (p[i] < 0x80)
		{
			reader->pos += i + 1;
			return value;
		}
	}
	if (left < PB_MAX_VARINT_BYTES)
		pb_error(reader, reader->pos, "a varint runs past the end of its message.");
	/* the tenth byte may only hold the 64th bit */
	if (p[PB_MAX_VARINT_BYTES - 1] > 1)
		pb_error(reader, reader->pos, "a varint does not fit in 64 bits.");
	reader->pos += PB_MAX_VARINT_BYTES;
	return value | (uint64) p[PB_MAX_VARINT_BYTES - 1] << 63;
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
void
pb_reserve_varints(uint64 **values, int count, int *capacity, size_t more)
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
 * The varint at p of a packed field that ends at end into *value; where it
 * ends.  One of up to nine bytes that ends inside the field is read here
 * (no check can fail on it); the others through pb_read_varint on a
 * reader of the field's bytes, which raises the errors.
 */
static pg_noinline const uint8 *
packed_varint_slow(const PbReader *reader, const uint8 *p, const uint8 *end, uint64 *value)
{
	PbReader	packed;
	uint64		v = 0;
	int			shift = 0;

	for (const uint8 *q = p; q < end && q - p < PB_MAX_VARINT_BYTES - 1; q++, shift += 7)
	{
		v |= (uint64) (*q & 0x7F) << shift;
		if (*q < 0x80)
		{
			*value = v;
			return q + 1;
		}
	}
	packed = *reader;
	packed.pos = p - reader->data;
	packed.end = end - reader->data;
	*value = pb_read_varint(&packed);
	return reader->data + packed.pos;
}

/*
 * A varint of one to four bytes at *p (ids, counts, most sampled values),
 * of which `left` (at least one) can be read: moves *p past it; false,
 * without moving, for other varints.
 */
static inline bool
short_varint(const uint8 **p, size_t left, uint64 *value)
{
	const uint8 *q = *p;

	if (q[0] < 0x80)
	{
		*value = q[0];
		*p += 1;
		return true;
	}
	if (left >= 2 && q[1] < 0x80)
	{
		*value = (uint64) (q[0] & 0x7F) | (uint64) q[1] << 7;
		*p += 2;
		return true;
	}
	if (left >= 3 && q[2] < 0x80)
	{
		*value = (uint64) (q[0] & 0x7F) | (uint64) (q[1] & 0x7F) << 7 | (uint64) q[2] << 14;
		*p += 3;
		return true;
	}
	if (left >= 4 && q[3] < 0x80)
	{
		*value = (uint64) (q[0] & 0x7F) | (uint64) (q[1] & 0x7F) << 7 | (uint64) (q[2] & 0x7F) << 14 |
			(uint64) q[3] << 21;
		*p += 4;
		return true;
	}
	return false;
}

/*
 * Decodes the len bytes of packed varints at the reader's position into
 * out, which has room for len values; their number.  While four bytes
 * are left, short varints are read without a check of the end; the last
 * ones with it, and longer ones by packed_varint_slow.
 */
static inline int
read_packed_varints(const PbReader *reader, size_t len, uint64 *out)
{
	const uint8 *p = reader->data + reader->pos;
	const uint8 *end = p + len;
	const uint8 *four_left = end - Min(len, 3);
	uint64	   *o = out;
	uint64		value;

	for (;;)
	{
		while (p < four_left && short_varint(&p, 4, &value))
			*o++ = value;
		if (p == end)
			break;
		if (short_varint(&p, end - p, &value))
			*o++ = value;
		else
			p = packed_varint_slow(reader, p, end, o++);
	}
	return (int) (o - out);
}

void
pb_append_varints(PbReader *reader, int wiretype, const char *field_name,
				  uint64 **values, int *count, int *capacity)
{
	size_t		len;

	if (wiretype == PB_VARINT)
	{
		uint64		value = pb_read_varint(reader);

		pb_reserve_varints(values, *count, capacity, 1);
		(*values)[(*count)++] = value;
		return;
	}
	if (wiretype != PB_LEN)
		pb_error(reader, reader->field_at, "repeated field %s has wire type %d, expected 0 or 2 (packed).",
				 field_name, wiretype);
	len = pb_read_length(reader);
	if (len == 0)
		return;
	/* every varint takes at least one byte, so the count is bounded by the length */
	if ((size_t) (*capacity - *count) < len)
		pb_reserve_varints(values, *count, capacity, len);
	*count += read_packed_varints(reader, len, *values + *count);
	reader->pos += len;
}

bool
pb_packed_varints_short(const uint8 *start, const uint8 *end)
{
	int			run = 0;

	if (end > start && end[-1] >= 0x80)
		return false;
	/* a varint of five bytes or more: four bytes of 0x80 and over in a row */
	for (const uint8 *p = start; p < end; p++)
	{
		run = *p >= 0x80 ? run + 1 : 0;
		if (run == 4)
			return false;
	}
	return true;
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
