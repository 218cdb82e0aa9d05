/*
 * import_profile.c
 *	  import_profile(data bytea, name, meta, options): a profile file of any format
 *	  calltree reads, recognized from its content.
 *
 * The bytes are unwrapped first: gzip is decompressed, a UTF-16 file (with
 * its byte-order mark) becomes UTF-8, a UTF-8 byte-order mark is dropped.
 * Then:
 *	- bytes that are not text (a NUL byte, or invalid UTF-8 with control
 *	  characters) are pprof protobuf;
 *	- JSON is told apart by its members: trace events ("traceEvents", or an
 *	  array of objects with "ph"), a V8 .cpuprofile ("nodes" with "callFrame",
 *	  or the old "head"), speedscope ("shared" and "profiles", or its
 *	  schema URL) and the Firefox Profiler ("threads", "libs", or DevTools'
 *	  recording around it);
 *	- other text is `perf script` output when a line starts with white space
 *	  and a hexadecimal address, and collapsed stacks otherwise.
 * Text is taken as UTF-8 (invalid UTF-8 is an error naming its line) and
 * converted to the database's encoding.
 *
 * The importers' own options (strict, event, sample_type) are passed on to
 * the importer of the format they belong to; given for another format, they
 * are an error rather than ignored.
 *
 * import_stream shares the recognition and, for the formats it does not
 * read as a stream, the import of the whole bytes (profile_format.h).
 */
#include "postgres.h"

#include <ctype.h>

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "formats/gzip.h"
#include "writer/writer.h"
#include "import/import_text.h"
#include "import/profile_format.h"

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

/* Whether a control character other than white space (or ESC) is in data */
static bool
has_control_character(const char *data, size_t len)
{
	for (size_t i = 0; i < len; i++)
	{
		unsigned char c = (unsigned char) data[i];

		if ((c < 0x20 && !isspace(c) && c != 0x1B) || c == 0x7F)
			return true;
	}
	return false;
}

/*
 * Whether the data is not text: a NUL byte, or invalid UTF-8 together with
 * control characters, as protobuf has from its first bytes on (field tags
 * 0x08, 0x10, 0x12..., varints of 0x80 and up).  Invalid UTF-8 alone, or a
 * control character alone, is a damaged text file, whose error should name
 * its line.
 */
static bool
looks_binary(const char *data, size_t len)
{
	size_t		window = Min(len, PROFILE_DETECT_WINDOW);

	if (memchr(data, '\0', window) != NULL)
		return true;
	/* a cut multibyte character at the window's end is not evidence */
	return pg_encoding_verifymbstr(PG_UTF8, data, (int) window) < (int) window - 3 &&
		has_control_character(data, window);
}

/* An error naming the line of the first byte that is not UTF-8, if any */
static void
check_utf8(const char *data, size_t len, ProfileFormat format)
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
			 errmsg("%s profile is not valid UTF-8 at line " INT64_FORMAT, profile_format_name(format), line),
			 errdetail("Byte %zu of the text, 0x%02x, is not part of a UTF-8 character.",
					   valid, (unsigned char) data[valid]),
			 errhint("Text profiles are read as UTF-8, or as UTF-16 with a byte-order mark.")));
}

/* Whether `needle` occurs in the window of the data. */
static bool
mentions(const char *data, size_t len, const char *needle)
{
	size_t		window = Min(len, PROFILE_DETECT_WINDOW);
	size_t		n = strlen(needle);

	for (size_t i = 0; i + n <= window; i++)
		if (data[i] == needle[0] && memcmp(data + i, needle, n) == 0)
			return true;
	return false;
}

