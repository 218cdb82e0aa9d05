/*
 * intern_probe.c
 *	  Interned funcs, frames and stacks found by key in their unique indexes.
 *
 * Each table has one constraint over its key columns, NULLS NOT DISTINCT,
 * so a key names at most one row.  stack_key is a unique btree index: a
 * probe sets one scan key per index column (a NULL field is searched as IS
 * NULL) and rescans a scan opened once, which costs an index descent and a
 * heap visibility check: no parsing, planning or executor.
 *
 * func_key and frame_key are exclusion constraints over a hash index of the
 * key columns as one composite value (func_identity, frame_identity), since
 * names can be too long for a btree entry.  A probe of those searches the
 * composite of its key, and compares each row the index returns (a row
 * whose key has the same hash code) in full, with the constraint's own
 * operator: two different keys are two rows, whatever their hash codes.
 *
 * The equality functions and collations come from the index itself, so the
 * probes compare exactly as the constraint does.
 *
 * stack_key also holds the stack's id (INCLUDE), so a probe of a stack
 * reads the heap only when the visibility map cannot vouch for the page, as
 * an index-only scan does: a repeat import probes a million stacks.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/hash.h"
#include "access/htup_details.h"
#include "access/itup.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/skey.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/visibilitymap.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/typcache.h"

#include "store/store.h"
#include "store/intern.h"

#define MAX_KEY_COLUMNS 5

/* One table, its key index, and a scan kept open for rescans */
typedef struct KeyIndex
{
	Relation	heap;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	AttrNumber	id_attnum;
	bool		id_is_int4;
	AttrNumber	frame_attnum;	/* of stack, for children; else 0 */
	/* index-only reads: where id and frame_id are in the index, else 0 */
	int			id_column;
	int			frame_column;
	bool		index_only;		/* the index holds every column read */
	Buffer		vmbuffer;
	int			ncolumns;
	int			nkeys;			/* the first nkeys columns are searched */
	StrategyNumber equal_strategy;	/* of the index's access method */
	FmgrInfo	equal[MAX_KEY_COLUMNS];
	ScanKeyData keys[MAX_KEY_COLUMNS];
	/* a hash index of a composite of heap columns (func_key, frame_key) */
	bool		hashed;
	TupleDesc	key_desc;		/* the composite type */
	AttrNumber	key_attnums[MAX_KEY_COLUMNS];	/* its heap columns */
	Datum		key_values[MAX_KEY_COLUMNS];	/* the key probed for */
	bool		key_nulls[MAX_KEY_COLUMNS];
	HeapTuple	key_tuple;		/* and as a composite */
} KeyIndex;

struct InternProbe
{
	/*
	 * The scans allocate lazily (btree's list of dead items, for one), so
	 * every probe runs in the context the probe was made in, which lives as
	 * long as the scans: never in the caller's, which may be reset.
	 */
	MemoryContext cxt;
	/*
	 * The key indexes are opened by their first probe: a repeat import
	 * finds every row in the backend's intern cache and probes none.
	 */
	Oid			namespace;
	Snapshot	func_snapshot;
	Snapshot	snapshot;
	KeyIndex	funcs;				/* each zeroed until opened (heap NULL) */
	KeyIndex	frames;
	KeyIndex	stacks;
	KeyIndex	children;		/* stack_key searched by prefix alone */
	/* opened by the first probe of an address frame */
	bool		addresses_open;
	KeyIndex	addresses;		/* frame_address_idx: address frames */
	KeyIndex	func_ids;		/* func_pkey, for an address frame's resource */
	AttrNumber	frame_func_attnum;
	AttrNumber	frame_line_attnum;
	AttrNumber	frame_col_attnum;
	AttrNumber	func_resource_attnum;
};

/* The 1-based column of the index that holds heap column attnum, or 0. */
static int
index_column_of(Relation index, AttrNumber attnum)
{
	for (int i = 0; i < index->rd_index->indnatts; i++)
		if (index->rd_index->indkey.values[i] == attnum)
			return i + 1;
	return 0;
}

/*
 * What a query reading the columns of the index and the id would check.
 * The probes read no other column, except the columns of frame and func
 * that the address probes read, which are in frame_key and func_key.
 */
