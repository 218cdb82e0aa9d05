/*
 * module.c
 *	  The loadable module: its magic block, its settings and _PG_init,
 *	  which registers them.
 *
 * The settings live here rather than beside the code that reads them so
 * that every folder can read them without depending on another folder
 * (module.h).
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/datetime.h"
#include "utils/guc.h"

#include "module.h"

PG_MODULE_MAGIC;

int			calltree_stack_read = STACK_READ_AUTO;
int			calltree_import_work_mem = 128 * 1024;
int			calltree_max_path_output = 100000000;
bool		calltree_duplicate_notice = true;
char	   *calltree_import_started_at = NULL;

void		_PG_init(void);

/*
 * calltree.import_started_at takes a timestamptz or nothing: a value that
 * is not a time is refused when it is set, naming the setting, not at
 * the next import.  Parsed as timestamptz_in parses, without raising an
 * error (a check hook must not); the import reads it again then.
 */
static bool
check_import_started_at(char **newval, void **extra, GucSource source)
{
	char	   *field[MAXDATEFIELDS];
	int			ftype[MAXDATEFIELDS];
	char		workbuf[MAXDATELEN + MAXDATEFIELDS];
	struct pg_tm tm;
	fsec_t		fsec;
	int			nfields;
	int			dtype;
	int			tz;

	if (**newval == '\0')
		return true;
	if (ParseDateTime(*newval, workbuf, sizeof(workbuf), field, ftype, MAXDATEFIELDS, &nfields) != 0 ||
		DecodeDateTime(field, ftype, nfields, &dtype, &tm, &fsec, &tz) != 0)
	{
		GUC_check_errdetail("It takes a timestamp with time zone, such as 2024-05-01 12:00:00+00, or nothing.");
		return false;
	}
	return true;
}

static const struct config_enum_entry stack_read_options[] = {
	{"auto", STACK_READ_AUTO, false},
	{"index", STACK_READ_INDEX, false},
	{"scan", STACK_READ_SCAN, false},
	{NULL, 0, false}
};

void
_PG_init(void)
{
	DefineCustomEnumVariable("calltree.stack_read",
							 "How stack_agg and imports read calltree.stack.",
							 "auto reads the whole table when a query or an import needs a good share "
							 "of it and probes its indexes otherwise; index and scan force one way.",
							 &calltree_stack_read, STACK_READ_AUTO, stack_read_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("calltree.import_work_mem",
							"Memory an import may use for its caches of funcs, frames and stacks.",
							"Collapsed stacks and perf script empty their caches when they would "
							"pass it; every import reads the stack table whole only if it fits.",
							&calltree_import_work_mem, 128 * 1024, 1024, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("calltree.max_path_output",
							"Most func path elements one call may write or walk.",
							"nodes(), report(), latency(), collapse_recursions() and the exporters "
							"write each node's whole path, and invert(), backtraces(), lines() and "
							"estimated_calls() walk them: that grows with the square of the depth. "
							"Larger work is refused with an error.",
							&calltree_max_path_output, 100000000, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("calltree.duplicate_notice",
							 "Whether importing a file imported before raises a NOTICE naming the earlier profile.",
							 "on_duplicate => 'skip' and 'error' act on such a file whatever this says.",
							 &calltree_duplicate_notice, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("calltree.import_started_at",
							   "The start time of the profiles an import writes, in place of the file's.",
							   "Empty (the default): the start time the file gives, if any. "
							   "calltree-receiver sets it for the transaction to a push's from.",
							   &calltree_import_started_at, "",
							   PGC_USERSET, 0, check_import_started_at, NULL, NULL);
	MarkGUCPrefixReserved("calltree");
}
