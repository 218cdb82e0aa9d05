/*
 * stack_garbage.c
 *	  The stacks that collect_garbage() deletes: those that no sample uses,
 *	  nor any longer stack as its prefix.
 *
 * From the stacks of samples, the prefix chain of each is walked up to the
 * first stack already seen, each row looked up in the primary-key index;
 * then one sequential pass over the table lists the stacks not seen.  So
 * each used stack is read once, and the table once more, however deep the
 * stacks.  No query plan is involved: as a recursive query, one join per
 * level of the deepest stack, the walk depended on the planner's choice
 * at every level, and a hash of the whole table built again at each one
 * (once it overflowed work_mem), or a whole index read per stack (on
 * statistics taken when the table was nearly empty), read the table as
 * many times as the deepest stack has frames.
 *
 * The rows are read under the active snapshot, after the checks a SELECT
 * of them would make (calltree_check_read).  collect_garbage() holds the
 * stacks against imports meanwhile.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "tree/hash64.h"
#include "store/store.h"

PG_FUNCTION_INFO_V1(calltree_unused_stacks);

/* a stack found used */
typedef struct UsedStack
{
	int64		stack_id;
	char		status;
} UsedStack;

#define SH_PREFIX		used
#define SH_ELEMENT_TYPE UsedStack
#define SH_KEY_TYPE		int64
#define SH_KEY			stack_id
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* calltree.stack, read by primary key */
typedef struct StackProbe
{
	Relation	heap;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	AttrNumber	id_attnum;
	AttrNumber	prefix_attnum;
} StackProbe;

static void
stack_probe_open(StackProbe *probe)
{
	/* the control file fixes the schema: the extension is not relocatable */
	Oid			namespace = get_namespace_oid("calltree", false);
	Oid			stacks = calltree_local_relation(namespace, "stack");
	AttrNumber	columns[2];

	columns[0] = probe->id_attnum = calltree_column(stacks, "id");
	columns[1] = probe->prefix_attnum = calltree_column(stacks, "prefix_id");
	/* as SELECT id, prefix_id FROM stack */
	calltree_check_read(stacks, columns, lengthof(columns));
	probe->heap = table_open(stacks, AccessShareLock);
	probe->index = index_open(calltree_local_relation(namespace, "stack_pkey"), AccessShareLock);
	probe->scan = index_beginscan(probe->heap, probe->index, GetActiveSnapshot(), 1, 0);
	probe->slot = table_slot_create(probe->heap, NULL);
}

static void
stack_probe_close(StackProbe *probe)
{
	ExecDropSingleTupleTableSlot(probe->slot);
	index_endscan(probe->scan);
	index_close(probe->index, NoLock);
	table_close(probe->heap, NoLock);
}

/* Whether a stack has a prefix (false for a root, or a stack with no row). */
static bool
stack_prefix(StackProbe *probe, int64 stack_id, int64 *prefix)
{
	ScanKeyData key;
	Datum		value;
	bool		isnull;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(stack_id));
	index_rescan(probe->scan, &key, 1, NULL, 0);
	if (!index_getnext_slot(probe->scan, ForwardScanDirection, probe->slot))
		return false;
	value = slot_getattr(probe->slot, probe->prefix_attnum, &isnull);
	*prefix = isnull ? 0 : DatumGetInt64(value);
	return !isnull;
}

/*
 * Adds a stack and its prefixes to the used ones, up to the first one
 * there already (whose prefixes are).  The set also ends a cycle, which
 * the table's CHECK (prefix_id < id) forbids anyway.
 */
static void
mark_used(StackProbe *probe, used_hash *used, int64 stack_id)
{
	bool		found;

	do
	{
		CHECK_FOR_INTERRUPTS();
		used_insert(used, stack_id, &found);
	} while (!found && stack_prefix(probe, stack_id, &stack_id));
}

/* The ids of the rows of calltree.stack that are not used, in one pass. */
static Datum
unused_ids(StackProbe *probe, used_hash *used)
{
	TableScanDesc scan = table_beginscan(probe->heap, GetActiveSnapshot(), 0, NULL);
	TupleTableSlot *slot = table_slot_create(probe->heap, NULL);
	ArrayBuildState *unused = initArrayResult(INT8OID, CurrentMemoryContext, false);
	uint64		rows = 0;

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		isnull;
		int64		id = DatumGetInt64(slot_getattr(slot, probe->id_attnum, &isnull));

		if ((++rows & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!isnull && used_lookup(used, id) == NULL)
			accumArrayResult(unused, Int64GetDatum(id), false, INT8OID, CurrentMemoryContext);
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	return makeArrayResult(unused, CurrentMemoryContext);
}

/*
 * unused_stacks(sampled bigint[]) → bigint[]: the stacks that are neither
 * in `sampled` nor a prefix of one of them, in the table's order.
 */
Datum
calltree_unused_stacks(PG_FUNCTION_ARGS)
{
	ArrayType  *sampled = PG_GETARG_ARRAYTYPE_P(0);
	Datum	   *ids;
	bool	   *nulls;
	int			nids;
	StackProbe	probe;
	used_hash  *used;
	Datum		unused;

	deconstruct_array(sampled, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &ids, &nulls, &nids);
	stack_probe_open(&probe);
	used = used_create(CurrentMemoryContext, Max(nids, 1024), NULL);
	for (int i = 0; i < nids; i++)
		if (!nulls[i])
			mark_used(&probe, used, DatumGetInt64(ids[i]));
	unused = unused_ids(&probe, used);
	stack_probe_close(&probe);
	PG_RETURN_DATUM(unused);
}
