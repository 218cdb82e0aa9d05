/*
 * db_item.c
 *	  The statements of one item of a push (db_item.h).
 *
 * pprof goes to import_pprof, which reads gzip itself; OTLP to
 * import_otlp and JFR to import_jfr (with the Java agent's labels, when
 * sent), whose profile ids come back as one array.  The other formats
 * go through import_stream, the only importer that takes the format by
 * name (so that format=folded is read as collapsed stacks and nothing
 * else) and unwraps gzip: the body is one base64 chunk in the temporary
 * table each connection made (db_pool.c).  Every value from the request is
 * a parameter, the body a binary one.
 *
 * The statements go out together, so the ids an import made reach the
 * statement after it through a setting of the transaction
 * (calltree_receiver.ids), not through the receiver: the look-up of
 * twins.  What else a push needs rides in these statements (the lock's
 * carries the transaction's id and the start time to give), so that an
 * item is three statements (lock, import, look-up), five through
 * import_stream (its chunk's two).  Each is prepared on a
 * connection the first time it runs there (db_send): planning them for
 * every push cost the database more than a tenth of its time.
 *
 * An item is stored once, however often it is pushed:
 * - with a sample ID (push_id): an advisory lock on the ID, then the
 *   import only if no profile has that meta->>'push_id' (a hash index);
 * - without one: an advisory lock on a hash of what the push is (role,
 *   format, name, meta, start, body), the import, then the look-up of an
 *   earlier twin of each profile made: the same content (content_sha256,
 *   its index, among the RECENT_TWINS latest profiles of that content),
 *   name, format, unit, start and meta, imported within TWIN_WINDOW.  An
 *   item whose every profile has a twin is a retry (db_import.c rolls it
 *   back).  The lock makes a retry that arrives while the first attempt
 *   still runs wait for it, and then see what it committed.
 */
#include "db_item.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BYTEA_OID 17

/* pg_advisory_xact_lock's first key for push ids: "ct" "pu" */
#define PUSH_ID_LOCK_CLASS "1668574325"
/* ... and for the hash of a push without an id: "ct" "rt" */
#define RETRY_LOCK_CLASS "1668575860"

/* How far back a retry finds the push it repeats */
#define TWIN_WINDOW "1 hour"
/* How many of the latest profiles of one content are compared with a new one */
#define RECENT_TWINS "16"

/*
 * The look-up of twins reads the latest profiles of a content backwards
 * through the index on (content_sha256, id), stopping after RECENT_TWINS.
 * Statistics older than a burst of pushes of one content (an agent's
 * retries, a benchmark) make a bitmap scan look cheaper, which reads every
 * profile of that content and sorts them: cost growing with each push.
 * So bitmap scans are off while that statement alone is planned: the
 * setting as it was is kept aside by the lock, before the import (whose
 * queries are planned as the session says), turned off by the import's
 * statement once the import returned, and put back by the look-up as it
 * runs, after its plan was made; no statement of their own.
 */
#define BITMAP_KEEP \
	"pg_catalog.set_config('calltree_receiver.enable_bitmapscan'," \
	" pg_catalog.current_setting('enable_bitmapscan'), true)"
#define BITMAP_OFF "pg_catalog.set_config('enable_bitmapscan', 'off', true)"
#define BITMAP_RESTORE \
	"pg_catalog.set_config('enable_bitmapscan'," \
	" pg_catalog.current_setting('calltree_receiver.enable_bitmapscan'), true)"

/*
 * The start time of the profiles an import writes: the push's from
 * (NULL: the file's), given to the importer through the extension's
 * setting, so that the profile row is written once with it; an UPDATE
 * after the import wrote a second version of the row and of its index
 * entries (started_at is indexed).  Written as JSON writes a timestamptz,
 * ISO 8601 with a numeric offset whatever DateStyle says (the text cast
 * may name the zone by an abbreviation that reads back as another zone).
 * Set for every item, so that an item without from does not inherit the
 * one before it.
 */
#define STARTED_AT_GIVEN \
	"pg_catalog.set_config('calltree.import_started_at'," \
	" COALESCE(pg_catalog.to_jsonb(pg_catalog.to_timestamp($2::pg_catalog.float8))" \
	" OPERATOR(pg_catalog.#>>) '{}', ''), true)"