static ProfileFormat
json_format(const char *data, size_t len, char first)
{
	if (mentions(data, len, "\"traceEvents\"") || (first == '[' && mentions(data, len, "\"ph\"")))
		return FORMAT_TRACE_EVENTS;
	if ((mentions(data, len, "\"nodes\"") && mentions(data, len, "\"callFrame\"")) ||
		mentions(data, len, "\"head\""))
		return FORMAT_CPUPROFILE;
	if (mentions(data, len, "speedscope.app/file-format-schema") ||
		(mentions(data, len, "\"shared\"") && mentions(data, len, "\"profiles\"")))
		return FORMAT_SPEEDSCOPE;
	if (mentions(data, len, "\"threads\"") || mentions(data, len, "\"preprocessedProfileVersion\"") ||
		mentions(data, len, "\"libs\"") ||
		/* Firefox DevTools' Recorded Performance Data wraps a Gecko profile */
		(mentions(data, len, "\"ticks\"") && mentions(data, len, "\"allocations\"")))
		return FORMAT_FIREFOX;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized JSON profile"),
			 errdetail("The JSON is neither trace events, a V8 .cpuprofile, a speedscope file nor a Firefox Profiler profile."),
			 errhint("Call the importer of its format directly if you know it.")));
}

/* A `perf script` stack line: white space, then a hexadecimal address and a space. */
static bool
has_perf_stack_line(const char *data, size_t len)
{
	size_t		window = Min(len, PROFILE_DETECT_WINDOW);

	for (size_t i = 0; i < window; i++)
	{
		size_t		j = i;
		size_t		digits = 0;

		if (i > 0 && data[i - 1] != '\n')
			continue;
		while (j < window && (data[j] == ' ' || data[j] == '\t'))
			j++;
		if (j == i)
			continue;
		while (j < window && isxdigit((unsigned char) data[j]))
			j++, digits++;
		if (digits > 0 && j < window && data[j] == ' ')
			return true;
	}
	return false;
}

ProfileFormat
profile_format_detect(const char *data, size_t len)
{
	size_t		i = 0;

	if (looks_binary(data, len))
		return FORMAT_PPROF;
	while (i < len && isspace((unsigned char) data[i]))
		i++;
	if (i < len && (data[i] == '{' || data[i] == '['))
		return json_format(data, len, data[i]);
	return has_perf_stack_line(data, len) ? FORMAT_PERF_SCRIPT : FORMAT_COLLAPSED;
}

/* Calls an importer's SQL entry point with its arguments. */
static Datum
call_importer(PGFunction importer, int nargs, const Datum *values, const bool *nulls)
{
	LOCAL_FCINFO(call, 4);
	Datum		result;

	InitFunctionCallInfoData(*call, NULL, nargs, InvalidOid, NULL, NULL);
	for (int i = 0; i < nargs; i++)
	{
		call->args[i].value = values[i];
		call->args[i].isnull = nulls[i];
	}
	result = importer(call);
	if (call->isnull)
		elog(ERROR, "importer returned no profile id");
	return result;
}

/* The importers by name, the suffix of their SQL function's */
static const struct
{
	const char *name;
	ProfileFormat format;
}			format_names[] =
{
	{"collapsed", FORMAT_COLLAPSED},
	{"perf_script", FORMAT_PERF_SCRIPT},
	{"pprof", FORMAT_PPROF},
	{"cpuprofile", FORMAT_CPUPROFILE},
	{"speedscope", FORMAT_SPEEDSCOPE},
	{"firefox", FORMAT_FIREFOX},
	{"trace_events", FORMAT_TRACE_EVENTS},
};

const char *
profile_format_name(ProfileFormat format)
{
	for (int i = 0; i < lengthof(format_names); i++)
		if (format_names[i].format == format)
			return format_names[i].name;
	elog(ERROR, "unexpected profile format %d", (int) format);
}

void
profile_options_from_args(FunctionCallInfo fcinfo, int first_arg, ProfileOptions *options)
{
	NullableDatum *slots[3] = {&options->strict, &options->event, &options->sample_type};

	for (int i = 0; i < lengthof(slots); i++)
	{
		slots[i]->isnull = PG_ARGISNULL(first_arg + i);
		slots[i]->value = slots[i]->isnull ? (Datum) 0 : PG_GETARG_DATUM(first_arg + i);
	}
}

