/*
 * ingest_params.c
 *	  The query parameters of POST /ingest (ingest_params.h).
 *
 * name is Pyroscope's series key, app{key=value,...}: the application
 * name, then labels that may not contain ',', '=' or '}'.  from and until
 * are Unix times, in seconds or, for larger numbers, in milliseconds,
 * microseconds or nanoseconds, as Pyroscope reads them.  The labels go into
 * meta first and the receiver's own keys after them, so that a label never
 * overrides spyName, sampleRate or tenant (jsonb keeps a key's last value).
 */
#include "ingest_params.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "receiver.h"

static const char *
trim(const char *s, const char *end, size_t *len)
{
	while (s < end && isspace((unsigned char) *s))
		s++;
	while (end > s && isspace((unsigned char) end[-1]))
		end--;
	*len = (size_t) (end - s);
	return s;
}

bool
labels_to_json(const char *labels, size_t len, Buffer *meta, bool *first)
{
	const char *end = labels + len;
	const char *p = labels;

	while (p < end)
	{
		const char *comma = memchr(p, ',', (size_t) (end - p));
		const char *pair_end = comma ? comma : end;
		const char *eq = memchr(p, '=', (size_t) (pair_end - p));
		size_t		klen,
					vlen;
		const char *key;
		const char *value;

		if (eq == NULL)
		{
			if (trim(p, pair_end, &klen) && klen == 0 && comma == NULL)
				break;			/* a trailing comma */
			return false;
		}
		key = trim(p, eq, &klen);
		value = trim(eq + 1, pair_end, &vlen);
		if (klen == 0)
			return false;
		if (!*first)
			buf_append(meta, ",", 1);
		*first = false;
		buf_append_json_string(meta, key, klen);
		buf_append(meta, ":", 1);
		buf_append_json_string(meta, value, vlen);
		p = comma ? comma + 1 : end;
	}
	return true;
}

/* app{labels}: the name into params, the labels into meta */
static bool
parse_name(const char *arg, IngestParams *params, bool *first, Reply *reply)
{
	const char *brace = strchr(arg, '{');
	size_t		len = brace ? (size_t) (brace - arg) : strlen(arg);
	size_t		name_len;
	const char *name = trim(arg, arg + len, &name_len);

	if (name_len == 0)
	{
		reply_text(reply, 400, "name \"%s\" has no application name before its labels", arg);
		return false;
	}
	params->name = strndup(name, name_len);
	if (brace == NULL)
		return true;
	len = strlen(brace);
	if (brace[len - 1] != '}' || memchr(brace + 1, '}', len - 2) != NULL ||
		!labels_to_json(brace + 1, len - 2, &params->meta, first))
	{
		reply_text(reply, 400, "name \"%s\" is not APP{KEY=VALUE,...}", arg);
		return false;
	}
	return true;
}

/* A Unix time as nanoseconds, its unit told by its size, as Pyroscope reads it */
static bool
parse_time(const char *arg, long long *ns)
{
	char	   *end;
	long long	t;
	long long	scale = 1;

	errno = 0;
	t = strtoll(arg, &end, 10);
	if (!isdigit((unsigned char) *arg) || *end != '\0' || errno != 0)
		return false;
	if (t < 100000000000LL)			/* seconds, up to the year 5138 */
		scale = 1000000000LL;
	else if (t < 100000000000000LL)	/* milliseconds */
		scale = 1000000LL;
	else if (t < 100000000000000000LL)	/* microseconds */
		scale = 1000LL;
	/* past the year 2262, nanoseconds do not fit in 64 bits */
	if (__builtin_mul_overflow(t, scale, ns))
		return false;
	return true;
}

/* Nanoseconds as seconds, without trailing zeros: 10, 10.5 */
static void
format_seconds(long long ns, char *out, size_t size)
{
	size_t		len;

	snprintf(out, size, "%s%lld.%09lld", ns < 0 ? "-" : "", llabs(ns) / 1000000000LL, llabs(ns) % 1000000000LL);
	len = strlen(out);
	while (out[len - 1] == '0')
		out[--len] = '\0';
	if (out[len - 1] == '.')
		out[--len] = '\0';
}

static void meta_key(Buffer *meta, bool *first, const char *key);

