/*
 * fuzz_receiver.c
 *	  libFuzzer harness of calltree-receiver's own parsers, which read the
 *	  request before the extension sees any of it.  The first byte chooses
 *	  the parser, the rest is its input:
 *	    0  push_request_decode: a PushRequest in protobuf (protobuf.c)
 *	    1  push_request_from_json: a PushRequest in JSON (json_reader.c, base64.c)
 *	    2  multipart_find: the Content-Type up to the first newline, then the body
 *	    3  ingest_params_parse: the query parameters, one a line (name,
 *	       format, sampleRate, spyName, units, aggregationType, from, until;
 *	       a line "-" is a parameter not given)
 *	    4  base64_decode
 *	    5  gunzip, within a limit of 4096 bytes
 *	    6  the protobuf writer: a Status written and read back
 *	    7  tenants_authenticate, with the tenants of TENANTS: the Authorization
 *	       header up to the first newline, then X-Scope-OrgID ("-": not sent)
 *	    8  tenants_load: the input as a tenants file
 *	    9  otlp_json_to_protobuf: OTLP/JSON, within a limit of 4096 bytes
 *	  Besides the sanitizers it checks that every slice handed out lies in
 *	  the input, that the JSON the receiver builds for meta is JSON, that
 *	  what the writer writes reads back the same, that a PushRequest
 *	  decodes within its limit, and that OTLP/JSON makes protobuf that
 *	  reads back, within its limit.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../receiver/base64.h"
#include "../receiver/buffer.h"
#include "../receiver/gunzip.h"
#include "../receiver/ingest_params.h"
#include "../receiver/json_reader.h"
#include "../receiver/metrics.h"
#include "../receiver/multipart.h"
#include "../receiver/otlp_json.h"
#include "../receiver/protobuf.h"
#include "../receiver/push_request.h"
#include "../receiver/tenants.h"

extern int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define check(cond) \
	do { if (!(cond)) { fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); abort(); } } while (0)

/* ---- what server.c gives the parsers: the query parameters and replies */

static const char *const param_names[] = {
	"name", "format", "sampleRate", "spyName", "units", "aggregationType", "from", "until"
};
#define NPARAMS (sizeof(param_names) / sizeof(param_names[0]))
static char *param_values[NPARAMS];

const char *
request_param(const Request *req, const char *name)
{
	(void) req;
	for (size_t i = 0; i < NPARAMS; i++)
		if (strcmp(name, param_names[i]) == 0)
			return param_values[i];
	return NULL;
}

static const char *authorization_header;
static const char *orgid_header;

const char *
request_header(const Request *req, const char *name)
{
	(void) req;
	if (strcmp(name, "Authorization") == 0)
		return authorization_header;
	if (strcmp(name, "X-Scope-OrgID") == 0)
		return orgid_header;
	return NULL;
}

void
metrics_count_refusal(const char *reason)
{
	(void) reason;
}

void
reply_text(Reply *reply, int status, const char *fmt,...)
{
	va_list		args;

	reply->status = status;
	va_start(args, fmt);
	buf_vprintf(&reply->body, fmt, args);
	va_end(args);
	buf_append(&reply->body, "\n", 1);
}

/* ---- the checks */

/* What tenants_authenticate knows: each kind once, with roles that say which */
#define TENANTS "bearer tok-1 role_bearer\nbasic bob:s3cret role_basic\norgid org-1 role_orgid # comment\n"

static bool
inside(const char *p, size_t len, const char *data, size_t size)
{
	return len == 0 || (p >= data && len <= size && (size_t) (p - data) <= size - len);
}

/* Whether text is one JSON value and nothing else */
static bool
is_json(const char *text, size_t len)
{
	JsonReader	r;

	json_reader_init(&r, text, len);
	return json_skip(&r) && json_at_end(&r);
}

/* Reads every byte, so that AddressSanitizer sees a slice that is not all there */
static void
touch(const char *p, size_t len)
{
	volatile char sum = 0;

	for (size_t i = 0; i < len; i++)
		sum ^= p[i];
	(void) sum;
}