#define IDS_SETTING "'calltree_receiver.ids'"
#define IDS_MADE "pg_catalog.current_setting(" IDS_SETTING ")::pg_catalog.int8[]"

/*
 * How many profiles were made, and how many of them have a twin among the
 * latest profiles of their content: the cheap columns compared first,
 * then, through jsonb (which compares NULLs), those that may be NULL.
 * started_at is compared alone before that too: an agent's pushes of one
 * content differ in it most often, and building the jsonb arrays of the
 * 16 candidates was a tenth of the database's time per push.
 * Planned with bitmap scans off (see BITMAP_OFF), it puts the setting
 * back as it runs.
 */
static const char *const twins_sql =
	"SELECT pg_catalog.count(*), pg_catalog.count(*) FILTER (WHERE EXISTS ("
	"       SELECT FROM (SELECT e.name, e.format, e.weight_unit, e.started_at, e.meta, e.imported_at"
	"                      FROM calltree.profile e"
	"                     WHERE e.content_sha256 OPERATOR(pg_catalog.=) n.content_sha256"
	"                       AND e.id OPERATOR(pg_catalog.<) n.id"
	"                     ORDER BY e.id DESC LIMIT " RECENT_TWINS ") c"
	"        WHERE c.imported_at OPERATOR(pg_catalog.>)"
	"              (pg_catalog.now() OPERATOR(pg_catalog.-) '" TWIN_WINDOW "'::pg_catalog.interval)"
	"          AND c.weight_unit OPERATOR(pg_catalog.=) n.weight_unit"
	"          AND (c.started_at OPERATOR(pg_catalog.=) n.started_at"
	"               OR (c.started_at IS NULL AND n.started_at IS NULL))"
	"          AND pg_catalog.jsonb_build_array(c.started_at, c.name, c.format, c.meta)"
	"              OPERATOR(pg_catalog.=) pg_catalog.jsonb_build_array(n.started_at, n.name, n.format, n.meta))),"
	"       " BITMAP_RESTORE
	"  FROM calltree.profile n"
	" WHERE n.id OPERATOR(pg_catalog.=) ANY (" IDS_MADE ")";

/*
 * A hash of len bytes, from hash: 8 bytes at a time (a body is hashed
 * whole for every push; byte by byte that took 15% of the receiver's
 * CPU), each word mixed in by a multiply and a shift; for a lock's key,
 * no more
 */
static uint64_t
hash_bytes(uint64_t hash, const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t	word;

	for (; len >= 8; p += 8, len -= 8)
	{
		memcpy(&word, p, 8);
		hash = (hash ^ word) * 0x9E3779B97F4A7C15u;
		hash ^= hash >> 29;
	}
	word = 0;					/* the tail, and how long it is */
	memcpy(&word, p, len);
	hash = (hash ^ word ^ ((uint64_t) len << 56)) * 0x9E3779B97F4A7C15u;
	return hash ^ (hash >> 29);
}

/* The same, over a string and its terminating zero (NULL: a lone zero) */
static uint64_t
hash_string(uint64_t hash, const char *s)
{
	return s ? hash_bytes(hash, s, strlen(s) + 1) : hash_bytes(hash, "", 1);
}

/* The advisory lock's key of an item without a push id, as int4 text */
static void
retry_lock_key(const char *role, const ImportItem *item, char *out, size_t size)
{
	uint64_t	hash = 0;

	hash = hash_string(hash, role);
	hash = hash_string(hash, item->format);
	hash = hash_string(hash, item->name);
	hash = hash_string(hash, item->meta);
	hash = hash_string(hash, item->started_at);
	hash = hash_bytes(hash, item->data, item->len);
	snprintf(out, size, "%d", (int32_t) (uint32_t) (hash ^ (hash >> 32)));
}

/*
 * Sends statement id (its text sql) with text parameters, but for those of
 * lengths[i] >= 0 (lengths NULL: none), which are binary bytea of that
 * many bytes.  Each statement is prepared the first time a connection
 * runs it, in the same pipeline, so that its parse and plan are not paid
 * again by every push; the kinds of the answers to come go into kinds.
 * How many statements went out (1 or 2), -1 if libpq refused one.
 */
