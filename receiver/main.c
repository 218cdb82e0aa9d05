/*
 * main.c
 *	  calltree-receiver: start, wait for SIGTERM or SIGINT, drain, stop;
 *	  on SIGHUP, read the tenants file again.
 *
 * The signals are blocked before any thread starts, so that every thread
 * inherits the mask and only the main thread, in sigwait, takes them.
 * SIGHUP among them: its default action would kill the receiver with its
 * pushes in flight.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <microhttpd.h>

#include "db_pool.h"
#include "receiver.h"
#include "server.h"
#include "tenants.h"

void
log_message(const char *fmt,...)
{
	va_list		args;
	char		stamp[32];
	time_t		now = time(NULL);
	struct tm	tm;

	strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", gmtime_r(&now, &tm));
	va_start(args, fmt);
	flockfile(stderr);
	fprintf(stderr, "%s UTC calltree-receiver: ", stamp);
	vfprintf(stderr, fmt, args);
	fputc('\n', stderr);
	funlockfile(stderr);
	va_end(args);
}

/* SIGHUP: the tenants file read again; a file with a fault leaves them as they were */
static void
reload_tenants(Receiver *receiver)
{
	const char *path = receiver->options.tenants_file;
	int			n = 0;

	if (path == NULL)
		log_message("SIGHUP: no --tenants file to read again");
	else if (tenants_reload(receiver->tenants, path, &n))
		log_message("SIGHUP: %d credentials in %s", n, path);
	else
		log_message("SIGHUP: %s not read again (see above); the tenants are as they were", path);
}

int
main(int argc, char **argv)
{
	Receiver	receiver = {0};
	struct MHD_Daemon *daemon;
	sigset_t	stop_signals;
	int			signal_number;
	int			port;
	int			ntenants = 0;

	if (!parse_options(argc, argv, &receiver.options))
		return 2;
	if (receiver.options.tenants_file != NULL &&
		(receiver.tenants = tenants_load(receiver.options.tenants_file, &ntenants)) == NULL)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGTERM);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

	receiver.db = db_pool_create(receiver.options.conninfo, receiver.options.connections,
								 receiver.options.queue_wait_ms);
	daemon = server_start(&receiver, &port);
	if (daemon == NULL)
		return 1;
	log_message("listening on %s:%d, %d database connections, bodies up to %zu bytes, %s",
				receiver.options.listen_host, port, receiver.options.connections,
				receiver.options.max_body, receiver.tenants ? "tenants from the file" : "no tenants");
	if (ntenants > 0)
		log_message("%d credentials in %s", ntenants, receiver.options.tenants_file);

	while (sigwait(&stop_signals, &signal_number) == 0 && signal_number == SIGHUP)
		reload_tenants(&receiver);
	log_message("%s: draining", signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
	server_drain_and_stop(daemon, &receiver);
	db_pool_destroy(receiver.db);
	tenants_free(receiver.tenants);
	log_message("stopped");
	return 0;
}
