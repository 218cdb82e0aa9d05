/*
 * importer.h
 *	  The importers of profile files, behind one interface.
 *
 * Each format has an Importer: its name, the format its profiles record,
 * and a function that imports a whole file held in memory.  Line formats
 * (collapsed stacks, perf script) also read a line at a time, so that
 * import_profile can parse gzip as it inflates and import_stream can parse
 * chunks as they come.  import_profile and import_stream recognize a file
 * and dispatch through the table of importers; each format's own SQL
 * function is a thin wrapper around its Importer.  No importer calls
 * another through fmgr.
 *
 * The files:
 *	  importer.c			the table, lookup by name, which options apply where
 *	  import_options.c		the importers' options from SQL arguments
 *	  line_import.c			running a line importer over text
 *	  profile_detect.c		recognizing a format from a file's first bytes
 *	  import_profile.c		unwrapping and importing a file of any format
 *	  import_stream.c		a file sent as base64 chunks in a table
 *	  import_duplicates.c	the digest of a file's content, a file imported before
 *	  import_guess.c		errors that say the format was guessed, and from what
 *	  import_<format>.c		one format each, and its SQL function
 *
 * and the readers that formats share or that a format splits by what it
 * reads, each beside its importer:
 *	  v8_profile.c			V8's CPU profile (nodes, samples, time deltas):
 *							.cpuprofile files and the profiles inside trace
 *							events
 *	  trace_events.c		trace-event files: threads and the format's name
 *	  trace_samples.c		the CPU samples inside trace-event files
 *	  firefox_*.c			a Firefox Profiler profile's threads, frames,
 *							Gecko location strings and tables
 *							(firefox_profile.h lists them)
 *	  js_names.c			the func name of an anonymous JavaScript
 *							function, from where it starts
 */
#ifndef CALLTREE_IMPORTER_H
#define CALLTREE_IMPORTER_H

#include "postgres.h"

#include "fmgr.h"

#include "formats/line_reader.h"
#include "writer/writer.h"

/* What an import does with a file imported before (import_duplicates.c) */
typedef enum OnDuplicate
{
	ON_DUPLICATE_KEEP,			/* a NOTICE, and a new profile */
	ON_DUPLICATE_SKIP,			/* a NOTICE, and the earlier profile's id */
	ON_DUPLICATE_ERROR
} OnDuplicate;

/*
 * The options of the importers, each of one format.  A NULL string or
 * strict_given false: not given, the format's default.
 */
typedef struct ImportOptions
{
	bool		strict_given;
	bool		strict;			/* collapsed: a malformed line is an error */
	const char *event;			/* perf script: the event to import */
	const char *sample_type;	/* pprof: the sample type to import */
	const char *source;			/* trace events: "samples" or "events" */
	bool		loader_terms;	/* hints name options as bin/calltree-load takes them */
	OnDuplicate on_duplicate;	/* import_profile and import_stream: of any format */
} ImportOptions;

typedef struct Importer
{
	const char *name;			/* its SQL function's suffix: "perf_script" */
	const char *format;			/* what its profiles record as format: "perf script" */
	bool		binary;			/* reads bytes, not UTF-8 text in the database's encoding */

	/*
	 * Imports a whole file into a new profile (info: its name, meta and this
	 * importer's format); its id.  It begins and finishes the writer itself:
	 * pprof, trace events and Firefox profiles are read and checked whole
	 * before the profile row is written, so that a damaged file is reported
	 * as such first.
	 */
	int64		(*import) (const ProfileInfo *info, const char *data, size_t len,
						   const ImportOptions *options);

	/*
	 * Formats whose one file makes several profiles (a JFR recording's kinds
	 * of samples, an OTLP request's profiles), NULL for the others: imports
	 * the file as import does, and gives every profile's id, in the file's
	 * order, in *ids; their number, at least 1.  Their import gives the first
	 * id, with a NOTICE naming the others.
	 */
	int			(*import_all) (const ProfileInfo *info, const char *data, size_t len,
							   const ImportOptions *options, int64 **ids);

	/*
	 * Line formats only (NULL for the others): a parser writing into a
	 * writer already begun, fed a line at a time, then finished after the
	 * last line (lines: how many there were); the caller finishes the
	 * writer.
	 */
	void	   *(*begin) (ProfileWriter *writer, const ImportOptions *options);
	LineHandler feed_line;		/* its arg is the parser */
	void		(*finish) (void *parser, int64 lines);
} Importer;

