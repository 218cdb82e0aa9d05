/*
 * import_stream.c
 *	  import_stream(chunks regclass, name, meta, format, options): a profile
 *	  file sent in pieces, read from a table of base64 chunks.  Its hints
 *	  name options as the loader takes them (--option strict=false).
 *
 * bin/calltree-load fills a temporary table (seq bigserial, chunk text) with
 * COPY, a few MB of the file per row, base64-encoded, and calls this function
 * in the same transaction: the file travels over the client's connection,
 * with no file on the server and no privilege beyond the calltree tables.
 *
 * The chunks are read in seq order through an SPI cursor, one at a time,
 * each decoded into a memory context that is reset for the next.  The first
 * 64 kB are gathered to recognize the format as import_profile does.
 * Collapsed stacks and perf script are then parsed as they arrive, a line at
 * a time (their Importer's begin, feed_line and finish), so memory stays bounded by the longest line
 * whatever the size of the file; their chunks are read once more before,
 * for the digest of the content that the profile row keeps
 * (import_duplicates.c).  Other formats, and gzip or UTF-16 data
 * (which the client normally unwraps itself), are gathered whole, at most
 * 1 GB like any text or bytea value, and imported like import_profile's
 * argument.
 *
 * SPI: this function connects and opens the cursor; the ProfileWriter then
 * connects again, inside, from profile_writer_begin to profile_writer_finish.
 * Fetches made in between run at the writer's level, where their tuple table
 * is made and must be freed (SPI_freetuptable looks at the innermost level
 * only).  A portal belongs to no SPI level: ours is closed after the
 * writer's connection ends.
 */
#include "postgres.h"

#include <ctype.h>

#include "catalog/pg_type.h"
#include "common/base64.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "import/importer.h"

PG_FUNCTION_INFO_V1(calltree_import_stream);

/* The table of chunks, read in seq order */
typedef struct ChunkReader
{
	const char *relname;		/* for messages */
	Portal		portal;
	MemoryContext chunk_cxt;	/* the current chunk; reset for the next */
	bool		ended;
	int64		nchunks;		/* read so far */
	int64		seq;			/* of the last one read */
	int64		bytes;			/* decoded so far */
	LineReader *lines;			/* while lines are read, for errors */
} ChunkReader;

static bool
column_has_type(Oid relid, const char *column, Oid type1, Oid type2, Oid type3)
{
	AttrNumber	attnum = get_attnum(relid, column);
	Oid			type;

	if (attnum == InvalidAttrNumber)
		return false;
	type = get_atttype(relid, attnum);
	return type == type1 || type == type2 || type == type3;
}

/*
 * Opens the cursor; SPI must be connected.  SPI calls leave SPI's own
 * memory context current, which SPI_finish deletes: the caller's comes back.
 */
static void
chunk_reader_open(ChunkReader *r, Oid relid)
{
	MemoryContext cxt = CurrentMemoryContext;
	char	   *nspname;
	char	   *query;
	SPIPlanPtr	plan;

	memset(r, 0, sizeof(ChunkReader));
	r->relname = get_rel_name(relid);
	nspname = get_namespace_name(get_rel_namespace(relid));
	if (r->relname == NULL || nspname == NULL)
		elog(ERROR, "cache lookup failed for relation %u", relid);
	if (!column_has_type(relid, "seq", INT8OID, INT4OID, INT2OID) ||
		!column_has_type(relid, "chunk", TEXTOID, VARCHAROID, TEXTOID))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" is not a table of profile chunks", r->relname),
				 errdetail("It needs a column seq, an integer, and a column chunk, text."),
				 errhint("Create it as (seq bigserial, chunk text) and fill it with COPY, as bin/calltree-load does.")));
	query = psprintf("SELECT seq::bigint, chunk::pg_catalog.text FROM %s ORDER BY seq",
					 quote_qualified_identifier(nspname, r->relname));
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare(\"%s\") failed: %s", query, SPI_result_code_string(SPI_result));
	/* not read-only: like any volatile function, see the statement's own rows */
	r->portal = SPI_cursor_open(NULL, plan, NULL, NULL, false);
	MemoryContextSwitchTo(cxt);
	r->chunk_cxt = AllocSetContextCreate(cxt, "import_stream chunk", ALLOCSET_DEFAULT_SIZES);
}

