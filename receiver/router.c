/*
 * router.c
 *	  Which handler serves which method and path (router.h).  The pushes
 *	  are authenticated here, once, for every handler that imports.
 */
#include "router.h"

#include <stdlib.h>
#include <string.h>

#include "db_import.h"
#include "db_pool.h"
#include "metrics.h"
#include "receiver.h"
#include "tenants.h"

typedef void (*PushHandler) (Request *req, const char *role, Reply *reply);

typedef struct Route
{
	const char *path;
	const char *method;
	const char *endpoint;		/* for the metrics */
	PushHandler push;			/* an import, authenticated; or NULL */
	bool		connect;		/* refusals are Connect errors */
	bool		otlp;			/* refusals are OTLP's google.rpc.Status */
	void		(*plain) (Request *req, Reply *reply);
} Route;

static void
ready_handle(Request *req, Reply *reply)
{
	db_check_ready(req->receiver->db, reply);
}

static void
metrics_handle(Request *req, Reply *reply)
{
	reply->status = 200;
	reply->content_type = "text/plain; version=0.0.4; charset=utf-8";
	metrics_render(&reply->body, req->receiver->db, req->receiver->in_flight);
}

static const Route routes[] = {
	{"/ingest", "POST", "ingest", ingest_handle, false, false, NULL},
	{"/push.v1.PusherService/Push", "POST", "push", push_handle, true, false, NULL},
	{"/v1development/profiles", "POST", "otlp", otlp_handle, false, true, NULL},
	{"/ready", "GET", "ready", NULL, false, false, ready_handle},
	{"/metrics", "GET", "metrics", NULL, false, false, metrics_handle},
};

const char *
route_endpoint(const char *path)
{
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (strcmp(path, routes[i].path) == 0)
			return routes[i].endpoint;
	return "other";
}

void
route(Request *req, Reply *reply)
{
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
	{
		const Route *r = &routes[i];
		char	   *role = NULL;

		if (strcmp(req->path, r->path) != 0)
			continue;
		reply->endpoint = r->endpoint;
		if (strcmp(req->method, r->method) != 0)
			reply_text(reply, 405, "%s takes %s, not %s", r->path, r->method, req->method);
		else if (r->plain != NULL)
			r->plain(req, reply);
		else if (request_query_is_text(req, reply) &&
				 tenants_authenticate(req->receiver->tenants, req, &role, reply))
			r->push(req, role, reply);
		if (r->connect && reply->status >= 400)
			reply_connect_error(reply);
		if (r->otlp && reply->status >= 400)
			reply_otlp_status(reply, request_header(req, "Content-Type"));
		free(role);
		return;
	}
	reply->endpoint = "other";
	reply_text(reply, 404, "no such endpoint: %s", req->path);
}
