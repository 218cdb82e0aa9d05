/*
 * intern_probe.c
 *	  Interned funcs, frames and stacks found by key in their unique indexes.
 *
 * Each table has one unique constraint over its key columns, NULLS NOT
 * DISTINCT (func_key, frame_key, stack_key), so a key names at most one row
 * and a NULL field is searched as IS NULL.  A probe sets one scan key per
 * index column and rescans a scan opened once, which costs an index descent
 * and a heap visibility check: no parsing, planning or executor.
 *
 * The equality functions and collations come from the index itself, so the
 * probes compare exactly as the unique constraint does.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "access/skey.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "executor/tuptable.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "calltree.h"
#include "intern_probe.h"

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
	int			ncolumns;
	int			nkeys;			/* the first nkeys columns are searched */
	FmgrInfo	equal[MAX_KEY_COLUMNS];
	ScanKeyData keys[MAX_KEY_COLUMNS];
} KeyIndex;

struct InternProbe
{
	/*
	 * The scans allocate lazily (btree's list of dead items, for one), so
	 * every probe runs in the context the probe was made in, which lives as
	 * long as the scans: never in the caller's, which may be reset.
	 */
	MemoryContext cxt;
	KeyIndex	funcs;
	KeyIndex	frames;
	KeyIndex	stacks;
	KeyIndex	children;		/* stack_key searched by prefix alone */
	AttrNumber	frame_attnum;	/* of stack */
};

static void
key_index_open(KeyIndex *k, Oid namespace, const char *heap_name, const char *index_name,
			   int ncolumns, int nkeys, Snapshot snapshot)
{
	Oid			heap_relid = calltree_relation(namespace, heap_name);

	k->heap = table_open(heap_relid, AccessShareLock);
	k->index = index_open(calltree_relation(namespace, index_name), AccessShareLock);
	if (IndexRelationGetNumberOfKeyAttributes(k->index) != ncolumns)
		elog(ERROR, "index \"%s\" has %d key columns, expected %d", index_name,
			 IndexRelationGetNumberOfKeyAttributes(k->index), ncolumns);
	k->ncolumns = ncolumns;
	k->nkeys = nkeys;
	for (int i = 0; i < ncolumns; i++)
	{
		Oid			type = k->index->rd_opcintype[i];
		Oid			op = get_opfamily_member(k->index->rd_opfamily[i], type, type,
											 BTEqualStrategyNumber);

		if (!OidIsValid(op))
			elog(ERROR, "no equality operator for column %d of index \"%s\"", i + 1, index_name);
		fmgr_info(get_opcode(op), &k->equal[i]);
	}
	k->id_attnum = calltree_column(heap_relid, "id");
	k->id_is_int4 = TupleDescAttr(RelationGetDescr(k->heap), k->id_attnum - 1)->atttypid == INT4OID;
	k->scan = index_beginscan(k->heap, k->index, snapshot, nkeys, 0);
	k->slot = table_slot_create(k->heap, NULL);
}

static void
key_index_close(KeyIndex *k)
{
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
		ScanKeyEntryInitializeWithInfo(key, 0, column + 1, BTEqualStrategyNumber, InvalidOid,
									   k->index->rd_indcollation[column], &k->equal[column], value);
}

static void
key_set_text(KeyIndex *k, int column, const char *s)
{
	key_set(k, column, s ? PointerGetDatum(cstring_to_text(s)) : (Datum) 0, s == NULL);
}

static void
key_set_int(KeyIndex *k, int column, OptionalInt v, bool int4)
{
	Datum		value = int4 ? Int32GetDatum((int32) v.value) : Int64GetDatum(v.value);

	key_set(k, column, value, !v.present);
}

