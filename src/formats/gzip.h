/*
 * gzip.h
 *	  gzip compression and decompression with zlib, bounded in size.
 */
#ifndef CALLTREE_GZIP_H
#define CALLTREE_GZIP_H

#include "postgres.h"

#include "lib/stringinfo.h"

/* Whether data starts with the gzip magic bytes 1f 8b */
extern bool gzip_is_compressed(const char *data, size_t len);

/*
 * Decompresses a gzip stream (several members in a row are allowed, as
 * gzip(1) writes them) into a new palloc'd buffer.  Corrupt or truncated
 * data and output larger than max_len are errors naming the format and the
 * offset in the compressed input.
 */
extern char *gzip_decompress(const char *data, size_t len, size_t max_len,
							 const char *format, size_t *out_len);

/*
 * The same, a piece at a time: gzip_reader_read fills buf as far as the
 * stream goes (less than size only at its end, which gzip_reader_ended
 * then tells), with the same errors.  The stream's checksum is checked at
 * its end only: gzip_check reads it all first, keeping nothing, and
 * reports what gzip_decompress would (more than max_len bytes too).
 */
typedef struct GzipReader GzipReader;

extern GzipReader *gzip_reader_begin(const char *data, size_t len, const char *format);
extern size_t gzip_reader_read(GzipReader *r, char *buf, size_t size);
extern bool gzip_reader_ended(const GzipReader *r);
extern void gzip_reader_end(GzipReader *r);
extern void gzip_check(const char *data, size_t len, size_t max_len, const char *format);

/* Compresses data into a gzip stream appended to buf */
extern void gzip_compress(const char *data, size_t len, StringInfo buf);

#endif							/* CALLTREE_GZIP_H */
