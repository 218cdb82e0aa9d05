/*
 * db_item.h
 *	  The statements that import one item of a push, sent at once in
 *	  libpq's pipeline mode, and what their answers say of the item: the
 *	  profiles it made, or that it was stored before (its sample ID, or an
 *	  identical earlier push: a retry).
 */
#ifndef RECEIVER_DB_ITEM_H
#define RECEIVER_DB_ITEM_H

#include <stdbool.h>

#include <libpq-fe.h>

#include "db_import.h"

/* The most statements one item sends: 5, each maybe prepared first */
#define ITEM_MAX_STEPS 16

/* The statements, each prepared on a connection the first time it runs */
typedef enum StatementId
{
	ST_BEGIN,
	ST_ROLE,
	ST_XID,
	ST_LOCK_PUSH_ID,
	ST_LOCK_RETRY,
	ST_CHUNK_CLEAR,
	ST_CHUNK_WRITE,
	ST_TWINS,
	ST_IMPORT					/* then its variants: 5 formats, with or without push id */
} StatementId;

/* What a statement of an item answers */
typedef enum StepKind
{
	STEP_COMMAND,				/* nothing to read */
	STEP_IMPORT,				/* stored by its sample ID (bool), the ids made (bigint[]) */
	STEP_TWINS,					/* profiles made, those with an earlier twin */
	STEP_XID,					/* the transaction's id (db_import.c), first column */
	STEP_ROLE					/* the tenant's role set: nothing to read */
} StepKind;

typedef struct ItemOutcome
{
	bool		stored;			/* its push_id was stored already: nothing made */
	int			made;			/* profiles made */
	int			twins;			/* of those, the ones an earlier push made the same */
} ItemOutcome;

/*
 * Sends the item's statements (not the pipeline's sync), the kind of each
 * into kinds; how many, or -1 if libpq refused one (the connection's
 * error says why).  role (NULL: the login role) is part of what the push
 * is, for the look-up of an earlier one.  *prepared: which statements the
 * connection has prepared, a bit per StatementId (db_pool.c keeps it).
 */
extern int	db_item_send(PGconn *conn, unsigned *prepared, const char *role, const ImportItem *item,
						 StepKind *kinds);

/*
 * Sends one statement, prepared first if the connection has not; the
 * kind of its answer into kinds (after a STEP_COMMAND for the preparing):
 * how many answers will come, or -1 if libpq refused it
 */
extern int	db_send(PGconn *conn, unsigned *prepared, StatementId id, const char *sql, int nparams,
					const char *const *values, const long *lengths, StepKind kind, StepKind *kinds);

/* Notes the answer of one statement of the item in outcome */
extern void db_item_note(StepKind kind, const PGresult *res, ItemOutcome *outcome);

/* Whether the item made only profiles an earlier push made the same */
extern bool db_item_is_retry(const ItemOutcome *outcome);

#endif
