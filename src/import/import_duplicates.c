/*
 * import_duplicates.c
 *	  The digest of every imported file, kept on its profile
 *	  (profile.content_sha256), and what an import does when a profile of
 *	  the same content is there already.
 *
 * The digest is SHA-256 of the file's bytes with gzip undone, so that a
 * file gives the same digest whether bin/calltree-load gunzipped it, or
 * import_profile did, or it was never compressed.  Nothing else is undone:
 * a UTF-16 file and its UTF-8 copy are two contents.
 *
 * Before an import writes anything, the profiles of the same digest that
 * the caller can see are looked up (the index on (content_sha256, id) gives
 * the earliest at once, however many share the digest).  The
 * earliest of them is named: a NOTICE (on_duplicate 'keep', the default:
 * the file is imported again; calltree.duplicate_notice off silences it,
 * and where no NOTICE would be sent or logged there is no look-up),
 * its id instead of an import ('skip': a retry is idempotent), or an ERROR
 * ('error').  Where every profile of the file is asked for (import_stream),
 * 'skip' gives every profile of the import that made the earliest: one
 * import may make several (a JFR recording's kinds of samples, an OTLP
 * request's profiles), and those after its first name that first in
 * profile.first_of_import (the writer fills it, profile_writer_import_begins).
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "common/cryptohash.h"
#include "common/sha2.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"

#include "formats/gzip.h"
#include "module.h"
#include "import/importer.h"
#include "store/store.h"

/* The piece gzip is inflated into while it is hashed */
#define GZIP_PIECE_BYTES (256 * 1024)

ContentHash *
content_hash_begin(void)
{
	pg_cryptohash_ctx *ctx = pg_cryptohash_create(PG_SHA256);

	if (ctx == NULL || pg_cryptohash_init(ctx) < 0)
		elog(ERROR, "could not start a SHA-256 digest: %s", pg_cryptohash_error(ctx));
	return (ContentHash *) ctx;
}

void
content_hash_add(ContentHash *hash, const char *data, size_t len)
{
	pg_cryptohash_ctx *ctx = (pg_cryptohash_ctx *) hash;

	if (pg_cryptohash_update(ctx, (const uint8 *) data, len) < 0)
		elog(ERROR, "could not compute a SHA-256 digest: %s", pg_cryptohash_error(ctx));
}

/* The digest, as a bytea in the current memory context; the hash is freed */
bytea *
content_hash_end(ContentHash *hash)
{
	pg_cryptohash_ctx *ctx = (pg_cryptohash_ctx *) hash;
	bytea	   *digest = palloc(VARHDRSZ + PG_SHA256_DIGEST_LENGTH);

	SET_VARSIZE(digest, VARHDRSZ + PG_SHA256_DIGEST_LENGTH);
	if (pg_cryptohash_final(ctx, (uint8 *) VARDATA(digest), PG_SHA256_DIGEST_LENGTH) < 0)
		elog(ERROR, "could not finish a SHA-256 digest: %s", pg_cryptohash_error(ctx));
	pg_cryptohash_free(ctx);
	return digest;
}

bytea *
content_digest(const char *data, size_t len)
{
	ContentHash *hash = content_hash_begin();

	content_hash_add(hash, data, len);
	return content_hash_end(hash);
}

/*
 * The digest of gzip data, inflated a piece at a time and kept nowhere.
 * The stream is checked whole as gzip_check does (its errors; more than
 * max_len bytes inflated is gzip_check's error too).
 */
bytea *
content_digest_gzip(const char *data, size_t len, size_t max_len, const char *format)
{
	GzipReader *reader = gzip_reader_begin(data, len, format);
	ContentHash *hash = content_hash_begin();
	char	   *piece = palloc(GZIP_PIECE_BYTES);
	size_t		total = 0;

	while (!gzip_reader_ended(reader))
	{
		size_t		n = gzip_reader_read(reader, piece, GZIP_PIECE_BYTES);

		CHECK_FOR_INTERRUPTS();
		total += n;
		if (total > max_len)
			gzip_check(data, len, max_len, format);	/* reports it */
		content_hash_add(hash, piece, n);
	}
	gzip_reader_end(reader);
	pfree(piece);
	return content_hash_end(hash);
}

