/*
 * fuzz_collapsed.c
 *	  libFuzzer harness of the collapsed-stack parser (import_collapsed.c),
 *	  driven through its Importer's begin, feed_line and finish and fed by
 *	  the line reader as import_collapsed feeds it, writing into a
 *	  ProfileWriter that checks what it gets (fake_writer.c).
 *
 * Lenient (strict => false), the only error is "no samples"; strict, an
 * input that is accepted gives the same samples as lenient.
 */
#include "postgres.h"

#include "utils/elog.h"

#include "fake_writer.h"
#include "import/importer.h"
#include "pg_stubs.h"

typedef struct Input
{
	const char *data;
	size_t		len;
	bool		strict;
	int64		samples;		/* result */
} Input;

static void
parse(void *arg)
{
	Input	   *input = arg;
	const Importer *importer = &collapsed_importer;
	ImportOptions options = {.strict_given = true, .strict = input->strict};
	ProfileWriter *writer = fuzz_writer_begin();
	void	   *parser;
	LineReader	reader;

	/* import_collapsed reads a signed tree's negative counts */
	fuzz_writer_allow_negative_weights(writer);
	parser = importer->begin(writer, &options);

	line_reader_init(&reader, importer->feed_line, parser, false);
	line_reader_feed(&reader, input->data, input->len);
	line_reader_finish(&reader);
	importer->finish(parser, reader.lineno);
	input->samples = fuzz_writer_samples(writer);
	FUZZ_CHECK(input->samples > 0, "accepted without a sample");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		lenient = {(const char *) data, size, false};
	Input		strict = {(const char *) data, size, true};
	bool		lenient_ok = fuzz_try(parse, &lenient);

	if (!lenient_ok)
		FUZZ_CHECK(fuzz_last_error.sqlerrcode == ERRCODE_NO_DATA_FOUND,
				   "lenient parse failed: %s", fuzz_last_error.message);
	if (fuzz_try(parse, &strict))
		FUZZ_CHECK(lenient_ok && lenient.samples == strict.samples,
				   "strict accepted " INT64_FORMAT " samples, lenient " INT64_FORMAT,
				   strict.samples, lenient.samples);
	return 0;
}