/* The importers (import_<format>.c) */
extern const Importer collapsed_importer;
extern const Importer perf_script_importer;
extern const Importer pprof_importer;
extern const Importer cpuprofile_importer;
extern const Importer speedscope_importer;
extern const Importer firefox_importer;
extern const Importer trace_events_importer;
extern const Importer otlp_importer;
extern const Importer jfr_importer;

/* importer.c: an importer by name, or an error listing the names */
extern const Importer *importer_by_name(const char *name);
/* importer.c: an error if an option is given that is not one of the importer's */
extern void import_options_check(const Importer *importer, const ImportOptions *options);
/* first_profile.c: the first of a file's profiles, with a NOTICE naming the others */
extern int64 importer_first_id(const char *what, const char *function, const int64 *ids, int count);

/*
 * import_options.c: an option with a value, for a hint, the way the user gives
 * it: "strict => false" and "event => 'cycles'" to an SQL function,
 * "--option strict=false" to bin/calltree-load (import_stream's caller).
 */
extern const char *import_option_text(const ImportOptions *options, const char *name,
									  const char *value, bool quoted);

/*
 * import_options.c: the options among an SQL function's arguments, each at
 * its position, -1 where the function has no such argument.  A position
 * past the function's arguments (an older signature) counts as NULL.
 */
typedef struct ImportArgs
{
	int			strict;
	int			event;
	int			sample_type;
	int			source;
	int			on_duplicate;	/* 0: the function takes none (0 is always the data) */
} ImportArgs;

extern void import_options_from_args(FunctionCallInfo fcinfo, const ImportArgs *args,
									 ImportOptions *options);
/* the new profile's name and meta from the arguments at these positions (-1: none) */
extern void profile_info_from_args(FunctionCallInfo fcinfo, int name_arg, int meta_arg,
								   const char *format, ProfileInfo *info);

/*
 * The body of an importer's SQL function: the file (text) is argument 0,
 * the profile's name and meta are at name_arg and name_arg + 1, and the
 * options at args' positions (args NULL: the function takes none).  NULL
 * data gives NULL.
 */
extern Datum import_sql_call(FunctionCallInfo fcinfo, const Importer *importer, int name_arg,
							 const ImportArgs *args);

/*
 * line_import.c: a line importer over text.  line_import_begin begins the
 * writer and the parser; lines then go to line_import_feed_line (a
 * LineHandler whose arg is the LineImport) or to a LineReader of the
 * caller's; line_import_finish finishes both.
 */
typedef struct LineImport
{
	const Importer *importer;
	ProfileWriter *writer;
	void	   *parser;
} LineImport;

extern void line_import_begin(LineImport *import, const Importer *importer,
							  const ProfileInfo *info, const ImportOptions *options);
extern void line_import_feed_line(void *import, const char *line, int len, int64 lineno);
extern int64 line_import_finish(LineImport *import, int64 lines);
/*
 * Lines of UTF-8 text (gzip inflated, a stream of chunks): each checked, an
 * error naming its line and byte, then converted to the database's
 * encoding and fed to the import.  A LineHandler whose arg is the
 * Utf8LineImport; offset is where the next line starts in the text.
 */
typedef struct Utf8LineImport
{
	LineImport	import;
	size_t		offset;
} Utf8LineImport;

extern void line_import_utf8_line(void *arg, const char *line, int len, int64 lineno);

