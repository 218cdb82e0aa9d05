/*
 * server.h
 *	  The HTTP server: libmicrohttpd, a thread per connection.
 */
#ifndef RECEIVER_SERVER_H
#define RECEIVER_SERVER_H

#include <stdbool.h>

#include "receiver.h"

struct MHD_Daemon;

/* Listening on the options' address; NULL after logging why not.  *port: the port bound. */
extern struct MHD_Daemon *server_start(Receiver *receiver, int *port);

/* Stops taking connections, waits up to drain_timeout for requests, stops. */
extern void server_drain_and_stop(struct MHD_Daemon *daemon, Receiver *receiver);

#endif
