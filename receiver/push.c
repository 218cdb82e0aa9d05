/*
 * push.c
 *	  Pyroscope's POST /push.v1.PusherService/Push, a unary call of the
 *	  Connect protocol as Grafana Alloy makes it: a PushRequest in
 *	  protobuf (application/proto) or JSON (application/json), maybe
 *	  gzipped (Content-Encoding).
 *	  Each RawSample of each series is a profile, all imported in one
 *	  transaction.  The labels service_name (else __name__) name the
 *	  series' profiles, the others go into their meta; a sample's ID is
 *	  kept in meta as push_id, and a sample whose ID is stored already is
 *	  skipped, so that a retried push is stored once.  The reply is an
 *	  empty PushResponse, or a Connect error: JSON {code, message}, which
 *	  the router makes of every refusal of this endpoint.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db_import.h"
#include "gunzip.h"
#include "push_request.h"
#include "receiver.h"
#include "router.h"

/* The Connect error code of an HTTP status */
static const char *
connect_code(int status)
{
	switch (status)
	{
		case 400: return "invalid_argument";
		case 401: return "unauthenticated";
		case 403: return "permission_denied";
		case 404:
		case 415:
		case 501: return "unimplemented";
		case 413:
		case 429: return "resource_exhausted";
		case 503: return "unavailable";
		default: return "internal";
	}
}

void
reply_connect_error(Reply *reply)
{
	Buffer		json;
	size_t		len = reply->body.len;

	while (len > 0 && reply->body.data[len - 1] == '\n')
		len--;
	buf_init(&json);
	buf_printf(&json, "{\"code\":\"%s\",\"message\":", connect_code(reply->status));
	buf_append_json_string(&json, reply->body.data ? reply->body.data : "", len);
	buf_append(&json, "}", 1);
	buf_free(&reply->body);
	reply->body = json;
	reply->content_type = "application/json";
}

static bool
is_label(const PushLabel *label, const char *name)
{
	return label->name.len == strlen(name) && memcmp(label->name.data, name, label->name.len) == 0;
}

/* The series' name: service_name, else __name__; NULL if neither */
static const PushLabel *
naming_label(const PushSeries *series)
{
	const PushLabel *name = NULL;

	for (int i = 0; i < series->nlabels; i++)
		if (is_label(&series->labels[i], "service_name"))
			return &series->labels[i];
		else if (is_label(&series->labels[i], "__name__"))
			name = &series->labels[i];
	return name;
}

/* The meta of one sample: the series' other labels, push_id, tenant */
static void
sample_meta(const PushSeries *series, const PushLabel *naming, const PushSample *sample,
			const char *tenant, Buffer *meta)
{
	bool		first = true;

	buf_append(meta, "{", 1);
	for (int i = 0; i < series->nlabels; i++)
	{
		const PushLabel *label = &series->labels[i];

		if (label == naming)
			continue;
		buf_append_str(meta, first ? "" : ",");
		first = false;
		buf_append_json_string(meta, label->name.data, label->name.len);
		buf_append(meta, ":", 1);
		buf_append_json_string(meta, label->value.data, label->value.len);
	}
	if (sample->id.len > 0)
	{
		buf_append_str(meta, first ? "\"push_id\":" : ",\"push_id\":");
		buf_append_json_string(meta, sample->id.data, sample->id.len);
		first = false;
	}
	if (tenant != NULL)
	{
		buf_append_str(meta, first ? "\"tenant\":" : ",\"tenant\":");
		buf_append_json_string(meta, tenant, strlen(tenant));
	}
	buf_append(meta, "}", 1);
}

/*
 * The items of the request, their strings in strings[] (3 per item), or
 * false after a 400, or a 413 when the items, with the series' labels
 * copied into the meta of each sample, would take more than the limit
 * (less what the request took decoded)
 */
