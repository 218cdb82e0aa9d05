/*
 * profile_format.h
 *	  Telling profile formats apart, and importing bytes of any format
 *	  (import_profile.c), for import_profile and import_stream.
 */
#ifndef CALLTREE_PROFILE_FORMAT_H
#define CALLTREE_PROFILE_FORMAT_H

#include "postgres.h"

#include "fmgr.h"

typedef enum ProfileFormat
{
	FORMAT_UNKNOWN,				/* to be recognized from the content */
	FORMAT_PPROF,
	FORMAT_TRACE_EVENTS,
	FORMAT_CPUPROFILE,
	FORMAT_SPEEDSCOPE,
	FORMAT_FIREFOX,
	FORMAT_PERF_SCRIPT,
	FORMAT_COLLAPSED
} ProfileFormat;

/*
 * The importers' own options, which import_profile and import_stream pass
 * on: each NULL when not given, and each an error for a format it is not
 * an option of (profile_options_check).
 */
typedef struct ProfileOptions
{
	NullableDatum strict;		/* boolean, of collapsed stacks */
	NullableDatum event;		/* text, of perf script */
	NullableDatum sample_type;	/* text, of pprof */
} ProfileOptions;

/* the bytes profile_format_detect looks at, at most */
#define PROFILE_DETECT_WINDOW 65536

/* the largest profile read whole: a text or bytea value */
#define PROFILE_MAX_BYTES ((size_t) MaxAllocSize - VARHDRSZ - 1)

/* Whether data must be unwrapped whole before it can be read: gzip, UTF-16 */
extern bool profile_is_wrapped(const char *data, size_t len);

/* The length of a UTF-8 byte-order mark at the start of data: 3 or 0 */
extern size_t profile_utf8_bom_length(const char *data, size_t len);

/* The format of unwrapped data, from its first PROFILE_DETECT_WINDOW bytes */
extern ProfileFormat profile_format_detect(const char *data, size_t len);

/* A format by name (the suffix of its importer: perf_script), or an error */
extern ProfileFormat profile_format_from_name(const char *name);

/* A format's name, as profile_format_from_name takes it */
extern const char *profile_format_name(ProfileFormat format);

/* The options from three consecutive arguments: strict, event, sample_type */
extern void profile_options_from_args(FunctionCallInfo fcinfo, int first_arg,
									  ProfileOptions *options);

/* An error if an option is given that is not one of the format's */
extern void profile_options_check(ProfileFormat format, const ProfileOptions *options);

/*
 * Imports a profile held whole in memory: unwraps it (gzip, UTF-16, a
 * byte-order mark), recognizes its format unless given, checks the options
 * against it and calls the importer with name, meta and the format's
 * option.  The new profile's id.
 */
extern int64 profile_import_bytes(const char *data, size_t len, ProfileFormat format,
								  NullableDatum name, NullableDatum meta,
								  const ProfileOptions *options);

#endif							/* CALLTREE_PROFILE_FORMAT_H */
