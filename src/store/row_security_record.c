/*
 * row_security_record.c
 *	  The row-level security of calltree's tables, recorded for pg_dump and
 *	  applied again as a restore loads the record.
 *
 * pg_dump writes neither the row-level security flags nor the policies of
 * an extension's tables: CREATE EXTENSION makes those tables, and a
 * restore would leave them as the install script made them, every
 * tenant's rows readable by all.  So calltree keeps a record of them in two
 * of its own tables, which pg_dump dumps (pg_extension_config_dump):
 *
 *	- row_security_flags: for each table of the extension, whether its
 *	  row-level security is enabled and forced;
 *	- row_security_policy: their policies, as pg_policies shows them (roles
 *	  by name, expressions deparsed with only pg_catalog on the path, so
 *	  that every other name in them is qualified).
 *
 * The record follows the catalog.  An event trigger at the end of every DDL
 * command compares the two, and only when they differ writes the catalog's
 * state into the record (record_catalog).  The partitions that
 * new_sample_partition() makes are not members of the extension: pg_dump
 * dumps their row-level security and policies itself.
 *
 * The record is applied the other way when rows are inserted into it, as a
 * restore does.  A BEFORE INSERT trigger turns each row into the ALTER
 * TABLE or CREATE POLICY it stands for, run as the inserting role (who must
 * own the table, as for the command itself), records the catalog again and
 * skips the row.  So the record never holds what the catalog does not, and
 * a restore's rows never collide with those CREATE EXTENSION recorded.
 * pg_dump loads row_security_flags before row_security_policy (it loads an
 * extension's tables in the order of their names): where a policy cannot
 * be made, because a role it names does not exist, its table's row-level
 * security is already on, and the restore fails closed.
 *
 * The record is written as its own owner, with row-level security off, as a
 * foreign key's check runs as its table's owner (integrity.c): the event
 * trigger fires for every role's DDL, and what it writes is the catalog's
 * state, which the role cannot choose beyond what its own DDL could do.
 * What the record applies runs as the role inserting into it.  Both run
 * with only pg_catalog (and pg_temp, last) on the path.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parser.h"
#include "storage/lmgr.h"
#include "tcop/cmdtag.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "store/store.h"

PG_FUNCTION_INFO_V1(calltree_row_security_ddl_end);
PG_FUNCTION_INFO_V1(calltree_record_row_security);
PG_FUNCTION_INFO_V1(calltree_row_security_apply);

/* record_catalog is writing the record: its rows are not applied */
static bool recording = false;

/* a row of the record is being applied: its DDL is recorded once, after */
static bool applying = false;

/*
 * The tables of the extension ($1) whose row-level security is recorded:
 * all but the record's own.
 */
#define MEMBER_TABLES \
	"SELECT c.oid, c.relname, c.relrowsecurity, c.relforcerowsecurity" \
	"  FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class c ON c.oid = d.objid" \
	" WHERE d.classid = 'pg_catalog.pg_class'::pg_catalog.regclass" \
	"   AND d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass" \
	"   AND d.refobjid = $1 AND d.deptype = 'e' AND c.relkind IN ('r', 'p')" \
	"   AND c.relname NOT IN ('row_security_flags', 'row_security_policy')"

/*
 * Their row-level security and policies as the catalog has them, in the
 * columns of the record.
 */
#define CATALOG_STATE \
	"WITH members AS (" MEMBER_TABLES "), " \
	"catalog_tables AS (" \
	"  SELECT m.relname AS table_name, m.relrowsecurity AS enabled, m.relforcerowsecurity AS forced" \
	"    FROM members m), " \
	"catalog_policies AS (" \
	"  SELECT p.tablename AS table_name, p.policyname AS policy_name, p.permissive, p.cmd," \
	"         p.roles, p.qual, p.with_check" \
	"    FROM pg_catalog.pg_policies p" \
	"   WHERE p.schemaname = 'calltree' AND p.tablename IN (SELECT m.relname FROM members m)) "

#define TABLE_COLUMNS "table_name, enabled, forced"
#define POLICY_COLUMNS "table_name, policy_name, permissive, cmd, roles, qual, with_check"

