/*
 * deadline.h
 *	  --request-timeout for the whole of a request, its headers included.
 *	  libmicrohttpd drops a client silent for --timeout, and hands us the
 *	  body only once the headers are in: a client that sends a header
 *	  byte every few seconds would hold its connection for ever, and
 *	  --max-clients of them every connection.  A watchdog thread cuts the
 *	  connection of a request not whole --request-timeout after it could
 *	  begin: --timeout after the one before it ended, or the connection
 *	  began.
 */
#ifndef RECEIVER_DEADLINE_H
#define RECEIVER_DEADLINE_H

#include <stdbool.h>

#include <microhttpd.h>

typedef struct Deadlines Deadlines;

/*
 * The watchdog, started: a request gets request_seconds, after up to
 * idle_seconds (--timeout) of waiting for it to begin; NULL if it cannot
 * start
 */
extern Deadlines *deadlines_start(int request_seconds, int idle_seconds);

/* Stops the watchdog (once the server is stopped: no connection is left) */
extern void deadlines_stop(Deadlines *deadlines);

/*
 * libmicrohttpd's MHD_OPTION_NOTIFY_CONNECTION, cls the Deadlines: a
 * connection opened (its first request's clock starts) or closed
 */
extern void deadline_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
							enum MHD_ConnectionNotificationCode code);

/* The request on connection is whole: its clock stops; false if it was cut */
extern bool deadline_request_whole(struct MHD_Connection *connection);

/* The request on connection is done with: the next one's clock starts */
extern void deadline_next_request(struct MHD_Connection *connection);

#endif
