/*
 * server.c
 *	  The HTTP server (server.h).
 *
 * libmicrohttpd calls on_request several times per request: first with
 * the headers only, then with each piece of the body, then once more with
 * none, when the reply is due.  The body is kept up to --max-body; a body
 * declared larger is refused at once (413, before it is read), one that
 * turns out larger (chunked) is refused as soon as it passes the limit,
 * its connection closed, the rest of it unread.  A request whose length
 * is ambiguous (two Content-Lengths that differ, or one beside a
 * Transfer-Encoding, or a header line with a bare carriage return inside)
 * is refused (400) and its connection closed: a proxy
 * in front may have read its end elsewhere, and what follows it as
 * another request (request smuggling).  At most
 * --max-clients-per-address connections come from one address at once;
 * libmicrohttpd closes the others as they come.  A client that
 * stays silent --timeout seconds is dropped by libmicrohttpd, one that
 * takes longer than --request-timeout for the whole request, headers and
 * body, by the watchdog of deadline.c.  Connections are polled (poll(),
 * not select(), which takes no socket numbered 1024 or more).
 */
#include "server.h"

#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "db_pool.h"
#include "deadline.h"
#include "metrics.h"
#include "request.h"
#include "router.h"

typedef struct RequestState
{
	Request		req;
} RequestState;

static atomic_bool draining;
static Deadlines *deadlines;

const char *
request_header(const Request *req, const char *name)
{
	return MHD_lookup_connection_value(req->connection, MHD_HEADER_KIND, name);
}

const char *
request_param(const Request *req, const char *name)
{
	return MHD_lookup_connection_value(req->connection, MHD_GET_ARGUMENT_KIND, name);
}

/* An iterator of the query: stops at a name or value holding a NUL, kept in *cls */
static enum MHD_Result
stop_at_nul(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size, const char *value,
			size_t value_size)
{
	(void) kind;
	if (strlen(key) == key_size && (value == NULL || strlen(value) == value_size))
		return MHD_YES;
	*(const char **) cls = key;
	return MHD_NO;
}

bool
request_query_is_text(const Request *req, Reply *reply)
{
	const char *bad = NULL;

	MHD_get_connection_values_n(req->connection, MHD_GET_ARGUMENT_KIND, stop_at_nul, &bad);
	if (bad == NULL)
		return true;
	reply_text(reply, 400, "the query parameter \"%s\" holds a NUL byte (%%00), which no text may hold", bad);
	return false;
}

void
reply_text(Reply *reply, int status, const char *fmt,...)
{
	va_list		args;

	reply->status = status;
	reply->content_type = "text/plain; charset=utf-8";
	buf_free(&reply->body);
	va_start(args, fmt);
	buf_vprintf(&reply->body, fmt, args);
	va_end(args);
	buf_append(&reply->body, "\n", 1);
}

static enum MHD_Result
send_reply(struct MHD_Connection *connection, Reply *reply, size_t body_bytes, bool close)
{
	struct MHD_Response *response;
	enum MHD_Result ret;

	response = MHD_create_response_from_buffer(reply->body.len, reply->body.data ? reply->body.data : "",
											   MHD_RESPMEM_MUST_COPY);
	if (response == NULL)
		return MHD_NO;
	if (reply->content_type != NULL)
		MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, reply->content_type);
	if (reply->retry_after > 0)
	{
		char		seconds[16];

		snprintf(seconds, sizeof(seconds), "%d", reply->retry_after);
		MHD_add_response_header(response, MHD_HTTP_HEADER_RETRY_AFTER, seconds);
	}
	if (close)
		MHD_add_response_header(response, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(connection, (unsigned int) reply->status, response);
	MHD_destroy_response(response);
	metrics_count_request(reply->endpoint ? reply->endpoint : "other", reply->status, body_bytes);
	buf_free(&reply->body);
	return ret;
}