static void
check_push(const PushRequest *push, const char *data, size_t size, bool from_json)
{
	for (int i = 0; i < push->nseries; i++)
	{
		const PushSeries *s = &push->series[i];

		for (int j = 0; j < s->nlabels && !from_json; j++)
			check(inside(s->labels[j].name.data, s->labels[j].name.len, data, size) &&
				  inside(s->labels[j].value.data, s->labels[j].value.len, data, size));
		for (int j = 0; j < s->nsamples && !from_json; j++)
			check(inside(s->samples[j].raw_profile.data, s->samples[j].raw_profile.len, data, size) &&
				  inside(s->samples[j].id.data, s->samples[j].id.len, data, size));
		/* JSON's strings are the request's copies: every byte readable */
		for (int j = 0; j < s->nlabels && from_json; j++)
			touch(s->labels[j].name.data, s->labels[j].name.len),
				touch(s->labels[j].value.data, s->labels[j].value.len);
		for (int j = 0; j < s->nsamples && from_json; j++)
			touch(s->samples[j].raw_profile.data, s->samples[j].raw_profile.len),
				touch(s->samples[j].id.data, s->samples[j].id.len);
	}
}

static void
fuzz_push(const char *data, size_t size, bool from_json)
{
	PushRequest push = {0};
	const char *error = NULL;

	if ((from_json ? push_request_from_json : push_request_decode) (data, size, 4096, &push, &error))
		check_push(&push, data, size, from_json);
	else
		check(error != NULL && *error != '\0');
	check(push.decoded <= 4096);
	push_request_free(&push);
}

static void
fuzz_multipart(const char *data, size_t size)
{
	const char *newline = memchr(data, '\n', size);
	size_t		type_len = newline ? (size_t) (newline - data) : size;
	char	   *type = strndup(data, type_len);
	const char *body = newline ? newline + 1 : data + size;
	size_t		body_len = size - (size_t) (body - data);
	const char *part = NULL;
	size_t		part_len = 0;
	const char *error = NULL;

	if (multipart_find(type, body, body_len, "profile", &part, &part_len, &error))
		check(part == NULL || inside(part, part_len, body, body_len));
	else
		check(error != NULL && *error != '\0');
	(void) multipart_is(type);
	free(type);
}

static void
fuzz_ingest_params(const char *data, size_t size)
{
	char	   *text = strndup(data, size);
	char	   *line = text;
	IngestParams params;
	Reply		reply = {0};
	Request		req = {0};

	for (size_t i = 0; i < NPARAMS; i++)
	{
		char	   *end = line ? strchr(line, '\n') : NULL;

		if (end != NULL)
			*end = '\0';
		param_values[i] = line != NULL && strcmp(line, "-") != 0 ? line : NULL;
		line = end ? end + 1 : NULL;
	}
	if (ingest_params_parse(&req, (size & 1) ? "tenant\"role" : NULL, &params, &reply))
	{
		check(params.name != NULL && params.name[0] != '\0');
		check(is_json(params.meta.data, params.meta.len));
		check(params.meta.data[0] == '{');
	}
	else
		check(reply.status >= 400 && reply.status < 500 && reply.body.len > 0);
	ingest_params_free(&params);
	buf_free(&reply.body);
	memset(param_values, 0, sizeof(param_values));
	free(text);
}

static void
fuzz_base64(const char *data, size_t size)
{
	char	   *out = malloc(size * 3 / 4 + 3);
	size_t		out_len = 0;

	if (base64_decode(data, size, out, &out_len))
		check(out_len <= size * 3 / 4 + 3);
	free(out);
}

static void
fuzz_gunzip(const char *data, size_t size)
{
	Buffer		in = {.data = (char *) data, .len = size, .cap = size};
	Buffer		out;
	bool		too_large = false;

	buf_init(&out);
	if (gunzip(&in, 4096, &out, &too_large))
		check(out.len <= 4096 && !too_large);
	buf_free(&out);
}

/* A Status { code = 1; message = 2; } of the input read back */
static void
fuzz_pb_writer(const char *data, size_t size)
{
	uint64_t	code = 0;
	Buffer		out;
	PbReader	r;
	PbField		f;

	memcpy(&code, data, size < 8 ? size : 8);
	buf_init(&out);
	pb_append_varint_field(&out, 1, code);
	pb_append_bytes_field(&out, 2, data, size);
	pb_reader_init(&r, out.data, out.len);
	check(pb_next(&r, &f) == 1 && f.number == 1 && f.wire_type == PB_VARINT && f.value == code);
	check(pb_next(&r, &f) == 1 && f.number == 2 && f.wire_type == PB_LEN && f.len == size &&
		  memcmp(f.data, data, size) == 0);
	check(pb_next(&r, &f) == 0);
	buf_free(&out);
}

