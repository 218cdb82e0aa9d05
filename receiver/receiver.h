/*
 * receiver.h
 *	  calltree-receiver: takes the profiles that agents push over HTTP and
 *	  imports each push in one transaction through calltree's import
 *	  functions.  The files, one concern each:
 *	    main.c			start, signals, draining
 *	    options.c		the command line
 *	    server.c		HTTP (libmicrohttpd): bodies within the limit, replies
 *	    deadline.c		the whole request, headers too, within --request-timeout
 *	    router.c		which handler serves which method and path
 *	    ingest.c		Pyroscope's POST /ingest
 *	    ingest_params.c	its query parameters: name{labels}, from, until...
 *	    multipart.c		multipart/form-data bodies
 *	    push.c			Pyroscope's POST /push.v1.PusherService/Push
 *	    push_request.c	its PushRequest, from protobuf
 *	    push_json.c		its PushRequest, from JSON
 *	    otlp.c			OpenTelemetry's POST /v1development/profiles
 *	    otlp_json.c		its OTLP/JSON requests, made protobuf
 *	    otlp_messages.c	the OTLP messages, field by field, for otlp_json.c
 *	    protobuf.c		a reader of protobuf wire format, a writer of a few fields
 *	    json_reader.c	a reader of JSON text
 *	    gunzip.c		gzipped request bodies (Content-Encoding)
 *	    base64.c		base64 (JSON bytes, Basic credentials)
 *	    db_pool.c		the database connections
 *	    db_import.c		one push, one transaction, in two round trips
 *	    db_item.c		the statements of one profile of a push; retries known
 *	    tenants.c		credentials to PostgreSQL roles
 *	    metrics.c		counters for GET /metrics
 *	    buffer.c		growable buffers, JSON strings
 */
#ifndef RECEIVER_RECEIVER_H
#define RECEIVER_RECEIVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct Options
{
	const char *listen_host;	/* numeric address */
	int			listen_port;
	const char *conninfo;
	size_t		max_body;		/* bytes of a request body */
	int			connections;	/* to the database */
	int			max_clients;	/* HTTP connections at once */
	int			max_clients_per_address;	/* of them from one client address */
	int			timeout;		/* seconds a client may stay silent */
	int			request_timeout;	/* seconds to send a whole request */
	int			queue_wait_ms;	/* for a free database connection */
	int			drain_timeout;	/* seconds SIGTERM waits for requests */
	const char *tenants_file;
	bool		verbose;
} Options;

struct DbPool;
struct Tenants;

typedef struct Receiver
{
	Options		options;
	struct DbPool *db;
	struct Tenants *tenants;	/* NULL: none configured */
	atomic_int	in_flight;		/* requests being served */
} Receiver;

extern bool parse_options(int argc, char **argv, Options *options);

extern void log_message(const char *fmt,...) __attribute__((format(printf, 1, 2)));

#endif
