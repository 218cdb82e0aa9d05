/*
 * firefox_thread.c
 *	  One thread of a Firefox Profiler profile: its name and label, its
 *	  string table (its own, or the profile's shared one), its frames
 *	  (firefox_frames.c), its stack table and its samples, written through
 *	  the profile's writer.  Threads of the newest processed layout share
 *	  one set of tables, read once.
 */
#include "postgres.h"

#include <math.h>

#include "miscadmin.h"
#include "utils/memutils.h"

#include "formats/json_reader.h"
#include "import/firefox_profile.h"

/* Times beyond this many ms (about 285 years) cannot become int64 ns. */
#define MAX_ABS_MS 9.0e12

/*
 * The stack table: row i is frame on top of prefix row, prefix < i, so one
 * pass in row order interns each stack after its prefix.
 */
static int64 *
read_stacks(FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
			const int64 *frames, int64 nframes, int64 *count)
{
	Table		t;
	Column		prefix,
				frame;
	int64	   *stacks;

	firefox_table_open(imp, thread, shared, "stackTable", &t);
	prefix = firefox_table_column(imp, &t, "prefix", true);
	frame = firefox_table_column(imp, &t, "frame", true);
	stacks = palloc(sizeof(int64) * Max(t.nrows, 1));
	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		double		p = firefox_cell_number(imp, &t, &prefix, row);
		int64		f = firefox_cell_index(imp, &t, &frame, row, nframes, "the frameTable", false);

		CHECK_FOR_INTERRUPTS();
		if (f < 0)
			firefox_malformed(imp, t.name, row, "\"frame\" must be an index into the frameTable, found null");
		if (!isnan(p) && (p != floor(p) || p < 0 || p >= row))
			firefox_malformed(imp, t.name, row, "\"prefix\" is %g, not the index of an earlier row", p);
		stacks[row] = profile_writer_stack(imp->writer, isnan(p) ? 0 : stacks[(int64) p], frames[f]);
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->row_cxt);
	}
	*count = t.nrows;
	return stacks;
}

/* ms (relative to the profile start) to integer ns */
static int64
ms_to_ns(const FirefoxImport *imp, const Table *t, int64 row, const char *what, double ms)
{
	if (isnan(ms))
		firefox_malformed(imp, t->name, row, "\"%s\" is missing", what);
	if (fabs(ms) > MAX_ABS_MS)
		firefox_malformed(imp, t->name, row, "\"%s\" is %g, not a time in ms", what, ms);
	return (int64) llround(ms * 1.0e6);
}

/* The unit of sample weights: one per profile */
static void
set_weight_unit(FirefoxImport *imp, const char *weight_type)
{
	const char *unit;

	if (weight_type == NULL || strcmp(weight_type, "samples") == 0)
		unit = "samples";
	else if (strcmp(weight_type, "tracing-ms") == 0)
		unit = "nanoseconds";
	else if (strcmp(weight_type, "bytes") == 0)
		unit = "bytes";
	else
		firefox_malformed(imp, "samples", -1, "unknown weightType \"%s\"", weight_type);
	if (imp->weight_unit && strcmp(imp->weight_unit, unit) != 0)
		firefox_malformed(imp, "samples", -1, "weights in %s after weights in %s in an earlier thread",
				  unit, imp->weight_unit);
	imp->weight_unit = unit;
}

/* A sample's weight in the profile's unit; 1 when it has none. */
static int64
sample_weight(const FirefoxImport *imp, Table *t, const Column *weight, int64 row)
{
	double		w = firefox_cell_number(imp, t, weight, row);

	if (isnan(w))
		return 1;
	if (strcmp(imp->weight_unit, "nanoseconds") == 0)
		return ms_to_ns(imp, t, row, "weight", w);
	if (w != floor(w) || fabs(w) > 9.2e18)
		firefox_malformed(imp, t->name, row, "\"weight\" is %g, not an integer", w);
	return (int64) w;
}

/*
 * The samples table.  Times are ms relative to the profile start plus
 * `offset_ms` (a Gecko sub-process's start relative to the parent's); the
 * processed format may give "timeDeltas" instead, to be summed.
 */