static void
check_read(Relation heap, Relation index, AttrNumber id_attnum)
{
	AttrNumber *columns = palloc(sizeof(AttrNumber) * (index->rd_index->indnatts + 1));
	int			ncolumns = 0;

	for (int i = 0; i < index->rd_index->indnatts; i++)
		if (index->rd_index->indkey.values[i] != 0)	/* 0: an expression */
			columns[ncolumns++] = index->rd_index->indkey.values[i];
	columns[ncolumns++] = id_attnum;
	calltree_check_read(RelationGetRelid(heap), columns, ncolumns);
	pfree(columns);
}

static void
key_index_open(KeyIndex *k, Oid namespace, const char *heap_name, const char *index_name,
			   int ncolumns, int nkeys, Snapshot snapshot)
{
	Oid			heap_relid = calltree_local_relation(namespace, heap_name);

	k->heap = table_open(heap_relid, AccessShareLock);
	k->index = index_open(calltree_local_relation(namespace, index_name), AccessShareLock);
	if (IndexRelationGetNumberOfKeyAttributes(k->index) != ncolumns)
		elog(ERROR, "index \"%s\" has %d key columns, expected %d", index_name,
			 IndexRelationGetNumberOfKeyAttributes(k->index), ncolumns);
	k->id_attnum = calltree_column(heap_relid, "id");
	check_read(k->heap, k->index, k->id_attnum);
	k->ncolumns = ncolumns;
	k->nkeys = nkeys;
	k->equal_strategy = k->index->rd_rel->relam == HASH_AM_OID ? HTEqualStrategyNumber
		: BTEqualStrategyNumber;
	for (int i = 0; i < ncolumns; i++)
	{
		Oid			type = k->index->rd_opcintype[i];
		Oid			op = get_opfamily_member(k->index->rd_opfamily[i], type, type,
											 k->equal_strategy);

		if (!OidIsValid(op))
			elog(ERROR, "no equality operator for column %d of index \"%s\"", i + 1, index_name);
		fmgr_info(get_opcode(op), &k->equal[i]);
	}
	k->id_is_int4 = TupleDescAttr(RelationGetDescr(k->heap), k->id_attnum - 1)->atttypid == INT4OID;
	k->frame_attnum = strcmp(heap_name, "stack") == 0 ? calltree_column(heap_relid, "frame_id") : 0;
	k->id_column = index_column_of(k->index, k->id_attnum);
	k->frame_column = k->frame_attnum ? index_column_of(k->index, k->frame_attnum) : 0;
	k->index_only = k->id_column > 0 && (k->frame_attnum == 0 || k->frame_column > 0);
	k->vmbuffer = InvalidBuffer;
	k->scan = index_beginscan(k->heap, k->index, snapshot, nkeys, 0);
	k->scan->xs_want_itup = k->index_only;
	k->slot = table_slot_create(k->heap, NULL);
}

/*
 * What a query reading the key of a hashed index and the id would check:
 * the index names no heap column (its key is an expression), so
 * check_read saw only the id.
 */
static void
check_hashed_key_read(KeyIndex *k, int ncolumns)
{
	AttrNumber	columns[MAX_KEY_COLUMNS + 1];

	memcpy(columns, k->key_attnums, sizeof(AttrNumber) * ncolumns);
	columns[ncolumns] = k->id_attnum;
	calltree_check_read(RelationGetRelid(k->heap), columns, ncolumns + 1);
}

/*
 * Opens the key index of funcs or frames: a hash index over one composite
 * of heap columns, `columns` in the composite's order, or (in a database
 * not yet updated from version 0.1) a unique btree index of those columns.
 */
static void
hashed_key_open(KeyIndex *k, Oid namespace, const char *heap_name, const char *index_name,
				const char *const *columns, int ncolumns, Snapshot snapshot)
{
	Relation	index = index_open(calltree_local_relation(namespace, index_name), AccessShareLock);
	bool		hashed = index->rd_rel->relam == HASH_AM_OID;

	index_close(index, NoLock);
	if (!hashed)
	{
		key_index_open(k, namespace, heap_name, index_name, ncolumns, ncolumns, snapshot);
		return;
	}
	key_index_open(k, namespace, heap_name, index_name, 1, 1, snapshot);
	k->hashed = true;
	/* the index stores hash codes: the composite's type is its expression's */
	k->key_desc = lookup_rowtype_tupdesc_copy(exprType(linitial(RelationGetIndexExpressions(k->index))), -1);
	if (k->index->rd_rel->relam != HASH_AM_OID || k->key_desc->natts != ncolumns)
		elog(ERROR, "index \"%s\" is not a hash index of %d columns", index_name, ncolumns);
	for (int i = 0; i < ncolumns; i++)
		k->key_attnums[i] = calltree_column(RelationGetRelid(k->heap), columns[i]);
	check_hashed_key_read(k, ncolumns);
}

