/*
 * link_stubs.c
 *	  Functions that the SQL entry points of the fuzzed files call, and that
 *	  no harness reaches: they only satisfy the linker, and abort if called.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"

#include "import/importer.h"
#include "writer/writer.h"
#include "pg_stubs.h"

#define UNREACHED(name) \
	fuzz_fail(__FILE__, __LINE__, "not reached", "%s is not part of the fuzzed code", name)

char *
text_to_cstring(const text *t)
{
	UNREACHED("text_to_cstring");
}

/* The harnesses give flat values only: no expanded object is made or read. */
void
EOH_init_header(ExpandedObjectHeader *eohptr, const ExpandedObjectMethods *methods,
				MemoryContext obj_context)
{
	UNREACHED("EOH_init_header");
}

ExpandedObjectHeader *
DatumGetEOHP(Datum d)
{
	UNREACHED("DatumGetEOHP");
}

/* import_sql_call's, around every importer's SQL function (import_duplicates.c, import_guess.c) */
bytea *
content_digest(const char *data, size_t len)
{
	UNREACHED("content_digest");
}

int64
content_note(ProfileInfo *info, bytea *digest, const ImportOptions *options)
{
	UNREACHED("content_note");
}

void
profile_guess(const char *data, size_t len, FormatGuess *guess)
{
	UNREACHED("profile_guess");
}

void
guess_rethrow(const FormatGuess *guess, const Importer *importer, bool given,
			  const ImportOptions *options, MemoryContext cxt)
{
	UNREACHED("guess_rethrow");
}