int
db_send(PGconn *conn, unsigned *prepared, StatementId id, const char *sql, int nparams,
		const char *const *values, const long *lengths, StepKind kind, StepKind *kinds)
{
	Oid			types[8] = {0};
	int			binary_lengths[8] = {0};
	int			formats[8] = {0};
	char		name[32];
	int			n = 0;

	for (int i = 0; lengths != NULL && i < nparams; i++)
		if (lengths[i] >= 0)
		{
			types[i] = BYTEA_OID;
			binary_lengths[i] = (int) lengths[i];
			formats[i] = 1;
		}
	snprintf(name, sizeof(name), "calltree_receiver_%d", (int) id);
	if ((*prepared & (1u << id)) == 0)
	{
		if (PQsendPrepare(conn, name, sql, nparams, types) != 1)
			return -1;
		*prepared |= 1u << id;
		kinds[n++] = STEP_COMMAND;
	}
	if (PQsendQueryPrepared(conn, name, nparams, values, binary_lengths, formats, 0) != 1)
		return -1;
	kinds[n++] = kind;
	return n;
}

/* Whether the item goes through import_stream (format NULL: recognized) */
static bool
is_streamed(const ImportItem *item)
{
	return item->format == NULL ||
		(strcmp(item->format, "pprof") != 0 && strcmp(item->format, "otlp") != 0 &&
		 strcmp(item->format, "jfr") != 0);
}

/* The import's statement: by format, and whether a push id is checked */
static StatementId
import_statement(const ImportItem *item)
{
	int			variant;

	if (is_streamed(item))
		variant = 4;
	else if (strcmp(item->format, "pprof") == 0)
		variant = 0;
	else if (strcmp(item->format, "otlp") == 0)
		variant = 1;
	else
		variant = item->labels == NULL ? 2 : 3;
	return (StatementId) (ST_IMPORT + 2 * variant + (item->push_id != NULL));
}

/*
 * The call that imports an item, an expression of bigint[], its
 * parameters in values and lengths, how many in *nparams
 */
static const char *
import_call(const ImportItem *item, const char **values, long *lengths, int *nparams)
{
	values[0] = item->data;
	lengths[0] = (long) item->len;
	values[1] = item->name;
	values[2] = item->meta;
	*nparams = 3;
	if (!is_streamed(item) && strcmp(item->format, "pprof") == 0)
		return "ARRAY[calltree.import_pprof($1, NULL, $2::pg_catalog.text, $3::pg_catalog.jsonb)]";
	if (!is_streamed(item) && strcmp(item->format, "otlp") == 0)
		return "calltree.import_otlp($1, $2::pg_catalog.text, $3::pg_catalog.jsonb)";
	if (is_streamed(item))
	{
		/* import_stream: the body is in the chunks table already */
		values[0] = item->name;
		values[1] = item->meta;
		values[2] = item->format;
		lengths[0] = -1;
		return "ARRAY[calltree.import_stream('pg_temp.calltree_receiver_chunks'::pg_catalog.regclass,"
			" $1::pg_catalog.text, $2::pg_catalog.jsonb, $3::pg_catalog.text)]";
	}
	values[3] = item->sample_rate;
	*nparams = 4;
	if (item->labels == NULL)
		return "calltree.import_jfr(data => $1, name => $2::pg_catalog.text,"
			" meta => $3::pg_catalog.jsonb, sample_rate => $4::pg_catalog.int4)";
	values[4] = item->labels;
	lengths[4] = (long) item->labels_len;
	*nparams = 5;
	return "calltree.import_jfr(data => $1, name => $2::pg_catalog.text,"
		" meta => $3::pg_catalog.jsonb, sample_rate => $4::pg_catalog.int4, labels => $5)";
}

/* The body of a streamed item, as the one chunk of the connection's table */
static int
send_chunk(PGconn *conn, unsigned *prepared, const ImportItem *item, StepKind *kinds)
{
	const char *chunk[1] = {item->data};
	long		chunk_length[1] = {(long) item->len};
	int			n = db_send(conn, prepared, ST_CHUNK_CLEAR, "DELETE FROM pg_temp.calltree_receiver_chunks",
							0, NULL, NULL, STEP_COMMAND, kinds);
	int			m;

	if (n < 0)
		return -1;
	m = db_send(conn, prepared, ST_CHUNK_WRITE, "INSERT INTO pg_temp.calltree_receiver_chunks (seq, chunk)"
				" VALUES (1, pg_catalog.encode($1, 'base64'))", 1, chunk, chunk_length, STEP_COMMAND, kinds + n);
	return m < 0 ? -1 : n + m;
}

