/*
 * import_options.c
 *	  The importers' options, read from the arguments of their SQL
 *	  functions: the one place where each option is decoded, whichever
 *	  function takes it and at whichever position; how a hint names an
 *	  option, the way the caller gives it (SQL arguments, or
 *	  bin/calltree-load's --option through import_stream); and the new
 *	  profile's name and meta, which every importer's SQL function takes.
 *	  on_duplicate, which import_profile and import_stream take, is decoded
 *	  here too.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "import/importer.h"

/* Whether the argument at position arg is there and not NULL */
static bool
has_arg(FunctionCallInfo fcinfo, int arg)
{
	return arg >= 0 && arg < PG_NARGS() && !PG_ARGISNULL(arg);
}

static const char *
text_arg(FunctionCallInfo fcinfo, int arg)
{
	return has_arg(fcinfo, arg) ? text_to_cstring(PG_GETARG_TEXT_PP(arg)) : NULL;
}

static OnDuplicate
on_duplicate_from_text(const char *value)
{
	if (value == NULL || strcmp(value, "keep") == 0)
		return ON_DUPLICATE_KEEP;
	if (strcmp(value, "skip") == 0)
		return ON_DUPLICATE_SKIP;
	if (strcmp(value, "error") == 0)
		return ON_DUPLICATE_ERROR;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown on_duplicate \"%s\"", value),
			 errhint("Use keep (import the file again), skip (return the earlier profile's id) or error.")));
}

void
import_options_from_args(FunctionCallInfo fcinfo, const ImportArgs *args, ImportOptions *options)
{
	memset(options, 0, sizeof(ImportOptions));
	options->strict_given = has_arg(fcinfo, args->strict);
	/* strict by default: a malformed line is an error */
	options->strict = !options->strict_given || PG_GETARG_BOOL(args->strict);
	options->event = text_arg(fcinfo, args->event);
	options->sample_type = text_arg(fcinfo, args->sample_type);
	options->source = text_arg(fcinfo, args->source);
	if (args->on_duplicate > 0)
		options->on_duplicate = on_duplicate_from_text(text_arg(fcinfo, args->on_duplicate));
}

void
profile_info_from_args(FunctionCallInfo fcinfo, int name_arg, int meta_arg,
					   const char *format, ProfileInfo *info)
{
	memset(info, 0, sizeof(ProfileInfo));
	info->format = format;
	if (has_arg(fcinfo, name_arg))
		info->name = text_to_cstring(PG_GETARG_TEXT_PP(name_arg));
	if (has_arg(fcinfo, meta_arg))
		info->meta = PG_GETARG_JSONB_P(meta_arg);
}

Datum
import_sql_call(FunctionCallInfo fcinfo, const Importer *importer, int name_arg,
				const ImportArgs *args)
{
	text	   *data;
	ProfileInfo info;
	ImportOptions options = {0};
	FormatGuess guess;
	MemoryContext cxt = CurrentMemoryContext;
	int64		id = 0;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	data = PG_GETARG_TEXT_PP(0);
	profile_info_from_args(fcinfo, name_arg, name_arg + 1, importer->format, &info);
	if (args)
		import_options_from_args(fcinfo, args, &options);
	content_note(&info, content_digest(VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data)), &options);
	profile_guess(VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data), &guess);
	PG_TRY();
	{
		id = importer->import(&info, VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data), &options);
	}
	PG_CATCH();
	{
		/* a file that plainly is not of the importer's kind says so */
		guess_rethrow(&guess, importer, true, &options, cxt);
	}
	PG_END_TRY();
	PG_RETURN_INT64(id);
}

const char *
import_option_text(const ImportOptions *options, const char *name, const char *value, bool quoted)
{
	if (options->loader_terms)
		return psprintf("--option %s=%s", name, value);
	return quoted ? psprintf("%s => '%s'", name, value) : psprintf("%s => %s", name, value);
}
