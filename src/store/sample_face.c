/*
 * sample_face.c
 *	  INSERT, UPDATE and DELETE on calltree.sample, the view that shows the
 *	  packed samples of calltree.sample_set (and the rows of sample_row not
 *	  packed yet) a row each.
 *
 * The view's INSTEAD OF triggers fire once per row; a statement's rows are
 * gathered here, per profile and thread, and written as sample sets at
 * the end of the statement, so that the rows of one statement become a
 * row of sample_set per profile and thread rather than one each:
 *
 *	- an inserted row is a sample to add: each group's samples become new
 *	  rows of sample_set (several past SAMPLES_MAX);
 *	- a deleted row is a sample to remove: the group's rows of sample_set
 *	  are read FOR UPDATE, one equal sample removed for each deleted row
 *	  (the rows are a multiset: deleting two equal rows removes two), and
 *	  each set rewritten or deleted; what no set holds is a row of
 *	  sample_row, deleted there (the group's rows read once, in canonical
 *	  order, and matched by a merge);
 *	- an updated row is both: its old values removed, and its new ones
 *	  added if the old were found (an UPDATE whose join matches a row
 *	  twice, or that finds it changed by a transaction that committed
 *	  meanwhile, must not add a sample for a row it did not remove).
 *
 * Every statement runs as the caller, through sample_set and sample_row:
 * their privileges, row-level security and reference checks apply as they
 * would to a statement on them.
 *
 * The rows are written when the executor finishes the statement (a hook
 * on ExecutorFinish), before it fires the statement's AFTER triggers: a
 * statement-level AFTER trigger of the user's on the view sees the rows,
 * whatever its name (PostgreSQL fires the triggers of one kind in name
 * order, so the view's own statement trigger could not promise that).  A
 * statement in WITH is run to its end first, as the executor would do
 * next.  COPY into the view has no executor to finish: its rows are
 * written by the view's AFTER statement trigger, _sample_write_sets,
 * which sorts before most names, and which refuses a COPY that fired a
 * trigger of the user's before it (one named "Audit", say), since that
 * trigger ran without the rows.
 *
 * The gathered rows live in a context of the subtransaction that gathered
 * them; past a quarter of calltree.import_work_mem they are written before
 * the statement ends.  Each subtransaction level gathers apart: a statement
 * on calltree.sample that a function runs inside an exception block
 * gathers its own rows, and a rollback of the block takes them, not the
 * rows the outer statement gathered before.  A statement on
 * calltree.sample at the same level (in a trigger of another, say) writes
 * the rows gathered so far, the outer statement's among them: they are
 * written sooner, in the same subtransaction.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/instrument.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "module.h"
#include "store/store.h"
#include "tree/samples.h"

PG_FUNCTION_INFO_V1(calltree_sample_face_row);
PG_FUNCTION_INFO_V1(calltree_sample_face_write);

/* A growing list of samples */
typedef struct SampleList
{
	Sample	   *samples;
	int64		count;
	int64		capacity;
} SampleList;

/* The key of a group: a profile and a thread (NULL or text) */
typedef struct FaceKey
{
	int64		profile_id;
	const char *thread;			/* NULL: no thread */
	int			thread_len;
} FaceKey;

struct FaceGroup;

/*
 * A sample to remove: a deleted row's, or an updated row's old values,
 * whose new ones (`replacement`, for the group `target`) are added only
 * if it is found.
 */
typedef struct Removal
{
	Sample		sample;
	struct FaceGroup *target;	/* UPDATE: the new sample's group; else NULL */
	Sample		replacement;
} Removal;

typedef struct RemovalList
{
	Removal    *removals;
	int64		count;
	int64		capacity;
} RemovalList;

typedef struct FaceGroup
{
	FaceKey		key;			/* first: dynahash's key */
	SampleList	added;
	RemovalList removed;
} FaceGroup;

/*
 * The rows one subtransaction level gathered and has not written yet, in
 * a context of that subtransaction (its abort frees them), with those of
 * the enclosing levels after it.
 */
typedef struct Gathering
{
	SubTransactionId subxid;
	MemoryContext cxt;
	HTAB	   *groups;			/* FaceGroup by FaceKey */
	Size		bytes;			/* of the samples gathered */
	struct Gathering *outer;
} Gathering;

static Gathering *gathering = NULL;
static bool callbacks_registered = false;

