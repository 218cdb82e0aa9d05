/*
 * db_import.c
 *	  One push, one transaction (db_import.h).
 *
 * The statements go out in libpq's pipeline mode, a segment of them per
 * item (db_item.c), each segment one round trip: BEGIN and the role
 * (set_config, not spliced into SQL) with the first item; the
 * transaction's id comes with each item's lock (a push of no item asks
 * for it alone).  Then COMMIT, alone, once the answers
 * said the push is good and new; a push that repeats one stored before
 * (every profile it made has an earlier twin) is rolled back and answered
 * as if stored now.  The transaction's id is known before COMMIT is sent:
 * a COMMIT whose answer is lost with its connection is looked up by it
 * (txid_status), so that a push that committed is answered 200, not 503.
 * A segment answers only once read whole, so each stays small (one item's
 * statements and their one-row answers), and libpq's blocking writes
 * never wait on answers it has not read.
 */
#include "db_import.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "db_item.h"
#include "db_pool.h"
#include "metrics.h"

/*
 * The status of a failed statement: bad input is the client's (4xx: data
 * exceptions and broken references 400, a feature not supported 415, a
 * limit of the importers 413, no right 403), a lost connection, a conflict
 * or an overloaded or stopping server is worth a retry (503), and so is a
 * server that is read-only for now (maintenance, a standby) or a lock not
 * had within lock_timeout: 500 would make agents drop the push.
 */
static int
status_of_sqlstate(const char *sqlstate, PGconn *conn)
{
	if (PQstatus(conn) != CONNECTION_OK || sqlstate == NULL)
		return 503;
	if (strcmp(sqlstate, "42501") == 0)
		return 403;
	if (strncmp(sqlstate, "22", 2) == 0 || strncmp(sqlstate, "23", 2) == 0 ||
		strcmp(sqlstate, "XX001") == 0 ||
		strcmp(sqlstate, "42704") == 0 || strncmp(sqlstate, "02", 2) == 0)
		return 400;
	if (strncmp(sqlstate, "0A", 2) == 0)
		return 415;
	if (strncmp(sqlstate, "54", 2) == 0)
		return 413;
	if (strncmp(sqlstate, "08", 2) == 0 || strncmp(sqlstate, "40", 2) == 0 ||
		strncmp(sqlstate, "53", 2) == 0 || strncmp(sqlstate, "57", 2) == 0 ||
		strcmp(sqlstate, "25006") == 0 || strcmp(sqlstate, "55P03") == 0)
		return 503;
	return 500;
}

/* The reply to a failed statement: its status and the database's words */
static void
reply_db_error(Reply *reply, PGconn *conn, const PGresult *res)
{
	const char *sqlstate = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *message = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	const char *detail = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : NULL;
	const char *hint = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_HINT) : NULL;
	int			status = status_of_sqlstate(sqlstate, conn);

	if (status == 503 && (sqlstate == NULL || strncmp(sqlstate, "08", 2) == 0))
	{
		db_reply_unavailable(reply, false, PQerrorMessage(conn));
		return;
	}
	reply_text(reply, status, "%s%s%s%s%s", message ? message : PQerrorMessage(conn),
			   detail ? "\nDETAIL: " : "", detail ? detail : "",
			   hint ? "\nHINT: " : "", hint ? hint : "");
	if (status == 503)
		reply->retry_after = 1;
}

void
db_reply_unavailable(Reply *reply, bool busy, const char *why)
{
	if (busy)
	{
		reply_text(reply, 429, "every database connection is busy; retry later");
		reply->retry_after = 1;
		metrics_count_refusal("busy");
	}
	else
	{
		reply_text(reply, 503, "the database is unavailable; retry later: %s", why ? why : "");
		reply->retry_after = 5;
		metrics_count_refusal("database_down");
	}
}

/*
 * Reads the answers of one segment of the pipeline: a statement of each
 * kind, then the sync.  Notes them in outcome (the transaction's id in
 * xid); false after filling the reply with the first failure, or, when
 * the connection was lost, with nothing (the caller says it).
 */