/* Why base64 text does not decode: its first stray character, or its end. */
static char *
base64_problem(const char *s, int len)
{
	for (int i = 0; i < len; i++)
		if (!isalnum((unsigned char) s[i]) && s[i] != '+' && s[i] != '/' && s[i] != '=' &&
			s[i] != '\n' && s[i] != '\r')
			return psprintf("Character %d is \"%.*s\", which base64 does not use.",
							i + 1, pg_mblen(s + i), s + i);
	return psprintf("Its %d characters do not end with a whole group of four, or have \"=\" before the end.", len);
}

/* Decodes a chunk (line breaks in it ignored) into a new buffer. */
static char *
decode_chunk(ChunkReader *r, text *chunk, int *len)
{
	char	   *b64 = VARDATA_ANY(chunk);
	int			b64len = VARSIZE_ANY_EXHDR(chunk);
	int			max;
	char	   *data;
	const char *padding;

	/* encode(..., 'base64') breaks lines every 76 characters */
	if (memchr(b64, '\n', b64len) != NULL)
	{
		char	   *packed = palloc(b64len);
		int			n = 0;

		for (int i = 0; i < b64len; i++)
			if (b64[i] != '\n' && b64[i] != '\r')
				packed[n++] = b64[i];
		b64 = packed;
		b64len = n;
	}
	max = (int) ((int64) b64len / 4 * 3 + 3);
	data = palloc(max);
	/* pg_b64_decode reads on after padding: two chunks glued would pass */
	padding = memchr(b64, '=', b64len);
	*len = padding && padding - b64 < b64len - 2 ? -1 : pg_b64_decode(b64, b64len, data, max);
	if (*len < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("chunk with seq " INT64_FORMAT " of table \"%s\" is not valid base64", r->seq, r->relname),
				 errdetail_internal("%s", base64_problem(VARDATA_ANY(chunk), VARSIZE_ANY_EXHDR(chunk))),
				 errhint("Each chunk is a piece of the profile file in base64, without white space other than line breaks.")));
	return data;
}

/*
 * The next chunk, decoded, in chunk_cxt (reset first); false at the end.
 * The fetch runs at the innermost SPI level, and its tuple table is freed
 * there.
 */
static bool
chunk_reader_next(ChunkReader *r, char **data, int *len)
{
	MemoryContext cxt = CurrentMemoryContext;
	HeapTuple	row;
	TupleDesc	desc;
	bool		isnull;
	int64		seq;
	Datum		chunk;

	CHECK_FOR_INTERRUPTS();
	MemoryContextReset(r->chunk_cxt);
	if (r->ended)
		return false;
	SPI_cursor_fetch(r->portal, true, 1);
	if (SPI_processed == 0)
	{
		SPI_freetuptable(SPI_tuptable);
		MemoryContextSwitchTo(cxt);
		r->ended = true;
		return false;
	}
	row = SPI_tuptable->vals[0];
	desc = SPI_tuptable->tupdesc;
	seq = DatumGetInt64(SPI_getbinval(row, desc, 1, &isnull));
	if (isnull || (r->nchunks > 0 && seq == r->seq))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 isnull ? errmsg("table \"%s\" has a chunk whose seq is NULL", r->relname) :
				 errmsg("table \"%s\" has two chunks with seq " INT64_FORMAT, r->relname, seq),
				 errdetail("The chunks are pieces of the profile file in seq order."),
				 errhint("Give each chunk its own seq, e.g. with a bigserial column.")));
	r->seq = seq;
	r->nchunks++;
	chunk = SPI_getbinval(row, desc, 2, &isnull);
	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("chunk with seq " INT64_FORMAT " of table \"%s\" is NULL", seq, r->relname)));

	/* detoasted into the chunk's context, decoded before the row is freed */
	MemoryContextSwitchTo(r->chunk_cxt);
	*data = decode_chunk(r, DatumGetTextPP(chunk), len);
	r->bytes += *len;
	SPI_freetuptable(SPI_tuptable);
	MemoryContextSwitchTo(cxt);
	return true;
}

static void
chunk_reader_close(ChunkReader *r)
{
	SPI_cursor_close(r->portal);
	MemoryContextDelete(r->chunk_cxt);
}

/*
 * The line being read, for errors that do not name it (invalid UTF-8, the
 * writer's).  Its chunk is not named: the first 64 kB are fed at once.
 */
static void
stream_error_context(void *arg)
{
	ChunkReader *r = (ChunkReader *) arg;

	if (r->lines != NULL && r->lines->current > 0)
		errcontext("import_stream, line " INT64_FORMAT " of the profile", r->lines->current);
}

