/*
 * ingest_params.h
 *	  The query parameters of Pyroscope's POST /ingest, as a profile's
 *	  name, meta and start.
 */
#ifndef RECEIVER_INGEST_PARAMS_H
#define RECEIVER_INGEST_PARAMS_H

#include <stdbool.h>

#include "buffer.h"
#include "request.h"

typedef struct IngestParams
{
	char	   *name;			/* the application name, without its labels */
	Buffer		meta;			/* a JSON object: labels, spyName, sampleRate... */
	const char *format;			/* import_stream's name of the format, or "jfr"; NULL:
								 * recognized */
	char		started_at[32];	/* from, in Unix seconds; "" if not given */
	char		sample_rate[16];	/* sampleRate, checked; "" if not given */
} IngestParams;

/*
 * The parameters of the request, the tenant (NULL: none) in meta; false
 * after filling a 4xx reply.
 */
extern bool ingest_params_parse(const Request *req, const char *tenant, IngestParams *params,
								Reply *reply);
extern void ingest_params_free(IngestParams *params);

/* Appends "key": "value" pairs from name{k=v,...} to an open JSON object; *first: none yet */
extern bool labels_to_json(const char *labels, size_t len, Buffer *meta, bool *first);

#endif
