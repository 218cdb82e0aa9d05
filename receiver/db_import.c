/*
 * db_import.c
 *	  One push, one transaction (db_import.h).
 *
 * pprof goes to import_pprof, which reads gzip itself; OTLP to
 * import_otlp and JFR to import_jfr (with the Java agent's labels, when
 * sent), whose profile ids come back as one array.  The other formats
 * go through import_stream, the only importer that takes the format by
 * name (so that format=folded is read as collapsed stacks and nothing
 * else) and unwraps gzip: the body is one base64 chunk in the temporary
 * table each connection made (db_pool.c).  Every value from the request is
 * a parameter, the body a binary one; the role is set with set_config, not
 * spliced into SQL.  A COMMIT whose answer is lost with its connection is
 * looked up by the transaction's id (txid_status), so that a push that
 * committed is answered 200, not 503 and stored again by its retry.
 */
#include "db_import.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "db_pool.h"
#include "metrics.h"

#define BYTEA_OID 17

/* pg_advisory_xact_lock's first key for push ids: "ct" "pu" */
#define PUSH_ID_LOCK_CLASS "1668574325"

/*
 * The status of a failed statement: bad input is the client's (4xx: data
 * exceptions and broken references 400, a feature not supported 415, a
 * limit of the importers 413, no right 403), a lost connection, a conflict
 * or an overloaded or stopping server is worth a retry (503).
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
		strncmp(sqlstate, "53", 2) == 0 || strncmp(sqlstate, "57", 2) == 0)
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
 * Runs one statement with text parameters, but for those of lengths[i] >= 0
 * (lengths NULL: none), which are binary bytea of that many bytes; its
 * result, or NULL after filling the reply.  The caller clears the result.
 */
static PGresult *
run(PGconn *conn, Reply *reply, const char *sql, int nparams, const char *const *values,
	const long *lengths)
{
	Oid			types[8] = {0};
	int			binary_lengths[8] = {0};
	int			formats[8] = {0};
	PGresult   *res;
	ExecStatusType status;

	for (int i = 0; lengths != NULL && i < nparams; i++)
		if (lengths[i] >= 0)
		{
			types[i] = BYTEA_OID;
			binary_lengths[i] = (int) lengths[i];
			formats[i] = 1;
		}
	res = PQexecParams(conn, sql, nparams, types, values, binary_lengths, formats, 0);
	status = PQresultStatus(res);
	if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)
		return res;
	reply_db_error(reply, conn, res);
	PQclear(res);
	return NULL;
}

static bool
run_command(PGconn *conn, Reply *reply, const char *sql, int nparams, const char *const *values)
{
	PGresult   *res = run(conn, reply, sql, nparams, values, NULL);

	PQclear(res);
	return res != NULL;
}

/* Whether a profile of this push id is stored (locking the id till commit) */
static bool
push_id_stored(PGconn *conn, Reply *reply, const char *push_id, bool *stored)
{
	const char *values[1] = {push_id};
	PGresult   *res;

	if (!run_command(conn, reply,
					 "SELECT pg_catalog.pg_advisory_xact_lock(" PUSH_ID_LOCK_CLASS ", pg_catalog.hashtext($1))",
					 1, values))
		return false;
	res = run(conn, reply,
			  "SELECT 1 FROM calltree.profile"
			  " WHERE meta OPERATOR(pg_catalog.->>) 'push_id' OPERATOR(pg_catalog.=) $1 LIMIT 1",
			  1, values, NULL);
	if (res == NULL)
		return false;
	*stored = PQntuples(res) > 0;
	PQclear(res);
	return true;
}

/*
 * The statement that imports an item, its parameters in values and
 * lengths.  Every statement returns the ids it made as a bigint[].
 */