/* Whether the record differs from the catalog: one query of a few rows. */
#define RECORD_DIFFERS \
	CATALOG_STATE \
	"SELECT EXISTS (SELECT * FROM catalog_tables" \
	"               EXCEPT SELECT " TABLE_COLUMNS " FROM calltree.row_security_flags)" \
	"    OR EXISTS (SELECT " TABLE_COLUMNS " FROM calltree.row_security_flags" \
	"               EXCEPT SELECT * FROM catalog_tables)" \
	"    OR EXISTS (SELECT * FROM catalog_policies" \
	"               EXCEPT SELECT " POLICY_COLUMNS " FROM calltree.row_security_policy)" \
	"    OR EXISTS (SELECT " POLICY_COLUMNS " FROM calltree.row_security_policy" \
	"               EXCEPT SELECT * FROM catalog_policies)"

/*
 * Saves the caller's settings and sets the path that the record's
 * expressions are written and read with.  restore_path undoes it.
 */
static int
pin_path(void)
{
	int			nestlevel = NewGUCNestLevel();

	(void) set_config_option("search_path", "pg_catalog, pg_temp",
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	return nestlevel;
}

static void
restore_path(int nestlevel)
{
	AtEOXact_GUC(true, nestlevel);
}

/*
 * Runs one statement of the record's upkeep with the extension's oid as
 * $1, in the latest snapshot: it sees what other transactions committed
 * while this one waited for the record's lock.
 */
static void
run_latest(const char *sql, Oid extension, int expected)
{
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(extension)};
	SPIPlanPtr	plan = SPI_prepare(sql, 1, types);

	if (plan == NULL)
		elog(ERROR, "SPI_prepare(\"%s\") failed: %s", sql, SPI_result_code_string(SPI_result));
	CommandCounterIncrement();
	if (SPI_execute_snapshot(plan, values, NULL, GetLatestSnapshot(), InvalidSnapshot,
							 false, true, 0) != expected)
		elog(ERROR, "could not keep the record of calltree's row-level security: %s", sql);
	SPI_freeplan(plan);
}

/*
 * Whether the record differs from the catalog.  Every DDL command asks,
 * so the plan is kept for the session (the plan cache plans it again when
 * the catalog or the role changes).
 */
