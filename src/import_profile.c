/*
 * import_profile.c
 *	  import_profile(data bytea, name, meta): a profile file of any format
 *	  calltree reads, recognized from its content.
 *
 * The bytes are unwrapped first: gzip is decompressed, a UTF-16 file (with
 * its byte-order mark) becomes UTF-8, a UTF-8 byte-order mark is dropped.
 * Then:
 *	- bytes that are not text (a NUL byte, or not UTF-8) are pprof protobuf;
 *	- JSON is told apart by its members: trace events ("traceEvents", or an
 *	  array of objects with "ph"), a V8 .cpuprofile ("nodes" with "callFrame",
 *	  or the old "head"), speedscope ("shared" and "profiles", or its
 *	  schema URL) and the Firefox Profiler ("threads", "libs", or DevTools'
 *	  recording around it);
 *	- other text is `perf script` output when a line starts with white space
 *	  and a hexadecimal address, and collapsed stacks otherwise.
 * Text is taken as UTF-8 and converted to the database's encoding.
 *
 * import_stream shares the recognition and, for the formats it does not
 * read as a stream, the import of the whole bytes (profile_format.h).
 */
#include "postgres.h"

#include <ctype.h>

#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "gzip.h"
#include "import.h"
#include "profile_format.h"

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

static bool
looks_binary(const char *data, size_t len)
{
	size_t		window = Min(len, PROFILE_DETECT_WINDOW);

	if (memchr(data, '\0', window) != NULL)
		return true;
	/* a cut multibyte character at the window's end is not evidence */
	return pg_encoding_verifymbstr(PG_UTF8, data, (int) window) < (int) window - 3;
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

/* gzip decompressed, UTF-16 as UTF-8, a UTF-8 byte-order mark dropped */
static const char *
unwrap(const char *data, size_t *len)
{
	if (gzip_is_compressed(data, *len))
		data = gzip_decompress(data, *len, PROFILE_MAX_BYTES, "profile", len);

	if (*len >= 2 && (unsigned char) data[0] == 0xFF && (unsigned char) data[1] == 0xFE)
		data = utf16_to_utf8((const unsigned char *) data, *len, false, len);
	else if (*len >= 2 && (unsigned char) data[0] == 0xFE && (unsigned char) data[1] == 0xFF)
		data = utf16_to_utf8((const unsigned char *) data, *len, true, len);
	else
	{
		size_t		bom = profile_utf8_bom_length(data, *len);

		data += bom;
		*len -= bom;
	}
	return data;
}

int64
profile_import_bytes(const char *data, size_t len, ProfileFormat format,
					 NullableDatum name, NullableDatum meta)
{
	Datum		content;
	size_t		i = 0;

	if (len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("profile data is empty")));
	data = unwrap(data, &len);
	while (i < len && isspace((unsigned char) data[i]))
		i++;
	if (i == len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("profile data is empty"),
				 errdetail("After unwrapping there are %zu bytes, all white space.", len)));
	if (format == FORMAT_UNKNOWN)
		format = profile_format_detect(data, len);
	if (format == FORMAT_PPROF)
	{
		bytea	   *bytes = palloc(VARHDRSZ + len);
		Datum		args[4] = {PointerGetDatum(bytes), (Datum) 0, name.value, meta.value};
		bool		nulls[4] = {false, true, name.isnull, meta.isnull};

		SET_VARSIZE(bytes, VARHDRSZ + len);
		memcpy(VARDATA(bytes), data, len);
		return DatumGetInt64(call_importer(calltree_import_pprof, 4, args, nulls));
	}

	/* text: UTF-8 into the database's encoding (validating it) */
	content = PointerGetDatum(cstring_to_text(pg_any_to_server(pnstrdup(data, len), (int) len, PG_UTF8)));
	switch (format)
	{
		case FORMAT_PERF_SCRIPT:
			{
				Datum		args[4] = {content, (Datum) 0, name.value, meta.value};
				bool		nulls[4] = {false, true, name.isnull, meta.isnull};

				return DatumGetInt64(call_importer(calltree_import_perf_script, 4, args, nulls));
			}
		case FORMAT_COLLAPSED:
			{
				Datum		args[4] = {content, name.value, meta.value, BoolGetDatum(true)};
				bool		nulls[4] = {false, name.isnull, meta.isnull, false};

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

/* import_profile(data bytea, name text, meta jsonb) → profile id */
Datum
calltree_import_profile(PG_FUNCTION_ARGS)
{
	bytea	   *raw;
	NullableDatum name = {PG_GETARG_DATUM(1), PG_ARGISNULL(1)};
	NullableDatum meta = {PG_GETARG_DATUM(2), PG_ARGISNULL(2)};

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	raw = PG_GETARG_BYTEA_PP(0);
	PG_RETURN_INT64(profile_import_bytes(VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw), FORMAT_UNKNOWN,
										 name, meta));
}
