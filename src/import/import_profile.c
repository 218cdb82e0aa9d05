/*
 * import_profile.c
 *	  import_profile(data bytea, name, meta, options): a profile file of any
 *	  format calltree reads, recognized from its content (profile_detect.c).
 *
 * The bytes are unwrapped first: gzip is decompressed, a UTF-16 file (with
 * its byte-order mark) becomes UTF-8, a UTF-8 byte-order mark is dropped.
 * Text is taken as UTF-8 (invalid UTF-8 is an error naming its line) and
 * converted to the database's encoding.  Collapsed stacks and perf script
 * in gzip are parsed as the stream inflates, in memory that does not grow
 * with the file.
 *
 * The importers' own options (strict, event, sample_type) go to the
 * importer of the format they belong to; given for another format, they
 * are an error rather than ignored.  import_stream imports through
 * profile_import_bytes the files it does not read as a stream.
 *
 * Before anything is written, the digest of the content (gzip undone) is
 * taken and an earlier profile of the same content looked for
 * (import_duplicates.c).
 */
#include "postgres.h"

#include <ctype.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "formats/gzip.h"
#include "import/importer.h"

PG_FUNCTION_INFO_V1(calltree_import_profile);

/* UTF-16 with a byte-order mark, as UTF-8 (surrogate pairs joined) */
static char *
utf16_to_utf8(const unsigned char *data, size_t len, bool big_endian, size_t *out_len)
{
	StringInfoData buf;

	if (len % 2 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("invalid UTF-16 profile: an odd number of bytes (%zu)", len)));
	initStringInfo(&buf);
	for (size_t i = 2; i + 1 < len; i += 2)
	{
		pg_wchar	c = big_endian ? (data[i] << 8) | data[i + 1] : (data[i + 1] << 8) | data[i];
		unsigned char utf8[8];

		if (c >= 0xD800 && c <= 0xDBFF)
		{
			pg_wchar	low;

			if (i + 3 >= len)
				ereport(ERROR,
						(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
						 errmsg("invalid UTF-16 profile: a surrogate pair is cut at byte %zu", i)));
			low = big_endian ? (data[i + 2] << 8) | data[i + 3] : (data[i + 3] << 8) | data[i + 2];
			if (low < 0xDC00 || low > 0xDFFF)
				ereport(ERROR,
						(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
						 errmsg("invalid UTF-16 profile: unpaired surrogate at byte %zu", i)));
			c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
			i += 2;
		}
		else if (c >= 0xDC00 && c <= 0xDFFF)
			ereport(ERROR,
					(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
					 errmsg("invalid UTF-16 profile: unpaired surrogate at byte %zu", i)));
		unicode_to_utf8(c, utf8);
		appendBinaryStringInfo(&buf, (char *) utf8, pg_utf_mblen(utf8));
	}
	*out_len = buf.len;
	return buf.data;
}

