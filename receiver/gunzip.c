/*
 * gunzip.c
 *	  A gzip-compressed request body, inflated within the limit (gunzip.h).
 *
 * A gzip file may hold several members, one after the other (gzip -c a
 * b, pigz, appended logs), which gzip -d, Go's reader and calltree's
 * importers read as one: so does this, member after member, so that no
 * part of a body answered 200 is dropped.  Bytes after a member that
 * are not another member make the body invalid, not ignored.
 */
#include "gunzip.h"

#include <string.h>
#include <zlib.h>

/*
 * One member, from z's input on, appended to out: Z_STREAM_END once it
 * is whole, else zlib's error (Z_BUF_ERROR: cut short), or Z_MEM_ERROR
 * with *too_large when it passes max
 */
static int
inflate_member(z_stream *z, size_t max, Buffer *out, bool *too_large)
{
	char		piece[65536];
	int			rc = Z_OK;

	while (rc == Z_OK)
	{
		size_t		n;

		z->next_out = (Bytef *) piece;
		z->avail_out = sizeof(piece);
		rc = inflate(z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END)
			return rc;
		n = sizeof(piece) - z->avail_out;
		if (out->len + n > max)
		{
			*too_large = true;
			return Z_MEM_ERROR;
		}
		if (!buf_append(out, piece, n))
			return Z_MEM_ERROR;
		if (rc == Z_OK && n == 0 && z->avail_in == 0)
			return Z_BUF_ERROR;
	}
	return rc;
}

bool
gunzip(const Buffer *in, size_t max, Buffer *out, bool *too_large)
{
	z_stream	z;
	int			rc;

	*too_large = false;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return false;
	z.next_in = (Bytef *) in->data;
	z.avail_in = (uInt) in->len;
	while ((rc = inflate_member(&z, max, out, too_large)) == Z_STREAM_END && z.avail_in > 0)
		inflateReset(&z);
	inflateEnd(&z);
	return rc == Z_STREAM_END && !*too_large && !out->failed;
}