static void
key_index_close(KeyIndex *k)
{
	if (BufferIsValid(k->vmbuffer))
		ReleaseBuffer(k->vmbuffer);
	ExecDropSingleTupleTableSlot(k->slot);
	index_endscan(k->scan);
	index_close(k->index, NoLock);
	table_close(k->heap, NoLock);
}

/* Sets key column `column` (0-based) to a value, or to IS NULL. */
static void
key_set(KeyIndex *k, int column, Datum value, bool isnull)
{
	ScanKey		key = &k->keys[column];

	if (isnull)
		ScanKeyEntryInitialize(key, SK_ISNULL | SK_SEARCHNULL, column + 1,
							   InvalidStrategy, InvalidOid, InvalidOid, InvalidOid, (Datum) 0);
	else
		ScanKeyEntryInitializeWithInfo(key, 0, column + 1, k->equal_strategy, InvalidOid,
									   k->index->rd_indcollation[column], &k->equal[column], value);
}

/*
 * Field `field` of the key of funcs or frames, text or NULL: of the
 * composite a hashed index searches, or a btree index's column.
 */
static void
hashed_key_text(KeyIndex *k, int field, const char *s)
{
	Datum		value = s ? PointerGetDatum(cstring_to_text(s)) : (Datum) 0;

	if (!k->hashed)
	{
		key_set(k, field, value, s == NULL);
		return;
	}
	k->key_values[field] = value;
	k->key_nulls[field] = s == NULL;
}

static void
hashed_key_int(KeyIndex *k, int field, OptionalInt v, bool int4)
{
	Datum		value = int4 ? Int32GetDatum((int32) v.value) : Int64GetDatum(v.value);

	if (!k->hashed)
	{
		key_set(k, field, value, !v.present);
		return;
	}
	k->key_values[field] = value;
	k->key_nulls[field] = !v.present;
}

/* Searches the composite of the fields set. */
static void
hashed_key_search(KeyIndex *k)
{
	k->key_tuple = heap_form_tuple(k->key_desc, k->key_values, k->key_nulls);
	key_set(k, 0, HeapTupleGetDatum(k->key_tuple), false);
}

/* Whether the row in the slot has the key searched, compared in full */
static bool
hashed_key_matches(KeyIndex *k, TupleTableSlot *slot)
{
	Datum		values[MAX_KEY_COLUMNS];
	bool		nulls[MAX_KEY_COLUMNS];
	HeapTuple	row;
	bool		equal;

	for (int i = 0; i < k->key_desc->natts; i++)
		values[i] = slot_getattr(slot, k->key_attnums[i], &nulls[i]);
	row = heap_form_tuple(k->key_desc, values, nulls);
	equal = DatumGetBool(FunctionCall2Coll(&k->equal[0], k->index->rd_indcollation[0],
										   HeapTupleGetDatum(row), HeapTupleGetDatum(k->key_tuple)));
	heap_freetuple(row);
	return equal;
}

/* Frees the key of a hashed index's search */
static void
hashed_key_free(KeyIndex *k)
{
	for (int i = 0; i < k->key_desc->natts; i++)
		if (!k->key_nulls[i] && TupleDescAttr(k->key_desc, i)->atttypid == TEXTOID)
			pfree(DatumGetPointer(k->key_values[i]));
	heap_freetuple(k->key_tuple);
	k->key_tuple = NULL;
}
static void
key_set_int(KeyIndex *k, int column, OptionalInt v, bool int4)
{
	Datum		value = int4 ? Int32GetDatum((int32) v.value) : Int64GetDatum(v.value);

	key_set(k, column, value, !v.present);
}

static int64
int_value(Datum value, bool isnull, bool int4)
{
	if (isnull)
		return 0;
	return int4 ? DatumGetInt32(value) : DatumGetInt64(value);
}

/*
 * The next visible row of the scan: its id, and its frame_id for a scan of
 * stack (0 when NULL).  From the index entry when the visibility map says
 * every row of its heap page is visible (and the index holds the columns),
 * from the heap row otherwise.  False at the end of the scan.
 */
