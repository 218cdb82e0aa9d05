/*
 * fuzz_firefox.c
 *	  libFuzzer harness of the Firefox Profiler importer (import_firefox.c,
 *	  firefox_*.c, json_reader.c), through its whole-file entry point, over
 *	  fake_jsonb.c's jsonb and fake_writer.c's writer.
 *
 * Any text is imported or rejected with an ERROR that is not internal;
 * an import that ends has begun and finished its writer once.  Old Gecko
 * profiles hold threads as JSON strings, which go through jsonb again.
 */
#include "postgres.h"

#include "fuzz_import.h"
#include "pg_stubs.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ImportOptions options = {0};

	if (fuzz_is_text(data, size))
		(void) fuzz_import(&firefox_importer, data, size, &options);
	return 0;
}
