/*
 * router.h
 *	  Which handler serves which method and path.
 */
#ifndef RECEIVER_ROUTER_H
#define RECEIVER_ROUTER_H

#include "request.h"

extern void route(Request *req, Reply *reply);

/* The name of the endpoint of a path, for the metrics: "ingest", "push"... or "other" */
extern const char *route_endpoint(const char *path);

/* The handlers; role: the tenant's PostgreSQL role, NULL without tenants */
extern void ingest_handle(Request *req, const char *role, Reply *reply);
extern void push_handle(Request *req, const char *role, Reply *reply);
extern void otlp_handle(Request *req, const char *role, Reply *reply);

/* A refusal (its text the message) as a Connect error: JSON {code, message} */
extern void reply_connect_error(Reply *reply);

/*
 * A refusal (its text the message) as OTLP/HTTP's google.rpc.Status: in
 * JSON for a request of Content-Type application/json, else in protobuf
 */
extern void reply_otlp_status(Reply *reply, const char *request_type);

#endif
