/*
 * import_firefox.c
 *	  Firefox Profiler profiles: the Gecko format (what Firefox writes, also
 *	  wrapped in a DevTools "Recorded Performance Data" file) and the
 *	  processed format (what profiler.firefox.com saves).
 *
 * Both formats hold, per thread, a string table and three tables that map
 * onto calltree's almost one to one: a frame table, a stack table whose rows
 * are (prefix row, frame row) with the prefix always an earlier row, and a
 * samples table of (stack row, time, optional weight).  They differ in how a
 * table is laid out and where funcs come from:
 *
 *	Gecko:		{"schema": {"prefix": 0, "frame": 1}, "data": [[null, 0], ...]}
 *				funcs are implied by each frame's location string,
 *				"name (file:line)", "name (in lib)", "0x1a2b" or a bare name;
 *				sub-processes are nested profiles in "processes", their
 *				times relative to their own meta.startTime.
 *	processed:	{"prefix": [null, ...], "frame": [0, ...], "length": n}
 *				frames point into a funcTable (name, fileName, resource),
 *				strings live in shared.stringArray (or per thread in older
 *				versions), samples have "time" or "timeDeltas" and maybe
 *				"weight".
 *
 * The text is checked with PostgreSQL's JSON parser first, so a syntax error
 * names its byte offset, then converted to jsonb and walked with
 * findJsonbValueFromContainer / getIthJsonbValueFromContainer.  Every
 * structural problem is an ERROR naming the format, the thread, the table
 * and the row.
 *
 * This file reads the envelope: the document, which format it is, the
 * profile's meta, libs and threads, and a Gecko profile's sub-processes.
 * The rest is split by what it reads (firefox_profile.h lists the files):
 * a thread's tables, its frames, the Gecko location strings, and the
 * table accessor that hides the two layouts.
 */
#include "postgres.h"

#include <math.h>

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/datetime.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "formats/json_reader.h"
#include "module.h"
#include "import/firefox_profile.h"
#include "import/importer.h"

PG_FUNCTION_INFO_V1(calltree_import_firefox);

static void check_json_syntax(char *data, int len, const char *inside);

/* The hint of errors in the JSON itself */
#define DAMAGED_HINT "The file may be truncated or damaged."

/* The "libs" of a Gecko profile: objects with start, end and a name */
static void
read_libs(FirefoxImport *imp, JsonbContainer *profile)
{
	JsonbContainer *libs = json_optional_container(profile, "libs", true);

	imp->nlibs = 0;
	if (libs == NULL)
		return;			/* absent, or a JSON string in old versions: no libs */
	imp->libs = palloc(sizeof(GeckoLib) * Max(JsonContainerSize(libs), 1));
	for (uint32 i = 0; i < JsonContainerSize(libs); i++)
	{
		JsonbValue *v = getIthJsonbValueFromContainer(libs, i);
		JsonbValue *name;
		GeckoLib   *lib = &imp->libs[imp->nlibs];

		if (!json_is_container(v, false))
			firefox_malformed(imp, "libs", i, "a library must be an object, found %s", firefox_type_name(v));
		lib->start = json_optional_float8(v->val.binary.data, "start");
		lib->end = json_optional_float8(v->val.binary.data, "end");
		name = json_find_member(v->val.binary.data, "debugName");
		if (name == NULL || name->type != jbvString)
			name = json_find_member(v->val.binary.data, "name");
		if (isnan(lib->start) || isnan(lib->end) || name == NULL || name->type != jbvString)
			continue;			/* nothing to attribute addresses to */
		lib->name = pnstrdup(name->val.string.val, name->val.string.len);
		imp->nlibs++;
	}
}

/* ---------------------------------------------------------------------
 * The two formats
 * ---------------------------------------------------------------------
 */

/* Old Gecko profiles hold each thread (or process) as a JSON string of its own. */
static JsonbContainer *
gecko_thread_object(JsonbValue *v, const char *what)
{
	if (v->type == jbvString)
	{
		char	   *text = pnstrdup(v->val.string.val, v->val.string.len);
		Jsonb	   *jb;

		check_json_syntax(text, v->val.string.len,
						  psprintf(" inside the string of %s", what));
		jb = json_text_to_jsonb(text, CurrentMemoryContext, "malformed Firefox profile", DAMAGED_HINT);
		return JB_ROOT_IS_SCALAR(jb) ? NULL : &jb->root;
	}
	return json_is_container(v, false) ? v->val.binary.data : NULL;
}