/* A refusal in the words of the request's endpoint, counted */
static void
make_refusal(struct MHD_Connection *connection, const char *path, int status, const char *reason,
			 const char *message, Reply *reply)
{
	reply->endpoint = route_endpoint(path);
	reply_text(reply, status, "%s", message);
	if (status == 503)
		reply->retry_after = 5;
	if (strcmp(reply->endpoint, "push") == 0)
		reply_connect_error(reply);
	else if (strcmp(reply->endpoint, "otlp") == 0)
		reply_otlp_status(reply, MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
															  MHD_HTTP_HEADER_CONTENT_TYPE));
	metrics_count_refusal(reason);
}

static enum MHD_Result
refuse_now(struct MHD_Connection *connection, const char *path, int status, const char *reason,
		   const char *message)
{
	Reply		reply = {0};

	make_refusal(connection, path, status, reason, message, &reply);
	return send_reply(connection, &reply, 0, true);
}

/*
 * A refusal while the body is coming in, which libmicrohttpd cannot queue
 * (it sends a reply only once the body is whole): written on the socket
 * here, in the connection's own thread, which is the one that writes to
 * it; then MHD_NO, on which libmicrohttpd closes the connection without
 * reading on.  The shutdown sends the reply's end (FIN) before the close.
 */
static enum MHD_Result
refuse_mid_body(struct MHD_Connection *connection, const char *path, int status, const char *reason,
				const char *message)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection,
																   MHD_CONNECTION_INFO_CONNECTION_FD);
	Reply		reply = {0};
	Buffer		out = {0};

	make_refusal(connection, path, status, reason, message, &reply);
	buf_printf(&out, "HTTP/1.1 %d %s\r\nConnection: close\r\nContent-Type: %s\r\nContent-Length: %zu\r\n\r\n",
			   reply.status, MHD_get_reason_phrase_for((unsigned int) reply.status),
			   reply.content_type ? reply.content_type : "text/plain", reply.body.len);
	buf_append(&out, reply.body.data ? reply.body.data : "", reply.body.len);
	if (info != NULL && !out.failed)
	{
		(void) send(info->connect_fd, out.data, out.len, MSG_NOSIGNAL);
		shutdown(info->connect_fd, SHUT_WR);
	}
	metrics_count_request(reply.endpoint, reply.status, 0);
	buf_free(&out);
	buf_free(&reply.body);
	return MHD_NO;
}

/*
 * The request's first Content-Length, whether another one differs from it,
 * and whether a header holds a carriage return (libmicrohttpd keeps a bare
 * CR inside a header line, where a proxy may have ended the line)
 */
typedef struct Lengths
{
	const char *first;
	bool		differ;
	bool		bare_cr;
} Lengths;

static enum MHD_Result
note_length(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	Lengths    *lengths = cls;

	(void) kind;
	if (strchr(key, '\r') != NULL || (value != NULL && strchr(value, '\r') != NULL))
		lengths->bare_cr = true;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != 0 || value == NULL)
		return MHD_YES;
	if (lengths->first == NULL)
		lengths->first = value;
	else if (strcmp(lengths->first, value) != 0)
		lengths->differ = true;
	return MHD_YES;
}

/*
 * Why the request's body has no single length, or NULL: libmicrohttpd
 * reads the first Content-Length, or the chunks of a Transfer-Encoding
 * beside one, or a header line past a bare carriage return, where a proxy
 * in front may have read another
 */
static const char *
ambiguous_length(struct MHD_Connection *connection)
{
	Lengths		lengths = {0};

	MHD_get_connection_values(connection, MHD_HEADER_KIND, note_length, &lengths);
	if (lengths.bare_cr)
		return "a header line holds a carriage return that does not end it; end each header line with CR LF";
	if (lengths.differ)
		return "the request has Content-Length headers of different values; send one";
	if (lengths.first != NULL &&
		MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL)
		return "the request has both a Content-Length and a Transfer-Encoding header; send one";
	return NULL;
}

