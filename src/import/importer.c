/*
 * importer.c
 *	  The table of importers, which import_profile and import_stream
 *	  dispatch through (by name, or by the name profile_detect.c guessed),
 *	  and which options belong to which importer.
 *
 * An option given for a format it is not an option of is an error rather
 * than ignored: a caller who passes strict for a pprof file is mistaken
 * about the file.
 */
#include "postgres.h"

#include "lib/stringinfo.h"

#include "import/importer.h"

/* In the order the error of an unknown name lists them */
static const Importer *const importers[] = {
	&collapsed_importer,
	&perf_script_importer,
	&pprof_importer,
	&cpuprofile_importer,
	&speedscope_importer,
	&firefox_importer,
	&trace_events_importer,
	&otlp_importer,
	&jfr_importer,
};

const Importer *
importer_by_name(const char *name)
{
	StringInfoData names;

	for (int i = 0; i < lengthof(importers); i++)
		if (strcmp(name, importers[i]->name) == 0)
			return importers[i];
	initStringInfo(&names);
	for (int i = 0; i < lengthof(importers); i++)
		appendStringInfo(&names, "%s%s", i > 0 ? ", " : "", importers[i]->name);
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown profile format \"%s\"", name),
			 errhint("Use one of %s, or NULL to recognize the format from the content.", names.data)));
}

/* An error if the option is given and the importer is not its owner */
static void
check_option(bool given, const char *option, const Importer *owner, const Importer *importer)
{
	if (!given || importer == owner)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("option \"%s\" does not apply to a %s profile", option, importer->name),
			 errdetail("The profile's format is %s; %s is an option of %s profiles only.",
					   importer->name, option, owner->name),
			 errhint("Leave %s out: strict is for collapsed stacks, event for perf_script, sample_type for pprof.",
					 option)));
}

void
import_options_check(const Importer *importer, const ImportOptions *options)
{
	check_option(options->strict_given, "strict", &collapsed_importer, importer);
	check_option(options->event != NULL, "event", &perf_script_importer, importer);
	check_option(options->sample_type != NULL, "sample_type", &pprof_importer, importer);
	check_option(options->source != NULL, "source", &trace_events_importer, importer);
}

const Importer *
guess_importer(const FormatGuess *guess, const ImportOptions *options)
{
	if (guess->format == NULL)
		guess_unknown_json(guess, options);
	return importer_by_name(guess->format);
}
