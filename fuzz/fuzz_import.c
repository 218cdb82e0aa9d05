/*
 * fuzz_import.c
 *	  An importer's whole-file entry point in a harness (see fuzz_import.h).
 */
#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "mb/pg_wchar.h"

#include "fake_writer.h"
#include "fuzz_import.h"
#include "module.h"
#include "pg_stubs.h"

/* module.c's default, which bounds what a JSON document may take to read */
int			calltree_import_work_mem = 128 * 1024;

typedef struct ImportRun
{
	const Importer *importer;
	const char *data;
	size_t		len;
	const ImportOptions *options;
} ImportRun;

/* The five characters of a SQLSTATE, as elog.c's unpack_sql_state */
static const char *
sql_state(int sqlerrcode)
{
	static char buf[6];

	for (int i = 0; i < 5; i++)
	{
		buf[i] = PGUNSIXBIT(sqlerrcode);
		sqlerrcode >>= 6;
	}
	buf[5] = '\0';
	return buf;
}

bool
fuzz_is_text(const uint8_t *data, size_t size)
{
	return size <= (size_t) PG_INT32_MAX &&
		pg_encoding_verifymbstr(PG_UTF8, (const char *) data, (int) size) == (int) size;
}

static void
run(void *arg)
{
	const ImportRun *run = arg;
	ProfileInfo info = {.format = run->importer->format};
	int64		id = run->importer->import(&info, run->data, run->len, run->options);

	FUZZ_CHECK(fuzz_writer_finished(fuzz_writer_last()), "%s imported without finishing its writer",
			   run->importer->name);
	FUZZ_CHECK(id == 1, "%s returned the profile id " INT64_FORMAT, run->importer->name, id);
}

bool
fuzz_import(const Importer *importer, const uint8_t *data, size_t size, const ImportOptions *options)
{
	ImportRun	args = {importer, (const char *) data, size, options};
	bool		ok;

	fuzz_writer_reset();
	ok = fuzz_try(run, &args);
	if (!ok)
		FUZZ_CHECK(!fuzz_writer_finished(fuzz_writer_last()), "%s raised an ERROR after finishing its writer: %s",
				   importer->name, fuzz_last_error.message);
	/* FUZZ_VERBOSE=1 when replaying an input: what became of it */
	if (getenv("FUZZ_VERBOSE"))
	{
		if (ok)
			fprintf(stderr, "%s: imported " INT64_FORMAT " samples, " INT64_FORMAT " events\n", importer->name,
					fuzz_writer_samples(fuzz_writer_last()), fuzz_writer_events(fuzz_writer_last()));
		else
			fprintf(stderr, "%s: ERROR %s: %s\n", importer->name,
					sql_state(fuzz_last_error.sqlerrcode), fuzz_last_error.message);
	}
	return ok;
}