/* The headers are in: a new request, or a refusal before its body is read */
static enum MHD_Result
begin_request(Receiver *receiver, struct MHD_Connection *connection, const char *url,
			  const char *method, void **con_cls)
{
	RequestState *state = calloc(1, sizeof(RequestState));
	const char *length;
	const char *ambiguous;

	if (state == NULL)
		return MHD_NO;
	state->req.receiver = receiver;
	state->req.connection = connection;
	state->req.method = method;
	state->req.path = url;
	*con_cls = state;
	atomic_fetch_add(&receiver->in_flight, 1);

	if (atomic_load(&draining))
		return refuse_now(connection, url, 503, "draining", "the receiver is shutting down; retry later");
	ambiguous = ambiguous_length(connection);
	if (ambiguous != NULL)
		return refuse_now(connection, url, 400, "ambiguous_length", ambiguous);
	length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (length != NULL && strtoull(length, NULL, 10) > receiver->options.max_body)
	{
		char		message[128];

		snprintf(message, sizeof(message), "the body is larger than the limit of %zu bytes",
				 receiver->options.max_body);
		return refuse_now(connection, url, 413, "too_large", message);
	}
	return MHD_YES;
}

/* A piece of the body: kept, or the request refused once the body is too large */
static enum MHD_Result
take_body(RequestState *state, const char *data, size_t *size)
{
	const Options *options = &state->req.receiver->options;

	if (state->req.body.len + *size > options->max_body)
	{
		char		message[128];

		buf_free(&state->req.body);
		snprintf(message, sizeof(message), "the body is larger than the limit of %zu bytes", options->max_body);
		return refuse_mid_body(state->req.connection, state->req.path, 413, "too_large", message);
	}
	if (!buf_append(&state->req.body, data, *size))
		return MHD_NO;
	*size = 0;
	return MHD_YES;
}

/*
 * A client's text as the log may show it: bytes under 0x20 and 0x7f as
 * \xNN, so that a path with %0a cannot write a line of its own, nor an
 * escape sequence drive the terminal; cut short to fit out
 */
static const char *
printable(const char *text, char *out, size_t size)
{
	size_t		n = 0;

	for (const unsigned char *p = (const unsigned char *) text; *p != '\0' && n + 5 < size; p++)
		if (*p < 0x20 || *p == 0x7f)
			n += (size_t) snprintf(out + n, size - n, "\\x%02x", *p);
		else
			out[n++] = (char) *p;
	out[n] = '\0';
	return out;
}

static void
log_request(const Request *req, const Reply *reply)
{
	char		method[64];
	char		path[512];

	log_message("%s %s: %d (%zu bytes)", printable(req->method, method, sizeof(method)),
				printable(req->path, path, sizeof(path)), reply->status, req->body.len);
}

static enum MHD_Result
finish_request(RequestState *state)
{
	Request    *req = &state->req;
	Reply		reply = {0};
	enum MHD_Result ret;

	if (!deadline_request_whole(req->connection))
		return MHD_NO;			/* cut by the watchdog: no reply */
	route(req, &reply);
	if (req->receiver->options.verbose)
		log_request(req, &reply);
	ret = send_reply(req->connection, &reply, req->body.len, atomic_load(&draining));
	buf_free(&req->body);
	return ret;
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
		   const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	RequestState *state = *con_cls;

	(void) version;
	if (state == NULL)
		return begin_request((Receiver *) cls, connection, url, method, con_cls);
	if (*upload_data_size > 0)
		return take_body(state, upload_data, upload_data_size);
	return finish_request(state);
}

static void
on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	Receiver   *receiver = cls;
	RequestState *state = *con_cls;

	(void) toe;
	deadline_next_request(connection);
	if (state == NULL)
		return;
	buf_free(&state->req.body);
	free(state);
	*con_cls = NULL;
	atomic_fetch_sub(&receiver->in_flight, 1);
}

static void log_mhd(void *cls, const char *fmt, va_list args) __attribute__((format(printf, 2, 0)));

static void
log_mhd(void *cls, const char *fmt, va_list args)
{
	char		message[512];

	(void) cls;
	vsnprintf(message, sizeof(message), fmt, args);
	message[strcspn(message, "\n")] = '\0';
	log_message("http: %s", message);
}

/*
 * Raises the limit of open files, if it must be, to what --max-clients
 * and --connections take (a socket each, and a few more), as far as the
 * hard limit lets: else the clients past it would be refused unseen
 */