static bool
key_index_next(KeyIndex *k, int64 *id, int64 *frame)
{
	ItemPointer tid;
	bool		isnull;

	while ((tid = index_getnext_tid(k->scan, ForwardScanDirection)) != NULL)
	{
		if (k->index_only && VM_ALL_VISIBLE(k->heap, ItemPointerGetBlockNumber(tid), &k->vmbuffer))
		{
			IndexTuple	entry = k->scan->xs_itup;
			TupleDesc	desc = k->scan->xs_itupdesc;
			Datum		value;

			value = index_getattr(entry, k->id_column, desc, &isnull);
			*id = int_value(value, isnull, k->id_is_int4);
			if (k->frame_attnum)
			{
				value = index_getattr(entry, k->frame_column, desc, &isnull);
				*frame = int_value(value, isnull, false);
			}
			/* no heap tuple to lock: the page, as an index-only scan does */
			PredicateLockPage(k->heap, ItemPointerGetBlockNumber(tid), k->scan->xs_snapshot);
			return true;
		}
		if (index_fetch_heap(k->scan, k->slot))
		{
			Datum		value;

			if (k->hashed && !hashed_key_matches(k, k->slot))
			{
				ExecClearTuple(k->slot);	/* the same hash code, another key */
				continue;
			}
			value = slot_getattr(k->slot, k->id_attnum, &isnull);

			*id = int_value(value, isnull, k->id_is_int4);
			if (k->frame_attnum)
			{
				value = slot_getattr(k->slot, k->frame_attnum, &isnull);
				*frame = int_value(value, isnull, false);
			}
			ExecClearTuple(k->slot);
			return true;
		}
	}
	return false;
}

/* The id of the row with the keys set, or 0; frees the text keys. */
static int64
key_index_find(InternProbe *probe, KeyIndex *k)
{
	MemoryContext old = MemoryContextSwitchTo(probe->cxt);
	int64		id = 0;
	int64		frame;

	if (k->hashed)
		hashed_key_search(k);
	index_rescan(k->scan, k->keys, k->nkeys, NULL, 0);
	if (!key_index_next(k, &id, &frame))
		id = 0;
	if (k->hashed)
		hashed_key_free(k);
	else
		for (int i = 0; i < k->nkeys; i++)
			if (!(k->keys[i].sk_flags & SK_ISNULL) && k->index->rd_opcintype[i] == TEXTOID)
				pfree(DatumGetPointer(k->keys[i].sk_argument));
	MemoryContextSwitchTo(old);
	return id;
}

static const char *const func_columns[] = {"name", "file", "resource"};
static const char *const frame_columns[] = {"func_id", "address", "line", "col", "implementation"};

/* One of the probe's key indexes (funcs, frames, stacks, children), opened on first use */
static KeyIndex *
probe_index(InternProbe *probe, KeyIndex *k)
{
	MemoryContext old;

	if (k->heap != NULL)
		return k;
	old = MemoryContextSwitchTo(probe->cxt);
	if (k == &probe->funcs)
		hashed_key_open(k, probe->namespace, "func", "func_key", func_columns, 3, probe->func_snapshot);
	else if (k == &probe->frames)
		hashed_key_open(k, probe->namespace, "frame", "frame_key", frame_columns, 5, probe->snapshot);
	else
		/* stacks by their whole key, children by its first column, the prefix */
		key_index_open(k, probe->namespace, "stack", "stack_key", 2, k == &probe->stacks ? 2 : 1,
					   probe->snapshot);
	MemoryContextSwitchTo(old);
	return k;
}

/*
 * Whether the user may read the whole table directly: SELECT on it, and no
 * row-level security applying.  Else the probe opens its indexes at once,
 * which checks the columns it reads and reports what is missing, as before
 * a probe that the backend's intern cache makes needless.
 */
static bool
table_readable(Oid namespace, const char *name)
{
	Oid			relid = calltree_local_relation(namespace, name);

	return pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
		check_enable_rls(relid, InvalidOid, true) != RLS_ENABLED;
}

