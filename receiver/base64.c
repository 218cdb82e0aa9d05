/*
 * base64.c
 *	  Base64 decoding (base64.h).
 */
#include "base64.h"

static int
sextet(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

bool
base64_decode(const char *in, size_t len, char *out, size_t *out_len)
{
	unsigned int acc = 0;
	int			bits = 0;
	size_t		n = 0;
	size_t		i;

	for (i = 0; i < len && in[i] != '='; i++)
	{
		int			v = sextet(in[i]);

		if (v < 0)
			return false;
		acc = (acc << 6) | (unsigned int) v;
		bits += 6;
		if (bits >= 8)
		{
			bits -= 8;
			out[n++] = (char) ((acc >> bits) & 0xFF);
		}
	}
	/* only padding may follow, and a lone sextet is not a byte */
	for (; i < len; i++)
		if (in[i] != '=')
			return false;
	if (bits >= 6)
		return false;
	*out_len = n;
	return true;
}
