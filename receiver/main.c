/*
 * main.c
 *	  calltree-receiver: start, wait for SIGTERM or SIGINT, drain, stop.
 *
 * The signals are blocked before any thread starts, so that every thread
 * inherits the mask and only the main thread, in sigwait, takes them.
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

	sigwait(&stop_signals, &signal_number);
	log_message("%s: draining", signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
	server_drain_and_stop(daemon, &receiver);
	db_pool_destroy(receiver.db);
	log_message("stopped");
	return 0;
}
