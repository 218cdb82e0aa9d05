/*
 * fake_writer.h
 *	  A ProfileWriter that checks what a parser writes and stores nothing.
 */
#ifndef CALLTREE_FUZZ_FAKE_WRITER_H
#define CALLTREE_FUZZ_FAKE_WRITER_H

#include "postgres.h"

#include "writer/writer.h"

/* A fresh writer, begun; it lives until the next call. */
extern ProfileWriter *fuzz_writer_begin(void);
/* weights below 0 accepted from now on (a signed tree's collapsed lines) */
extern void fuzz_writer_allow_negative_weights(ProfileWriter *writer);
extern int64 fuzz_writer_samples(const ProfileWriter *writer);
extern int64 fuzz_writer_events(const ProfileWriter *writer);
extern bool fuzz_writer_finished(const ProfileWriter *writer);

/*
 * For importers that begin their writer themselves (profile_writer_begin):
 * no writer before the import, and the one it used after.
 */
extern void fuzz_writer_reset(void);
extern const ProfileWriter *fuzz_writer_last(void);

#endif							/* CALLTREE_FUZZ_FAKE_WRITER_H */