/* from, until: started_at and "duration" in meta */
static bool
parse_times(const Request *req, IngestParams *params, bool *first, Reply *reply)
{
	const char *from = request_param(req, "from");
	const char *until = request_param(req, "until");
	long long	from_ns = 0,
				until_ns = 0;
	char		seconds[32];

	if (from != NULL && !parse_time(from, &from_ns))
	{
		reply_text(reply, 400, "from \"%s\" is not a Unix time", from);
		return false;
	}
	if (until != NULL && !parse_time(until, &until_ns))
	{
		reply_text(reply, 400, "until \"%s\" is not a Unix time", until);
		return false;
	}
	if (from != NULL)
		format_seconds(from_ns, params->started_at, sizeof(params->started_at));
	if (from != NULL && until != NULL)
	{
		if (until_ns < from_ns)
		{
			reply_text(reply, 400, "until (%s) is before from (%s)", until, from);
			return false;
		}
		format_seconds(until_ns - from_ns, seconds, sizeof(seconds));
		meta_key(&params->meta, first, "duration");
		buf_append_str(&params->meta, seconds);
	}
	return true;
}

/* The format parameter as import_stream names it */
static bool
parse_format(const char *arg, IngestParams *params, Reply *reply)
{
	if (arg == NULL || *arg == '\0')
		params->format = NULL;
	else if (strcmp(arg, "pprof") == 0)
		params->format = "pprof";
	else if (strcmp(arg, "folded") == 0 || strcmp(arg, "lines") == 0)
		params->format = "collapsed";
	else if (strcmp(arg, "speedscope") == 0)
		params->format = "speedscope";
	else if (strcmp(arg, "jfr") == 0)
		params->format = "jfr";
	else if (strcmp(arg, "trie") == 0 || strcmp(arg, "tree") == 0)
	{
		reply_text(reply, 415, "format=%s is not supported by calltree; send pprof, jfr, folded, lines or speedscope", arg);
		return false;
	}
	else
	{
		reply_text(reply, 400, "unknown format \"%s\": calltree takes pprof, jfr, folded, lines or speedscope", arg);
		return false;
	}
	return true;
}

/* "key": of an open JSON object, after a comma unless it is the first */
static void
meta_key(Buffer *meta, bool *first, const char *key)
{
	buf_printf(meta, "%s\"%s\":", *first ? "" : ",", key);
	*first = false;
}

/* A string parameter, if given, as "key": "value" */
static void
string_param(const Request *req, const char *param, Buffer *meta, bool *first)
{
	const char *value = request_param(req, param);

	if (value == NULL)
		return;
	meta_key(meta, first, param);
	buf_append_json_string(meta, value, strlen(value));
}

bool
ingest_params_parse(const Request *req, const char *tenant, IngestParams *params, Reply *reply)
{
	const char *name = request_param(req, "name");
	const char *rate = request_param(req, "sampleRate");
	bool		first = true;
	char	   *end;

	memset(params, 0, sizeof(IngestParams));
	if (name == NULL || *name == '\0')
	{
		reply_text(reply, 400, "the query parameter name is required: name=APP or name=APP{KEY=VALUE,...}");
		return false;
	}
	buf_append(&params->meta, "{", 1);
	if (!parse_name(name, params, &first, reply) || !parse_format(request_param(req, "format"), params, reply))
		return false;
	if (rate != NULL && (strtol(rate, &end, 10) <= 0 || *end != '\0' || end - rate > 9))
	{
		reply_text(reply, 400, "sampleRate \"%s\" is not a positive whole number", rate);
		return false;
	}
	if (rate != NULL)
	{
		snprintf(params->sample_rate, sizeof(params->sample_rate), "%ld", strtol(rate, NULL, 10));
		meta_key(&params->meta, &first, "sampleRate");
		buf_append_str(&params->meta, params->sample_rate);
	}
	string_param(req, "spyName", &params->meta, &first);
	string_param(req, "units", &params->meta, &first);
	string_param(req, "aggregationType", &params->meta, &first);
	if (!parse_times(req, params, &first, reply))
		return false;
	if (tenant != NULL)
	{
		meta_key(&params->meta, &first, "tenant");
		buf_append_json_string(&params->meta, tenant, strlen(tenant));
	}
	buf_append(&params->meta, "}", 1);
	if (params->meta.failed)
	{
		reply_text(reply, 503, "out of memory");
		return false;
	}
	return true;
}

void
ingest_params_free(IngestParams *params)
{
	free(params->name);
	buf_free(&params->meta);
}
