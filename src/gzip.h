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
 * gzip(1) writes them) into a new palloc'd buffer, after `header` bytes
 * left for the caller (a varlena header: the data then becomes a datum
 * without a copy).  Corrupt or truncated data and output larger than
 * max_len are errors naming the format and the offset in the compressed
 * input.
 */
extern char *gzip_decompress(const char *data, size_t len, size_t max_len,
							 const char *format, size_t header, size_t *out_len);

/* Compresses data into a gzip stream appended to buf */
extern void gzip_compress(const char *data, size_t len, StringInfo buf);

#endif							/* CALLTREE_GZIP_H */