/* An error if the option is given and format is not its owner's */
static void
check_option(const NullableDatum *value, const char *option, ProfileFormat owner,
			 ProfileFormat format)
{
	if (value->isnull || format == owner)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("option \"%s\" does not apply to a %s profile", option, profile_format_name(format)),
			 errdetail("The profile's format is %s; %s is an option of %s profiles only.",
					   profile_format_name(format), option, profile_format_name(owner)),
			 errhint("Leave %s out: strict is for collapsed stacks, event for perf_script, sample_type for pprof.",
					 option)));
}

void
profile_options_check(ProfileFormat format, const ProfileOptions *options)
{
	check_option(&options->strict, "strict", FORMAT_COLLAPSED, format);
	check_option(&options->event, "event", FORMAT_PERF_SCRIPT, format);
	check_option(&options->sample_type, "sample_type", FORMAT_PPROF, format);
}

ProfileFormat
profile_format_from_name(const char *name)
{
	StringInfoData names;

	for (int i = 0; i < lengthof(format_names); i++)
		if (strcmp(name, format_names[i].name) == 0)
			return format_names[i].format;
	initStringInfo(&names);
	for (int i = 0; i < lengthof(format_names); i++)
		appendStringInfo(&names, "%s%s", i > 0 ? ", " : "", format_names[i].name);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown profile format \"%s\"", name),
			 errhint("Use one of %s, or NULL to recognize the format from the content.", names.data)));
}

bool
profile_is_wrapped(const char *data, size_t len)
{
	return gzip_is_compressed(data, len) ||
		(len >= 2 && (unsigned char) data[0] == 0xFF && (unsigned char) data[1] == 0xFE) ||
		(len >= 2 && (unsigned char) data[0] == 0xFE && (unsigned char) data[1] == 0xFF);
}

size_t
profile_utf8_bom_length(const char *data, size_t len)
{
	return len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/*
 * gzip decompressed, UTF-16 as UTF-8, a UTF-8 byte-order mark dropped.
 * *header: the data is decompressed, after VARHDRSZ bytes of its buffer
 * that are free for a varlena header.
 */
static const char *
unwrap(const char *data, size_t *len, bool *header)
{
	*header = false;
	if (gzip_is_compressed(data, *len))
	{
		data = gzip_decompress_after(data, *len, PROFILE_MAX_BYTES, "profile", VARHDRSZ, len) + VARHDRSZ;
		*header = true;
	}

	if (*len >= 2 && (unsigned char) data[0] == 0xFF && (unsigned char) data[1] == 0xFE)
	{
		data = utf16_to_utf8((const unsigned char *) data, *len, false, len);
		*header = false;
	}
	else if (*len >= 2 && (unsigned char) data[0] == 0xFE && (unsigned char) data[1] == 0xFF)
	{
		data = utf16_to_utf8((const unsigned char *) data, *len, true, len);
		*header = false;
	}
	else
	{
		size_t		bom = profile_utf8_bom_length(data, *len);

		data += bom;
		*len -= bom;
		*header = *header && bom == 0;
	}
	return data;
}

/*
 * The data as a varlena (a text or a bytea), made in place when unwrap left
 * room for its header: decompressed data is held once.
 */
static struct varlena *
varlena_of(const char *data, size_t len, bool header)
{
	struct varlena *value;

	if (header)
		value = (struct varlena *) (data - VARHDRSZ);
	else
	{
		value = palloc(VARHDRSZ + len);
		memcpy(VARDATA(value), data, len);
	}
	SET_VARSIZE(value, VARHDRSZ + len);
	return value;
}

/* UTF-8 data as text in the database's encoding; in place if it needs no conversion */
static Datum
server_text(const char *data, size_t len, bool header)
{
	char	   *converted = pg_any_to_server(data, (int) len, PG_UTF8);
	text	   *value;

	if (converted == data)
		return PointerGetDatum(varlena_of(data, len, header));
	if (header)
		pfree((char *) data - VARHDRSZ);
	value = cstring_to_text(converted);
	pfree(converted);
	return PointerGetDatum(value);
}

/* Lines of gzipped text: checked as UTF-8 (as check_utf8 does), then converted */
typedef struct GzipLines
{
	ProfileFormat format;
	LineHandler parse;			/* the parser's */
	void	   *parser;
	size_t		offset;			/* of the line in the text */
} GzipLines;

static void
gzip_line(void *arg, const char *line, int len, int64 lineno)
{
	GzipLines  *lines = (GzipLines *) arg;
	int			valid = pg_encoding_verifymbstr(PG_UTF8, line, len);
	char	   *converted;

	if (valid < len)
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("%s profile is not valid UTF-8 at line " INT64_FORMAT,
						profile_format_name(lines->format), lineno),
				 errdetail("Byte %zu of the text, 0x%02x, is not part of a UTF-8 character.",
						   lines->offset + valid, (unsigned char) line[valid]),
				 errhint("Text profiles are read as UTF-8, or as UTF-16 with a byte-order mark.")));
	lines->offset += len + 1;
	converted = pg_any_to_server(line, len, PG_UTF8);
	if (converted != line)
		len = strlen(converted);
	lines->parse(lines->parser, converted, len, lineno);
	if (converted != line)
		pfree(converted);
}

