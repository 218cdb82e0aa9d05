/*
 * import_guess.c
 *	  Errors that say how the format of a file was chosen, and what to do
 *	  when it was the wrong one.
 *
 * import_profile and bin/calltree-load (import_stream) recognize a file's
 * format from its first bytes (profile_detect.c).  When the guess is wrong
 * (a README taken for collapsed stacks, a script whose indented line looks
 * like a perf script address), the parser's error alone blames the file
 * for not being what nobody said it was.  So an error about the data met
 * while importing a guessed format gets, in its detail, what the format was
 * recognized from, and in its hint how to give the format: --format for
 * the loader, the importer of the format in SQL.
 *
 * A format given explicitly that the file plainly is not (--format pprof
 * on JSON, --format collapsed on binary data) gets what the file looks
 * like instead, and the format it seems to be.
 *
 * The error is caught, copied, extended and thrown again: it still aborts
 * the import and everything it wrote.
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "import/importer.h"

/* What an importer reads, by its name: the kind of file profile_guess() tells apart */
static const char *
importer_reads(const Importer *importer)
{
	if (strcmp(importer->name, "collapsed") == 0 || strcmp(importer->name, "perf_script") == 0)
		return "text";
	if (importer->binary)
		return "binary data";
	return "JSON";
}

/* Whether an error is about the data read (not a cancel, a lack of memory, a lock) */
static bool
is_data_error(int sqlerrcode)
{
	return ERRCODE_TO_CATEGORY(sqlerrcode) == ERRCODE_DATA_EXCEPTION ||
		sqlerrcode == ERRCODE_NO_DATA_FOUND ||
		sqlerrcode == ERRCODE_DATA_CORRUPTED;
}

/* "--format pprof", "import_pprof()": a format named as the caller gives it */
static char *
format_named(const char *format, const ImportOptions *options)
{
	return options->loader_terms ? psprintf("--format %s", format) : psprintf("import_%s()", format);
}

/* The JSON formats, as the caller gives them: "--format cpuprofile, speedscope, ..." */
static char *
json_formats(const ImportOptions *options)
{
	const char *const json[] = {"cpuprofile", "speedscope", "firefox", "trace_events"};
	StringInfoData out;

	initStringInfo(&out);
	for (int i = 0; i < lengthof(json); i++)
		appendStringInfo(&out, "%s%s", i == 0 ? "" : i == lengthof(json) - 1 ? " or " : ", ",
						 options->loader_terms && i > 0 ? json[i] : format_named(json[i], options));
	return out.data;
}

void
guess_unknown_json(const FormatGuess *guess, const ImportOptions *options)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized JSON profile"),
			 errdetail("The JSON is neither trace events, a V8 .cpuprofile, a speedscope file nor a Firefox Profiler profile: %s.",
					   guess->why),
			 errhint("If it is a profile of one of these formats, %s: %s.",
					 options->loader_terms ? "give its format" : "call the importer of its format",
					 json_formats(options))));
}

/* A sentence added to a message part that may be NULL */
static char *
with_sentence(const char *text, const char *sentence)
{
	return text ? psprintf("%s %s", text, sentence) : pstrdup(sentence);
}

/* The hint of a guessed format: how to give another */
static char *
give_format_hint(const Importer *importer, const ImportOptions *options)
{
	if (options->loader_terms)
		return psprintf("If the file is not of format %s, give its format with --format "
						"(collapsed, perf_script, pprof, cpuprofile, speedscope, firefox, "
						"trace_events, otlp or jfr).", importer->name);
	return psprintf("If the file is not of format %s, call the importer of its format "
					"(import_collapsed(), import_perf_script(), import_pprof(), import_cpuprofile(), "
					"import_speedscope(), import_firefox(), import_trace_events(), import_otlp() "
					"or import_jfr()).", importer->name);
}

void
guess_rethrow(const FormatGuess *guess, const Importer *importer, bool given,
			  const ImportOptions *options, MemoryContext cxt)
{
	ErrorData  *edata;
	char	   *told;

	MemoryContextSwitchTo(cxt);
	edata = CopyErrorData();
	if (!is_data_error(edata->sqlerrcode) || guess->looks_like == NULL ||
		(given && strcmp(guess->looks_like, importer_reads(importer)) == 0))
		PG_RE_THROW();
	FlushErrorState();
	if (!given)
	{
		told = psprintf("The format was not given: the file was read as %s, as it looks like %s: %s.",
						importer->name, guess->looks_like, guess->why);
		edata->detail = with_sentence(edata->detail, told);
		/* what the parser suggests, for a file of the format, then how to give another */
		edata->hint = with_sentence(edata->hint, give_format_hint(importer, options));
	}
	else
	{
		told = psprintf("%s reads %s, but the file looks like %s: %s.",
						format_named(importer->name, options), importer_reads(importer),
						guess->looks_like, guess->why);
		edata->detail = with_sentence(edata->detail, told);
		if (guess->format != NULL && options->loader_terms)
			edata->hint = psprintf("Give --format %s, or leave --format out to have the format recognized.",
								   guess->format);
		else if (guess->format != NULL)
			edata->hint = psprintf("Call %s instead, or import_profile() to have the format recognized.",
								   format_named(guess->format, options));
		else
			edata->hint = pstrdup("Is it a profile? It is JSON of no format calltree reads.");
	}
	ReThrowError(edata);
}