/* How to skip a file imported before: import_profile's argument, or the loader's option */
static const char *
skip_option(const ImportOptions *options)
{
	return options->loader_terms ? "--skip-duplicates" : "import_profile(..., on_duplicate => 'skip')";
}

/*
 * Whether the caller may read what the look-up reads: a role that may
 * import but not read calltree.profile (an ingest-only role) sees no
 * earlier profile, as row-level security hides other tenants' ones.
 */
static bool
profiles_readable(Oid relid)
{
	static const char *const columns[] = {"id", "name", "content_sha256", "first_of_import"};

	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK)
		return true;
	for (int i = 0; i < lengthof(columns); i++)
		if (pg_attribute_aclcheck(relid, get_attnum(relid, columns[i]), GetUserId(),
								  ACL_SELECT) != ACLCHECK_OK)
			return false;
	return true;
}

/*
 * calltree.profile, if it has content_sha256: the tables of a version
 * before 0.3, which the library serves until ALTER EXTENSION UPDATE, do not.
 */
static Oid
profile_with_digest(void)
{
	Oid			relid = calltree_relname_relid("profile", calltree_namespace());

	if (!OidIsValid(relid))
		elog(ERROR, "table calltree.profile is missing");
	return get_attnum(relid, "content_sha256") != InvalidAttrNumber ? relid : InvalidOid;
}

/*
 * The plan of `query` (one parameter, of `argtype`), prepared on first use
 * and kept in *kept for the backend.
 */
static SPIPlanPtr
kept_plan(SPIPlanPtr *kept, const char *query, Oid argtype)
{
	SPIPlanPtr	plan;

	if (*kept != NULL)
		return *kept;
	plan = SPI_prepare(query, 1, &argtype);
	if (plan == NULL || SPI_keepplan(plan) != 0)
		elog(ERROR, "could not prepare the look-up of calltree.profile: %s", SPI_result_code_string(SPI_result));
	*kept = plan;
	return plan;
}

/* The look-up of a digest's earliest profile, kept (its plan follows the table) */
static SPIPlanPtr lookup_plan = NULL;

/* The earliest profile of the digest that the caller sees, said as options want */
static int64
content_seen(Oid relid, const bytea *digest, const ImportOptions *options)
{
	Oid			argtype = BYTEAOID;
	Datum		arg = PointerGetDatum(digest);
	int64		earlier = 0;
	char	   *name = NULL;
	MemoryContext cxt = CurrentMemoryContext;
	int			ret;

	/*
	 * Under 'keep' the look-up only names the earlier profile in a NOTICE:
	 * where that NOTICE would go nowhere (duplicate_notice off, or
	 * client_min_messages and log_min_messages above NOTICE, as an ingest
	 * client sets them) it is not made, a query fewer per import.
	 */
	if (options->on_duplicate == ON_DUPLICATE_KEEP &&
		(!calltree_duplicate_notice || !message_level_is_interesting(NOTICE)))
		return 0;
	if (!profiles_readable(relid))
	{
		if (options->on_duplicate == ON_DUPLICATE_KEEP)
			return 0;
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("on_duplicate %s needs the right to read calltree.profile",
						options->on_duplicate == ON_DUPLICATE_SKIP ? "skip" : "error"),
				 errdetail("Files imported before are found by their profiles' id, name, content_sha256 and first_of_import."),
				 errhint("Grant SELECT on calltree.profile (or on these columns) to the importing role.")));
	}
	/*
	 * On Citus the lookup reads every shard of profile, and the import then
	 * writes the interned tables, which distributed tables refer to: Citus
	 * allows that in one transaction only if the shards were read one
	 * connection per node (docs/citus.md).
	 */
	if (calltree_citus_present())
		(void) set_config_option("citus.multi_shard_modify_mode", "sequential", PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_LOCAL, true, 0, false);
	SPI_connect();
	/* planned once per backend: every import asks */
	ret = SPI_execute_plan(kept_plan(&lookup_plan,
									 "SELECT id, name FROM calltree.profile "
									 "WHERE content_sha256 OPERATOR(pg_catalog.=) $1 ORDER BY id LIMIT 1",
									 argtype),
						   &arg, NULL, true, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "looking up calltree.profile failed: %s", SPI_result_code_string(ret));
	if (SPI_processed > 0)
	{
		HeapTuple	row = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		MemoryContext spi_cxt = MemoryContextSwitchTo(cxt);

		earlier = DatumGetInt64(SPI_getbinval(row, desc, 1, &isnull));
		name = SPI_getvalue(row, desc, 2);
		MemoryContextSwitchTo(spi_cxt);
	}
	SPI_finish();
	if (earlier == 0)
		return 0;

	if (options->on_duplicate == ON_DUPLICATE_ERROR)
		ereport(ERROR,
				(errcode(ERRCODE_UNIQUE_VIOLATION),
				 errmsg("this file was imported before, as profile " INT64_FORMAT, earlier),
				 name ? errdetail("Profile " INT64_FORMAT " (\"%s\") has the same content (SHA-256).", earlier, name) :
				 errdetail("Profile " INT64_FORMAT " (without a name) has the same content (SHA-256).", earlier),
				 errhint("%s returns the earlier profile's id instead.", skip_option(options))));
	if (!calltree_duplicate_notice)
		return options->on_duplicate == ON_DUPLICATE_SKIP ? earlier : 0;
	/* import_stream (the loader's) returns every profile of that import */
	ereport(NOTICE,
			(errmsg("this file was imported before, as profile " INT64_FORMAT, earlier),
			 options->on_duplicate == ON_DUPLICATE_SKIP && options->loader_terms ?
			 errdetail("Nothing was imported: every profile that import made is returned, profile " INT64_FORMAT " first.", earlier) :
			 options->on_duplicate == ON_DUPLICATE_SKIP ?
			 errdetail("Nothing was imported: profile " INT64_FORMAT " is returned.", earlier) :
			 errdetail("It is imported again, as a new profile; the two count twice when merged."),
			 options->on_duplicate == ON_DUPLICATE_SKIP ? 0 :
			 errhint("%s returns the earlier profile's id instead.", skip_option(options))));
	return options->on_duplicate == ON_DUPLICATE_SKIP ? earlier : 0;
}

