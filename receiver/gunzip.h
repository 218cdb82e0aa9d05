/*
 * gunzip.h
 *	  A gzip-compressed request body (Content-Encoding: gzip), inflated
 *	  within the body limit.
 */
#ifndef RECEIVER_GUNZIP_H
#define RECEIVER_GUNZIP_H

#include <stdbool.h>

#include "buffer.h"

/*
 * in inflated into out, every member of it; false with *too_large set
 * when it would pass max, false without when it is not gzip, is cut short
 * or has bytes after its last member that are not gzip
 */
extern bool gunzip(const Buffer *in, size_t max, Buffer *out, bool *too_large);

#endif