/*
 * The import: whether the item's push id was stored (then nothing is
 * imported) and the ids made, kept in the setting for what follows
 */
static int
send_import(PGconn *conn, unsigned *prepared, const ImportItem *item, StepKind *kinds)
{
	const char *values[6] = {0};
	long		lengths[6] = {-1, -1, -1, -1, -1, -1};
	int			nparams;
	const char *call = import_call(item, values, lengths, &nparams);
	char		sql[1024];

	if (item->push_id == NULL)
		snprintf(sql, sizeof(sql),
				 "SELECT false, pg_catalog.set_config(" IDS_SETTING ", i.ids, true), " BITMAP_OFF
				 " FROM (SELECT (%s)::pg_catalog.text AS ids OFFSET 0) i", call);
	else
	{
		values[nparams++] = item->push_id;
		snprintf(sql, sizeof(sql),
				 "SELECT d.stored, pg_catalog.set_config(" IDS_SETTING ","
				 " CASE WHEN d.stored THEN '{}' ELSE (%s)::pg_catalog.text END, true)"
				 " FROM (SELECT EXISTS (SELECT FROM calltree.profile"
				 " WHERE meta OPERATOR(pg_catalog.->>) 'push_id' OPERATOR(pg_catalog.=) $%d) AS stored) d",
				 call, nparams);
	}
	return db_send(conn, prepared, import_statement(item), sql, nparams, values, lengths, STEP_IMPORT, kinds);
}

/*
 * The advisory lock that makes two copies of one push wait for each
 * other; in the same statement, the start time the import is to give
 * (STARTED_AT_GIVEN), for the look-up of twins the plan's setting kept
 * (BITMAP_KEEP), and the transaction's id, first (db_import.c)
 */
static int
send_lock(PGconn *conn, unsigned *prepared, const char *role, const ImportItem *item, StepKind *kinds)
{
	char		key[16];
	const char *values[2] = {key, item->started_at};

	if (item->push_id != NULL)
	{
		values[0] = item->push_id;
		return db_send(conn, prepared, ST_LOCK_PUSH_ID,
					   "SELECT pg_catalog.txid_current(), " STARTED_AT_GIVEN ","
					   " pg_catalog.pg_advisory_xact_lock(" PUSH_ID_LOCK_CLASS ", pg_catalog.hashtext($1))",
					   2, values, NULL, STEP_XID, kinds);
	}
	retry_lock_key(role, item, key, sizeof(key));
	return db_send(conn, prepared, ST_LOCK_RETRY,
				   "SELECT pg_catalog.txid_current(), " STARTED_AT_GIVEN ", " BITMAP_KEEP ","
				   " pg_catalog.pg_advisory_xact_lock(" RETRY_LOCK_CLASS ", $1::pg_catalog.int4)",
				   2, values, NULL, STEP_XID, kinds);
}

int
db_item_send(PGconn *conn, unsigned *prepared, const char *role, const ImportItem *item, StepKind *kinds)
{
	int			n = send_lock(conn, prepared, role, item, kinds);
	int			m = 0;

	if (n >= 0 && is_streamed(item))
		n = (m = send_chunk(conn, prepared, item, kinds + n)) < 0 ? -1 : n + m;
	if (n >= 0)
		n = (m = send_import(conn, prepared, item, kinds + n)) < 0 ? -1 : n + m;
	if (n >= 0 && item->push_id == NULL)
		n = (m = db_send(conn, prepared, ST_TWINS, twins_sql, 0, NULL, NULL, STEP_TWINS, kinds + n)) < 0
			? -1 : n + m;
	return n;
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

void
db_item_note(StepKind kind, const PGresult *res, ItemOutcome *outcome)
{
	if (kind == STEP_IMPORT)
	{
		outcome->stored = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
		outcome->made = count_ids(PQgetvalue(res, 0, 1));
	}
	else if (kind == STEP_TWINS)
		outcome->twins = atoi(PQgetvalue(res, 0, 1));
}

bool
db_item_is_retry(const ItemOutcome *outcome)
{
	return outcome->made > 0 && outcome->twins == outcome->made;
}
