/*
 * gzip.c
 *	  gzip compression and decompression with zlib (see gzip.h).
 *
 * zlib allocates through palloc, so its memory goes with the current
 * memory context even when an error interrupts it.  A whole stream of one
 * member, of moderate size, is decompressed by libdeflate instead, two to
 * three times faster (decompress_at_once); anything it does not take goes
 * through zlib, which names what is wrong and where.
 */
#include "postgres.h"

#include <libdeflate.h>
#include <zlib.h>

#include "miscadmin.h"

#include "formats/gzip.h"

/* windowBits for a gzip wrapper (16) with the largest window (15) */
#define GZIP_WINDOW_BITS (16 + MAX_WBITS)
#define GZIP_CHUNK (64 * 1024)
/* the most decompressed at once, without a check for interrupts: ~0.1 s */
#define AT_ONCE_MAX (64 * 1024 * 1024)

static voidpf
zlib_alloc(voidpf opaque, uInt items, uInt size)
{
	return palloc((Size) items * size);
}

static void
zlib_free(voidpf opaque, voidpf address)
{
	pfree(address);
}

bool
gzip_is_compressed(const char *data, size_t len)
{
	return len >= 2 && (uint8) data[0] == 0x1f && (uint8) data[1] == 0x8b;
}

pg_attribute_noreturn()
static void
gzip_error(const char *format, size_t at, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("corrupt gzip-compressed %s data at byte %zu", format, at),
			 errdetail("zlib: %s.", what),
			 errhint("The file may be truncated; \"gzip -t\" checks it.")));
	pg_unreachable();
}

/* The input ends inside the stream: a file cut short, said so */
pg_attribute_noreturn()
static void
gzip_truncated(const char *format, size_t len)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("corrupt gzip-compressed %s data at byte %zu", format, len),
			 errdetail("The data is truncated: it ends after %zu bytes, before the end of the gzip stream.", len),
			 errhint("The file was cut short (an interrupted copy or download); \"gzip -t\" checks it.")));
	pg_unreachable();
}

pg_attribute_noreturn()
static void
too_large(const char *format, size_t max_len)
{
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("decompressed %s data is larger than %zu bytes", format, max_len),
			 errhint("Split the profile, or import it uncompressed in smaller parts.")));
	pg_unreachable();
}

/*
 * Grows the output buffer by doubling, up to max_len (plus one byte to
 * detect overflow).
 */
static void
grow_output(char **out, size_t *capacity, size_t max_len, const char *format)
{
	size_t		wanted = Min(*capacity * 2, max_len + 1);

	if (*capacity > max_len)
		too_large(format, max_len);
	*out = repalloc_huge(*out, wanted);
	*capacity = wanted;
}

struct GzipReader
{
	z_stream	z;
	const char *data;
	size_t		len;
	const char *format;
	bool		ended;
};

GzipReader *
gzip_reader_begin(const char *data, size_t len, const char *format)
{
	GzipReader *r = palloc0(sizeof(GzipReader));

	r->z.zalloc = zlib_alloc;
	r->z.zfree = zlib_free;
	if (inflateInit2(&r->z, GZIP_WINDOW_BITS) != Z_OK)
		elog(ERROR, "inflateInit2 failed: %s", r->z.msg ? r->z.msg : "unknown error");
	r->z.next_in = (Bytef *) data;
	r->data = data;
	r->len = len;
	r->format = format;
	return r;
}

size_t
gzip_reader_read(GzipReader *r, char *buf, size_t size)
{
	z_stream   *z = &r->z;
	size_t		produced = 0;

	while (produced < size && !r->ended)
	{
		size_t		used = (const char *) z->next_in - r->data;
		int			ret;

		CHECK_FOR_INTERRUPTS();
		/* zlib counts in uInt: feed it at most 1 GB at a time */
		z->avail_in = (uInt) Min(r->len - used, (size_t) 1 << 30);
		z->next_out = (Bytef *) buf + produced;
		z->avail_out = (uInt) Min(size - produced, (size_t) 1 << 30);
		ret = inflate(z, Z_NO_FLUSH);
		produced = (char *) z->next_out - buf;
		used = (const char *) z->next_in - r->data;
		if (ret == Z_STREAM_END)
		{
			/* another gzip member may follow; anything else is an error */
			if (used == r->len)
				r->ended = true;
			else if (!gzip_is_compressed(r->data + used, r->len - used))
				gzip_error(r->format, used, "trailing bytes after the gzip stream");
			else if (inflateReset(z) != Z_OK)
				gzip_error(r->format, used, "cannot restart for the next member");
			continue;
		}
		/* no progress with room left to write: the input is used up */
		if (ret == Z_BUF_ERROR && z->avail_out > 0 && used == r->len)
			gzip_truncated(r->format, r->len);
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			gzip_error(r->format, used, z->msg ? z->msg : "invalid data");
	}
	return produced;
}