InternProbe *
intern_probe_begin(Snapshot func_snapshot, Snapshot snapshot)
{
	/* a context of its own, so that ending the probe frees all of it */
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree probe",
											  ALLOCSET_SMALL_SIZES);
	InternProbe *probe = MemoryContextAllocZero(cxt, sizeof(InternProbe));

	probe->cxt = cxt;
	/* the control file fixes the schema: the extension is not relocatable */
	probe->namespace = calltree_namespace();
	probe->func_snapshot = func_snapshot;
	probe->snapshot = snapshot;
	if (!table_readable(probe->namespace, "func") || !table_readable(probe->namespace, "frame") ||
		!table_readable(probe->namespace, "stack"))
	{
		(void) probe_index(probe, &probe->funcs);
		(void) probe_index(probe, &probe->frames);
		(void) probe_index(probe, &probe->stacks);
	}
	return probe;
}

void
intern_probe_end(InternProbe *probe)
{
	KeyIndex   *opened[] = {&probe->funcs, &probe->frames, &probe->stacks, &probe->children};

	for (int i = 0; i < lengthof(opened); i++)
		if (opened[i]->heap != NULL)
			key_index_close(opened[i]);
	if (probe->addresses_open)
	{
		key_index_close(&probe->addresses);
		key_index_close(&probe->func_ids);
	}
	MemoryContextDelete(probe->cxt);	/* the probe itself too */
}

int32
intern_probe_func(InternProbe *probe, const char *name, const char *file, const char *resource)
{
	KeyIndex   *k = probe_index(probe, &probe->funcs);
	MemoryContext old = MemoryContextSwitchTo(probe->cxt);

	hashed_key_text(k, 0, name);
	hashed_key_text(k, 1, file);
	hashed_key_text(k, 2, resource);
	MemoryContextSwitchTo(old);
	return (int32) key_index_find(probe, k);
}

int64
intern_probe_frame(InternProbe *probe, int32 func, OptionalInt address,
				   OptionalInt line, OptionalInt col, const char *implementation)
{
	KeyIndex   *k = probe_index(probe, &probe->frames);
	MemoryContext old = MemoryContextSwitchTo(probe->cxt);

	hashed_key_int(k, 0, SOME_INT(func), true);
	hashed_key_int(k, 1, address, false);
	hashed_key_int(k, 2, line, true);
	hashed_key_int(k, 3, col, true);
	hashed_key_text(k, 4, implementation);
	MemoryContextSwitchTo(old);
	return key_index_find(probe, k);
}

/* prefix 0: a root stack (prefix_id IS NULL) */
int64
intern_probe_stack(InternProbe *probe, int64 prefix, int64 frame)
{
	KeyIndex   *k = probe_index(probe, &probe->stacks);

	key_set_int(k, 0, prefix ? SOME_INT(prefix) : NO_INT, false);
	key_set_int(k, 1, SOME_INT(frame), false);
	return key_index_find(probe, k);
}

/*
 * The children of a stack (prefix 0: the roots), at most `max` of them,
 * into frames[] and ids[]: their number, or -1 when there are more.  One
 * index descent and a range of leaf entries, where probing each child would
 * descend once per child.
 */
int
intern_probe_children(InternProbe *probe, int64 prefix, int64 *frames, int64 *ids, int max)
{
	KeyIndex   *k = probe_index(probe, &probe->children);
	MemoryContext old = MemoryContextSwitchTo(probe->cxt);
	int			count = 0;
	int64		id;
	int64		frame;

	key_set_int(k, 0, prefix ? SOME_INT(prefix) : NO_INT, false);
	index_rescan(k->scan, k->keys, k->nkeys, NULL, 0);
	while (key_index_next(k, &id, &frame))
	{
		if (count == max)
		{
			count = -1;
			break;
		}
		frames[count] = frame;
		ids[count] = id;
		count++;
	}
	MemoryContextSwitchTo(old);
	return count;
}

/*
 * About how many rows the stack table holds now: its pages now, times the
 * rows per page at its last ANALYZE or VACUUM (a guess if never), as the
 * planner estimates a table's size.
 */
double
intern_probe_stack_rows(InternProbe *probe)
{
	Relation	heap = probe_index(probe, &probe->stacks)->heap;
	BlockNumber pages = RelationGetNumberOfBlocks(heap);
	double		density = BLCKSZ / 48.0;	/* about 48 bytes a row */

	if (heap->rd_rel->relpages > 0 && heap->rd_rel->reltuples >= 0)
		density = heap->rd_rel->reltuples / heap->rd_rel->relpages;
	return pages * density;
}

/* An int8 column of the slot's row; 0 for NULL */
static inline int64
slot_int8(TupleTableSlot *slot, AttrNumber attnum)
{
	bool		isnull;
	Datum		value = slot_getattr(slot, attnum, &isnull);

	return isnull ? 0 : DatumGetInt64(value);
}