/*
 * Collapsed stacks or perf script in gzip, parsed a line at a time as the
 * stream is decompressed, so that memory does not grow with what the file
 * expands to.  The whole stream is checked first, keeping nothing (a
 * damaged stream is a gzip error, not the parser's error about the garbage
 * it may inflate to); then decompressed again for the parser.  False, and
 * nothing done, if the head (the first 64 kB) is not of these formats:
 * JSON, pprof, UTF-16, or white space alone are decompressed whole.
 */
static bool
import_gzip_lines(const char *data, size_t len, ProfileFormat format, NullableDatum name,
				  NullableDatum meta, const ProfileOptions *options, int64 *id)
{
	MemoryContext cxt = CurrentMemoryContext;
	MemoryContext piece_cxt;
	GzipReader *reader = gzip_reader_begin(data, len, "profile");
	char	   *piece = palloc(PROFILE_DETECT_WINDOW + 3);
	size_t		n = gzip_reader_read(reader, piece, PROFILE_DETECT_WINDOW + 3);
	size_t		bom = profile_utf8_bom_length(piece, n);
	size_t		i = bom;
	ProfileInfo info = {0};
	ProfileWriter *writer;
	GzipLines	lines = {0};
	LineReader	line_reader;

	while (i < n && isspace((unsigned char) piece[i]))
		i++;
	/* JSON goes the other way before it is recognized: its errors need the whole */
	if (profile_is_wrapped(piece, n) || i == n || piece[i] == '{' || piece[i] == '[')
		format = FORMAT_UNKNOWN;
	else if (format == FORMAT_UNKNOWN)
		format = profile_format_detect(piece + bom, n - bom);
	if (format != FORMAT_COLLAPSED && format != FORMAT_PERF_SCRIPT)
	{
		gzip_reader_end(reader);
		pfree(piece);
		return false;
	}
	profile_options_check(format, options);
	gzip_check(data, len, PROFILE_MAX_BYTES, "profile");

	info.format = format == FORMAT_COLLAPSED ? "collapsed" : "perf script";
	info.name = name.isnull ? NULL : TextDatumGetCString(name.value);
	info.meta = meta.isnull ? NULL : DatumGetJsonbP(meta.value);
	writer = profile_writer_begin(&info);
	lines.format = format;
	if (format == FORMAT_COLLAPSED)
	{
		lines.parser = collapsed_parser_begin(writer, options->strict.isnull ||
											  DatumGetBool(options->strict.value));
		lines.parse = collapsed_parser_feed_line;
	}
	else
	{
		lines.parser = perf_parser_begin(writer, options->event.isnull ? NULL :
										 TextDatumGetCString(options->event.value));
		lines.parse = perf_parser_feed_line;
	}
	line_reader_init(&line_reader, gzip_line, &lines, false);
	/* whatever a line leaves behind goes with its piece */
	piece_cxt = AllocSetContextCreate(cxt, "import_profile gzip piece", ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(piece_cxt);
	line_reader_feed(&line_reader, piece + bom, n - bom);
	while (!gzip_reader_ended(reader))
	{
		MemoryContextSwitchTo(cxt);
		MemoryContextReset(piece_cxt);
		n = gzip_reader_read(reader, piece, PROFILE_DETECT_WINDOW);
		MemoryContextSwitchTo(piece_cxt);
		line_reader_feed(&line_reader, piece, n);
	}
	line_reader_finish(&line_reader);
	MemoryContextSwitchTo(cxt);
	gzip_reader_end(reader);
	if (format == FORMAT_COLLAPSED)
		collapsed_parser_finish(lines.parser);
	else
		perf_parser_finish(lines.parser, line_reader.lineno);
	*id = profile_writer_finish(writer);
	MemoryContextDelete(piece_cxt);
	pfree(piece);
	return true;
}

int64
profile_import_bytes(const char *data, size_t len, ProfileFormat format,
					 NullableDatum name, NullableDatum meta, const ProfileOptions *options)
{
	Datum		content;
	size_t		i = 0;
	bool		header;
	int64		id;

	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("profile data is empty")));
	if (gzip_is_compressed(data, len) &&
		import_gzip_lines(data, len, format, name, meta, options, &id))
		return id;
	data = unwrap(data, &len, &header);
	while (i < len && isspace((unsigned char) data[i]))
		i++;
	if (i == len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("profile data is empty"),
				 errdetail("After unwrapping there are %zu bytes, all white space.", len)));
	if (format == FORMAT_UNKNOWN)
		format = profile_format_detect(data, len);
	profile_options_check(format, options);
	if (format == FORMAT_PPROF)
	{
		bytea	   *bytes = varlena_of(data, len, header);
		Datum		args[4] = {PointerGetDatum(bytes), options->sample_type.value, name.value, meta.value};
		bool		nulls[4] = {false, options->sample_type.isnull, name.isnull, meta.isnull};

		return DatumGetInt64(call_importer(calltree_import_pprof, 4, args, nulls));
	}

	/* text: UTF-8 into the database's encoding */
	check_utf8(data, len, format);
	content = server_text(data, len, header);
	switch (format)
	{
		case FORMAT_PERF_SCRIPT:
			{
				Datum		args[4] = {content, options->event.value, name.value, meta.value};
				bool		nulls[4] = {false, options->event.isnull, name.isnull, meta.isnull};

				return DatumGetInt64(call_importer(calltree_import_perf_script, 4, args, nulls));
			}
		case FORMAT_COLLAPSED:
			{
				Datum		args[4] = {content, name.value, meta.value, options->strict.value};
				bool		nulls[4] = {false, name.isnull, meta.isnull, options->strict.isnull};

				return DatumGetInt64(call_importer(calltree_import_collapsed, 4, args, nulls));
			}
		default:
			{
				Datum		args[3] = {content, name.value, meta.value};
				bool		nulls[3] = {false, name.isnull, meta.isnull};
				PGFunction	importer = format == FORMAT_TRACE_EVENTS ? calltree_import_trace_events
					: format == FORMAT_CPUPROFILE ? calltree_import_cpuprofile
					: format == FORMAT_SPEEDSCOPE ? calltree_import_speedscope
					: calltree_import_firefox;

				return DatumGetInt64(call_importer(importer, 3, args, nulls));
			}
	}
}

/*
 * import_profile(data bytea, name text, meta jsonb, strict boolean,
 * event text, sample_type text) → profile id
 */
Datum
calltree_import_profile(PG_FUNCTION_ARGS)
{
	bytea	   *raw;
	NullableDatum name = {PG_GETARG_DATUM(1), PG_ARGISNULL(1)};
	NullableDatum meta = {PG_GETARG_DATUM(2), PG_ARGISNULL(2)};
	ProfileOptions options;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	raw = PG_GETARG_BYTEA_PP(0);
	profile_options_from_args(fcinfo, 3, &options);
	PG_RETURN_INT64(profile_import_bytes(VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), FORMAT_UNKNOWN,
										 name, meta, &options));
}
