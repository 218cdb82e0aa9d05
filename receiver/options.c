/*
 * options.c
 *	  The command line of calltree-receiver.
 */
#include "receiver.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
usage(FILE *out)
{
	fprintf(out,
			"calltree-receiver: takes the profiles agents push (Pyroscope's HTTP API)\n"
			"and imports each push into calltree in one transaction.\n\n"
			"Usage: calltree-receiver --dbname CONNINFO [OPTION]...\n\n"
			"  --listen HOST:PORT     address to listen on (default 127.0.0.1:4040)\n"
			"  --dbname CONNINFO      the database: a connection string or URI (required)\n"
			"  --max-body BYTES       largest request body (default 16777216); more: 413\n"
			"  --connections N        database connections (default 4)\n"
			"  --max-clients N        HTTP connections at once (default 64)\n"
			"  --max-clients-per-address N  of them from one address (default 16); raise it\n"
			"                         for agents behind one NAT or proxy\n"
			"  --timeout SECONDS      a client silent this long is dropped (default 30)\n"
			"  --request-timeout SECONDS  time to send a whole request, headers too (default 120)\n"
			"  --queue-wait MS        wait for a free database connection, then 429 (default 2000)\n"
			"  --drain-timeout SECONDS  on SIGTERM, wait this long for requests, then cancel\n"
			"                         those in the database (default 30)\n"
			"  --tenants FILE         credentials to PostgreSQL roles (docs/ingest.md);\n"
			"                         read again on SIGHUP\n"
			"  --verbose              log every request\n"
			"  --help                 this help\n");
}

/* A whole decimal number in [min, max] */
static bool
parse_number(const char *arg, const char *option, long long min, long long max, long long *value)
{
	char	   *end;

	*value = strtoll(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || *value < min || *value > max)
	{
		fprintf(stderr, "calltree-receiver: %s takes a number from %lld to %lld, not \"%s\"\n",
				option, min, max, arg);
		return false;
	}
	return true;
}

/* HOST:PORT, [IPv6]:PORT or :PORT (loopback) */
static bool
parse_listen(const char *arg, Options *options)
{
	const char *colon = strrchr(arg, ':');
	long long	port;
	char	   *host;

	if (colon == NULL || !parse_number(colon + 1, "--listen's port", 0, 65535, &port))
	{
		if (colon == NULL)
			fprintf(stderr, "calltree-receiver: --listen takes HOST:PORT, not \"%s\"\n", arg);
		return false;
	}
	host = strndup(arg, (size_t) (colon - arg));
	if (host[0] == '[' && host[strlen(host) - 1] == ']')
	{
		memmove(host, host + 1, strlen(host));
		host[strlen(host) - 1] = '\0';
	}
	options->listen_host = host[0] ? host : "127.0.0.1";
	options->listen_port = (int) port;
	return true;
}

bool
parse_options(int argc, char **argv, Options *options)
{
	static const struct option longopts[] = {
		{"listen", required_argument, NULL, 'l'},
		{"dbname", required_argument, NULL, 'd'},
		{"max-body", required_argument, NULL, 'b'},
		{"connections", required_argument, NULL, 'c'},
		{"max-clients", required_argument, NULL, 'm'},
		{"max-clients-per-address", required_argument, NULL, 'a'},
		{"timeout", required_argument, NULL, 't'},
		{"request-timeout", required_argument, NULL, 'r'},
		{"queue-wait", required_argument, NULL, 'q'},
		{"drain-timeout", required_argument, NULL, 'D'},
		{"tenants", required_argument, NULL, 'T'},
		{"verbose", no_argument, NULL, 'v'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0}
	};
	int			c;
	long long	n;

	*options = (Options) {
		.listen_host = "127.0.0.1", .listen_port = 4040, .max_body = 16 << 20,
		.connections = 4, .max_clients = 64, .max_clients_per_address = 16, .timeout = 30, .request_timeout = 120,
		.queue_wait_ms = 2000, .drain_timeout = 30,
	};
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1)
	{
		bool		ok = true;

		switch (c)
		{
			case 'l': ok = parse_listen(optarg, options); break;
			case 'd': options->conninfo = optarg; break;
			case 'b': ok = parse_number(optarg, "--max-body", 1, (1LL << 30) - 1, &n); options->max_body = (size_t) n; break;
			case 'c': ok = parse_number(optarg, "--connections", 1, 1000, &n); options->connections = (int) n; break;
			case 'm': ok = parse_number(optarg, "--max-clients", 1, 100000, &n); options->max_clients = (int) n; break;
			case 'a': ok = parse_number(optarg, "--max-clients-per-address", 1, 100000, &n); options->max_clients_per_address = (int) n; break;
			case 't': ok = parse_number(optarg, "--timeout", 1, 86400, &n); options->timeout = (int) n; break;
			case 'r': ok = parse_number(optarg, "--request-timeout", 1, 86400, &n); options->request_timeout = (int) n; break;
			case 'q': ok = parse_number(optarg, "--queue-wait", 0, 600000, &n); options->queue_wait_ms = (int) n; break;
			case 'D': ok = parse_number(optarg, "--drain-timeout", 0, 86400, &n); options->drain_timeout = (int) n; break;
			case 'T': options->tenants_file = optarg; break;
			case 'v': options->verbose = true; break;
			case 'h': usage(stdout); exit(0);
			default: ok = false;
		}
		if (!ok)
		{
			fprintf(stderr, "Try \"calltree-receiver --help\".\n");
			return false;
		}
	}
	if (optind < argc || options->conninfo == NULL)
	{
		fprintf(stderr, optind < argc ? "calltree-receiver: unexpected argument \"%s\"\n"
				: "calltree-receiver: --dbname is required%s\n", optind < argc ? argv[optind] : "");
		fprintf(stderr, "Try \"calltree-receiver --help\".\n");
		return false;
	}
	return true;
}