static bool
gecko_has_subprocesses(JsonbContainer *profile)
{
	JsonbContainer *processes = json_optional_container(profile, "processes", true);

	return processes != NULL && JsonContainerSize(processes) > 0;
}

/* A Gecko profile and, recursively, its sub-process profiles */
static void
import_gecko(FirefoxImport *imp, JsonbContainer *profile, int depth)
{
	JsonbContainer *meta = firefox_required_container(imp, profile, "meta", false, NULL);
	JsonbContainer *threads = firefox_required_container(imp, profile, "threads", true, NULL);
	JsonbContainer *processes = json_optional_container(profile, "processes", true);
	double		start = json_optional_float8(meta, "startTime");
	double		offset_ms = 0;

	if (depth > 16)
		firefox_malformed(imp, "processes", -1, "sub-processes nest deeper than 16 levels");
	if (depth == 0)
		imp->start_time = start;
	else if (!isnan(start) && !isnan(imp->start_time))
		offset_ms = start - imp->start_time;
	read_libs(imp, profile);

	for (uint32 i = 0; i < JsonContainerSize(threads); i++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->thread_cxt);
		JsonbContainer *thread;

		imp->thread_index = i;
		thread = gecko_thread_object(getIthJsonbValueFromContainer(threads, i),
									 psprintf("thread %u", i));
		if (thread == NULL)
			firefox_malformed(imp, NULL, -1, "a thread must be an object");
		firefox_import_thread(imp, thread, NULL, NULL, offset_ms);
		imp->thread_name = NULL;
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->thread_cxt);
	}
	imp->thread_index = -1;
	for (uint32 i = 0; processes && i < JsonContainerSize(processes); i++)
	{
		JsonbValue *p = getIthJsonbValueFromContainer(processes, i);
		MemoryContext process_cxt = AllocSetContextCreate(CurrentMemoryContext, "import_firefox process",
														  ALLOCSET_DEFAULT_SIZES);
		MemoryContext old = MemoryContextSwitchTo(process_cxt);
		JsonbContainer *sub = gecko_thread_object(p, psprintf("process %u", i));

		if (sub == NULL)
			firefox_malformed(imp, "processes", -1, "process %u must be an object, found %s", i, firefox_type_name(p));
		import_gecko(imp, sub, depth + 1);
		imp->nlibs = 0;			/* the libs were the sub-process's */
		MemoryContextSwitchTo(old);
		MemoryContextDelete(process_cxt);
	}
}

static void
import_processed(FirefoxImport *imp, JsonbContainer *profile)
{
	JsonbContainer *meta = firefox_required_container(imp, profile, "meta", false, NULL);
	JsonbContainer *threads = firefox_required_container(imp, profile, "threads", true, NULL);
	JsonbContainer *shared = json_optional_container(profile, "shared", false);
	JsonbContainer *shared_array = json_optional_container(shared, "stringArray", true);
	StringTable shared_strings;
	char	   *first_pid = NULL;

	imp->start_time = json_optional_float8(meta, "startTime");
	if (shared_array)
		firefox_read_strings(imp, shared_array, "shared.stringArray", &shared_strings);
	/* several processes: thread labels carry the pid */
	for (uint32 i = 0; i < JsonContainerSize(threads); i++)
	{
		JsonbValue *t = getIthJsonbValueFromContainer(threads, i);
		JsonbValue *pid = json_is_container(t, false) ? json_find_member(t->val.binary.data, "pid") : NULL;
		char	   *text = pid && pid->type == jbvString ?
			pnstrdup(pid->val.string.val, pid->val.string.len) :
			pid && pid->type == jbvNumeric ? psprintf("%.0f", json_float8(pid)) : pstrdup("");

		if (first_pid == NULL)
			first_pid = text;
		else if (strcmp(first_pid, text) != 0)
			imp->multi_process = true;
	}
	for (uint32 i = 0; i < JsonContainerSize(threads); i++)
	{
		JsonbValue *t = getIthJsonbValueFromContainer(threads, i);

		imp->thread_index = i;
		if (!json_is_container(t, false))
			firefox_malformed(imp, NULL, -1, "a thread must be an object, found %s", firefox_type_name(t));
		firefox_import_thread(imp, t->val.binary.data, shared,
					  shared_array ? &shared_strings : NULL, 0);
	}
	imp->thread_index = -1;
}

