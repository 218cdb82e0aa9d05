/*
 * fake_writer.h
 *	  A ProfileWriter that checks what a parser writes and stores nothing.
 */
#ifndef CALLTREE_FUZZ_FAKE_WRITER_H
#define CALLTREE_FUZZ_FAKE_WRITER_H

#include "postgres.h"

#include "writer/writer.h"

/* A fresh writer; it lives until the next call. */
extern ProfileWriter *fuzz_writer_begin(void);
extern int64 fuzz_writer_samples(const ProfileWriter *writer);

#endif							/* CALLTREE_FUZZ_FAKE_WRITER_H */
