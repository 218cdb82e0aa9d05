/*
 * db_import.h
 *	  One push, one transaction: its profiles imported by calltree's import
 *	  functions, with every value from the request a parameter.
 */
#ifndef RECEIVER_DB_IMPORT_H
#define RECEIVER_DB_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "request.h"

struct DbPool;

typedef struct ImportItem
{
	const char *data;			/* the profile file, as pushed */
	size_t		len;
	const char *format;			/* "otlp" (import_otlp), "jfr" (import_jfr), or
								 * import_stream's: "pprof", "collapsed"...; NULL:
								 * recognized */
	const char *name;			/* NULL: none */
	const char *meta;			/* a JSON object */
	const char *started_at;		/* Unix time in seconds, as text; NULL: the profile's
								 * own (always NULL for otlp) */
	const char *push_id;		/* NULL, or: a profile with this meta->>'push_id' is stored once */
	const char *sample_rate;	/* jfr: samples per second, as text; NULL: the recording's */
	const char *labels;			/* jfr: the Java agent's LabelsSnapshot; NULL: none */
	size_t		labels_len;
} ImportItem;

typedef struct ImportCounts
{
	int			imported;		/* profiles made */
	int			duplicates;		/* items skipped: their push_id was stored already */
} ImportCounts;

/*
 * Imports the items in one transaction, as role (NULL: the login role).
 * True once committed; otherwise the reply says why: 4xx with the
 * database's message for bad input, 503 or 429 with Retry-After when the
 * database cannot take it now.
 */
extern bool db_import(struct DbPool *pool, const char *role, const ImportItem *items, int n,
					  Reply *reply, ImportCounts *counts);

/* 200 once the database answers and has calltree; else 503 */
extern void db_check_ready(struct DbPool *pool, Reply *reply);

/* A refusal for a pool that gave no connection (busy: 429, down: 503) */
extern void db_reply_unavailable(Reply *reply, bool busy, const char *why);

#endif
