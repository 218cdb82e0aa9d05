/*
 * fuzz_import.h
 *	  Running an importer's whole-file entry point (Importer.import, as its
 *	  SQL function calls it) in a harness, for the JSON importers.
 */
#ifndef CALLTREE_FUZZ_IMPORT_H
#define CALLTREE_FUZZ_IMPORT_H

#include "postgres.h"

#include <stddef.h>
#include <stdint.h>

#include "import/importer.h"

/*
 * Whether the bytes could be the text argument of an importer's SQL
 * function: valid UTF-8 (the database encoding here) without a zero byte.
 */
extern bool fuzz_is_text(const uint8_t *data, size_t size);

/*
 * Imports the bytes with the importer and options into fake_writer.c's
 * writer, in a fuzz_try: true if it imported, false on an ERROR.  It
 * checks that an import that returns began and finished its writer once,
 * and that one that fails did not finish it (no half import).
 */
extern bool fuzz_import(const Importer *importer, const uint8_t *data, size_t size,
						const ImportOptions *options);

#endif							/* CALLTREE_FUZZ_IMPORT_H */
