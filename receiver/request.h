/*
 * request.h
 *	  A request as the handlers see it (its body read whole, within the
 *	  limit) and the reply they fill in.  The HTTP server (server.c) makes
 *	  the first and sends the second; the handlers know nothing of
 *	  libmicrohttpd beyond looking up headers and query parameters.
 */
#ifndef RECEIVER_REQUEST_H
#define RECEIVER_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "buffer.h"

struct MHD_Connection;
struct Receiver;

typedef struct Request
{
	struct Receiver *receiver;
	struct MHD_Connection *connection;
	const char *method;
	const char *path;
	Buffer		body;
} Request;

typedef struct Reply
{
	int			status;
	const char *content_type;
	Buffer		body;
	int			retry_after;	/* seconds; 0: no Retry-After header */
	const char *endpoint;		/* the route's name, for the metrics */
} Reply;

/* A header or query parameter of the request, or NULL */
extern const char *request_header(const Request *req, const char *name);
extern const char *request_param(const Request *req, const char *name);

/*
 * Whether no name or value of the query holds a NUL (%00), which the
 * strings of request_param would end at, silently; false after a 400
 */
extern bool request_query_is_text(const Request *req, Reply *reply);

/* A plain-text reply: status and a message ending with a newline */
extern void reply_text(Reply *reply, int status, const char *fmt,...) __attribute__((format(printf, 3, 4)));

#endif