/*
 * Checks the JSON syntax, naming the byte offset of an error (`inside` says
 * where the text came from when it is not the whole file).
 */
static void
check_json_syntax(char *data, int len, const char *inside)
{
	JsonLexContext *lex = makeJsonLexContextCstringLen(data, len, GetDatabaseEncoding(), false);
	JsonParseErrorType result = json_parse_within_limit(lex, "Firefox Profiler", calltree_import_work_mem);

	if (result != JSON_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("malformed Firefox profile: invalid JSON at byte offset %d (line %d)%s",
						json_error_offset(lex, data), lex->line_number, inside),
				 errdetail_internal("%s", json_errdetail(result, lex)),
				 errhint(DAMAGED_HINT)));
}

static void
import_profile_json(FirefoxImport *imp, JsonbContainer *root)
{
	JsonbContainer *profile = root;
	JsonbContainer *meta;
	double		start;

	/* DevTools' "Recorded Performance Data" wraps a Gecko profile */
	if (json_find_member(root, "meta") == NULL && json_optional_container(root, "profile", false))
		profile = json_optional_container(root, "profile", false);
	meta = json_optional_container(profile, "meta", false);
	if (meta == NULL || json_find_member(profile, "threads") == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("not a Firefox profile: no \"meta\" object and \"threads\" array at the top level"),
				 errhint("import_firefox reads Gecko profiles and profiles saved by profiler.firefox.com.")));
	imp->format = json_find_member(meta, "preprocessedProfileVersion") ? FORMAT_PROCESSED : FORMAT_GECKO;
	imp->multi_process = imp->format == FORMAT_GECKO && gecko_has_subprocesses(profile);
	if (imp->format == FORMAT_GECKO)
		import_gecko(imp, profile, 0);
	else
		import_processed(imp, profile);

	start = imp->start_time;
	if (!isnan(start) && fabs(start) < 1.0e14)
		profile_writer_set_started_at(imp->writer,
									  (TimestampTz) llround(start * 1000.0) -
									  (TimestampTz) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY);
	profile_writer_set_unit(imp->writer, imp->weight_unit ? imp->weight_unit : "samples");
}

/* The text as jsonb, in cxt; an error unless it is a JSON object */
static Jsonb *
read_document(const char *data, size_t len, MemoryContext cxt)
{
	char	   *text = pnstrdup(data, len);
	Jsonb	   *jb;

	check_json_syntax(text, strlen(text), "");
	jb = json_text_to_jsonb(text, cxt, "malformed Firefox profile", DAMAGED_HINT);
	pfree(text);
	if (JB_ROOT_IS_SCALAR(jb) || !JsonContainerIsObject(&jb->root))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("not a Firefox profile: the JSON value is not an object")));
	return jb;
}

static int64
firefox_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "import_firefox", ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Jsonb	   *jb = read_document(data, len, cxt);
	FirefoxImport imp;
	int64		id;

	memset(&imp, 0, sizeof(imp));
	imp.thread_index = -1;
	imp.main_cxt = cxt;
	imp.row_cxt = AllocSetContextCreate(cxt, "import_firefox row", ALLOCSET_SMALL_SIZES);
	imp.thread_cxt = AllocSetContextCreate(cxt, "import_firefox thread", ALLOCSET_DEFAULT_SIZES);
	imp.writer = profile_writer_begin(info);
	import_profile_json(&imp, &jb->root);
	if (imp.skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " sample%s without a stack",
						imp.skipped, imp.skipped == 1 ? "" : "s")));
	id = profile_writer_finish(imp.writer);
	MemoryContextSwitchTo(old);
	MemoryContextDelete(cxt);
	return id;
}

const Importer firefox_importer = {
	.name = "firefox",
	.format = "firefox",
	.import = firefox_import,
};

/* import_firefox(data text, name text, meta jsonb) → profile id */
Datum
calltree_import_firefox(PG_FUNCTION_ARGS)
{
	return import_sql_call(fcinfo, &firefox_importer, 1, NULL);
}