static bool
record_differs(Oid extension)
{
	static SPIPlanPtr plan = NULL;
	Oid			types[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(extension)};
	bool		isnull;

	if (plan == NULL)
	{
		SPIPlanPtr	new_plan = SPI_prepare(RECORD_DIFFERS, 1, types);

		if (new_plan == NULL || SPI_keepplan(new_plan) != 0)
			elog(ERROR, "SPI_prepare of the record's comparison failed: %s", SPI_result_code_string(SPI_result));
		plan = new_plan;
	}
	CommandCounterIncrement();
	if (SPI_execute_snapshot(plan, values, NULL, GetLatestSnapshot(), InvalidSnapshot,
							 true, false, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not compare the record of calltree's row-level security with the catalog");
	return DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/* Writes the catalog's state into the record, which the caller has locked. */
static void
rewrite_record(Oid extension)
{
	run_latest("DELETE FROM calltree.row_security_policy", extension, SPI_OK_DELETE);
	run_latest("DELETE FROM calltree.row_security_flags", extension, SPI_OK_DELETE);
	run_latest(CATALOG_STATE "INSERT INTO calltree.row_security_flags (" TABLE_COLUMNS ") "
			   "SELECT * FROM catalog_tables", extension, SPI_OK_INSERT);
	run_latest(CATALOG_STATE "INSERT INTO calltree.row_security_policy (" POLICY_COLUMNS ") "
			   "SELECT * FROM catalog_policies", extension, SPI_OK_INSERT);
}

static Oid
table_owner(Oid table)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(table));
	Oid			owner;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", table);
	owner = ((Form_pg_class) GETSTRUCT(tuple))->relowner;
	ReleaseSysCache(tuple);
	return owner;
}

/*
 * Brings the record up to date with the catalog, as the record's owner.
 * Most DDL changes nothing there: then only the comparison runs, without a
 * lock, so that unrelated DDL of concurrent sessions never waits.  A change
 * takes SHARE ROW EXCLUSIVE on the record (self-exclusive) until the
 * transaction ends, and compares again.
 */
static void
record_catalog(void)
{
	/* the control file fixes the schema: the extension is not relocatable */
	Oid			extension = get_extension_oid("calltree", true);
	Oid			namespace;
	Oid			record;
	Oid			save_userid;
	int			save_sec_context;
	int			nestlevel;

	if (!OidIsValid(extension))
		return;
	namespace = get_namespace_oid("calltree", false);
	record = calltree_relation(namespace, "row_security_flags");
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(table_owner(record),
						   save_sec_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_NOFORCE_RLS);
	nestlevel = pin_path();
	recording = true;
	PG_TRY();
	{
		SPI_connect();
		if (record_differs(extension))
		{
			LockRelationOid(record, ShareRowExclusiveLock);
			if (record_differs(extension))
				rewrite_record(extension);
		}
		SPI_finish();
	}
	PG_FINALLY();
	{
		recording = false;
	}
	PG_END_TRY();
	restore_path(nestlevel);
	SetUserIdAndSecContext(save_userid, save_sec_context);
}

/*
 * Whether a command with this tag may change the row-level security of a
 * table or the text of its policies.  Making a table, view, sequence,
 * index or trigger changes neither (the policies' expressions are written
 * with every name qualified), nor do comments, grants and labels.  Every
 * other command may: ALTER TABLE, the policies' own commands, renames of
 * what policies name, drops that cascade to policies, new functions and
 * operators that could resolve a name differently.  The most frequent DDL
 * (temporary tables, indexes) so costs nothing.
 */
static bool
may_change_row_security(CommandTag tag)
{
	switch (tag)
	{
		case CMDTAG_CREATE_TABLE:
		case CMDTAG_CREATE_TABLE_AS:
		case CMDTAG_SELECT_INTO:
		case CMDTAG_CREATE_INDEX:
		case CMDTAG_CREATE_SEQUENCE:
		case CMDTAG_CREATE_VIEW:
		case CMDTAG_CREATE_MATERIALIZED_VIEW:
		case CMDTAG_REFRESH_MATERIALIZED_VIEW:
		case CMDTAG_CREATE_TRIGGER:
		case CMDTAG_COMMENT:
		case CMDTAG_GRANT:
		case CMDTAG_REVOKE:
		case CMDTAG_SECURITY_LABEL:
			return false;
		default:
			return true;
	}
}

/*
 * ON ddl_command_end: the record follows the catalog.  Skipped while a row
 * of the record is applied (its rows are recorded after) and while the
 * record itself is written.
 */
Datum
calltree_row_security_ddl_end(PG_FUNCTION_ARGS)
{
	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("row_security_ddl_end() was not called as an event trigger")));
	if (!applying && !recording &&
		may_change_row_security(((EventTriggerData *) fcinfo->context)->tag))
		record_catalog();
	PG_RETURN_VOID();
}

/* record_row_security(): the same, called by hand or by an install script */
Datum
calltree_record_row_security(PG_FUNCTION_ARGS)
{
	if (!applying && !recording)
		record_catalog();
	PG_RETURN_VOID();
}

/*
 * The row being applied, for the context of its errors: which table (and
 * policy) of the record a restore failed on.
 */
typedef struct RecordRow
{
	const char *record;			/* row_security_flags or row_security_policy */
	char	   *table;
	char	   *policy;			/* NULL for a row of row_security_flags */
} RecordRow;

static void
record_row_context(void *arg)
{
	RecordRow  *row = (RecordRow *) arg;

	if (row->policy)
		errcontext("applying policy %s on calltree.%s, a row of calltree.%s",
				   row->policy, row->table, row->record);
	else
		errcontext("applying the row-level security of calltree.%s, a row of calltree.%s",
				   row->table, row->record);
}

static char *
column_text(TriggerData *trigdata, const char *column)
{
	TupleDesc	desc = RelationGetDescr(trigdata->tg_relation);

	return SPI_getvalue(trigdata->tg_trigtuple, desc, SPI_fnumber(desc, column));
}

static char *
required_text(TriggerData *trigdata, const char *column)
{
	char	   *value = column_text(trigdata, column);

	if (value == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("column %s of calltree.%s may not be null", column,
						RelationGetRelationName(trigdata->tg_relation))));
	return value;
}