/* The look-up of every profile of the import that made a profile, kept */
static SPIPlanPtr siblings_plan = NULL;

/*
 * Every profile of the import that made profile `earlier` (content_seen's
 * answer to 'skip'), ascending as the import made them, that the caller
 * sees: the import's first, and those that name it in first_of_import,
 * among the profiles of its digest.  Into *ids; their number.
 */
int
content_import_ids(int64 earlier, int64 **ids)
{
	Oid			argtype = INT8OID;
	Datum		arg = Int64GetDatum(earlier);
	MemoryContext cxt = CurrentMemoryContext;
	int			ret;
	int			n;

	SPI_connect();
	ret = SPI_execute_plan(kept_plan(&siblings_plan,
									 "SELECT p.id FROM calltree.profile e, "
									 "LATERAL (SELECT coalesce(e.first_of_import, e.id) AS id) AS f, "
									 "calltree.profile p "
									 "WHERE e.id OPERATOR(pg_catalog.=) $1 "
									 "AND p.content_sha256 OPERATOR(pg_catalog.=) e.content_sha256 "
									 "AND p.id OPERATOR(pg_catalog.>=) f.id "
									 "AND (p.id OPERATOR(pg_catalog.=) f.id "
									 "OR p.first_of_import OPERATOR(pg_catalog.=) f.id) "
									 "ORDER BY p.id",
									 argtype),
						   &arg, NULL, true, 0);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "looking up calltree.profile failed: %s", SPI_result_code_string(ret));
	/* at least the earlier profile itself, seen a moment ago */
	n = Max((int) SPI_processed, 1);
	*ids = MemoryContextAlloc(cxt, sizeof(int64) * n);
	(*ids)[0] = earlier;
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;

		(*ids)[i] = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();
	return n;
}

int64
content_note(ProfileInfo *info, bytea *digest, const ImportOptions *options)
{
	Oid			relid = profile_with_digest();

	profile_writer_import_begins();

	if (!OidIsValid(relid))
		return 0;				/* kept nowhere, looked up nowhere: before 0.3 */
	info->content_sha256 = digest;
	return content_seen(relid, digest, options);
}