/* The first bytes: enough to recognize the format after a byte-order mark. */
static void
read_head(ChunkReader *r, StringInfo head)
{
	char	   *data;
	int			len;

	initStringInfo(head);
	while (head->len < PROFILE_DETECT_WINDOW + 3 && chunk_reader_next(r, &data, &len))
		appendBinaryStringInfo(head, data, len);
	if (head->len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the profile file is empty"),
				 r->nchunks == 0 ? errdetail("No chunk of it is in table \"%s\".", r->relname) :
				 errdetail("The " INT64_FORMAT " chunks of it in table \"%s\" are empty.", r->nchunks, r->relname)));
}

/*
 * Collapsed stacks or perf script, a line at a time: the head, then the
 * chunks as they come.  Lines are UTF-8, converted to the database's encoding.
 */
static int64
import_lines(ChunkReader *r, StringInfo head, size_t skip, const Importer *importer,
			 const ProfileInfo *info, const ImportOptions *options)
{
	MemoryContext cxt = CurrentMemoryContext;
	ProfileInfo line_info = *info;
	Utf8LineImport import = {0};
	LineReader	reader;
	char	   *data;
	int			len;

	line_info.format = importer->format;
	line_import_begin(&import.import, importer, &line_info, options);
	line_reader_init(&reader, line_import_utf8_line, &import, false);

	r->lines = &reader;
	line_reader_feed(&reader, head->data + skip, head->len - skip);
	pfree(head->data);
	while (chunk_reader_next(r, &data, &len))
	{
		/* whatever a line leaves behind goes with its chunk */
		MemoryContextSwitchTo(r->chunk_cxt);
		line_reader_feed(&reader, data, len);
		MemoryContextSwitchTo(cxt);
	}
	line_reader_finish(&reader);
	r->lines = NULL;
	return line_import_finish(&import.import, reader.lineno);
}

/* Any other format: the whole file in memory, as import_profile reads it. */
static void
read_whole(ChunkReader *r, StringInfo buf)
{
	char	   *data;
	int			len;

	while (chunk_reader_next(r, &data, &len))
	{
		if ((size_t) buf->len + len > PROFILE_MAX_BYTES)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("profile is larger than 1 GB, the limit for formats read whole"),
					 errdetail("The chunks of table \"%s\" up to seq " INT64_FORMAT " hold " INT64_FORMAT " bytes. "
							   "Collapsed stacks and perf script are read as a stream, of any size; "
							   "other formats, and gzip or UTF-16 data, are read whole.",
							   r->relname, r->seq, r->bytes),
					 errhint("Send gzip data decompressed, as bin/calltree-load does, or convert the profile to collapsed stacks.")));
		appendBinaryStringInfo(buf, data, len);
	}
}

/* Whether the data is all white space: import_profile's empty profile */
static bool
all_white_space(const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!isspace((unsigned char) data[i]))
			return false;
	return true;
}

/* The chunks' reading, from the cursor's opening to its closing */
static void
stream_begin(ChunkReader *chunks, Oid relid, ErrorContextCallback *errcallback)
{
	MemoryContext cxt = CurrentMemoryContext;

	SPI_connect();
	MemoryContextSwitchTo(cxt);
	chunk_reader_open(chunks, relid);
	errcallback->callback = stream_error_context;
	errcallback->arg = chunks;
	errcallback->previous = error_context_stack;
	error_context_stack = errcallback;
}

static void
stream_end(ChunkReader *chunks, ErrorContextCallback *errcallback)
{
	error_context_stack = errcallback->previous;
	chunk_reader_close(chunks);
	SPI_finish();
}

/* The digest of the file the chunks hold, from a reading of its own (SPI connected) */
static bytea *
stream_digest(Oid relid)
{
	ChunkReader chunks;
	ContentHash *hash = content_hash_begin();
	char	   *data;
	int			len;

	chunk_reader_open(&chunks, relid);
	while (chunk_reader_next(&chunks, &data, &len))
		content_hash_add(hash, data, len);
	chunk_reader_close(&chunks);
	return content_hash_end(hash);
}

/*
 * Whether the file is read a line at a time: a line format that is not
 * wrapped (gzip, UTF-16) nor white space alone (which goes the other way,
 * to its error).  *importer: the given one, else the one recognized from
 * the head, unless wrapped; *guess: what the head looks like; *bom: a
 * UTF-8 byte-order mark's length.
 */
