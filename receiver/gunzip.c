/*
 * gunzip.c
 *	  A gzip-compressed request body, inflated within the limit (gunzip.h).
 */
#include "gunzip.h"

#include <string.h>
#include <zlib.h>

bool
gunzip(const Buffer *in, size_t max, Buffer *out, bool *too_large)
{
	z_stream	z;
	char		piece[65536];
	int			rc = Z_OK;

	*too_large = false;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return false;
	z.next_in = (Bytef *) in->data;
	z.avail_in = (uInt) in->len;
	while (rc != Z_STREAM_END)
	{
		size_t		n;

		z.next_out = (Bytef *) piece;
		z.avail_out = sizeof(piece);
		rc = inflate(&z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END)
			break;
		n = sizeof(piece) - z.avail_out;
		if (out->len + n > max)
		{
			*too_large = true;
			break;
		}
		if (!buf_append(out, piece, n) || (n == 0 && z.avail_in == 0 && rc != Z_STREAM_END))
			break;
	}
	inflateEnd(&z);
	return rc == Z_STREAM_END && !*too_large && !out->failed;
}