static bool
read_segment(PGconn *conn, const StepKind *kinds, int n, ItemOutcome *outcome, char *xid, size_t xid_size,
			 Reply *reply)
{
	bool		ok = true;
	PGresult   *res;

	for (int i = 0; i < n && PQstatus(conn) == CONNECTION_OK; i++)
	{
		ExecStatusType status;

		if ((res = PQgetResult(conn)) == NULL)
			return false;
		status = PQresultStatus(res);
		if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
		{
			if (kinds[i] == STEP_XID)
				snprintf(xid, xid_size, "%s", PQgetvalue(res, 0, 0));
			else
				db_item_note(kinds[i], res, outcome);
		}
		else if (status != PGRES_PIPELINE_ABORTED && ok && PQstatus(conn) == CONNECTION_OK)
		{
			reply_db_error(reply, conn, res);
			/* a tenant's role that does not exist is no fault of the push's (400) */
			if (kinds[i] == STEP_ROLE && reply->status < 500)
				reply->status = 403;
			ok = false;
		}
		PQclear(res);
		/* the end of the statement's answers */
		while ((res = PQgetResult(conn)) != NULL)
			PQclear(res);
	}
	if (PQstatus(conn) != CONNECTION_OK)
		return false;
	res = PQgetResult(conn);
	if (PQresultStatus(res) != PGRES_PIPELINE_SYNC && ok)
	{
		reply_db_error(reply, conn, res);
		ok = false;
	}
	PQclear(res);
	return ok;
}

/*
 * Sends a segment of the pipeline: BEGIN and the role first, the item's
 * statements (item NULL: none, and the transaction's id asked alone),
 * then the sync;
 * the kind of each into kinds, how many, or -1 if libpq refused one
 */
static int
send_segment(PGconn *conn, unsigned *prepared, const char *role, const ImportItem *item, bool first, bool last,
			 StepKind *kinds)
{
	int			n = 0;
	int			m = 0;

	if (first)
	{
		const char *values[1] = {role};

		if ((n = db_send(conn, prepared, ST_BEGIN, "BEGIN", 0, NULL, NULL, STEP_COMMAND, kinds)) < 0)
			return -1;
		if (role != NULL &&
			(m = db_send(conn, prepared, ST_ROLE, "SELECT pg_catalog.set_config('role', $1, true)",
						 1, values, NULL, STEP_ROLE, kinds + n)) < 0)
			return -1;
		n += role != NULL ? m : 0;
	}
	if (item != NULL)
	{
		if ((m = db_item_send(conn, prepared, role, item, kinds + n)) < 0)
			return -1;
		n += m;
	}
	if (last && item == NULL)
	{
		if ((m = db_send(conn, prepared, ST_XID, "SELECT pg_catalog.txid_current()",
						 0, NULL, NULL, STEP_XID, kinds + n)) < 0)
			return -1;
		n += m;
	}
	return PQpipelineSync(conn) == 1 ? n : -1;
}

/* The most statements of a segment: BEGIN, the role, an item's, the id, each maybe prepared first */
#define SEGMENT_MAX_STEPS (2 + 2 + ITEM_MAX_STEPS + 2)

/* How an attempt at a push on one connection ended */
typedef enum Attempt
{
	ATTEMPT_FAILED,				/* the reply says why */
	ATTEMPT_STALE,				/* the connection was closed before: take another */
	ATTEMPT_DONE,				/* committed, or a retry of a push stored before */
	ATTEMPT_UNANSWERED			/* COMMIT sent, its answer lost */
} Attempt;

/* Whether the push repeats one stored before: nothing new, some twin */
static bool
is_retry(const ItemOutcome *outcomes, int n)
{
	bool		twinned = false;

	for (int i = 0; i < n; i++)
		if (db_item_is_retry(&outcomes[i]))
			twinned = true;
		else if (outcomes[i].made > 0)
			return false;
	return twinned;
}

