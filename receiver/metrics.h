/*
 * metrics.h
 *	  Counters for GET /metrics, in Prometheus' text format.
 */
#ifndef RECEIVER_METRICS_H
#define RECEIVER_METRICS_H

#include "buffer.h"

struct DbPool;

extern void metrics_count_request(const char *endpoint, int status, size_t body_bytes);
extern void metrics_count_refusal(const char *reason);
extern void metrics_observe_import(double seconds, int profiles);
extern void metrics_render(Buffer *out, struct DbPool *pool, int in_flight);

#endif