static void
allow_descriptors(const Options *options)
{
	struct rlimit limit;
	rlim_t		need = (rlim_t) options->max_clients + (rlim_t) options->connections + 64;

	if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= need)
		return;
	limit.rlim_cur = limit.rlim_max == RLIM_INFINITY || limit.rlim_max >= need ? need : limit.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur < need)
		log_message("--max-clients %d: only %llu files may be open (ulimit -n), fewer clients will be served",
					options->max_clients, (unsigned long long) limit.rlim_cur);
}

struct MHD_Daemon *
server_start(Receiver *receiver, int *port)
{
	const Options *options = &receiver->options;
	struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_PASSIVE, .ai_socktype = SOCK_STREAM};
	struct addrinfo *addr;
	char		service[16];
	struct MHD_Daemon *daemon;
	const union MHD_DaemonInfo *info;
	unsigned int flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL_INTERNAL_THREAD |
		MHD_USE_ITC | MHD_USE_ERROR_LOG;
	int			rc;

	snprintf(service, sizeof(service), "%d", options->listen_port);
	rc = getaddrinfo(options->listen_host, service, &hints, &addr);
	if (rc != 0)
	{
		log_message("--listen: \"%s\" is not a numeric IP address: %s", options->listen_host, gai_strerror(rc));
		return NULL;
	}
	if (addr->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	allow_descriptors(options);
	deadlines = deadlines_start(options->request_timeout, options->timeout);
	if (deadlines == NULL)
	{
		freeaddrinfo(addr);
		log_message("cannot start the watchdog of --request-timeout");
		return NULL;
	}
	/* the logger first, so that it logs what the other options say */
	daemon = MHD_start_daemon(flags, (uint16_t) options->listen_port, NULL, NULL, on_request, receiver,
							  MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL,
							  MHD_OPTION_SOCK_ADDR, addr->ai_addr,
							  MHD_OPTION_CONNECTION_LIMIT, (unsigned int) options->max_clients,
							  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int) options->max_clients_per_address,
							  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) options->timeout,
							  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) 64 * 1024,
							  MHD_OPTION_NOTIFY_COMPLETED, on_completed, receiver,
							  MHD_OPTION_NOTIFY_CONNECTION, deadline_notify, deadlines,
							  MHD_OPTION_END);
	freeaddrinfo(addr);
	if (daemon == NULL)
	{
		log_message("cannot listen on %s:%d", options->listen_host, options->listen_port);
		deadlines_stop(deadlines);
		return NULL;
	}
	info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
	*port = info ? info->port : options->listen_port;
	return daemon;
}

/* Waits up to seconds for the requests in flight; whether they all ended */
static bool
wait_for_requests(Receiver *receiver, int seconds)
{
	time_t		deadline = time(NULL) + seconds;

	while (atomic_load(&receiver->in_flight) > 0 && time(NULL) < deadline)
		usleep(50 * 1000);
	return atomic_load(&receiver->in_flight) == 0;
}

/*
 * After --drain-timeout, the pushes still in the database (waiting for a
 * lock, most often) are canceled: rolled back, answered 503, which their
 * agents retry.  Else stopping would wait for them all the same, and
 * commit them after their clients were cut off.
 */
#define CANCELED_ANSWER_SECONDS 5

void
server_drain_and_stop(struct MHD_Daemon *daemon, Receiver *receiver)
{
	atomic_store(&draining, true);
	MHD_quiesce_daemon(daemon);
	if (!wait_for_requests(receiver, receiver->options.drain_timeout))
	{
		log_message("%d requests unfinished after %d s: canceling the %d running in the database",
					atomic_load(&receiver->in_flight), receiver->options.drain_timeout,
					db_cancel_busy(receiver->db));
		if (!wait_for_requests(receiver, CANCELED_ANSWER_SECONDS))
			log_message("stopping with %d requests unfinished", atomic_load(&receiver->in_flight));
	}
	MHD_stop_daemon(daemon);
	deadlines_stop(deadlines);
}