/*
 * The items, each in a segment of the pipeline that runs its statements
 * in one round trip, the first segment opening the transaction: how far
 * they got
 */
static bool
send_items(PGconn *conn, unsigned *prepared, const char *role, const ImportItem *items, int n,
		   ItemOutcome *outcomes, char *xid, size_t xid_size, Reply *reply, bool *stale)
{
	for (int i = 0; i == 0 || i < n; i++)
	{
		StepKind	kinds[SEGMENT_MAX_STEPS];
		int			nkinds = send_segment(conn, prepared, role, n > 0 ? &items[i] : NULL, i == 0, i >= n - 1,
										  kinds);

		if (nkinds < 0 || !read_segment(conn, kinds, nkinds, &outcomes[n > 0 ? i : 0], xid, xid_size, reply))
		{
			/*
			 * lost in the first segment (most often: the server closed the
			 * connection while it was idle): nothing was committed, another
			 * connection may try
			 */
			*stale = i == 0 && PQstatus(conn) != CONNECTION_OK;
			if (nkinds < 0 || (PQstatus(conn) != CONNECTION_OK && !*stale))
				reply_db_error(reply, conn, NULL);
			return false;
		}
	}
	return true;
}

/*
 * The push on one connection: its items; then COMMIT, the transaction's
 * id known before it is sent, or for a retry ROLLBACK.  Connection lost
 * before COMMIT is answered: ATTEMPT_UNANSWERED, the reply left to the
 * caller, who finds out whether it committed.
 */
static Attempt
attempt_import(PGconn *conn, unsigned *prepared, const char *role, const ImportItem *items, int n, Reply *reply,
			   ImportCounts *counts, char *xid, size_t xid_size)
{
	ItemOutcome *outcomes = calloc((size_t) n + 1, sizeof(ItemOutcome));
	bool		stale = false;
	bool		sent;
	bool		retry;
	PGresult   *res;
	Attempt		result;

	if (outcomes == NULL)
	{
		reply_text(reply, 503, "out of memory");
		return ATTEMPT_FAILED;
	}
	if (PQenterPipelineMode(conn) != 1)
	{
		reply_db_error(reply, conn, NULL);
		free(outcomes);
		return ATTEMPT_FAILED;
	}
	sent = send_items(conn, prepared, role, items, n, outcomes, xid, xid_size, reply, &stale);
	if (PQstatus(conn) == CONNECTION_OK && PQexitPipelineMode(conn) != 1 && sent)
	{
		reply_db_error(reply, conn, NULL);
		sent = false;
	}
	retry = sent && is_retry(outcomes, n);
	memset(counts, 0, sizeof(ImportCounts));
	for (int i = 0; sent && i < n; i++)
	{
		counts->duplicates += outcomes[i].stored || db_item_is_retry(&outcomes[i]);
		counts->imported += retry ? 0 : outcomes[i].made;
	}
	free(outcomes);
	if (!sent || retry)
	{
		if (PQstatus(conn) == CONNECTION_OK && PQisBusy(conn) == 0)
			PQclear(PQexec(conn, "ROLLBACK"));
		/* which statements a failed pipeline prepared is not known: none now */
		if (!sent && PQstatus(conn) == CONNECTION_OK)
			PQclear(PQexec(conn, "DEALLOCATE ALL"));
		if (!sent)
			*prepared = 0;
		return !sent ? (stale ? ATTEMPT_STALE : ATTEMPT_FAILED) : ATTEMPT_DONE;
	}
	res = PQexec(conn, "COMMIT");
	if (PQresultStatus(res) == PGRES_COMMAND_OK)
		result = ATTEMPT_DONE;
	else if (PQstatus(conn) != CONNECTION_OK)
		result = ATTEMPT_UNANSWERED;
	else
	{
		reply_db_error(reply, conn, res);
		result = ATTEMPT_FAILED;
	}
	PQclear(res);
	return result;
}

static double
seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double) (now.tv_sec - start->tv_sec) + (double) (now.tv_nsec - start->tv_nsec) / 1e9;
}

