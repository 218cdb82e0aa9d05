/*
 * gunzip.h
 *	  A gzip-compressed request body (Content-Encoding: gzip), inflated
 *	  within the body limit.
 */
#ifndef RECEIVER_GUNZIP_H
#define RECEIVER_GUNZIP_H

#include <stdbool.h>

#include "buffer.h"

/* in inflated into out; false with *too_large when it would pass max, or not gzip */
extern bool gunzip(const Buffer *in, size_t max, Buffer *out, bool *too_large);

#endif