static bool
column_bool(TriggerData *trigdata, const char *column)
{
	TupleDesc	desc = RelationGetDescr(trigdata->tg_relation);
	bool		isnull;
	Datum		value = SPI_getbinval(trigdata->tg_trigtuple, desc, SPI_fnumber(desc, column), &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("column %s of calltree.%s may not be null", column,
						RelationGetRelationName(trigdata->tg_relation))));
	return DatumGetBool(value);
}

/*
 * The table of calltree named `table`, whose row-level security is
 * recorded; fails if there is none.
 */
static Oid
member_table(const char *table)
{
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2] = {ObjectIdGetDatum(get_extension_oid("calltree", false)),
	CStringGetTextDatum(table)};
	bool		isnull;

	if (SPI_execute_with_args("SELECT m.oid FROM (" MEMBER_TABLES ") m WHERE m.relname = $2::pg_catalog.name",
							  2, types, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not look up the tables of calltree");
	if (SPI_processed == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("\"%s\" is not a table of calltree whose row-level security is recorded", table),
				 errhint("The record of row-level security holds the tables of the extension calltree.")));
	return DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
}

/* The relrowsecurity and relforcerowsecurity of `table`. */
static void
table_flags(Oid table, bool *enabled, bool *forced)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(table));

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for relation %u", table);
	*enabled = ((Form_pg_class) GETSTRUCT(tuple))->relrowsecurity;
	*forced = ((Form_pg_class) GETSTRUCT(tuple))->relforcerowsecurity;
	ReleaseSysCache(tuple);
}

/* Runs one command made from a row of the record, as the caller. */
static void
run_command(const char *command)
{
	if (SPI_execute(command, false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not run \"%s\"", command);
}

/*
 * A row of row_security_flags: ENABLE or DISABLE, FORCE or NO FORCE, if the
 * table is not so already (most are not changed by a restore).
 */
static void
apply_table_row(TriggerData *trigdata, RecordRow *row)
{
	bool		enabled = column_bool(trigdata, "enabled");
	bool		forced = column_bool(trigdata, "forced");
	bool		was_enabled;
	bool		was_forced;

	table_flags(member_table(row->table), &was_enabled, &was_forced);
	if (enabled == was_enabled && forced == was_forced)
		return;
	run_command(psprintf("ALTER TABLE calltree.%s %s ROW LEVEL SECURITY, %s ROW LEVEL SECURITY",
						 quote_identifier(row->table),
						 enabled ? "ENABLE" : "DISABLE", forced ? "FORCE" : "NO FORCE"));
}

/* `value` if it is one of `allowed` (NULL-terminated); fails otherwise. */
static const char *
one_of(const char *column, const char *value, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (strcmp(value, *allowed) == 0)
			return *allowed;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("invalid %s \"%s\" in calltree.row_security_policy", column, value)));
	return NULL;
}

/*
 * The TO clause of a policy: its roles by name, each of which must exist,
 * or public.  A restore into a cluster that lacks one fails here, before it
 * makes the policy.
 */
static char *
policy_roles(TriggerData *trigdata, RecordRow *row, Oid table)
{
	TupleDesc	desc = RelationGetDescr(trigdata->tg_relation);
	bool		isnull;
	Datum		value = SPI_getbinval(trigdata->tg_trigtuple, desc, SPI_fnumber(desc, "roles"), &isnull);
	Datum	   *names;
	int			count;
	StringInfoData roles;

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("column roles of calltree.row_security_policy may not be null")));
	deconstruct_array(DatumGetArrayTypeP(value), NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR,
					  &names, NULL, &count);
	if (count == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("policy %s on calltree.%s names no role", row->policy, row->table)));
	initStringInfo(&roles);
	for (int i = 0; i < count; i++)
	{
		const char *name = NameStr(*DatumGetName(names[i]));

		if (strcmp(name, "public") != 0 && !OidIsValid(get_role_oid(name, true)))
		{
			bool		enabled;
			bool		forced;

			table_flags(table, &enabled, &forced);
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("policy %s on calltree.%s is for role \"%s\", which does not exist",
							row->policy, row->table, name),
					 enabled ? errdetail("Row-level security stays enabled on calltree.%s without this policy.",
										 row->table) : 0,
					 errhint("Restore the roles first (pg_dumpall --roles-only), then the database.")));
		}
		appendStringInfo(&roles, "%s%s", i > 0 ? ", " : "", quote_identifier(name));
	}
	return roles.data;
}