bool
gzip_reader_ended(const GzipReader *r)
{
	return r->ended;
}

void
gzip_reader_end(GzipReader *r)
{
	inflateEnd(&r->z);
	pfree(r);
}

void
gzip_check(const char *data, size_t len, size_t max_len, const char *format)
{
	GzipReader *r = gzip_reader_begin(data, len, format);
	char	   *scratch = palloc(GZIP_CHUNK);
	size_t		total = 0;

	while (!r->ended)
	{
		total += gzip_reader_read(r, scratch, GZIP_CHUNK);
		if (total > max_len)
			too_large(format, max_len);
	}
	gzip_reader_end(r);
	pfree(scratch);
}

/*
 * A stream of one gzip member whose trailer gives its size (modulo 2^32),
 * decompressed into a buffer of that size in one call; NULL when it is not
 * one, when that size is wrong or too large, or when the data is corrupt:
 * the caller then reads it with zlib.  libdeflate checks the CRC-32 and the
 * size.  Its decompressor is the backend's, made on first use (malloc).
 */
static char *
decompress_at_once(const char *data, size_t len, size_t max_len, size_t *out_len)
{
	static struct libdeflate_decompressor *decompressor = NULL;
	const uint8 *trailer = (const uint8 *) data + len - 4;
	size_t		size;
	size_t		used;
	size_t		produced;
	char	   *out;

	/* a header of 10 bytes, an empty deflate block, the 8-byte trailer */
	if (len < 20)
		return NULL;
	size = (size_t) trailer[0] | (size_t) trailer[1] << 8 | (size_t) trailer[2] << 16 | (size_t) trailer[3] << 24;
	if (size > max_len || size > AT_ONCE_MAX)
		return NULL;
	if (decompressor == NULL && (decompressor = libdeflate_alloc_decompressor()) == NULL)
		return NULL;
	out = palloc(Max(size, 1));
	if (libdeflate_gzip_decompress_ex(decompressor, data, len, out, size, &used, &produced) != LIBDEFLATE_SUCCESS ||
		used != len || produced != size)
	{
		pfree(out);
		return NULL;
	}
	*out_len = produced;
	return out;
}

char *
gzip_decompress(const char *data, size_t len, size_t max_len, const char *format, size_t *out_len)
{
	char	   *at_once = decompress_at_once(data, len, max_len, out_len);
	GzipReader *r;
	size_t		capacity;
	char	   *out;
	size_t		produced = 0;

	if (at_once)
		return at_once;
	r = gzip_reader_begin(data, len, format);
	capacity = Min(Max(len * 4, (size_t) GZIP_CHUNK), max_len + 1);
	out = palloc_extended(capacity, MCXT_ALLOC_HUGE);

	while (!r->ended)
	{
		if (produced == capacity)
			grow_output(&out, &capacity, max_len, format);
		produced += gzip_reader_read(r, out + produced, capacity - produced);
	}
	if (produced > max_len)
		grow_output(&out, &capacity, max_len, format);	/* reports the limit */
	gzip_reader_end(r);
	*out_len = produced;
	return out;
}

void
gzip_compress(const char *data, size_t len, StringInfo buf)
{
	z_stream	z;
	int			ret;

	memset(&z, 0, sizeof(z));
	z.zalloc = zlib_alloc;
	z.zfree = zlib_free;
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW_BITS, 8,
					 Z_DEFAULT_STRATEGY) != Z_OK)
		elog(ERROR, "deflateInit2 failed: %s", z.msg ? z.msg : "unknown error");
	z.next_in = (Bytef *) data;
	z.avail_in = (uInt) len;
	do
	{
		CHECK_FOR_INTERRUPTS();
		enlargeStringInfo(buf, GZIP_CHUNK);
		z.next_out = (Bytef *) buf->data + buf->len;
		z.avail_out = (uInt) (buf->maxlen - buf->len - 1);
		ret = deflate(&z, Z_FINISH);
		if (ret == Z_STREAM_ERROR)
			elog(ERROR, "deflate failed: %s", z.msg ? z.msg : "unknown error");
		buf->len = (char *) z.next_out - buf->data;
	} while (ret != Z_STREAM_END);
	deflateEnd(&z);
	buf->data[buf->len] = '\0';
}