/*
 * Whether transaction xid committed, asked on another connection: its
 * COMMIT was sent, but the connection was lost before the answer came (a
 * restart, a session ended).  Asked again while the database does not
 * answer or the transaction is still in progress, for up to
 * COMMIT_QUESTION_SECONDS; false if it did not commit, or it is not known.
 */
#define COMMIT_QUESTION_SECONDS 5

static bool
committed_after_all(struct DbPool *pool, const char *xid)
{
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;)
	{
		PGconn	   *conn;
		char	   *error;
		char		status[16] = "";

		if (db_acquire(pool, &conn, &error) == DB_ACQUIRED)
		{
			const char *values[1] = {xid};
			PGresult   *res = PQexecParams(conn, "SELECT pg_catalog.txid_status($1::pg_catalog.int8)",
										   1, NULL, values, NULL, NULL, 0);

			if (PQresultStatus(res) == PGRES_TUPLES_OK && !PQgetisnull(res, 0, 0))
				snprintf(status, sizeof(status), "%s", PQgetvalue(res, 0, 0));
			PQclear(res);
			db_release(pool, conn);
		}
		free(error);
		if (strcmp(status, "committed") == 0)
			return true;
		if (strcmp(status, "aborted") == 0 || seconds_since(&start) >= COMMIT_QUESTION_SECONDS)
			return false;
		usleep(200 * 1000);
	}
}

/*
 * One push, on a connection that answers.  One the server closed since it
 * was last used (a restart ends them all) is dropped and the next taken,
 * or made again: once per connection of the pool, and once more.
 */
bool
db_import(struct DbPool *pool, const char *role, const ImportItem *items, int n, Reply *reply,
		  ImportCounts *counts)
{
	struct timespec start;
	int			size;
	Attempt		result = ATTEMPT_FAILED;
	char		xid[32] = "";

	memset(counts, 0, sizeof(ImportCounts));
	clock_gettime(CLOCK_MONOTONIC, &start);
	db_in_use(pool, &size);
	for (int attempt = 1; attempt <= size + 1; attempt++)
	{
		PGconn	   *conn;
		char	   *error;
		DbAcquire	got = db_acquire(pool, &conn, &error);

		if (got != DB_ACQUIRED)
		{
			db_reply_unavailable(reply, got == DB_BUSY, error);
			free(error);
			return false;
		}
		result = attempt_import(conn, db_prepared(pool, conn), role, items, n, reply, counts, xid, sizeof(xid));
		db_release(pool, conn);
		if (result != ATTEMPT_STALE)
			break;
	}
	if (result == ATTEMPT_STALE)
		db_reply_unavailable(reply, false, "every database connection was lost");
	if (result == ATTEMPT_UNANSWERED)
	{
		result = committed_after_all(pool, xid) ? ATTEMPT_DONE : ATTEMPT_FAILED;
		if (result != ATTEMPT_DONE)
			db_reply_unavailable(reply, false, "the connection was lost before the database answered COMMIT, "
								 "and the push is not known to be stored");
	}
	if (result == ATTEMPT_DONE)
		metrics_observe_import(seconds_since(&start), counts->imported);
	return result == ATTEMPT_DONE;
}

void
db_check_ready(struct DbPool *pool, Reply *reply)
{
	PGconn	   *conn;
	char	   *error;
	DbAcquire	got = db_acquire(pool, &conn, &error);
	PGresult   *res;

	if (got != DB_ACQUIRED)
	{
		db_reply_unavailable(reply, got == DB_BUSY, error);
		free(error);
		return;
	}
	res = PQexec(conn, "SELECT 1 FROM pg_catalog.pg_extension WHERE extname OPERATOR(pg_catalog.=) 'calltree'");
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		reply_db_error(reply, conn, res);
	else if (PQntuples(res) == 0)
		reply_text(reply, 503, "the database has no extension calltree");
	else
		reply_text(reply, 200, "ready");
	PQclear(res);
	db_release(pool, conn);
}