static bool
stream_reads_lines(ChunkReader *chunks, StringInfo head, const Importer **importer,
				   FormatGuess *guess, size_t *bom, const ImportOptions *options)
{
	*bom = 0;
	if (profile_is_wrapped(head->data, head->len))
		return false;
	*bom = profile_utf8_bom_length(head->data, head->len);
	profile_guess(head->data + *bom, head->len - *bom, guess);
	if (*importer == NULL)
		*importer = guess_importer(guess, options);
	return (*importer)->begin != NULL &&
		!(chunks->ended && all_white_space(head->data + *bom, head->len - *bom));
}

/* import_lines, its errors told what the guess of the format was (import_guess.c) */
static int64
import_lines_guessed(ChunkReader *chunks, StringInfo head, size_t bom, const Importer *importer,
					 const FormatGuess *guess, bool given, const ProfileInfo *info,
					 const ImportOptions *options)
{
	MemoryContext cxt = CurrentMemoryContext;
	int64		id = 0;

	PG_TRY();
	{
		import_options_check(importer, options);
		id = import_lines(chunks, head, bom, importer, info, options);
	}
	PG_CATCH();
	{
		guess_rethrow(guess, importer, given, options, cxt);
	}
	PG_END_TRY();
	return id;
}

/*
 * Imports the chunks' file: its profiles' number, their ids in *ids (the
 * first only, with a NOTICE naming the others, when all is false).
 */
static int
stream_import(FunctionCallInfo fcinfo, bool all, int64 **ids)
{
	const ImportArgs args = {.strict = 4, .event = 5, .sample_type = 6, .source = 7, .on_duplicate = 8};
	const Importer *importer = NULL;
	ProfileInfo info;
	ChunkReader chunks;
	StringInfoData head;
	ErrorContextCallback errcallback;
	ImportOptions options;
	FormatGuess guess;
	bool		given;
	size_t		bom;
	int64		id;

	if (!PG_ARGISNULL(3))
		importer = importer_by_name(text_to_cstring(PG_GETARG_TEXT_PP(3)));
	given = importer != NULL;
	profile_info_from_args(fcinfo, 1, 2, NULL, &info);
	import_options_from_args(fcinfo, &args, &options);
	options.loader_terms = true;	/* bin/calltree-load's --option */

	stream_begin(&chunks, PG_GETARG_OID(0), &errcallback);
	read_head(&chunks, &head);
	if (stream_reads_lines(&chunks, &head, &importer, &guess, &bom, &options))
	{
		/* read twice: the digest first, as the profile row is written first */
		id = content_note(&info, stream_digest(PG_GETARG_OID(0)), &options);
		if (id == 0)
			id = import_lines_guessed(&chunks, &head, bom, importer, &guess, given, &info, &options);
		stream_end(&chunks, &errcallback);
	}
	else
	{
		read_whole(&chunks, &head);
		stream_end(&chunks, &errcallback);
		if (all)
			return profile_import_bytes_all(head.data, head.len, importer, &info, &options, ids);
		id = profile_import_bytes(head.data, head.len, importer, &info, &options);
	}
	*ids = palloc(sizeof(int64));
	(*ids)[0] = id;
	return 1;
}

/*
 * import_stream(chunks regclass, name text, meta jsonb, format text,
 * strict boolean, event text, sample_type text, source text,
 * on_duplicate text) → SETOF bigint: every profile the file made, in its
 * order (a JFR recording's kinds of samples, an OTLP request's profiles).
 * 0.1 and 0.2 declared it without on_duplicate (0.1 without source),
 * returning one bigint: to them, the first id, and a NOTICE naming the
 * others.
 */
Datum
calltree_import_stream(PG_FUNCTION_ARGS)
{
	bool		all = fcinfo->flinfo->fn_retset;
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int64	   *ids;
	int			count;
	Datum		value = (Datum) 0;
	bool		isnull = false;

	if (PG_ARGISNULL(0) && !all)
		PG_RETURN_NULL();
	if (PG_ARGISNULL(0))
	{
		/* no table: a NULL, as a function of one result gives */
		InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
		isnull = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
		return (Datum) 0;
	}
	count = stream_import(fcinfo, all, &ids);
	if (!all)
		PG_RETURN_INT64(ids[0]);
	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (int i = 0; i < count; i++)
	{
		value = Int64GetDatum(ids[i]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &value, &isnull);
	}
	return (Datum) 0;
}