/*
 * Fails unless `command` is one CREATE POLICY: the expressions of the
 * record are copied into it as they are, and must not end it.
 */
static void
check_one_policy(const char *command, RecordRow *row)
{
	List	   *statements = raw_parser(command, RAW_PARSE_DEFAULT);

	if (list_length(statements) != 1 ||
		!IsA(linitial_node(RawStmt, statements)->stmt, CreatePolicyStmt))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the expressions of policy %s on calltree.%s in calltree.row_security_policy are not single expressions",
						row->policy, row->table)));
}

/* A row of row_security_policy: the policy, made again if it exists. */
static void
apply_policy_row(TriggerData *trigdata, RecordRow *row)
{
	static const char *const permissive_values[] = {"PERMISSIVE", "RESTRICTIVE", NULL};
	static const char *const commands[] = {"ALL", "SELECT", "INSERT", "UPDATE", "DELETE", NULL};
	const char *permissive = one_of("permissive", required_text(trigdata, "permissive"), permissive_values);
	const char *command = one_of("cmd", required_text(trigdata, "cmd"), commands);
	char	   *qual = column_text(trigdata, "qual");
	char	   *with_check = column_text(trigdata, "with_check");
	char	   *roles;
	const char *target;
	StringInfoData create;

	roles = policy_roles(trigdata, row, member_table(row->table));
	target = psprintf("%s ON calltree.%s", quote_identifier(row->policy), quote_identifier(row->table));
	initStringInfo(&create);
	appendStringInfo(&create, "CREATE POLICY %s AS %s FOR %s TO %s", target, permissive, command, roles);
	if (qual)
		appendStringInfo(&create, " USING (%s)", qual);
	if (with_check)
		appendStringInfo(&create, " WITH CHECK (%s)", with_check);
	check_one_policy(create.data, row);

	if (SPI_execute(psprintf("SELECT FROM pg_catalog.pg_policies WHERE schemaname = 'calltree' "
							 "AND tablename = %s AND policyname = %s",
							 quote_literal_cstr(row->table), quote_literal_cstr(row->policy)),
					true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not look up policy %s", row->policy);
	if (SPI_processed > 0)
		run_command(psprintf("DROP POLICY %s", target));
	run_command(create.data);
}

/*
 * BEFORE INSERT ON row_security_flags and row_security_policy FOR EACH ROW:
 * the row is applied as the caller, the catalog recorded, and the row
 * skipped (the record now holds it, if the catalog does).  The rows that
 * record_catalog writes pass unchanged.
 */
Datum
calltree_row_security_apply(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata;
	RecordRow	row;
	ErrorContextCallback context;
	int			nestlevel;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("row_security_apply() was not called as a trigger")));
	trigdata = (TriggerData *) fcinfo->context;
	if (!TRIGGER_FIRED_BEFORE(trigdata->tg_event) || !TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) ||
		!TRIGGER_FIRED_BY_INSERT(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("row_security_apply() must fire BEFORE INSERT FOR EACH ROW")));
	if (recording)
		return PointerGetDatum(trigdata->tg_trigtuple);

	row.record = RelationGetRelationName(trigdata->tg_relation);
	row.table = required_text(trigdata, "table_name");
	row.policy = strcmp(row.record, "row_security_policy") == 0
		? required_text(trigdata, "policy_name") : NULL;
	context.callback = record_row_context;
	context.arg = &row;
	context.previous = error_context_stack;
	error_context_stack = &context;

	nestlevel = pin_path();
	applying = true;
	PG_TRY();
	{
		SPI_connect();
		if (row.policy)
			apply_policy_row(trigdata, &row);
		else
			apply_table_row(trigdata, &row);
		SPI_finish();
	}
	PG_FINALLY();
	{
		applying = false;
	}
	PG_END_TRY();
	restore_path(nestlevel);
	record_catalog();
	error_context_stack = context.previous;
	return PointerGetDatum(NULL);
}