static void
read_samples(FirefoxImport *imp, JsonbContainer *thread, const int64 *stacks,
			 int64 nstacks, double offset_ms, const char *thread_label)
{
	Table		t;
	Column		stack,
				time,
				deltas,
				weight;
	JsonbValue *wt;
	double		clock = 0;

	firefox_table_open(imp, thread, NULL, "samples", &t);
	stack = firefox_table_column(imp, &t, "stack", true);
	time = firefox_table_column(imp, &t, "time", false);
	deltas = firefox_table_column(imp, &t, "timeDeltas", false);
	weight = firefox_table_column(imp, &t, "weight", false);
	if (!firefox_column_present(&time) && !firefox_column_present(&deltas))
		firefox_malformed(imp, t.name, -1, "column \"time\" is missing");
	wt = json_find_member(t.object, "weightType");
	if (wt && wt->type != jbvNull && wt->type != jbvString)
		firefox_malformed(imp, t.name, -1, "\"weightType\" must be a string, found %s", firefox_type_name(wt));
	/* without weights, each sample counts 1 whatever weightType says */
	set_weight_unit(imp, wt && wt->type == jbvString && firefox_column_present(&weight) ?
					pnstrdup(wt->val.string.val, wt->val.string.len) : NULL);

	for (int64 row = 0; row < t.nrows; row++)
	{
		MemoryContext old = MemoryContextSwitchTo(imp->row_cxt);
		int64		s = firefox_cell_index(imp, &t, &stack, row, nstacks, "the stackTable", false);
		double		ms;

		CHECK_FOR_INTERRUPTS();
		if (firefox_column_present(&time))
			ms = firefox_cell_number(imp, &t, &time, row);
		else
			ms = clock += firefox_cell_number(imp, &t, &deltas, row);
		if (s < 0)
			imp->skipped++;		/* a sample with no stack: nothing to attribute */
		else
			profile_writer_sample(imp->writer, thread_label, true,
								  ms_to_ns(imp, &t, row, "time", ms + offset_ms),
								  stacks[s], sample_weight(imp, &t, &weight, row), 0);
		MemoryContextSwitchTo(old);
		MemoryContextReset(imp->row_cxt);
	}
}

/* "name", or "name (pid N)" when the profile has several processes */
static char *
thread_label(const FirefoxImport *imp, JsonbContainer *thread, const char *name)
{
	JsonbValue *pid = json_find_member(thread, "pid");
	char	   *pid_text = NULL;

	if (!imp->multi_process || pid == NULL)
		return pstrdup(name);
	if (pid->type == jbvString)
		pid_text = pnstrdup(pid->val.string.val, pid->val.string.len);
	else if (pid->type == jbvNumeric)
		pid_text = psprintf("%.0f", json_float8(pid));
	return pid_text ? psprintf("%s (pid %s)", name, pid_text) : pstrdup(name);
}

static const char *
thread_name(const FirefoxImport *imp, JsonbContainer *thread)
{
	JsonbValue *name = json_find_member(thread, "name");

	if (name == NULL || name->type != jbvString)
		firefox_malformed(imp, NULL, -1, "\"name\" must be a string, found %s", firefox_type_name(name));
	return pnstrdup(name->val.string.val, name->val.string.len);
}

/* The thread's own string table, or else the shared one */
static const StringTable *
thread_strings(FirefoxImport *imp, JsonbContainer *thread, const StringTable *shared_strings)
{
	JsonbContainer *own = json_optional_container(thread, "stringTable", true);
	StringTable *strings;

	if (own == NULL && imp->format == FORMAT_PROCESSED)
		own = json_optional_container(thread, "stringArray", true);
	if (own == NULL)
	{
		if (shared_strings == NULL)
			firefox_malformed(imp, NULL, -1, "the thread has no string table");
		return shared_strings;
	}
	strings = palloc(sizeof(StringTable));
	firefox_read_strings(imp, own, "stringTable", strings);
	return strings;
}

/* Whether a processed thread uses the tables of "shared" only */
static bool
uses_shared_tables(const FirefoxImport *imp, JsonbContainer *thread)
{
	static const char *const own_tables[] = {"stringTable", "stringArray", "stackTable",
	"frameTable", "funcTable", "resourceTable"};

	if (imp->format != FORMAT_PROCESSED)
		return false;
	for (int i = 0; i < lengthof(own_tables); i++)
		if (json_find_member(thread, own_tables[i]) != NULL)
			return false;
	return true;
}

/* One thread of either format; shared strings for the processed format. */
void
firefox_import_thread(FirefoxImport *imp, JsonbContainer *thread, JsonbContainer *shared,
			  const StringTable *shared_strings, double offset_ms)
{
	const StringTable *st;
	int64	   *frames;
	int64	   *stacks;
	int64		nframes;
	int64		nstacks;
	bool		shared_only = uses_shared_tables(imp, thread);

	imp->thread_name = NULL;	/* until known, errors say "?" */
	imp->thread_name = thread_name(imp, thread);
	st = thread_strings(imp, thread, shared_strings);
	if (shared_only && imp->shared_stacks)
	{
		/* the newest processed layout: threads share one set of tables */
		stacks = imp->shared_stacks;
		nstacks = imp->shared_nstacks;
	}
	else
	{
		if (imp->format == FORMAT_GECKO)
			frames = firefox_gecko_frames(imp, thread, st, &nframes);
		else
			frames = firefox_processed_frames(imp, thread, shared, st, &nframes);
		stacks = read_stacks(imp, thread, shared, frames, nframes, &nstacks);
		if (shared_only)
		{
			imp->shared_stacks = stacks;
			imp->shared_nstacks = nstacks;
		}
	}
	read_samples(imp, thread, stacks, nstacks, offset_ms,
				 thread_label(imp, thread, imp->thread_name));
}