/* An error naming the line of the first byte that is not UTF-8, if any */
static void
check_utf8(const char *data, size_t len, const Importer *importer)
{
	size_t		valid = (size_t) pg_encoding_verifymbstr(PG_UTF8, data, (int) len);
	int64		line = 1;

	if (valid == len)
		return;
	for (const char *p = data; (p = memchr(p, '\n', data + valid - p)) != NULL; p++)
	{
		if ((++line & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	ereport(ERROR,
			(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
			 errmsg("%s profile is not valid UTF-8 at line " INT64_FORMAT, importer->name, line),
			 errdetail("Byte %zu of the text, 0x%02x, is not part of a UTF-8 character.",
					   valid, (unsigned char) data[valid]),
			 errhint("Text profiles are read as UTF-8, or as UTF-16 with a byte-order mark.")));
}

/*
 * UTF-16 as UTF-8, a UTF-8 byte-order mark dropped.  *decompressed: the
 * data is still the buffer gzip inflated into, which the caller may free.
 */
static const char *
unwrap_text(const char *data, size_t *len, bool *decompressed)
{
	bool		big_endian = *len >= 2 && (unsigned char) data[0] == 0xFE && (unsigned char) data[1] == 0xFF;
	bool		little_endian = *len >= 2 && (unsigned char) data[0] == 0xFF && (unsigned char) data[1] == 0xFE;
	size_t		bom;

	if (big_endian || little_endian)
	{
		*decompressed = false;
		return utf16_to_utf8((const unsigned char *) data, *len, big_endian, len);
	}
	bom = profile_utf8_bom_length(data, *len);
	*decompressed = *decompressed && bom == 0;
	*len -= bom;
	return data + bom;
}

/*
 * The line importer of gzipped data, from its head (the first 64 kB, bom
 * bytes of them a byte-order mark), or NULL: JSON, pprof, UTF-16 and white
 * space alone are decompressed whole.  *guess: what the head looks like.
 */
static const Importer *
gzip_line_importer(const char *head, size_t len, size_t bom, const Importer *importer,
				   FormatGuess *guess, const ImportOptions *options)
{
	size_t		i = bom;

	while (i < len && isspace((unsigned char) head[i]))
		i++;
	/* JSON goes the other way before it is recognized: its errors need the whole */
	if (profile_is_wrapped(head, len) || i == len || head[i] == '{' || head[i] == '[')
		return NULL;
	profile_guess(head + bom, len - bom, guess);
	if (importer == NULL)
		importer = guess_importer(guess, options);
	return importer->begin != NULL ? importer : NULL;
}

/*
 * Feeds the lines the head of the stream (already read into piece), then
 * the rest a piece at a time.  Whatever a line leaves behind goes with its
 * piece, in piece_cxt, which is reset for the next.
 */
static void
gzip_feed_lines(GzipReader *reader, LineReader *lines, char *piece, size_t head, size_t head_len,
				MemoryContext piece_cxt)
{
	MemoryContext cxt = MemoryContextSwitchTo(piece_cxt);

	line_reader_feed(lines, piece + head, head_len);
	while (!gzip_reader_ended(reader))
	{
		size_t		n;

		MemoryContextSwitchTo(cxt);
		MemoryContextReset(piece_cxt);
		n = gzip_reader_read(reader, piece, PROFILE_DETECT_WINDOW);
		MemoryContextSwitchTo(piece_cxt);
		line_reader_feed(lines, piece, n);
	}
	line_reader_finish(lines);
	MemoryContextSwitchTo(cxt);
}

/*
 * Collapsed stacks or perf script in gzip, parsed a line at a time as the
 * stream is decompressed, so that memory does not grow with what the file
 * expands to.  The whole stream is checked first, keeping nothing (a
 * damaged stream is a gzip error, not the parser's error about the garbage
 * it may inflate to); then decompressed again for the parser.  False, and
 * nothing done, if the head is not of these formats.
 */
static bool
import_gzip_lines(const char *data, size_t len, const Importer *importer,
				  const ProfileInfo *info, const ImportOptions *options, int64 *id)
{
	GzipReader *reader = gzip_reader_begin(data, len, "profile");
	char	   *piece = palloc(PROFILE_DETECT_WINDOW + 3);
	size_t		n = gzip_reader_read(reader, piece, PROFILE_DETECT_WINDOW + 3);
	size_t		bom = profile_utf8_bom_length(piece, n);
	ProfileInfo line_info = *info;
	Utf8LineImport lines = {0};
	LineReader	line_reader;
	MemoryContext cxt = CurrentMemoryContext;
	MemoryContext piece_cxt;
	FormatGuess guess;
	const Importer *line_importer = gzip_line_importer(piece, n, bom, importer, &guess, options);

	if (line_importer == NULL)
	{
		gzip_reader_end(reader);
		pfree(piece);
		return false;
	}
	/* the stream checked whole, and its content's digest */
	*id = content_note(&line_info, content_digest_gzip(data, len, PROFILE_MAX_BYTES, "profile"), options);
	if (*id != 0)
	{
		gzip_reader_end(reader);
		pfree(piece);
		return true;
	}

	piece_cxt = AllocSetContextCreate(CurrentMemoryContext, "import_profile gzip piece",
									  ALLOCSET_DEFAULT_SIZES);
	PG_TRY();
	{
		import_options_check(line_importer, options);
		line_info.format = line_importer->format;
		line_import_begin(&lines.import, line_importer, &line_info, options);
		line_reader_init(&line_reader, line_import_utf8_line, &lines, false);
		gzip_feed_lines(reader, &line_reader, piece, bom, n - bom, piece_cxt);
		*id = line_import_finish(&lines.import, line_reader.lineno);
	}
	PG_CATCH();
	{
		guess_rethrow(&guess, line_importer, importer != NULL, options, cxt);
	}
	PG_END_TRY();
	gzip_reader_end(reader);
	MemoryContextDelete(piece_cxt);
	pfree(piece);
	return true;
}

/* An error if data, unwrapped, is nothing but white space */
static void
check_not_empty(const char *data, size_t len)
{
	size_t		i = 0;

	while (i < len && isspace((unsigned char) data[i]))
		i++;
	if (i == len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("profile data is empty"),
				 errdetail("After unwrapping there are %zu bytes, all white space.", len)));
}

/* Text: UTF-8 checked, converted to the database's encoding, imported */
static int64
import_text(const Importer *importer, const char *data, size_t len, bool decompressed,
			const ProfileInfo *info, const ImportOptions *options)
{
	char	   *converted;

	check_utf8(data, len, importer);
	converted = pg_any_to_server(data, (int) len, PG_UTF8);
	if (converted != data)
	{
		/* the text is held once: as inflated, or converted */
		if (decompressed)
			pfree((char *) data);
		data = converted;
		len = strlen(converted);
	}
	return importer->import(info, data, len, options);
}

/* One id as an import's every id: a palloc'd array of it */
static int
one_id(int64 id, int64 **ids)
{
	*ids = palloc(sizeof(int64));
	(*ids)[0] = id;
	return 1;
}

/*
 * A binary format's import: the first profile's id into *id and, when the
 * caller takes them all (ids not NULL), every profile the file made into
 * *ids.  Their number.
 */
static int
import_binary(const Importer *importer, const ProfileInfo *info, const char *data, size_t len,
			  const ImportOptions *options, int64 **ids, int64 *id)
{
	if (ids != NULL && importer->import_all != NULL)
	{
		int			count = importer->import_all(info, data, len, options, ids);

		*id = (*ids)[0];
		return count;
	}
	*id = importer->import(info, data, len, options);
	return ids ? one_id(*id, ids) : 1;
}

/*
 * profile_import_bytes and profile_import_bytes_all: the first profile's id
 * into *id; every id into *ids unless ids is NULL; their number.
 */
static int
import_bytes(const char *data, size_t len, const Importer *importer, const ProfileInfo *info,
			 const ImportOptions *options, int64 **ids, int64 *id)
{
	ProfileInfo format_info = *info;
	bool		decompressed = false;
	int			count = 1;
	FormatGuess guess;
	const Importer *given = importer;
	MemoryContext cxt = CurrentMemoryContext;

	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("profile data is empty")));
	if (gzip_is_compressed(data, len))
	{
		if (import_gzip_lines(data, len, importer, info, options, id))
			return ids ? one_id(*id, ids) : 1;
		data = gzip_decompress(data, len, PROFILE_MAX_BYTES, "profile", &len);
		decompressed = true;
	}
	*id = content_note(&format_info, content_digest(data, len), options);
	if (*id != 0)				/* on_duplicate skip: the earlier import's profiles */
		return ids ? content_import_ids(*id, ids) : 1;
	data = unwrap_text(data, &len, &decompressed);
	check_not_empty(data, len);
	profile_guess(data, len, &guess);
	if (importer == NULL)
		importer = guess_importer(&guess, options);
	PG_TRY();
	{
		import_options_check(importer, options);
		format_info.format = importer->format;
		if (importer->binary)
			count = import_binary(importer, &format_info, data, len, options, ids, id);
		else
		{
			*id = import_text(importer, data, len, decompressed, &format_info, options);
			if (ids != NULL)
				one_id(*id, ids);
		}
	}
	PG_CATCH();
	{
		guess_rethrow(&guess, importer, given != NULL, options, cxt);
	}
	PG_END_TRY();
	return count;
}

int64
profile_import_bytes(const char *data, size_t len, const Importer *importer,
					 const ProfileInfo *info, const ImportOptions *options)
{
	int64		id;

	import_bytes(data, len, importer, info, options, NULL, &id);
	return id;
}

int
profile_import_bytes_all(const char *data, size_t len, const Importer *importer,
						 const ProfileInfo *info, const ImportOptions *options, int64 **ids)
{
	int64		id;

	return import_bytes(data, len, importer, info, options, ids, &id);
}

/*
 * import_profile(data bytea, name text, meta jsonb, strict boolean,
 * event text, sample_type text, on_duplicate text) → profile id
 */
Datum
calltree_import_profile(PG_FUNCTION_ARGS)
{
	const ImportArgs args = {.strict = 3, .event = 4, .sample_type = 5, .source = -1, .on_duplicate = 6};
	bytea	   *raw;
	ProfileInfo info;
	ImportOptions options;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	raw = PG_GETARG_BYTEA_PP(0);
	profile_info_from_args(fcinfo, 1, 2, NULL, &info);
	import_options_from_args(fcinfo, &args, &options);
	PG_RETURN_INT64(profile_import_bytes(VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), NULL,
										 &info, &options));
}
