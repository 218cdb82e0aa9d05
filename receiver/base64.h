/*
 * base64.h
 *	  Base64 decoding: the standard alphabet and the URL-safe one, padding
 *	  optional (as protobuf's JSON mapping accepts bytes).
 */
#ifndef RECEIVER_BASE64_H
#define RECEIVER_BASE64_H

#include <stdbool.h>
#include <stddef.h>

/* in decoded into out (room for len * 3 / 4 + 3 bytes); false if it is not base64 */
extern bool base64_decode(const char *in, size_t len, char *out, size_t *out_len);

#endif