/* The function of the view's row trigger, once it has fired */
static Oid	face_row_function = InvalidOid;

static ExecutorFinish_hook_type next_executor_finish = NULL;

static void write_gathering(Gathering *rows, Oid namespace);
static void write_at_executor_finish(QueryDesc *query);

static uint32
face_key_hash(const void *key, Size keysize)
{
	const FaceKey *k = key;
	uint32		h = hash_bytes_uint32((uint32) k->profile_id) ^ hash_bytes_uint32((uint32) (k->profile_id >> 32));

	if (k->thread != NULL)
		h ^= hash_bytes((const unsigned char *) k->thread, k->thread_len) + 0x9e3779b9;
	return h;
}

static int
face_key_match(const void *key1, const void *key2, Size keysize)
{
	const FaceKey *a = key1;
	const FaceKey *b = key2;

	if (a->profile_id != b->profile_id || (a->thread == NULL) != (b->thread == NULL))
		return 1;
	if (a->thread == NULL)
		return 0;
	return a->thread_len != b->thread_len || memcmp(a->thread, b->thread, a->thread_len) != 0;
}

/* The end of the transaction takes the contexts with it */
static void
forget_gathered(XactEvent event, void *arg)
{
	if (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT ||
		event == XACT_EVENT_PARALLEL_COMMIT || event == XACT_EVENT_PARALLEL_ABORT ||
		event == XACT_EVENT_PREPARE)
		gathering = NULL;
}

/*
 * An aborted subtransaction's rows go: those its level and the levels
 * below it gathered, all with ids at least its own.  Their memory goes
 * with the subtransaction's.
 */
static void
forget_aborted(SubXactEvent event, SubTransactionId mySubid, SubTransactionId parentSubid, void *arg)
{
	Gathering **link = &gathering;

	if (event != SUBXACT_EVENT_ABORT_SUB)
		return;
	while (*link != NULL)
	{
		if ((*link)->subxid >= mySubid)
			*link = (*link)->outer;
		else
			link = &(*link)->outer;
	}
}