static const char *
import_statement(const ImportItem *item, const char **values, long *lengths, int *nparams)
{
	values[0] = item->data;
	lengths[0] = (long) item->len;
	values[1] = item->name;
	values[2] = item->meta;
	*nparams = 3;
	if (strcmp(item->format, "pprof") == 0)
		return "SELECT ARRAY[calltree.import_pprof($1, NULL, $2::pg_catalog.text, $3::pg_catalog.jsonb)]";
	if (strcmp(item->format, "otlp") == 0)
		return "SELECT calltree.import_otlp($1, $2::pg_catalog.text, $3::pg_catalog.jsonb)";
	/* jfr */
	values[3] = item->sample_rate;
	*nparams = 4;
	if (item->labels == NULL)
		return "SELECT calltree.import_jfr(data => $1, name => $2::pg_catalog.text,"
			" meta => $3::pg_catalog.jsonb, sample_rate => $4::pg_catalog.int4)";
	values[4] = item->labels;
	lengths[4] = (long) item->labels_len;
	*nparams = 5;
	return "SELECT calltree.import_jfr(data => $1, name => $2::pg_catalog.text,"
		" meta => $3::pg_catalog.jsonb, sample_rate => $4::pg_catalog.int4, labels => $5)";
}

/*
 * Through import_stream, the formats that go by name: the body one base64
 * chunk of the connection's temporary table
 */
static PGresult *
import_streamed(PGconn *conn, Reply *reply, const ImportItem *item)
{
	const char *chunk[1] = {item->data};
	long		chunk_length[1] = {(long) item->len};
	const char *values[3] = {item->name, item->meta, item->format};
	PGresult   *res;

	if (!run_command(conn, reply, "DELETE FROM pg_temp.calltree_receiver_chunks", 0, NULL))
		return NULL;
	res = run(conn, reply,
			  "INSERT INTO pg_temp.calltree_receiver_chunks (seq, chunk)"
			  " VALUES (1, pg_catalog.encode($1, 'base64'))",
			  1, chunk, chunk_length);
	if (res == NULL)
		return NULL;
	PQclear(res);
	return run(conn, reply,
			   "SELECT ARRAY[calltree.import_stream('pg_temp.calltree_receiver_chunks'::pg_catalog.regclass,"
			   " $1::pg_catalog.text, $2::pg_catalog.jsonb, $3::pg_catalog.text)]",
			   3, values, NULL);
}

/*
 * Imports one item; the ids of the profiles it made (a bigint[] as text,
 * malloc'd), or NULL after filling the reply
 */
static char *
import_item(PGconn *conn, Reply *reply, const ImportItem *item)
{
	PGresult   *res;
	char	   *ids;

	if (item->format != NULL &&
		(strcmp(item->format, "pprof") == 0 || strcmp(item->format, "otlp") == 0 ||
		 strcmp(item->format, "jfr") == 0))
	{
		const char *values[5] = {0};
		long		lengths[5] = {-1, -1, -1, -1, -1};
		int			nparams;
		const char *sql = import_statement(item, values, lengths, &nparams);

		res = run(conn, reply, sql, nparams, values, lengths);
	}
	else
		res = import_streamed(conn, reply, item);
	if (res == NULL)
		return NULL;
	ids = strdup(PQgetvalue(res, 0, 0));
	PQclear(res);
	return ids;
}

/* How many ids a bigint[] as text holds: {} none, {1,2} two */
static int
count_ids(const char *ids)
{
	int			n = strcmp(ids, "{}") != 0;

	for (const char *p = ids; *p; p++)
		n += *p == ',';
	return n;
}

/* Sets started_at of the new profiles from the push's time */
static bool
set_started_at(PGconn *conn, Reply *reply, const char *ids, const char *started_at)
{
	const char *values[2] = {ids, started_at};

	return run_command(conn, reply,
					   "UPDATE calltree.profile SET started_at = pg_catalog.to_timestamp($2::pg_catalog.float8)"
					   " WHERE id OPERATOR(pg_catalog.=) ANY ($1::pg_catalog.int8[])",
					   2, values);
}

static double
seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double) (now.tv_sec - start->tv_sec) + (double) (now.tv_nsec - start->tv_nsec) / 1e9;
}

/*
 * COMMIT, the transaction's id taken first into xid.  When the connection
 * is lost before COMMIT is answered, *unanswered is set and the reply left
 * to the caller, who finds out whether it committed.
 */
