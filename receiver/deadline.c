/*
 * deadline.c
 *	  The whole request within --request-timeout (deadline.h).
 *
 * Which byte begins a request is not known here, only when the one before
 * it ended (or the connection began).  A connection may wait up to
 * --timeout for its next request (libmicrohttpd drops it after that), so
 * a request is cut when it is not whole --timeout + --request-timeout
 * after that moment: never one sent within --request-timeout by a client
 * that kept its connection open between pushes.
 *
 * Each connection, from its start, has an entry in a list: the socket,
 * when its current request began, and whether that request is still
 * being received.  Every quarter of a second the watchdog shuts down the
 * socket of each request received for longer than the limit, which
 * libmicrohttpd then finds closed and drops.  libmicrohttpd notifies a
 * connection's end before it closes the socket, and the entry leaves the
 * list then, under the lock the watchdog holds: so the watchdog never
 * shuts down a socket number that another connection took since.
 */
#include "deadline.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "metrics.h"
#include "receiver.h"

typedef struct Watched
{
	struct Deadlines *deadlines;
	int			fd;
	struct timespec began;		/* the connection's start, or its last request's end */
	bool		receiving;		/* not whole yet */
	bool		cut;
	struct Watched *prev;
	struct Watched *next;
} Watched;

struct Deadlines
{
	pthread_mutex_t lock;
	Watched    *head;
	int			request_seconds;
	int			idle_seconds;
	bool		stopping;
	pthread_t	thread;
};

static double
seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double) (now.tv_sec - start->tv_sec) + (double) (now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Shuts down the sockets of the requests past the limit; under the lock */
static void
cut_late_requests(Deadlines *d)
{
	for (Watched *w = d->head; w != NULL; w = w->next)
		if (w->receiving && !w->cut && seconds_since(&w->began) >= d->request_seconds + d->idle_seconds)
		{
			w->cut = true;
			shutdown(w->fd, SHUT_RDWR);
			log_message("dropped a client that took over %d s to send its request (after %d s it may wait)",
						d->request_seconds, d->idle_seconds);
			metrics_count_refusal("timeout");
		}
}

static void *
watch(void *arg)
{
	Deadlines  *d = arg;

	for (;;)
	{
		pthread_mutex_lock(&d->lock);
		if (d->stopping)
			break;
		cut_late_requests(d);
		pthread_mutex_unlock(&d->lock);
		usleep(250 * 1000);
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

Deadlines *
deadlines_start(int request_seconds, int idle_seconds)
{
	Deadlines  *d = calloc(1, sizeof(Deadlines));

	if (d == NULL)
		return NULL;
	pthread_mutex_init(&d->lock, NULL);
	d->request_seconds = request_seconds;
	d->idle_seconds = idle_seconds;
	if (pthread_create(&d->thread, NULL, watch, d) != 0)
	{
		free(d);
		return NULL;
	}
	return d;
}

void
deadlines_stop(Deadlines *d)
{
	pthread_mutex_lock(&d->lock);
	d->stopping = true;
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->thread, NULL);
	free(d);
}

static void
watch_connection(Deadlines *d, struct MHD_Connection *connection, void **socket_context)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
	Watched    *w = calloc(1, sizeof(Watched));

	*socket_context = w;
	if (w == NULL || info == NULL)
		return;
	w->deadlines = d;
	w->fd = info->connect_fd;
	clock_gettime(CLOCK_MONOTONIC, &w->began);
	w->receiving = true;
	pthread_mutex_lock(&d->lock);
	w->next = d->head;
	if (d->head != NULL)
		d->head->prev = w;
	d->head = w;
	pthread_mutex_unlock(&d->lock);
}

static void
unwatch_connection(Watched *w)
{
	Deadlines  *d;

	if (w == NULL || w->deadlines == NULL)
	{
		free(w);
		return;
	}
	d = w->deadlines;
	pthread_mutex_lock(&d->lock);
	if (w->prev != NULL)
		w->prev->next = w->next;
	else
		d->head = w->next;
	if (w->next != NULL)
		w->next->prev = w->prev;
	pthread_mutex_unlock(&d->lock);
	free(w);
}

void
deadline_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
				enum MHD_ConnectionNotificationCode code)
{
	if (code == MHD_CONNECTION_NOTIFY_STARTED)
		watch_connection(cls, connection, socket_context);
	else
	{
		unwatch_connection(*socket_context);
		*socket_context = NULL;
	}
}

/* The entry of a connection; NULL if it has none */
static Watched *
watched(struct MHD_Connection *connection)
{
	const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	Watched    *w = info ? info->socket_context : NULL;

	return w != NULL && w->deadlines != NULL ? w : NULL;
}

bool
deadline_request_whole(struct MHD_Connection *connection)
{
	Watched    *w = watched(connection);
	bool		cut;

	if (w == NULL)
		return true;
	pthread_mutex_lock(&w->deadlines->lock);
	w->receiving = false;
	cut = w->cut;
	pthread_mutex_unlock(&w->deadlines->lock);
	return !cut;
}

void
deadline_next_request(struct MHD_Connection *connection)
{
	Watched    *w = watched(connection);

	if (w == NULL)
		return;
	pthread_mutex_lock(&w->deadlines->lock);
	clock_gettime(CLOCK_MONOTONIC, &w->began);
	w->receiving = true;
	pthread_mutex_unlock(&w->deadlines->lock);
}