/* The rows this subtransaction level gathers into, new if it has none yet */
static Gathering *
current_gathering(void)
{
	SubTransactionId subxid = GetCurrentSubTransactionId();
	MemoryContext cxt;
	Gathering  *rows;
	HASHCTL		ctl;

	if (gathering != NULL && gathering->subxid == subxid)
		return gathering;
	if (!callbacks_registered)
	{
		RegisterXactCallback(forget_gathered, NULL);
		RegisterSubXactCallback(forget_aborted, NULL);
		next_executor_finish = ExecutorFinish_hook;
		ExecutorFinish_hook = write_at_executor_finish;
		callbacks_registered = true;
	}
	cxt = AllocSetContextCreate(CurTransactionContext, "calltree.sample rows", ALLOCSET_DEFAULT_SIZES);
	rows = MemoryContextAllocZero(cxt, sizeof(Gathering));
	rows->subxid = subxid;
	rows->cxt = cxt;
	ctl.keysize = sizeof(FaceKey);
	ctl.entrysize = sizeof(FaceGroup);
	ctl.hash = face_key_hash;
	ctl.match = face_key_match;
	ctl.hcxt = cxt;
	rows->groups = hash_create("calltree.sample groups", 64, &ctl,
							   HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
	rows->outer = gathering;
	gathering = rows;
	return rows;
}

/* Room for one more element of `size` bytes in a growing array */
static void *
grown(void *array, int64 count, int64 *capacity, Size size, MemoryContext cxt)
{
	if (count < *capacity)
		return array;
	*capacity = *capacity == 0 ? 64 : *capacity * 2;
	if (array == NULL)
		return MemoryContextAlloc(cxt, size * *capacity);
	return repalloc_huge(array, size * *capacity);
}

static void
append(SampleList *list, const Sample *sample, MemoryContext cxt)
{
	list->samples = grown(list->samples, list->count, &list->capacity, sizeof(Sample), cxt);
	list->samples[list->count++] = *sample;
}

static void
append_removal(RemovalList *list, const Removal *removal, MemoryContext cxt)
{
	list->removals = grown(list->removals, list->count, &list->capacity, sizeof(Removal), cxt);
	list->removals[list->count++] = *removal;
}

/*
 * The columns of the view, in the order bindings/37_sample_face.sql gives
 * them: a row's values are read by position, without a look-up by name.
 */
typedef enum FaceColumn
{
	FACE_PROFILE_ID = 1,
	FACE_THREAD,
	FACE_TS,
	FACE_STACK_ID,
	FACE_WEIGHT,
	FACE_LABELS_ID
} FaceColumn;

static int64
required_int8(HeapTuple row, TupleDesc desc, FaceColumn column)
{
	bool		isnull;
	Datum		value = heap_getattr(row, column, desc, &isnull);

	if (isnull)
		ereport(ERROR,
				(errcode(ERRCODE_NOT_NULL_VIOLATION),
				 errmsg("null value in column \"%s\" of relation \"sample\" violates not-null constraint",
						NameStr(TupleDescAttr(desc, column - 1)->attname)),
				 errhint("A sample has a profile, a stack and a weight; its thread, time and label set may be NULL.")));
	return DatumGetInt64(value);
}

/* An optional bigint column: *present says whether it is not NULL */
static int64
optional_int8(HeapTuple row, TupleDesc desc, FaceColumn column, bool *present)
{
	bool		isnull;
	Datum		value = heap_getattr(row, column, desc, &isnull);

	*present = !isnull;
	return isnull ? 0 : DatumGetInt64(value);
}

/* A row of the view: its group's key (the thread in the row's memory) and its sample */
static void
read_row(HeapTuple row, TupleDesc desc, FaceKey *key, Sample *sample)
{
	bool		isnull;
	Datum		thread;

	key->profile_id = required_int8(row, desc, FACE_PROFILE_ID);
	thread = heap_getattr(row, FACE_THREAD, desc, &isnull);
	key->thread = NULL;
	key->thread_len = 0;
	if (!isnull)
	{
		text	   *t = DatumGetTextPP(thread);

		key->thread = VARDATA_ANY(t);
		key->thread_len = VARSIZE_ANY_EXHDR(t);
	}
	sample->stack_id = required_int8(row, desc, FACE_STACK_ID);
	sample->weight = required_int8(row, desc, FACE_WEIGHT);
	sample->ts = optional_int8(row, desc, FACE_TS, &sample->has_ts);
	sample->labels_id = optional_int8(row, desc, FACE_LABELS_ID, &sample->has_labels);
}

/* The group of `key` among the rows gathered, new and empty if there was none */
static FaceGroup *
group_of(Gathering *rows, const FaceKey *key)
{
	bool		found;
	FaceGroup  *group = hash_search(rows->groups, key, HASH_ENTER, &found);

	if (!found)
	{
		if (key->thread != NULL)
		{
			char	   *copy = MemoryContextAlloc(rows->cxt, key->thread_len + 1);

			memcpy(copy, key->thread, key->thread_len);
			copy[key->thread_len] = '\0';
			group->key.thread = copy;
		}
		memset(&group->added, 0, sizeof(SampleList));
		memset(&group->removed, 0, sizeof(RemovalList));
	}
	return group;
}

/*
 * Gathers a row of the view: `old` a sample to remove (DELETE, UPDATE),
 * `new` one to add (INSERT, UPDATE), the other NULL.
 */
static void
gather(HeapTuple old, HeapTuple new, TupleDesc desc, Oid namespace)
{
	Gathering  *rows = current_gathering();
	FaceKey		key;
	Removal		removal;

	removal.target = NULL;
	if (new != NULL)
	{
		read_row(new, desc, &key, &removal.replacement);
		removal.target = group_of(rows, &key);
	}
	if (old == NULL)
	{
		append(&removal.target->added, &removal.replacement, rows->cxt);
		rows->bytes += sizeof(Sample);
	}
	else
	{
		read_row(old, desc, &key, &removal.sample);
		append_removal(&group_of(rows, &key)->removed, &removal, rows->cxt);
		rows->bytes += sizeof(Removal);
	}
	/*
	 * A statement of many rows is written in parts, so that what it gathers
	 * stays within a quarter of calltree.import_work_mem as an import's
	 * samples do (writer_sets.c): a profile's thread then has several sets.
	 */
	if (rows->bytes > (Size) calltree_import_work_mem * 1024 / 4)
	{
		gathering = rows->outer;
		write_gathering(rows, namespace);
	}
}

/*
 * The row trigger reads a row's columns by position (FaceColumn): it
 * serves calltree.sample, and refuses a relation of other columns (a
 * trigger of a view of one's own calling it), which it would misread.
 */
static void
check_face_columns(Relation relation)
{
	static const Oid types[] = {INT8OID, TEXTOID, INT8OID, INT8OID, INT8OID, INT8OID};
	TupleDesc	desc = RelationGetDescr(relation);
	bool		matches = desc->natts == lengthof(types);

	for (int i = 0; matches && i < desc->natts; i++)
		matches = TupleDescAttr(desc, i)->atttypid == types[i] && !TupleDescAttr(desc, i)->attisdropped;
	if (!matches)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("calltree_sample_face_row() fires on the view calltree.sample only, not on \"%s\"",
						RelationGetRelationName(relation)),
				 errdetail("It reads the columns profile_id bigint, thread text, ts bigint, stack_id bigint, weight bigint and labels_id bigint, in that order.")));
}

