/*
 * multipart.h
 *	  multipart/form-data bodies (RFC 7578), read in place.
 */
#ifndef RECEIVER_MULTIPART_H
#define RECEIVER_MULTIPART_H

#include <stdbool.h>
#include <stddef.h>

/* Whether a Content-Type is multipart/form-data */
extern bool multipart_is(const char *content_type);

/*
 * The part called name: *part points into body.  False with *error when
 * the body is not the multipart its Content-Type says; true with *part
 * NULL when it is but has no such part.
 */
extern bool multipart_find(const char *content_type, const char *body, size_t len, const char *name,
						   const char **part, size_t *part_len, const char **error);

#endif
