/*
 * metrics.c
 *	  Counters for GET /metrics (metrics.h).  The endpoints and reasons are
 *	  the receiver's own constant strings, a handful, so a small table
 *	  searched under one lock is enough.
 */
#include "metrics.h"

#include <pthread.h>
#include <string.h>

#include "db_pool.h"

#define MAX_SERIES 64

typedef struct RequestSeries
{
	const char *endpoint;
	int			status;
	unsigned long long count;
} RequestSeries;

typedef struct RefusalSeries
{
	const char *reason;
	unsigned long long count;
} RefusalSeries;

/* Upper bounds of the import latency histogram, in seconds */
static const double buckets[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static RequestSeries requests[MAX_SERIES];
static int	nrequests;
static RefusalSeries refusals[MAX_SERIES];
static int	nrefusals;
static unsigned long long body_bytes_total;
static unsigned long long bucket_counts[NBUCKETS];
static unsigned long long imports_count;
static double imports_seconds;
static unsigned long long profiles_total;

void
metrics_count_request(const char *endpoint, int status, size_t body_bytes)
{
	pthread_mutex_lock(&lock);
	body_bytes_total += body_bytes;
	for (int i = 0; i <= nrequests; i++)
	{
		if (i == nrequests)
		{
			if (nrequests == MAX_SERIES)
				break;
			requests[nrequests++] = (RequestSeries) {endpoint, status, 0};
		}
		if (strcmp(requests[i].endpoint, endpoint) == 0 && requests[i].status == status)
		{
			requests[i].count++;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

void
metrics_count_refusal(const char *reason)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i <= nrefusals; i++)
	{
		if (i == nrefusals)
		{
			if (nrefusals == MAX_SERIES)
				break;
			refusals[nrefusals++] = (RefusalSeries) {reason, 0};
		}
		if (strcmp(refusals[i].reason, reason) == 0)
		{
			refusals[i].count++;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
}

void
metrics_observe_import(double seconds, int profiles)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < NBUCKETS; i++)
		if (seconds <= buckets[i])
			bucket_counts[i]++;
	imports_count++;
	imports_seconds += seconds;
	profiles_total += (unsigned long long) profiles;
	pthread_mutex_unlock(&lock);
}

void
metrics_render(Buffer *out, struct DbPool *pool, int in_flight)
{
	int			size;
	int			in_use = db_in_use(pool, &size);

	pthread_mutex_lock(&lock);
	buf_append_str(out, "# HELP calltree_receiver_requests_total HTTP requests answered, by endpoint and status.\n"
				   "# TYPE calltree_receiver_requests_total counter\n");
	for (int i = 0; i < nrequests; i++)
		buf_printf(out, "calltree_receiver_requests_total{endpoint=\"%s\",status=\"%d\"} %llu\n",
				   requests[i].endpoint, requests[i].status, requests[i].count);
	buf_printf(out, "# HELP calltree_receiver_request_body_bytes_total Bytes of request bodies received.\n"
			   "# TYPE calltree_receiver_request_body_bytes_total counter\n"
			   "calltree_receiver_request_body_bytes_total %llu\n", body_bytes_total);
	buf_append_str(out, "# HELP calltree_receiver_refusals_total Pushes refused before the database: too large, busy, database down, unauthorized.\n"
				   "# TYPE calltree_receiver_refusals_total counter\n");
	for (int i = 0; i < nrefusals; i++)
		buf_printf(out, "calltree_receiver_refusals_total{reason=\"%s\"} %llu\n",
				   refusals[i].reason, refusals[i].count);
	buf_append_str(out, "# HELP calltree_receiver_import_seconds Time of a committed push's transaction.\n"
				   "# TYPE calltree_receiver_import_seconds histogram\n");
	for (size_t i = 0; i < NBUCKETS; i++)
		buf_printf(out, "calltree_receiver_import_seconds_bucket{le=\"%g\"} %llu\n", buckets[i], bucket_counts[i]);
	buf_printf(out, "calltree_receiver_import_seconds_bucket{le=\"+Inf\"} %llu\n"
			   "calltree_receiver_import_seconds_sum %.6f\n"
			   "calltree_receiver_import_seconds_count %llu\n",
			   imports_count, imports_seconds, imports_count);
	buf_printf(out, "# HELP calltree_receiver_profiles_total Profiles imported.\n"
			   "# TYPE calltree_receiver_profiles_total counter\n"
			   "calltree_receiver_profiles_total %llu\n", profiles_total);
	pthread_mutex_unlock(&lock);
	buf_printf(out, "# HELP calltree_receiver_db_connections_in_use Database connections serving a request.\n"
			   "# TYPE calltree_receiver_db_connections_in_use gauge\n"
			   "calltree_receiver_db_connections_in_use %d\n"
			   "# HELP calltree_receiver_db_connections Database connections configured.\n"
			   "# TYPE calltree_receiver_db_connections gauge\n"
			   "calltree_receiver_db_connections %d\n"
			   "# HELP calltree_receiver_requests_in_flight Requests being served.\n"
			   "# TYPE calltree_receiver_requests_in_flight gauge\n"
			   "calltree_receiver_requests_in_flight %d\n", in_use, size, in_flight);
}
