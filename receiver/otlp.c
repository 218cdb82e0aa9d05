/*
 * otlp.c
 *	  OpenTelemetry's POST /v1development/profiles (OTLP/HTTP): an
 *	  ExportProfilesServiceRequest in protobuf (application/x-protobuf)
 *	  or in OTLP/JSON (application/json, made protobuf by otlp_json.c),
 *	  maybe gzipped (Content-Encoding, inflated within the body limit),
 *	  imported whole by calltree.import_otlp in one transaction, so that
 *	  the extension checks every byte of it.  With a tenant, the import
 *	  runs as its role and every profile's meta gets "tenant".
 *
 *	  The reply is an empty ExportProfilesServiceResponse (no bytes, or
 *	  {} in JSON):
 *	  the request is taken whole or not at all, so there is never a
 *	  partial_success to report.  A refusal is, as OTLP/HTTP asks, a
 *	  google.rpc.Status { int32 code = 1; string message = 2; } with the
 *	  gRPC code of its HTTP status, in protobuf, or in JSON for a request
 *	  sent as JSON; the router makes it of every refusal of this endpoint.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db_import.h"
#include "gunzip.h"
#include "otlp_json.h"
#include "protobuf.h"
#include "receiver.h"
#include "router.h"

#define PROTOBUF_TYPE "application/x-protobuf"
#define JSON_TYPE "application/json"

/* Whether a Content-Type is the media type name, parameters aside */
static bool
is_media_type(const char *type, const char *name)
{
	size_t		len = strlen(name);

	return type != NULL && strncasecmp(type, name, len) == 0 &&
		(type[len] == '\0' || type[len] == ';' || type[len] == ' ');
}

static bool
is_protobuf(const char *type)
{
	return is_media_type(type, PROTOBUF_TYPE) || is_media_type(type, "application/protobuf");
}

/* The gRPC status code (google.rpc.Code) of an HTTP status */
static int
grpc_code(int status)
{
	switch (status)
	{
		case 400: return 3;		/* INVALID_ARGUMENT */
		case 401: return 16;	/* UNAUTHENTICATED */
		case 403: return 7;		/* PERMISSION_DENIED */
		case 404:
		case 405:
		case 415:
		case 501: return 12;	/* UNIMPLEMENTED */
		case 413:
		case 429: return 8;		/* RESOURCE_EXHAUSTED */
		case 503: return 14;	/* UNAVAILABLE */
		default: return 13;		/* INTERNAL */
	}
}

void
reply_otlp_status(Reply *reply, const char *request_type)
{
	Buffer		status;
	size_t		len = reply->body.len;
	const char *message = reply->body.data ? reply->body.data : "";

	while (len > 0 && message[len - 1] == '\n')
		len--;
	buf_init(&status);
	if (is_media_type(request_type, JSON_TYPE))
	{
		buf_printf(&status, "{\"code\":%d,\"message\":", grpc_code(reply->status));
		buf_append_json_string(&status, message, len);
		buf_append(&status, "}", 1);
		reply->content_type = JSON_TYPE;
	}
	else
	{
		pb_append_varint_field(&status, 1, (uint64_t) grpc_code(reply->status));
		pb_append_bytes_field(&status, 2, message, len);
		reply->content_type = PROTOBUF_TYPE;
	}
	buf_free(&reply->body);
	reply->body = status;
}

/* The body inflated into *inflated if gzipped, or the body; false after a 4xx */
static bool
inflated_body(Request *req, Buffer *inflated, const Buffer **bytes, Reply *reply)
{
	const char *encoding = request_header(req, "Content-Encoding");
	bool		too_large;

	*bytes = &req->body;
	if (encoding == NULL || strcasecmp(encoding, "identity") == 0)
		return true;
	if (strcasecmp(encoding, "gzip") != 0)
	{
		reply_text(reply, 415, "Content-Encoding \"%s\" is not supported: send gzip or identity", encoding);
		return false;
	}
	if (!gunzip(&req->body, req->receiver->options.max_body, inflated, &too_large))
	{
		if (too_large)
			reply_text(reply, 413, "the body inflates past the limit of %zu bytes", req->receiver->options.max_body);
		else
			reply_text(reply, 400, "the body is not valid gzip (Content-Encoding: gzip)");
		return false;
	}
	*bytes = inflated;
	return true;
}

/* OTLP/JSON text made protobuf into *converted; false after a 4xx */
static bool
protobuf_of_json(Request *req, const Buffer *json, Buffer *converted, Reply *reply)
{
	Buffer		error;
	bool		too_large;
	bool		ok;

	buf_init(&error);
	ok = otlp_json_to_protobuf(json->data ? json->data : "", json->len, req->receiver->options.max_body,
							   converted, &error, &too_large);
	if (!ok)
		reply_text(reply, too_large ? 413 : 400, "%s", error.data ? error.data : "invalid OTLP/JSON");
	buf_free(&error);
	return ok;
}

/*
 * The request's protobuf bytes: the body, inflated into *inflated if
 * gzipped, made protobuf into *converted if JSON; false after a 4xx
 */
static bool
request_bytes(Request *req, Buffer *inflated, Buffer *converted, const Buffer **bytes, Reply *reply)
{
	const char *type = request_header(req, "Content-Type");
	bool		json = is_media_type(type, JSON_TYPE);

	if (!json && !is_protobuf(type))
	{
		reply_text(reply, 415, "Content-Type \"%s\" is not supported: send OTLP in protobuf, " PROTOBUF_TYPE
				   ", or in JSON, " JSON_TYPE, type ? type : "");
		return false;
	}
	if (!inflated_body(req, inflated, bytes, reply))
		return false;
	if (!json)
		return true;
	if (!protobuf_of_json(req, *bytes, converted, reply))
		return false;
	buf_free(inflated);			/* the JSON text, no longer needed */
	*bytes = converted;
	return true;
}

void
otlp_handle(Request *req, const char *role, Reply *reply)
{
	Buffer		inflated;
	Buffer		converted;
	Buffer		meta;
	const Buffer *bytes;
	ImportItem	item = {0};
	ImportCounts counts;

	buf_init(&inflated);
	buf_init(&converted);
	buf_init(&meta);
	if (role != NULL)
	{
		buf_append_str(&meta, "{\"tenant\":");
		buf_append_json_string(&meta, role, strlen(role));
		buf_append(&meta, "}", 1);
	}
	if (request_bytes(req, &inflated, &converted, &bytes, reply))
	{
		item.data = bytes->data ? bytes->data : "";
		item.len = bytes->len;
		item.format = "otlp";
		item.meta = meta.data;
		if (db_import(req->receiver->db, role, &item, 1, reply, &counts))
		{
			/* an empty ExportProfilesServiceResponse: nothing was refused */
			bool		json = is_media_type(request_header(req, "Content-Type"), JSON_TYPE);

			reply->status = 200;
			reply->content_type = json ? JSON_TYPE : PROTOBUF_TYPE;
			buf_free(&reply->body);
			if (json)
				buf_append_str(&reply->body, "{}");
		}
	}
	buf_free(&meta);
	buf_free(&converted);
	buf_free(&inflated);
}
