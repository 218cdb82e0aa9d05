/*
 * push_json.c
 *	  Pyroscope's PushRequest from protobuf's JSON mapping, as a Connect
 *	  client sends it with application/json (push_request.h).  Fields have
 *	  their JSON names or their proto names (rawProfile, raw_profile), null
 *	  is a field's default, bytes are base64 (standard or URL-safe), and
 *	  unknown fields are skipped.  The arrays and the decoded strings are
 *	  charged to the request's limit.
 */
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "json_reader.h"
#include "push_request.h"

typedef bool (*MemberFn) (JsonReader *r, const char *key, void *arg);
typedef bool (*ElementFn) (JsonReader *r, void *arg);

typedef struct JsonPush
{
	PushRequest *req;
	PushSeries *series;			/* the series being read */
} JsonPush;

/* The members of an object (null: none), each given to member */
static bool
each_member(JsonReader *r, MemberFn member, void *arg)
{
	if (json_take_null(r))
		return true;
	if (!json_take(r, '{'))
		return false;
	if (json_take(r, '}'))
		return true;
	for (;;)
	{
		Buffer		key;
		bool		ok;

		buf_init(&key);
		ok = json_string(r, &key) && json_take(r, ':') && member(r, key.data ? key.data : "", arg);
		buf_free(&key);
		if (!ok)
			return false;
		if (json_take(r, '}'))
			return true;
		if (!json_take(r, ','))
			return false;
	}
}

/* The elements of an array (null: none), each given to element */
static bool
each_element(JsonReader *r, ElementFn element, void *arg)
{
	if (json_take_null(r))
		return true;
	if (!json_take(r, '['))
		return false;
	if (json_take(r, ']'))
		return true;
	for (;;)
	{
		if (!element(r, arg))
			return false;
		if (json_take(r, ']'))
			return true;
		if (!json_take(r, ','))
			return false;
	}
}

/*
 * Keeps a decoded string with the request, charged to its limit (its
 * buffer shrunk to fit: a buffer starts at 256 bytes); its slice
 */
static bool
own(PushRequest *req, Buffer *buf, PushSlice *slice)
{
	char	   *fit = buf->data ? realloc(buf->data, buf->len + 1) : NULL;

	if (fit != NULL)
	{
		buf->data = fit;
		buf->cap = buf->len + 1;
	}
	if (!push_request_charge(req, buf->cap) ||
		!push_request_grow(req, (void **) &req->owned, req->nowned, sizeof(char *)))
		return false;
	req->owned[req->nowned++] = buf->data;
	*slice = (PushSlice) {buf->data ? buf->data : "", buf->len};
	buf_init(buf);
	return true;
}

/* A string field (null: empty) */
static bool
string_field(JsonReader *r, PushRequest *req, PushSlice *slice)
{
	Buffer		buf;

	buf_init(&buf);
	if (json_take_null(r))
		return true;
	if (!json_string(r, &buf) || !own(req, &buf, slice))
	{
		buf_free(&buf);
		return false;
	}
	return true;
}

/* A bytes field: base64 */
static bool
bytes_field(JsonReader *r, PushRequest *req, PushSlice *slice)
{
	PushSlice	text = {NULL, 0};
	Buffer		bytes;

	if (!string_field(r, req, &text))
		return false;
	if (text.data == NULL)
		return true;			/* null */
	buf_init(&bytes);
	bytes.cap = text.len / 4 * 3 + 3;
	bytes.data = malloc(bytes.cap);
	if (bytes.data == NULL || !base64_decode(text.data, text.len, bytes.data, &bytes.len) ||
		!own(req, &bytes, slice))
	{
		buf_free(&bytes);
		return false;
	}
	return true;
}

static bool
label_member(JsonReader *r, const char *key, void *arg)
{
	JsonPush   *jp = arg;
	PushLabel  *label = &jp->series->labels[jp->series->nlabels - 1];

	if (strcmp(key, "name") == 0)
		return string_field(r, jp->req, &label->name);
	if (strcmp(key, "value") == 0)
		return string_field(r, jp->req, &label->value);
	return json_skip(r);
}

static bool
sample_member(JsonReader *r, const char *key, void *arg)
{
	JsonPush   *jp = arg;
	PushSample *sample = &jp->series->samples[jp->series->nsamples - 1];

	if (strcmp(key, "rawProfile") == 0 || strcmp(key, "raw_profile") == 0)
		return bytes_field(r, jp->req, &sample->raw_profile);
	if (strcmp(key, "ID") == 0 || strcmp(key, "id") == 0)
		return string_field(r, jp->req, &sample->id);
	return json_skip(r);
}

static bool
label_element(JsonReader *r, void *arg)
{
	JsonPush   *jp = arg;
	PushSeries *s = jp->series;

	if (!push_request_grow(jp->req, (void **) &s->labels, s->nlabels, sizeof(PushLabel)))
		return false;
	memset(&s->labels[s->nlabels++], 0, sizeof(PushLabel));
	return each_member(r, label_member, jp);
}

static bool
sample_element(JsonReader *r, void *arg)
{
	JsonPush   *jp = arg;
	PushSeries *s = jp->series;

	if (!push_request_grow(jp->req, (void **) &s->samples, s->nsamples, sizeof(PushSample)))
		return false;
	memset(&s->samples[s->nsamples++], 0, sizeof(PushSample));
	return each_member(r, sample_member, jp);
}

static bool
series_member(JsonReader *r, const char *key, void *arg)
{
	if (strcmp(key, "labels") == 0)
		return each_element(r, label_element, arg);
	if (strcmp(key, "samples") == 0)
		return each_element(r, sample_element, arg);
	return json_skip(r);
}

static bool
series_element(JsonReader *r, void *arg)
{
	JsonPush   *jp = arg;
	PushRequest *req = jp->req;

	if (!push_request_grow(req, (void **) &req->series, req->nseries, sizeof(PushSeries)))
		return false;
	jp->series = &req->series[req->nseries++];
	memset(jp->series, 0, sizeof(PushSeries));
	return each_member(r, series_member, jp);
}

static bool
request_member(JsonReader *r, const char *key, void *arg)
{
	if (strcmp(key, "series") == 0)
		return each_element(r, series_element, arg);
	return json_skip(r);
}

bool
push_request_from_json(const char *data, size_t len, size_t limit, PushRequest *req, const char **error)
{
	JsonReader	r;
	JsonPush	jp = {req, NULL};

	memset(req, 0, sizeof(PushRequest));
	req->limit = limit;
	*error = "the body is not a PushRequest in JSON: malformed JSON, a field of the wrong type or bytes not in base64";
	json_reader_init(&r, data, len);
	return each_member(&r, request_member, &jp) && json_at_end(&r);
}