static bool
commit(PGconn *conn, Reply *reply, char *xid, size_t xid_size, bool *unanswered)
{
	PGresult   *res = run(conn, reply, "SELECT pg_catalog.txid_current()", 0, NULL, NULL);
	bool		ok;

	if (res == NULL)
		return false;
	snprintf(xid, xid_size, "%s", PQgetvalue(res, 0, 0));
	PQclear(res);
	res = PQexec(conn, "COMMIT");
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok && PQstatus(conn) != CONNECTION_OK)
		*unanswered = true;
	else if (!ok)
		reply_db_error(reply, conn, res);
	PQclear(res);
	return ok;
}

static bool
import_all(PGconn *conn, const char *role, const ImportItem *items, int n, Reply *reply,
		   ImportCounts *counts, char *xid, size_t xid_size, bool *unanswered)
{
	if (role != NULL)
	{
		const char *values[1] = {role};

		if (!run_command(conn, reply, "SELECT pg_catalog.set_config('role', $1, true)", 1, values))
			return false;
	}
	for (int i = 0; i < n; i++)
	{
		bool		stored = false;
		char	   *ids;
		bool		ok;

		if (items[i].push_id != NULL && !push_id_stored(conn, reply, items[i].push_id, &stored))
			return false;
		if (stored)
		{
			counts->duplicates++;
			continue;
		}
		ids = import_item(conn, reply, &items[i]);
		if (ids == NULL)
			return false;
		ok = items[i].started_at == NULL || set_started_at(conn, reply, ids, items[i].started_at);
		counts->imported += count_ids(ids);
		free(ids);
		if (!ok)
			return false;
	}
	return commit(conn, reply, xid, xid_size, unanswered);
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
 * BEGIN, on a connection that answers.  One the server closed since it
 * was last used (a restart ends them all) is dropped and the next taken,
 * or made again: once per connection of the pool, and once more.
 */
static PGconn *
begin(struct DbPool *pool, Reply *reply)
{
	int			size;
	int			attempts;

	db_in_use(pool, &size);
	attempts = size + 1;
	for (int attempt = 1; attempt <= attempts; attempt++)
	{
		PGconn	   *conn;
		char	   *error;
		DbAcquire	got = db_acquire(pool, &conn, &error);
		PGresult   *res;

		if (got != DB_ACQUIRED)
		{
			db_reply_unavailable(reply, got == DB_BUSY, error);
			free(error);
			return NULL;
		}
		res = PQexec(conn, "BEGIN");
		if (PQresultStatus(res) == PGRES_COMMAND_OK)
		{
			PQclear(res);
			return conn;
		}
		if (PQstatus(conn) == CONNECTION_OK || attempt == attempts)
		{
			reply_db_error(reply, conn, res);
			PQclear(res);
			db_release(pool, conn);
			return NULL;
		}
		PQclear(res);
		db_release(pool, conn);
	}
	return NULL;				/* not reached */
}

bool
db_import(struct DbPool *pool, const char *role, const ImportItem *items, int n, Reply *reply,
		  ImportCounts *counts)
{
	struct timespec start;
	PGconn	   *conn;
	bool		committed;
	char		xid[32] = "";
	bool		unanswered = false;

	memset(counts, 0, sizeof(ImportCounts));
	clock_gettime(CLOCK_MONOTONIC, &start);
	conn = begin(pool, reply);
	if (conn == NULL)
		return false;
	committed = import_all(conn, role, items, n, reply, counts, xid, sizeof(xid), &unanswered);
	if (!committed && PQstatus(conn) == CONNECTION_OK)
		PQclear(PQexec(conn, "ROLLBACK"));
	db_release(pool, conn);
	if (unanswered)
	{
		committed = committed_after_all(pool, xid);
		if (!committed)
			db_reply_unavailable(reply, false, "the connection was lost before the database answered COMMIT, "
								 "and the push is not known to be stored");
	}
	if (committed)
		metrics_observe_import(seconds_since(&start), counts->imported);
	return committed;
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
