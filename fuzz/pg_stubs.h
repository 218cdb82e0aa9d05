/*
 * pg_stubs.h
 *	  The small part of the PostgreSQL backend that calltree's parsers use,
 *	  rebuilt over malloc so that the parsers run in a fuzzing harness.
 *
 * pg_stubs.c provides memory contexts whose chunks are real malloc blocks
 * (so AddressSanitizer sees every overrun and every use after free), ereport
 * that formats its messages with the C library (so the sanitizers check the
 * arguments) and turns ERROR into a longjmp back to fuzz_try(), StringInfo,
 * the binary message readers of pqformat.c, DirectFunctionCall,
 * check_stack_depth, and UTF-8 as the database encoding.
 *
 * An ERROR is the parser's clean rejection of its input.  What is not clean
 * makes the harness abort, which libFuzzer reports as a crash: an error with
 * SQLSTATE XX000 (elog's internal error, which the project forbids on bad
 * input), FATAL or PANIC, and any failed FUZZ_CHECK.
 */
#ifndef CALLTREE_FUZZ_PG_STUBS_H
#define CALLTREE_FUZZ_PG_STUBS_H

#include "postgres.h"

#include <stddef.h>
#include <stdint.h>

/* the last ERROR raised, kept until the next one */
typedef struct FuzzError
{
	int			sqlerrcode;
	char		message[512];
} FuzzError;

extern FuzzError fuzz_last_error;

/*
 * Runs fn(arg) in a fresh memory context, which is deleted afterwards:
 * true if it returned, false if it raised an ERROR (fuzz_last_error).
 */
extern bool fuzz_try(void (*fn) (void *arg), void *arg);

/*
 * The bytes palloc and repalloc have been asked for since the process
 * began, never less: a harness reads it before and after a call to bound
 * the memory the call takes.
 */
extern Size fuzz_bytes_requested;

/* Aborts with a message unless cond holds: the harnesses' oracles. */
#define FUZZ_CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); \
	} while (0)

extern void fuzz_fail(const char *file, int line, const char *cond, const char *fmt,...)
			pg_attribute_printf(4, 5) pg_attribute_noreturn();

/* The libFuzzer entry point every harness defines */
extern int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif							/* CALLTREE_FUZZ_PG_STUBS_H */