/* The input written to a file of this process's own; its path */
static const char *
as_file(const char *data, size_t size)
{
	static char path[64];
	FILE	   *f;

	snprintf(path, sizeof(path), "/tmp/fuzz_receiver.%d", (int) getpid());
	f = fopen(path, "wb");
	check(f != NULL && fwrite(data, 1, size, f) == size && fclose(f) == 0);
	return path;
}

/* Whether base64 text decodes to the string */
static bool
decodes_to(const char *text, const char *expected)
{
	size_t		len = strlen(text);
	char	   *out = malloc(len * 3 / 4 + 3);
	size_t		n = 0;
	bool		same = base64_decode(text, len, out, &n) && n == strlen(expected) &&
		memcmp(out, expected, n) == 0;

	free(out);
	return same;
}

static void
fuzz_authenticate(const char *data, size_t size)
{
	static Tenants *tenants;
	char	   *text = strndup(data, size);
	char	   *newline = strchr(text, '\n');
	char	   *role = NULL;
	Reply		reply = {0};
	Request		req = {0};
	int			count;

	if (tenants == NULL)
	{
		const char *path = as_file(TENANTS, strlen(TENANTS));

		tenants = tenants_load(path, &count);
		check(tenants != NULL && count == 3);
		unlink(path);
	}
	if (newline != NULL)
		*newline = '\0';
	authorization_header = strcmp(text, "-") == 0 ? NULL : text;
	orgid_header = newline == NULL || strcmp(newline + 1, "-") == 0 ? NULL : newline + 1;
	if (tenants_authenticate(tenants, &req, &role, &reply))
	{
		/* a role only for the exact credential of its line */
		check(role != NULL && reply.status == 0);
		if (strcmp(role, "role_bearer") == 0)
			check(authorization_header != NULL && strcmp(authorization_header + 7, "tok-1") == 0);
		else if (strcmp(role, "role_basic") == 0)
			check(authorization_header != NULL && decodes_to(authorization_header + 6, "bob:s3cret"));
		else
			check(strcmp(role, "role_orgid") == 0 && authorization_header == NULL &&
				  strcmp(orgid_header, "org-1") == 0);
	}
	else
		check(reply.status == 401 && role == NULL);
	free(role);
	authorization_header = orgid_header = NULL;
	buf_free(&reply.body);
	free(text);
}

static void
fuzz_tenants_load(const char *data, size_t size)
{
	const char *path = as_file(data, size);
	int			count = 0;
	Tenants    *tenants;

	/* a bad file is reported on stderr: keep libFuzzer's output readable */
	tenants = tenants_load(path, &count);
	check(tenants == NULL || count > 0);
	tenants_free(tenants);
	unlink(path);
}

/* Whether the request's fields read to its end (each touched) */
static bool
reads_back(const char *data, size_t len)
{
	PbReader	r;
	PbField		f;
	int			rc;

	pb_reader_init(&r, data, len);
	while ((rc = pb_next(&r, &f)) > 0)
		if (f.wire_type == PB_LEN)
			touch(f.data, f.len);
	return rc == 0;
}

static void
fuzz_otlp_json(const char *data, size_t size)
{
	Buffer		out;
	Buffer		error;
	bool		too_large = false;

	buf_init(&out);
	buf_init(&error);
	if (otlp_json_to_protobuf(data, size, 4096, &out, &error, &too_large))
		check(out.len <= 4096 && error.len == 0 && reads_back(out.data ? out.data : "", out.len));
	else
		check(error.len > 0 && strncmp(error.data, "invalid OTLP/JSON at byte ", 26) == 0);
	buf_free(&out);
	buf_free(&error);
}

int
LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size)
{
	const char *data = (const char *) bytes + 1;

	if (size == 0)
		return 0;
	size--;
	switch (bytes[0] % 10)
	{
		case 0: fuzz_push(data, size, false); break;
		case 1: fuzz_push(data, size, true); break;
		case 2: fuzz_multipart(data, size); break;
		case 3: fuzz_ingest_params(data, size); break;
		case 4: fuzz_base64(data, size); break;
		case 5: fuzz_gunzip(data, size); break;
		case 6: fuzz_pb_writer(data, size); break;
		case 7: fuzz_authenticate(data, size); break;
		case 8: fuzz_tenants_load(data, size); break;
		case 9: fuzz_otlp_json(data, size); break;
	}
	return 0;
}