static bool
items_of(const PushRequest *push, const char *tenant, size_t limit, ImportItem **items, int *n,
		 char ***strings, Reply *reply)
{
	int			total = 0;
	int			k = 0;
	size_t		taken = push->decoded;

	for (int i = 0; i < push->nseries; i++)
		total += push->series[i].nsamples;
	taken += ((size_t) total + 1) * (sizeof(ImportItem) + 3 * sizeof(char *));
	*items = calloc((size_t) total + 1, sizeof(ImportItem));
	*strings = calloc((size_t) total * 3 + 1, sizeof(char *));
	if (*items == NULL || *strings == NULL)
	{
		reply_text(reply, 503, "out of memory");
		return false;
	}
	for (int i = 0; i < push->nseries; i++)
	{
		const PushSeries *series = &push->series[i];
		const PushLabel *naming = naming_label(series);

		if (naming == NULL && series->nsamples > 0)
		{
			reply_text(reply, 400, "series %d has neither a label service_name nor __name__ to name its profiles", i + 1);
			return false;
		}
		for (int j = 0; j < series->nsamples; j++, k++)
		{
			const PushSample *sample = &series->samples[j];
			Buffer		meta;

			if (sample->raw_profile.len == 0)
			{
				reply_text(reply, 400, "sample %d of series %d has an empty raw_profile", j + 1, i + 1);
				return false;
			}
			buf_init(&meta);
			sample_meta(series, naming, sample, tenant, &meta);
			(*strings)[3 * k] = meta.data;
			(*strings)[3 * k + 1] = strndup(naming->value.data, naming->value.len);
			(*strings)[3 * k + 2] = sample->id.len ? strndup(sample->id.data, sample->id.len) : NULL;
			*n = k + 1;
			taken += meta.cap + naming->value.len + sample->id.len + 2;
			if (meta.failed || taken > limit)
			{
				reply_text(reply, meta.failed ? 503 : 413,
						   "the push's samples with their series' labels take more than the limit of %zu bytes",
						   limit);
				return false;
			}
			(*items)[k] = (ImportItem) {
				.data = sample->raw_profile.data, .len = sample->raw_profile.len, .format = "pprof",
				.name = (*strings)[3 * k + 1], .meta = meta.data, .push_id = (*strings)[3 * k + 2],
			};
		}
	}
	return true;
}

/* The PushRequest of the body; false after a 4xx */
static bool
decode_body(Request *req, Buffer *inflated, PushRequest *push, Reply *reply)
{
	const char *type = request_header(req, "Content-Type");
	const char *encoding = request_header(req, "Content-Encoding");
	const Buffer *body = &req->body;
	const char *error;
	bool		too_large;

	if (type == NULL || (strncasecmp(type, "application/proto", 17) != 0 &&
						 strncasecmp(type, "application/json", 16) != 0))
	{
		reply_text(reply, 415, "Content-Type \"%s\" is not supported: send application/proto or application/json",
				   type ? type : "");
		return false;
	}
	if (encoding != NULL && strcasecmp(encoding, "identity") != 0)
	{
		if (strcasecmp(encoding, "gzip") != 0)
		{
			reply_text(reply, 415, "Content-Encoding \"%s\" is not supported: send gzip or identity", encoding);
			return false;
		}
		if (!gunzip(body, req->receiver->options.max_body, inflated, &too_large))
		{
			if (too_large)
				reply_text(reply, 413, "the body inflates past the limit of %zu bytes", req->receiver->options.max_body);
			else
				reply_text(reply, 400, "the body is not valid gzip (Content-Encoding: gzip)");
			return false;
		}
		body = inflated;
	}
	if (!(strncasecmp(type, "application/json", 16) == 0 ? push_request_from_json : push_request_decode)
		(body->data ? body->data : "", body->len, req->receiver->options.max_body, push, &error))
	{
		if (push->too_large)
			reply_text(reply, 413, "the PushRequest decodes to more than the limit of %zu bytes "
					   "(its series, labels and samples)", req->receiver->options.max_body);
		else
			reply_text(reply, 400, "%s", error);
		return false;
	}
	return true;
}

void
push_handle(Request *req, const char *role, Reply *reply)
{
	Buffer		inflated;
	PushRequest push = {0};
	ImportItem *items = NULL;
	char	  **strings = NULL;
	int			n = 0;
	ImportCounts counts;

	buf_init(&inflated);
	if (decode_body(req, &inflated, &push, reply) &&
		items_of(&push, role, req->receiver->options.max_body, &items, &n, &strings, reply) &&
		db_import(req->receiver->db, role, items, n, reply, &counts))
	{
		/* an empty PushResponse */
		bool		json = strncasecmp(request_header(req, "Content-Type"), "application/json", 16) == 0;

		reply->status = 200;
		reply->content_type = json ? "application/json" : "application/proto";
		buf_free(&reply->body);
		if (json)
			buf_append_str(&reply->body, "{}");
	}
	for (int i = 0; strings != NULL && i < 3 * n; i++)
		free(strings[i]);
	free(strings);
	free(items);
	push_request_free(&push);
	buf_free(&inflated);
}
