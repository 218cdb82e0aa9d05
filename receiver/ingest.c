/*
 * ingest.c
 *	  Pyroscope's POST /ingest: one profile per request, its name, labels
 *	  and times in the query, the file in the body, raw or gzipped (the
 *	  importers recognize gzip), or in a multipart/form-data body: its part
 *	  "profile" (pprof, as Pyroscope's SDKs send it), or with format=jfr
 *	  its parts "jfr" and "labels" (as Pyroscope's Java agent sends a
 *	  recording and its LabelsSnapshot, which import_jfr reads).
 *	  A JFR recording makes a profile per kind of event, all committed
 *	  together.  A 200 with an empty body once the import committed.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "db_import.h"
#include "ingest_params.h"
#include "multipart.h"
#include "receiver.h"
#include "router.h"

/*
 * The part called name of a multipart body into *data and *len (NULL:
 * none); false after a 400
 */
static bool
find_part(const Request *req, const char *name, const char **data, size_t *len, Reply *reply)
{
	const char *error;

	if (!multipart_find(request_header(req, "Content-Type"), req->body.data ? req->body.data : "",
						req->body.len, name, data, len, &error))
	{
		reply_text(reply, 400, "%s", error);
		return false;
	}
	return true;
}

/*
 * The profile of a multipart body: the part "profile" (pprof), or for
 * format=jfr the parts "jfr" and "labels" (optional); false after a 400
 */
static bool
profile_of_parts(const Request *req, ImportItem *item, Reply *reply)
{
	const char *part = item->format != NULL && strcmp(item->format, "jfr") == 0 ? "jfr" : "profile";

	if (!find_part(req, part, &item->data, &item->len, reply))
		return false;
	if (item->data == NULL)
	{
		reply_text(reply, 400, "the multipart body has no part named \"%s\"", part);
		return false;
	}
	if (strcmp(part, "jfr") == 0)
		return find_part(req, "labels", &item->labels, &item->labels_len, reply);
	if (item->format == NULL)
		item->format = "pprof";
	if (strcmp(item->format, "pprof") != 0)
	{
		reply_text(reply, 400, "a multipart body holds pprof or jfr, not format=%s", request_param(req, "format"));
		return false;
	}
	return true;
}

/* The profile in the body: the body, or its parts; false after a 4xx reply */
static bool
profile_of_body(const Request *req, ImportItem *item, Reply *reply)
{
	const char *content_type = request_header(req, "Content-Type");
	const char *encoding = request_header(req, "Content-Encoding");

	item->data = req->body.data;
	item->len = req->body.len;
	if (encoding != NULL && strcasecmp(encoding, "identity") != 0 &&
		(strcasecmp(encoding, "gzip") != 0 || multipart_is(content_type)))
	{
		reply_text(reply, 415, "Content-Encoding \"%s\" is not supported here: send the profile gzipped, "
				   "without a Content-Encoding", encoding);
		return false;
	}
	if (multipart_is(content_type) && !profile_of_parts(req, item, reply))
		return false;
	if (item->len == 0)
	{
		reply_text(reply, 400, "the profile is empty");
		return false;
	}
	return true;
}

void
ingest_handle(Request *req, const char *role, Reply *reply)
{
	IngestParams params;
	ImportItem	item = {0};
	ImportCounts counts;

	if (ingest_params_parse(req, role, &params, reply))
	{
		item.format = params.format;
		item.name = params.name;
		item.meta = params.meta.data;
		item.started_at = params.started_at[0] ? params.started_at : NULL;
		item.sample_rate = params.sample_rate[0] ? params.sample_rate : NULL;
		if (profile_of_body(req, &item, reply) &&
			db_import(req->receiver->db, role, &item, 1, reply, &counts))
		{
			reply->status = 200;
			reply->content_type = "text/plain; charset=utf-8";
		}
	}
	ingest_params_free(&params);
}