/*
 * INSTEAD OF INSERT, UPDATE or DELETE ON sample FOR EACH ROW: gathers the
 * row, for the end of the statement.
 */
Datum
calltree_sample_face_row(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	Oid			namespace;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_INSTEAD(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("calltree_sample_face_row() must fire INSTEAD OF, FOR EACH ROW")));
	check_face_columns(trigdata->tg_relation);
	face_row_function = trigdata->tg_trigger->tgfoid;
	desc = RelationGetDescr(trigdata->tg_relation);
	namespace = RelationGetNamespace(trigdata->tg_relation);
	if (TRIGGER_FIRED_BY_INSERT(trigdata->tg_event))
	{
		gather(NULL, trigdata->tg_trigtuple, desc, namespace);
		return PointerGetDatum(trigdata->tg_trigtuple);
	}
	if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
	{
		gather(trigdata->tg_trigtuple, trigdata->tg_newtuple, desc, namespace);
		return PointerGetDatum(trigdata->tg_newtuple);
	}
	gather(trigdata->tg_trigtuple, NULL, desc, namespace);
	return PointerGetDatum(trigdata->tg_trigtuple);
}

/*
 * "a IS NOT DISTINCT FROM b" of the SQL below, without that form's look-up
 * of "=" through the caller's search_path
 */
#define SAME_VALUE(a, b) \
	"(" a " OPERATOR(pg_catalog.=) " b " OR (" a " IS NULL AND " b " IS NULL))"

static Datum
thread_datum(const FaceKey *key, char *null)
{
	*null = key->thread == NULL ? 'n' : ' ';
	return key->thread == NULL ? (Datum) 0 : CStringGetTextDatum(key->thread);
}

/* Inserts the samples as new rows of sample_set, SAMPLES_MAX at most each */
static void
insert_sets(const FaceKey *key, Sample *samples, int64 count, Oid samples_type)
{
	Oid			types[3] = {INT8OID, TEXTOID, samples_type};
	const char *query = "INSERT INTO calltree.sample_set (profile_id, thread, samples) VALUES ($1, $2, $3)";

	for (int64 first = 0; first < count; first += SAMPLES_MAX)
	{
		Datum		values[3];
		char		nulls[3] = {' ', ' ', ' '};
		int64		n = Min(count - first, SAMPLES_MAX);

		values[0] = Int64GetDatum(key->profile_id);
		values[1] = thread_datum(key, &nulls[1]);
		values[2] = PointerGetDatum(samples_encode(samples + first, n));
		if (SPI_execute_with_args(query, 3, types, values, nulls, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not insert into calltree.sample_set");
		pfree(DatumGetPointer(values[2]));
	}
}

/*
 * After the DELETE (`deleted`) or UPDATE of a set that remove_from_sets()
 * read FOR UPDATE: the row is ours, so only the policies of sample_set can
 * have kept the statement from it.  FOR UPDATE applies those for UPDATE,
 * not those for DELETE; and the UPDATE applies them again, in a snapshot
 * of its own, where a policy that reads another table (changed by a
 * transaction that committed meanwhile) or calls a volatile function can
 * answer otherwise (sample_face_policies).  Going on would keep a sample
 * the statement removed and, for an UPDATE on the view, add its new values
 * beside it: a sample counted twice.  Refused instead.
 */
static void
set_written_or_refused(const FaceKey *key, bool deleted)
{
	if (SPI_processed == 1)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
			 errmsg("cannot %s the sample set of profile " INT64_FORMAT " that holds a sample to remove",
					deleted ? "delete" : "update", key->profile_id),
			 errdetail("The row-level security policies of calltree.sample_set let this role lock the set for update, but not %s it.",
					   deleted ? "delete" : "update"),
			 errhint("A sample is removed by rewriting its set, or deleting it when it held no other: give the role a policy for %s on calltree.sample_set for the rows its policies for UPDATE let it lock.",
					 deleted ? "DELETE" : "UPDATE")));
}

