/*
 * fuzz_perf_script.c
 *	  libFuzzer harness of the perf script parser (import_perf_script.c),
 *	  driven through its Importer's begin, feed_line and finish and fed by
 *	  the line reader as import_perf_script feeds it, writing into a
 *	  ProfileWriter that checks what it gets (fake_writer.c).
 *
 * The parser runs twice: importing the first event seen, and importing
 * the event "cycles", which perf script names with modifiers as well
 * ("cycles:uppp") and which another event may match too.
 */
#include "postgres.h"

#include "fake_writer.h"
#include "import/importer.h"
#include "pg_stubs.h"

typedef struct Input
{
	const char *data;
	size_t		len;
	const char *event;
} Input;

static void
parse(void *arg)
{
	Input	   *input = arg;
	const Importer *importer = &perf_script_importer;
	ImportOptions options = {.event = input->event};
	ProfileWriter *writer = fuzz_writer_begin();
	void	   *parser = importer->begin(writer, &options);
	LineReader	reader;

	line_reader_init(&reader, importer->feed_line, parser, false);
	line_reader_feed(&reader, input->data, input->len);
	line_reader_finish(&reader);
	importer->finish(parser, reader.lineno);
	FUZZ_CHECK(fuzz_writer_samples(writer) > 0, "accepted without a sample");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		first = {(const char *) data, size, NULL};
	Input		cycles = {(const char *) data, size, "cycles"};

	(void) fuzz_try(parse, &first);
	(void) fuzz_try(parse, &cycles);
	return 0;
}
