/*
 * db_pool.c
 *	  The database connections (db_pool.h).
 *
 * A slot is taken under the pool's lock, then connected (if it must be)
 * outside it, so that one slow connection attempt does not hold up the
 * requests that find a live connection.  Each new connection makes the
 * temporary table import_stream reads (db_import.c) before it serves.
 */
#include "db_pool.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "receiver.h"

typedef struct DbSlot
{
	PGconn	   *conn;			/* NULL: not connected */
	PGcancel   *cancel;			/* what cancels conn's query, from any thread */
	bool		busy;
	unsigned	prepared;		/* the statements conn has prepared (db_item.h) */
} DbSlot;

struct DbPool
{
	pthread_mutex_t lock;
	pthread_cond_t freed;
	DbSlot	   *slots;
	int			size;
	int			in_use;
	int			wait_ms;
	const char *conninfo;
	time_t		retry_at;		/* while down: no attempt before this */
};

/* What every connection runs once; the table is granted to the tenants' roles */
static const char *session_setup =
	"SET application_name = 'calltree-receiver';"
	"SET client_min_messages = warning;"
	"CREATE TEMPORARY TABLE IF NOT EXISTS calltree_receiver_chunks"
	" (seq pg_catalog.int8, chunk pg_catalog.text) ON COMMIT DELETE ROWS;"
	"GRANT SELECT, INSERT, DELETE ON pg_temp.calltree_receiver_chunks TO PUBLIC;";

DbPool *
db_pool_create(const char *conninfo, int size, int wait_ms)
{
	DbPool	   *pool = calloc(1, sizeof(DbPool));

	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->freed, NULL);
	pool->slots = calloc((size_t) size, sizeof(DbSlot));
	pool->size = size;
	pool->wait_ms = wait_ms;
	pool->conninfo = conninfo;
	return pool;
}

/* Closes the slot's connection */
static void
close_slot(DbSlot *slot)
{
	PQfreeCancel(slot->cancel);
	PQfinish(slot->conn);
	slot->cancel = NULL;
	slot->conn = NULL;
}

void
db_pool_destroy(DbPool *pool)
{
	for (int i = 0; i < pool->size; i++)
		if (pool->slots[i].conn != NULL)
			close_slot(&pool->slots[i]);
	free(pool->slots);
	free(pool);
}

static DbSlot *
slot_of(DbPool *pool, PGconn *conn)
{
	for (int i = 0; i < pool->size; i++)
		if (pool->slots[i].conn == conn && pool->slots[i].busy)
			return &pool->slots[i];
	return NULL;
}

/* A free slot, waiting up to wait_ms for one; NULL if none came */
static DbSlot *
take_slot(DbPool *pool)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += pool->wait_ms / 1000;
	deadline.tv_nsec += (long) (pool->wait_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L)
	{
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	for (;;)
	{
		DbSlot	   *fallback = NULL;

		/* a connected slot first, so that connections are reused */
		for (int i = 0; i < pool->size; i++)
			if (!pool->slots[i].busy)
			{
				if (pool->slots[i].conn != NULL)
					return &pool->slots[i];
				if (fallback == NULL)
					fallback = &pool->slots[i];
			}
		if (fallback != NULL)
			return fallback;
		if (pthread_cond_timedwait(&pool->freed, &pool->lock, &deadline) == ETIMEDOUT)
			return NULL;
	}
}

/* A new connection, set up; NULL and *error if it fails */
static PGconn *
connect_db(const char *conninfo, char **error)
{
	const char *keywords[] = {"connect_timeout", "dbname", NULL};
	const char *values[] = {"5", conninfo, NULL};
	PGconn	   *conn = PQconnectdbParams(keywords, values, 1);
	PGresult   *res;

	if (PQstatus(conn) != CONNECTION_OK)
	{
		*error = strdup(PQerrorMessage(conn));
		PQfinish(conn);
		return NULL;
	}
	res = PQexec(conn, session_setup);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
	{
		*error = strdup(PQerrorMessage(conn));
		PQclear(res);
		PQfinish(conn);
		return NULL;
	}
	PQclear(res);
	return conn;
}

DbAcquire
db_acquire(DbPool *pool, PGconn **conn, char **error)
{
	DbSlot	   *slot;
	bool		may_connect;

	*conn = NULL;
	*error = NULL;
	pthread_mutex_lock(&pool->lock);
	slot = take_slot(pool);
	if (slot == NULL)
	{
		pthread_mutex_unlock(&pool->lock);
		return DB_BUSY;
	}
	if (slot->conn != NULL && PQstatus(slot->conn) != CONNECTION_OK)
		close_slot(slot);
	may_connect = slot->conn != NULL || time(NULL) >= pool->retry_at;
	if (!may_connect)
	{
		pthread_mutex_unlock(&pool->lock);
		*error = strdup("the database did not answer the last connection attempt");
		return DB_DOWN;
	}
	slot->busy = true;
	pool->in_use++;
	pthread_mutex_unlock(&pool->lock);

	if (slot->conn == NULL)
	{
		PGconn	   *made = connect_db(pool->conninfo, error);

		pthread_mutex_lock(&pool->lock);
		slot->conn = made;
		slot->cancel = made ? PQgetCancel(made) : NULL;
		slot->prepared = 0;
		if (made == NULL)
		{
			pool->retry_at = time(NULL) + 1;
			slot->busy = false;
			pool->in_use--;
			pthread_cond_signal(&pool->freed);
			pthread_mutex_unlock(&pool->lock);
			return DB_DOWN;
		}
		pthread_mutex_unlock(&pool->lock);
	}
	*conn = slot->conn;
	return DB_ACQUIRED;
}

/*
 * Gives a connection back.  One left inside a transaction (a request that
 * failed half-way) or broken is closed, to be made again when next needed.
 */
void
db_release(DbPool *pool, PGconn *conn)
{
	DbSlot	   *slot;

	pthread_mutex_lock(&pool->lock);
	slot = slot_of(pool, conn);
	if (slot != NULL)
	{
		if (PQstatus(conn) != CONNECTION_OK || PQtransactionStatus(conn) != PQTRANS_IDLE)
			close_slot(slot);
		slot->busy = false;
		pool->in_use--;
		pthread_cond_signal(&pool->freed);
	}
	pthread_mutex_unlock(&pool->lock);
}

int
db_cancel_busy(DbPool *pool)
{
	int			n = 0;

	pthread_mutex_lock(&pool->lock);
	for (int i = 0; i < pool->size; i++)
	{
		char		error[256];

		if (pool->slots[i].busy && pool->slots[i].cancel != NULL &&
			PQcancel(pool->slots[i].cancel, error, sizeof(error)) == 1)
			n++;
	}
	pthread_mutex_unlock(&pool->lock);
	return n;
}

unsigned *
db_prepared(DbPool *pool, PGconn *conn)
{
	DbSlot	   *slot;

	pthread_mutex_lock(&pool->lock);
	slot = slot_of(pool, conn);
	pthread_mutex_unlock(&pool->lock);
	return &slot->prepared;
}

int
db_in_use(DbPool *pool, int *size)
{
	int			n;

	pthread_mutex_lock(&pool->lock);
	n = pool->in_use;
	*size = pool->size;
	pthread_mutex_unlock(&pool->lock);
	return n;
}
