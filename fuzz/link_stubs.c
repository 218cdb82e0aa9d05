/*
 * link_stubs.c
 *	  Functions that the SQL entry points of the fuzzed files call, and that
 *	  no harness reaches: they only satisfy the linker, and abort if called.
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/expandeddatum.h"

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