/*
 * Every stack visible in the snapshot of stack probes, passed to `each` as
 * (id, prefix or 0, frame): one sequential read of the table.
 */
void
intern_probe_all_stacks(InternProbe *probe, EachStack each, void *arg)
{
	KeyIndex   *k = probe_index(probe, &probe->stacks);
	MemoryContext old = MemoryContextSwitchTo(probe->cxt);
	AttrNumber	prefix_attnum = calltree_column(RelationGetRelid(k->heap), "prefix_id");
	TableScanDesc scan = table_beginscan(k->heap, k->scan->xs_snapshot, 0, NULL);
	TupleTableSlot *slot = table_slot_create(k->heap, NULL);
	uint64		count = 0;

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		if ((++count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		each(arg, slot_int8(slot, k->id_attnum), slot_int8(slot, prefix_attnum),
			 slot_int8(slot, k->frame_attnum));
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	MemoryContextSwitchTo(old);
}

/* Opens the indexes of address frames, in the frames' snapshot */
static void
open_addresses(InternProbe *probe)
{
	Snapshot	snapshot = probe_index(probe, &probe->frames)->scan->xs_snapshot;
	Oid			frame_relid = RelationGetRelid(probe->frames.heap);
	MemoryContext old = MemoryContextSwitchTo(probe->cxt);

	key_index_open(&probe->addresses, probe->namespace, "frame", "frame_address_idx", 1, 1, snapshot);
	key_index_open(&probe->func_ids, probe->namespace, "func", "func_pkey", 1, 1, snapshot);
	MemoryContextSwitchTo(old);
	probe->frame_func_attnum = calltree_column(frame_relid, "func_id");
	probe->frame_line_attnum = calltree_column(frame_relid, "line");
	probe->frame_col_attnum = calltree_column(frame_relid, "col");
	probe->func_resource_attnum = calltree_column(RelationGetRelid(probe_index(probe, &probe->funcs)->heap), "resource");
	probe->addresses_open = true;
}

/* Whether func `id` has resource `resource` */
static bool
func_has_resource(InternProbe *probe, int32 id, const char *resource)
{
	KeyIndex   *k = &probe->func_ids;
	size_t		len = strlen(resource);
	bool		matches = false;
	bool		isnull;
	Datum		value;

	key_set_int(k, 0, SOME_INT(id), true);
	index_rescan(k->scan, k->keys, k->nkeys, NULL, 0);
	if (index_getnext_slot(k->scan, ForwardScanDirection, k->slot))
	{
		value = slot_getattr(k->slot, probe->func_resource_attnum, &isnull);
		if (!isnull)
		{
			text	   *stored = DatumGetTextPP(value);

			matches = VARSIZE_ANY_EXHDR(stored) == len && memcmp(VARDATA_ANY(stored), resource, len) == 0;
			if ((Pointer) stored != DatumGetPointer(value))
				pfree(stored);
		}
		ExecClearTuple(k->slot);
	}
	return matches;
}

/*
 * The address frame of `resource` at `address`, as intern_address() finds
 * it (implementation 'address', no line or column, a func of that
 * resource), or 0: the frames at that address through frame_address_idx,
 * each func's resource through func_pkey.
 */
int64
intern_probe_address(InternProbe *probe, const char *resource, int64 address)
{
	KeyIndex   *k = &probe->addresses;
	MemoryContext old = MemoryContextSwitchTo(probe->cxt);
	int64		found = 0;

	if (!probe->addresses_open)
		open_addresses(probe);

	key_set_int(k, 0, SOME_INT(address), false);
	index_rescan(k->scan, k->keys, k->nkeys, NULL, 0);
	while (found == 0 && index_getnext_slot(k->scan, ForwardScanDirection, k->slot))
	{
		bool		isnull;
		int32		func = DatumGetInt32(slot_getattr(k->slot, probe->frame_func_attnum, &isnull));

		(void) slot_getattr(k->slot, probe->frame_line_attnum, &isnull);
		if (isnull)
			(void) slot_getattr(k->slot, probe->frame_col_attnum, &isnull);
		if (isnull && func_has_resource(probe, func, resource))
			found = slot_int8(k->slot, k->id_attnum);
		ExecClearTuple(k->slot);
	}
	MemoryContextSwitchTo(old);
	return found;
}