/* The id of the row with the keys set, or 0; frees the text keys. */
static int64
key_index_find(InternProbe *probe, KeyIndex *k)
{
	MemoryContext old = MemoryContextSwitchTo(probe->cxt);
	int64		id = 0;

	index_rescan(k->scan, k->keys, k->nkeys, NULL, 0);
	if (index_getnext_slot(k->scan, ForwardScanDirection, k->slot))
	{
		bool		isnull;
		Datum		value = slot_getattr(k->slot, k->id_attnum, &isnull);

		if (!isnull)
			id = k->id_is_int4 ? DatumGetInt32(value) : DatumGetInt64(value);
		ExecClearTuple(k->slot);
	}
	for (int i = 0; i < k->nkeys; i++)
		if (!(k->keys[i].sk_flags & SK_ISNULL) && k->index->rd_opcintype[i] == TEXTOID)
			pfree(DatumGetPointer(k->keys[i].sk_argument));
	MemoryContextSwitchTo(old);
	return id;
}

InternProbe *
intern_probe_begin(Snapshot func_snapshot, Snapshot snapshot)
{
	InternProbe *probe = palloc0(sizeof(InternProbe));
	/* the control file fixes the schema: the extension is not relocatable */
	Oid			namespace = get_namespace_oid("calltree", false);

	probe->cxt = CurrentMemoryContext;
	key_index_open(&probe->funcs, namespace, "func", "func_key", 3, 3, func_snapshot);
	key_index_open(&probe->frames, namespace, "frame", "frame_key", 5, 5, snapshot);
	key_index_open(&probe->stacks, namespace, "stack", "stack_key", 2, 2, snapshot);
	key_index_open(&probe->children, namespace, "stack", "stack_key", 2, 1, snapshot);
	probe->frame_attnum = calltree_column(RelationGetRelid(probe->stacks.heap), "frame_id");
	return probe;
}

void
intern_probe_end(InternProbe *probe)
{
	key_index_close(&probe->funcs);
	key_index_close(&probe->frames);
	key_index_close(&probe->stacks);
	key_index_close(&probe->children);
	pfree(probe);
}

int32
intern_probe_func(InternProbe *probe, const char *name, const char *file, const char *resource)
{
	key_set_text(&probe->funcs, 0, name);
	key_set_text(&probe->funcs, 1, file);
	key_set_text(&probe->funcs, 2, resource);
	return (int32) key_index_find(probe, &probe->funcs);
}

int64
intern_probe_frame(InternProbe *probe, int32 func, OptionalInt address,
				   OptionalInt line, OptionalInt col, const char *implementation)
{
	key_set_int(&probe->frames, 0, SOME_INT(func), true);
	key_set_int(&probe->frames, 1, address, false);
	key_set_int(&probe->frames, 2, line, true);
	key_set_int(&probe->frames, 3, col, true);
	key_set_text(&probe->frames, 4, implementation);
	return key_index_find(probe, &probe->frames);
}

/* prefix 0: a root stack (prefix_id IS NULL) */
int64
intern_probe_stack(InternProbe *probe, int64 prefix, int64 frame)
{
	key_set_int(&probe->stacks, 0, prefix ? SOME_INT(prefix) : NO_INT, false);
	key_set_int(&probe->stacks, 1, SOME_INT(frame), false);
	return key_index_find(probe, &probe->stacks);
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
	KeyIndex   *k = &probe->children;
	MemoryContext old = MemoryContextSwitchTo(probe->cxt);
	int			count = 0;

	key_set_int(k, 0, prefix ? SOME_INT(prefix) : NO_INT, false);
	index_rescan(k->scan, k->keys, k->nkeys, NULL, 0);
	while (index_getnext_slot(k->scan, ForwardScanDirection, k->slot))
	{
		bool		frame_null;
		bool		id_null;
		Datum		frame = slot_getattr(k->slot, probe->frame_attnum, &frame_null);
		Datum		id = slot_getattr(k->slot, k->id_attnum, &id_null);

		if (count == max)
		{
			count = -1;
			break;
		}
		if (frame_null || id_null)
			continue;
		frames[count] = DatumGetInt64(frame);
		ids[count] = DatumGetInt64(id);
		count++;
	}
	ExecClearTuple(k->slot);
	MemoryContextSwitchTo(old);
	return count;
}
