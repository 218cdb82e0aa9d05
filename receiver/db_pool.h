/*
 * db_pool.h
 *	  A fixed number of database connections, each serving one request at
 *	  a time.  A request waits a little for a free one (then: busy, 429); a
 *	  connection found broken is made again when next taken, at most once a
 *	  second while the database stays down (meanwhile: down, 503).
 */
#ifndef RECEIVER_DB_POOL_H
#define RECEIVER_DB_POOL_H

#include <libpq-fe.h>

typedef struct DbPool DbPool;

typedef enum DbAcquire
{
	DB_ACQUIRED,
	DB_BUSY,					/* every connection in use */
	DB_DOWN						/* the database does not answer */
} DbAcquire;

extern DbPool *db_pool_create(const char *conninfo, int size, int wait_ms);
extern void db_pool_destroy(DbPool *pool);

/* A connection, ready for a query; *error: why not (DB_DOWN), malloc'd */
extern DbAcquire db_acquire(DbPool *pool, PGconn **conn, char **error);
extern void db_release(DbPool *pool, PGconn *conn);

/*
 * Asks the server to cancel what the connections in use are running
 * (PQcancel, safe beside the threads using them): how many it was asked of
 */
extern int	db_cancel_busy(DbPool *pool);

/*
 * Which statements an acquired connection has prepared, a bit each, for
 * its user to read and set (db_item.h); 0 for a new connection
 */
extern unsigned *db_prepared(DbPool *pool, PGconn *conn);

/* Connections in use, of how many */
extern int	db_in_use(DbPool *pool, int *size);

#endif
