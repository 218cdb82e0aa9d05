/*
 * fuzz_cpuprofile.c
 *	  libFuzzer harness of the .cpuprofile importer (import_cpuprofile.c,
 *	  v8_profile.c, json_reader.c), through its whole-file entry point, over
 *	  fake_jsonb.c's jsonb and fake_writer.c's writer.
 *
 * Any text is imported or rejected with an ERROR that is not internal;
 * an import that ends has begun and finished its writer once.
 */
#include "postgres.h"

#include "fuzz_import.h"
#include "pg_stubs.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ImportOptions options = {0};

	if (fuzz_is_text(data, size))
		(void) fuzz_import(&cpuprofile_importer, data, size, &options);
	return 0;
}