/*
 * Removes the doomed samples (in canonical order) from the group's rows of
 * sample_set, one equal sample for each, rewriting or deleting each row
 * that held some.  Keeps in `doomed`, in order, those no row held, and in
 * `which` what was beside them; returns their number.
 */
static int64
remove_from_sets(const FaceKey *key, Sample *doomed, int64 *which, int64 ndoomed, Oid samples_type)
{
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		values[2];
	char		nulls[2] = {' ', ' '};
	bool	   *found = palloc(sizeof(bool) * ndoomed);
	SPITupleTable *sets;
	uint64		nsets;

	values[0] = Int64GetDatum(key->profile_id);
	values[1] = thread_datum(key, &nulls[1]);
	if (SPI_execute_with_args("SELECT s.tableoid, s.ctid, s.samples FROM calltree.sample_set s "
							  "WHERE s.profile_id OPERATOR(pg_catalog.=) $1 "
							  "AND " SAME_VALUE("s.thread", "$2") " FOR UPDATE",
							  2, types, values, nulls, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read calltree.sample_set");
	sets = SPI_tuptable;
	nsets = SPI_processed;
	for (uint64 i = 0; i < nsets && ndoomed > 0; i++)
	{
		bool		isnull;
		Datum		stored = SPI_getbinval(sets->vals[i], sets->tupdesc, 3, &isnull);
		struct varlena *value = PG_DETOAST_DATUM(stored);
		int64		count;
		Sample	   *samples = samples_decode((const uint8 *) VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &count);
		int64		kept = samples_remove(samples, count, doomed, ndoomed, found);
		int64		left = 0;
		Datum		args[3];
		Oid			arg_types[3] = {OIDOID, TIDOID, samples_type};

		CHECK_FOR_INTERRUPTS();
		if ((Pointer) value != DatumGetPointer(stored))
			pfree(value);
		for (int64 d = 0; d < ndoomed; d++)
			if (!found[d])
			{
				which[left] = which[d];
				doomed[left++] = doomed[d];
			}
		ndoomed = left;
		args[0] = SPI_getbinval(sets->vals[i], sets->tupdesc, 1, &isnull);
		args[1] = SPI_getbinval(sets->vals[i], sets->tupdesc, 2, &isnull);
		if (kept == 0)
		{
			if (SPI_execute_with_args("DELETE FROM calltree.sample_set s WHERE s.tableoid OPERATOR(pg_catalog.=) $1 "
									  "AND s.ctid OPERATOR(pg_catalog.=) $2",
									  2, arg_types, args, NULL, false, 0) != SPI_OK_DELETE)
				elog(ERROR, "could not delete from calltree.sample_set");
			set_written_or_refused(key, true);
		}
		else if (kept < count)
		{
			args[2] = PointerGetDatum(samples_encode(samples, kept));
			if (SPI_execute_with_args("UPDATE calltree.sample_set s SET samples = $3 "
									  "WHERE s.tableoid OPERATOR(pg_catalog.=) $1 AND s.ctid OPERATOR(pg_catalog.=) $2",
									  3, arg_types, args, NULL, false, 0) != SPI_OK_UPDATE)
				elog(ERROR, "could not update calltree.sample_set");
			set_written_or_refused(key, false);
			pfree(DatumGetPointer(args[2]));
		}
		pfree(samples);
	}
	SPI_freetuptable(sets);
	pfree(found);
	return ndoomed;
}

/* A row of sample_row that remove_from_rows read: its sample, from column `first` on */
static void
row_sample(HeapTuple row, TupleDesc desc, int first, Sample *sample)
{
	bool		isnull;

	sample->ts = DatumGetInt64(SPI_getbinval(row, desc, first, &isnull));
	sample->has_ts = !isnull;
	if (isnull)
		sample->ts = 0;
	sample->stack_id = DatumGetInt64(SPI_getbinval(row, desc, first + 1, &isnull));
	sample->weight = DatumGetInt64(SPI_getbinval(row, desc, first + 2, &isnull));
	sample->labels_id = DatumGetInt64(SPI_getbinval(row, desc, first + 3, &isnull));
	sample->has_labels = !isnull;
	if (isnull)
		sample->labels_id = 0;
}

/*
 * Picks a row of sample_row equal to each doomed sample (in canonical
 * order) that has one: the group's rows are read in that order too,
 * through a cursor, and matched by a merge, so that a statement removing
 * many rows reads the group's once (not once per row).  Their ids into
 * tids; how many.
 */
static int
pick_rows(const FaceKey *key, const Sample *doomed, int64 ndoomed, ItemPointerData *tids)
{
	Oid			types[2] = {INT8OID, TEXTOID};
	Datum		values[2];
	char		nulls[2] = {' ', ' '};
	SPIPlanPtr	plan;
	Portal		portal;
	int64		d = 0;
	int			picked = 0;

	values[0] = Int64GetDatum(key->profile_id);
	values[1] = thread_datum(key, &nulls[1]);
	plan = SPI_prepare("SELECT r.ctid, r.ts, r.stack_id, r.weight, r.labels_id FROM calltree.sample_row r "
					   "WHERE r.profile_id OPERATOR(pg_catalog.=) $1 AND " SAME_VALUE("r.thread", "$2")
					   " ORDER BY r.ts IS NOT NULL, r.ts, r.stack_id, r.labels_id IS NOT NULL, r.labels_id, r.weight",
					   2, types);
	if (plan == NULL)
		elog(ERROR, "could not prepare the read of calltree.sample_row");
	portal = SPI_cursor_open(NULL, plan, values, nulls, false);
	while (d < ndoomed)
	{
		SPI_cursor_fetch(portal, true, 1024);
		if (SPI_processed == 0)
			break;
		CHECK_FOR_INTERRUPTS();
		for (uint64 i = 0; i < SPI_processed && d < ndoomed; i++)
		{
			Sample		row;
			int			cmp = -1;
			bool		isnull;

			row_sample(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &row);
			while (d < ndoomed && (cmp = samples_compare(&doomed[d], &row)) < 0)
				d++;
			if (d < ndoomed && cmp == 0)
			{
				ItemPointerCopy((ItemPointer) DatumGetPointer(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull)),
								&tids[picked++]);
				d++;
			}
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_freeplan(plan);
	return picked;
}

/*
 * Deletes from sample_row a row equal to each doomed sample (in canonical
 * order), by their ids, in one statement; a row that another transaction
 * deleted meanwhile (the statement waited for it) stays undeleted here.
 * Keeps in `doomed`, in order, the samples no row was deleted for, and in
 * `which` what was beside them; returns their number.
 */
static int64
remove_from_rows(const FaceKey *key, Sample *doomed, int64 *which, int64 ndoomed)
{
	ItemPointerData *tids = palloc_extended(sizeof(ItemPointerData) * ndoomed, MCXT_ALLOC_HUGE);
	int			picked = pick_rows(key, doomed, ndoomed, tids);
	Datum	   *elements;
	Oid			types[2] = {INT8OID, TIDARRAYOID};
	Datum		values[2];
	Sample	   *deleted;
	bool	   *found;
	int64		left = 0;

	if (picked == 0)
	{
		pfree(tids);
		return ndoomed;
	}
	elements = palloc_extended(sizeof(Datum) * picked, MCXT_ALLOC_HUGE);
	for (int i = 0; i < picked; i++)
		elements[i] = PointerGetDatum(&tids[i]);
	values[0] = Int64GetDatum(key->profile_id);
	values[1] = PointerGetDatum(construct_array(elements, picked, TIDOID, sizeof(ItemPointerData), false, TYPALIGN_SHORT));
	/* the profile's partition only: a row id is one partition's */
	if (SPI_execute_with_args("DELETE FROM calltree.sample_row r WHERE r.profile_id OPERATOR(pg_catalog.=) $1 "
							  "AND r.ctid OPERATOR(pg_catalog.=) ANY ($2) "
							  "RETURNING r.ts, r.stack_id, r.weight, r.labels_id",
							  2, types, values, NULL, false, 0) != SPI_OK_DELETE_RETURNING)
		elog(ERROR, "could not delete from calltree.sample_row");
	deleted = palloc_extended(sizeof(Sample) * Max(SPI_processed, 1), MCXT_ALLOC_HUGE);
	for (uint64 i = 0; i < SPI_processed; i++)
		row_sample(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &deleted[i]);
	samples_sort(deleted, (int64) SPI_processed);
	found = palloc(sizeof(bool) * ndoomed);
	(void) samples_remove(deleted, (int64) SPI_processed, doomed, ndoomed, found);
	for (int64 d = 0; d < ndoomed; d++)
		if (!found[d])
		{
			which[left] = which[d];
			doomed[left++] = doomed[d];
		}
	SPI_freetuptable(SPI_tuptable);
	pfree(deleted);
	pfree(found);
	pfree(elements);
	pfree(tids);
	return left;
}

static int
compare_removals(const void *a, const void *b)
{
	return samples_compare(&((const Removal *) a)->sample, &((const Removal *) b)->sample);
}

/*
 * Removes the group's removed samples, from its sets first, then its rows
 * (then its sets again, for the rows packed meanwhile); an updated row's
 * new sample is added to its group where the old one was found, and
 * forgotten where it was not.
 */
static void
remove_samples(FaceGroup *group, Oid samples_type, MemoryContext cxt)
{
	RemovalList *list = &group->removed;
	Sample	   *doomed = palloc_extended(sizeof(Sample) * list->count, MCXT_ALLOC_HUGE);
	int64	   *which = palloc_extended(sizeof(int64) * list->count, MCXT_ALLOC_HUGE);
	int64		left;
	int64		missing;

	qsort(list->removals, list->count, sizeof(Removal), compare_removals);
	for (int64 i = 0; i < list->count; i++)
	{
		doomed[i] = list->removals[i].sample;
		which[i] = i;
	}
	left = remove_from_sets(&group->key, doomed, which, list->count, samples_type);
	missing = left > 0 ? remove_from_rows(&group->key, doomed, which, left) : 0;
	/*
	 * A row that pack_samples() moved into a set while this statement
	 * waited for it is in that set now: read the sets again, in a new
	 * snapshot (under READ COMMITTED; REPEATABLE READ failed to serialize).
	 */
	if (missing > 0)
		missing = remove_from_sets(&group->key, doomed, which, missing, samples_type);
	for (int64 i = 0; i < missing; i++)
		list->removals[which[i]].target = NULL;
	for (int64 i = 0; i < list->count; i++)
		if (list->removals[i].target != NULL)
			append(&list->removals[i].target->added, &list->removals[i].replacement, cxt);
	pfree(doomed);
	pfree(which);
}

/*
 * Writes the rows gathered (taken off the list of gatherings): every
 * removal first, then the samples added.  A statement on sample in a
 * trigger below gathers into a gathering of its own.
 */
static void
write_gathering(Gathering *rows, Oid namespace)
{
	HASH_SEQ_STATUS scan;
	FaceGroup  *group;
	Oid			samples_type = calltree_type(namespace, "samples");

	SPI_connect();
	hash_seq_init(&scan, rows->groups);
	while ((group = hash_seq_search(&scan)) != NULL)
		if (group->removed.count > 0)
			remove_samples(group, samples_type, rows->cxt);
	hash_seq_init(&scan, rows->groups);
	while ((group = hash_seq_search(&scan)) != NULL)
		if (group->added.count > 0)
			insert_sets(&group->key, group->added.samples, group->added.count, samples_type);
	SPI_finish();
	MemoryContextDelete(rows->cxt);
}

/*
 * Writes what was gathered at the current subtransaction level and any
 * level below it, not what an enclosing statement gathered at a level
 * above.
 */
static void
write_gathered(Oid namespace)
{
	SubTransactionId subxid = GetCurrentSubTransactionId();

	while (gathering != NULL && gathering->subxid >= subxid)
	{
		Gathering  *rows = gathering;

		gathering = rows->outer;
		write_gathering(rows, namespace);
	}
}

/*
 * Whether the statement writes a view through the row trigger of
 * calltree.sample; the view's schema into *namespace.
 */
static bool
writes_face(EState *estate, Oid *namespace)
{
	ListCell   *lc;

	foreach(lc, estate->es_opened_result_relations)
	{
		ResultRelInfo *result = lfirst(lc);
		TriggerDesc *triggers = result->ri_TrigDesc;

		for (int i = 0; triggers != NULL && i < triggers->numtriggers; i++)
			if (triggers->triggers[i].tgfoid == face_row_function)
			{
				*namespace = RelationGetNamespace(result->ri_RelationDesc);
				return true;
			}
	}
	return false;
}

/*
 * Runs the statements in WITH that the query did not read to their end,
 * as standard_ExecutorFinish() does first (they then have nothing left
 * for it): their rows too are gathered before they are written.
 */
static void
finish_with_statements(EState *estate)
{
	MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
	ListCell   *lc;

	estate->es_direction = ForwardScanDirection;
	foreach(lc, estate->es_auxmodifytables)
	{
		PlanState  *statement = lfirst(lc);

		for (;;)
		{
			TupleTableSlot *slot;

			ResetPerTupleExprContext(estate);
			slot = ExecProcNode(statement);
			if (TupIsNull(slot))
				break;
		}
	}
	MemoryContextSwitchTo(old);
}

/*
 * ExecutorFinish of every statement while rows are gathered: a statement
 * on the view writes its rows before the executor fires its AFTER
 * triggers.  Any other statement (a query in a function that the
 * statement calls for each row, say) leaves them gathered.
 */
static void
write_at_executor_finish(QueryDesc *query)
{
	Oid			namespace;

	if (gathering != NULL && writes_face(query->estate, &namespace))
	{
		if (query->totaltime != NULL)
			InstrStartNode(query->totaltime);
		finish_with_statements(query->estate);
		write_gathered(namespace);
		if (query->totaltime != NULL)
			InstrStopNode(query->totaltime, 0);
	}
	if (next_executor_finish != NULL)
		next_executor_finish(query);
	else
		standard_ExecutorFinish(query);
}

/*
 * The AFTER statement trigger of the user's on `relation` that fired
 * before `ours` for the same event (the triggers of one kind fire in name
 * order), or NULL.  A view's triggers cannot be disabled: each fires.
 */
static const Trigger *
trigger_fired_before(Relation relation, const Trigger *ours, TriggerEvent event)
{
	TriggerDesc *triggers = relation->trigdesc;
	int16		kind = TRIGGER_FIRED_BY_INSERT(event) ? TRIGGER_TYPE_INSERT :
		TRIGGER_FIRED_BY_UPDATE(event) ? TRIGGER_TYPE_UPDATE :
		TRIGGER_FIRED_BY_DELETE(event) ? TRIGGER_TYPE_DELETE : TRIGGER_TYPE_TRUNCATE;

	for (int i = 0; triggers != NULL && i < triggers->numtriggers; i++)
	{
		const Trigger *trigger = &triggers->triggers[i];

		if (trigger->tgoid == ours->tgoid)
			break;
		if (TRIGGER_TYPE_MATCHES(trigger->tgtype, TRIGGER_TYPE_STATEMENT, TRIGGER_TYPE_AFTER, kind))
			return trigger;
	}
	return NULL;
}

/*
 * AFTER INSERT, UPDATE or DELETE ON sample FOR EACH STATEMENT: writes the
 * rows that a statement without an executor to finish gathered, those of
 * a COPY.  A statement on the view wrote its rows when its executor
 * finished and finds none here.
 */
Datum
calltree_sample_face_write(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	const Trigger *early;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("calltree_sample_face_write() was not called as a trigger")));
	if (gathering == NULL || gathering->subxid < GetCurrentSubTransactionId())
		return PointerGetDatum(NULL);
	early = trigger_fired_before(trigdata->tg_relation, trigdata->tg_trigger, trigdata->tg_event);
	if (early != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("trigger \"%s\" on \"%s\" fired before the rows of the COPY were written",
						early->tgname, RelationGetRelationName(trigdata->tg_relation)),
				 errdetail("The rows of a COPY into the view are written by its trigger \"%s\", which fires after the statement-level AFTER triggers whose names sort before its own.",
						   trigdata->tg_trigger->tgname),
				 errhint("Rename trigger \"%s\" so that its name sorts after \"%s\" (byte by byte), or load the rows with INSERT, which writes them before any AFTER trigger fires.",
						 early->tgname, trigdata->tg_trigger->tgname)));
	write_gathered(RelationGetNamespace(trigdata->tg_relation));
	return PointerGetDatum(NULL);
}