/* The whole text, already in the database's encoding: an Importer's import */
extern int64 line_import_text(const Importer *importer, const ProfileInfo *info,
							  const char *data, size_t len, const ImportOptions *options);

/* profile_detect.c: the bytes detection looks at, at most */
#define PROFILE_DETECT_WINDOW 65536

/* Whether data must be unwrapped whole before it can be read: gzip, UTF-16 */
extern bool profile_is_wrapped(const char *data, size_t len);
/* The length of a UTF-8 byte-order mark at the start of data: 3 or 0 */
extern size_t profile_utf8_bom_length(const char *data, size_t len);
/*
 * The format unwrapped data looks like, from its first PROFILE_DETECT_WINDOW
 * bytes, and what tells (for errors: import_guess.c)
 */
typedef struct FormatGuess
{
	const char *format;			/* an importer's name; NULL: JSON of no format calltree reads */
	const char *looks_like;		/* "binary data", "JSON", "text", or NULL: white space alone */
	const char *why;			/* what tells: "its JSON has a \"head\" member" */
} FormatGuess;

extern void profile_guess(const char *data, size_t len, FormatGuess *guess);

/* importer.c: the importer of a guess, or an error for JSON of no known format */
extern const Importer *guess_importer(const FormatGuess *guess, const ImportOptions *options);

/*
 * import_guess.c: the error for JSON of no known format; and, in a
 * PG_CATCH of an import, the error rethrown with
 * what the guess tells: when the format was guessed (given false), that it
 * was and from what, and how to give it; when it was given, what the file
 * looks like if that is not what the format is (JSON, binary data, text).
 * Errors that are not about the data (cancel, out of memory) go on as they
 * are.  cxt: the memory context of the code before PG_TRY.
 */
extern pg_attribute_noreturn() void guess_unknown_json(const FormatGuess *guess,
														const ImportOptions *options);
extern pg_attribute_noreturn() void guess_rethrow(const FormatGuess *guess, const Importer *importer,
												  bool given, const ImportOptions *options,
												  MemoryContext cxt);

/* import_profile.c: the largest profile read whole, as a text or bytea value */
#define PROFILE_MAX_BYTES ((size_t) MaxAllocSize - VARHDRSZ - 1)

/*
 * import_profile.c: imports a file held whole in memory: unwraps it (gzip,
 * UTF-16, a byte-order mark), recognizes its format unless importer is
 * given, checks the options against it and imports it.  The new
 * profile's id.
 */
extern int64 profile_import_bytes(const char *data, size_t len, const Importer *importer,
								  const ProfileInfo *info, const ImportOptions *options);
/*
 * The same, for a caller that takes every profile the file made (a JFR
 * recording's, an OTLP request's; one for other formats, and for a file
 * skipped as imported before): their number, their ids in *ids, in the
 * file's order.
 */
extern int	profile_import_bytes_all(const char *data, size_t len, const Importer *importer,
									 const ProfileInfo *info, const ImportOptions *options,
									 int64 **ids);

/*
 * import_duplicates.c: the digest of a file's content (gzip undone), whole
 * or a piece at a time; then content_note keeps it in info for the profile
 * row and looks for an earlier profile of the same content: a NOTICE
 * naming it, or an ERROR (on_duplicate error); its id with on_duplicate
 * skip (the caller then imports nothing and returns it), else 0;
 * content_import_ids then gives every profile of the import that made it.
 */
typedef struct ContentHash ContentHash;

extern ContentHash *content_hash_begin(void);
extern void content_hash_add(ContentHash *hash, const char *data, size_t len);
extern bytea *content_hash_end(ContentHash *hash);
extern bytea *content_digest(const char *data, size_t len);
extern bytea *content_digest_gzip(const char *data, size_t len, size_t max_len, const char *format);
extern int64 content_note(ProfileInfo *info, bytea *digest, const ImportOptions *options);
extern int	content_import_ids(int64 earlier, int64 **ids);

#endif							/* CALLTREE_IMPORTER_H */
