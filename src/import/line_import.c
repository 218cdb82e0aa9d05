/*
 * line_import.c
 *	  Running a line importer (collapsed stacks, perf script) over text,
 *	  whether the text is one value, gzip inflated a piece at a time, or a
 *	  stream of chunks: the writer and the parser begin and end together.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"

#include "import/importer.h"

void
line_import_begin(LineImport *import, const Importer *importer, const ProfileInfo *info,
				  const ImportOptions *options)
{
	Assert(importer->begin != NULL);
	import->importer = importer;
	import->writer = profile_writer_begin(info);
	import->parser = importer->begin(import->writer, options);
}

void
line_import_feed_line(void *arg, const char *line, int len, int64 lineno)
{
	LineImport *import = (LineImport *) arg;

	import->importer->feed_line(import->parser, line, len, lineno);
}

/* The new profile's id */
int64
line_import_finish(LineImport *import, int64 lines)
{
	import->importer->finish(import->parser, lines);
	return profile_writer_finish(import->writer);
}

int64
line_import_text(const Importer *importer, const ProfileInfo *info, const char *data, size_t len,
				 const ImportOptions *options)
{
	LineImport	import;
	LineReader	reader;

	line_import_begin(&import, importer, info, options);
	line_reader_init(&reader, importer->feed_line, import.parser, false);
	line_reader_feed(&reader, data, len);
	line_reader_finish(&reader);
	return line_import_finish(&import, reader.lineno);
}

void
line_import_utf8_line(void *arg, const char *line, int len, int64 lineno)
{
	Utf8LineImport *lines = (Utf8LineImport *) arg;
	int			valid = pg_encoding_verifymbstr(PG_UTF8, line, len);
	char	   *converted;

	if (valid < len)
		ereport(ERROR,
				(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
				 errmsg("%s profile is not valid UTF-8 at line " INT64_FORMAT,
						lines->import.importer->name, lineno),
				 errdetail("Byte %zu of the text, 0x%02x, is not part of a UTF-8 character.",
						   lines->offset + valid, (unsigned char) line[valid]),
				 errhint("Text profiles are read as UTF-8, or as UTF-16 with a byte-order mark.")));
	lines->offset += len + 1;
	converted = pg_any_to_server(line, len, PG_UTF8);
	if (converted != line)
		len = strlen(converted);
	line_import_feed_line(&lines->import, converted, len, lineno);
	if (converted != line)
		pfree(converted);
}
