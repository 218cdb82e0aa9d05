/*
 * stack_garbage.c
 *	  The stacks that collect_garbage() deletes: those that no sample uses,
 *	  nor any longer stack as its prefix.
 *
 * The table is read once, sequentially, its (id, prefix) pairs sorted by
 * id in memory.  The stacks of samples are marked used; then one pass from
 * the highest id down marks the prefix of every used stack, which comes
 * later in the same pass since a prefix is lower than its stack (CHECK
 * (prefix_id < id)).  The stacks left unmarked are the garbage.  So the
 * cost is that of reading the table once and sorting it, however deep the
 * stacks, and no query plan is involved: as a recursive query, one join
 * per level of the deepest stack, the walk depended on the planner's
 * choice at every level, and a hash of the whole table built again at
 * each one (once it overflowed work_mem), or a whole index read per stack
 * (on statistics taken when the table was nearly empty), read the table as
 * many times as the deepest stack has frames.
 *
 * The rows are read under the active snapshot, after the checks a SELECT
 * of them would make (calltree_check_read).  collect_garbage() holds the
 * stacks against imports meanwhile.  Memory: 24 bytes a stack (240 MB for
 * ten million), in the caller's context, freed when it returns.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "store/store.h"

PG_FUNCTION_INFO_V1(calltree_unused_stacks);

/* a row of calltree.stack */
typedef struct StackLink
{
	int64		id;
	int64		prefix;
	bool		root;			/* no prefix */
	bool		used;
} StackLink;

typedef struct StackLinks
{
	StackLink  *links;			/* by id, ascending, once read */
	int64		count;
	int64		capacity;
} StackLinks;

static void
links_add(StackLinks *links, int64 id, bool root, int64 prefix)
{
	if (links->count == links->capacity)
	{
		links->capacity *= 2;
		links->links = repalloc_huge(links->links, sizeof(StackLink) * links->capacity);
	}
	links->links[links->count].id = id;
	links->links[links->count].prefix = prefix;
	links->links[links->count].root = root;
	links->links[links->count].used = false;
	links->count++;
}

static int
link_cmp(const void *a, const void *b)
{
	int64		x = ((const StackLink *) a)->id;
	int64		y = ((const StackLink *) b)->id;

	return (x > y) - (x < y);
}

/* The rows of calltree.stack, by id. */
static void
read_links(StackLinks *links)
{
	Oid			stacks;
	AttrNumber	columns[2];
	Relation	heap;
	TableScanDesc scan;
	TupleTableSlot *slot;

	/*
	 * The lock, which may wait for a DROP EXTENSION open in another
	 * session, taken before the table is found (found before, it could be
	 * the dropped one)
	 */
	(void) calltree_locked_relation("stack", AccessShareLock);
	/* the control file fixes the schema: the extension is not relocatable */
	stacks = calltree_local_relation(get_namespace_oid("calltree", false), "stack");
	columns[0] = calltree_column(stacks, "id");
	columns[1] = calltree_column(stacks, "prefix_id");
	/* as SELECT id, prefix_id FROM stack */
	calltree_check_read(stacks, columns, lengthof(columns));
	heap = table_open(stacks, AccessShareLock);
	/*
	 * the size the statistics give, at most what the table's pages hold, so
	 * that a big table is not copied at every doubling
	 */
	links->capacity = (int64) Min(Max(heap->rd_rel->reltuples * 1.05, 0.0),
								  (double) RelationGetNumberOfBlocks(heap) * MaxHeapTuplesPerPage) + 1024;
	links->links = palloc_extended(sizeof(StackLink) * links->capacity, MCXT_ALLOC_HUGE);
	links->count = 0;
	scan = table_beginscan(heap, GetActiveSnapshot(), 0, NULL);
	slot = table_slot_create(heap, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		id_null;
		bool		root;
		int64		id = DatumGetInt64(slot_getattr(slot, columns[0], &id_null));
		Datum		prefix = slot_getattr(slot, columns[1], &root);

		if ((links->count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!id_null)
			links_add(links, id, root, root ? 0 : DatumGetInt64(prefix));
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
	table_close(heap, NoLock);
	qsort(links->links, links->count, sizeof(StackLink), link_cmp);
}

/* The link of a stack id, or NULL when the table has no such row. */
static StackLink *
find_link(const StackLinks *links, int64 id)
{
	StackLink	key = {.id = id};

	return bsearch(&key, links->links, links->count, sizeof(StackLink), link_cmp);
}

/*
 * Marks the stacks of samples, then the prefixes of the used ones from
 * the highest id down.
 */
static void
mark_used(StackLinks *links, const Datum *sampled, const bool *nulls, int nsampled)
{
	for (int i = 0; i < nsampled; i++)
	{
		StackLink  *link = nulls[i] ? NULL : find_link(links, DatumGetInt64(sampled[i]));

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (link != NULL)
			link->used = true;
	}
	for (int64 i = links->count - 1; i >= 0; i--)
	{
		StackLink  *link = &links->links[i];
		StackLink  *prefix;

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!link->used || link->root)
			continue;
		prefix = find_link(links, link->prefix);
		if (prefix == NULL)
			continue;
		/* a stack below its prefix would be passed already: the CHECK forbids it */
		if (prefix >= link)
			elog(ERROR, "stack " INT64_FORMAT " has prefix " INT64_FORMAT ", not a lower id",
				 link->id, link->prefix);
		prefix->used = true;
	}
}

/*
 * unused_stacks(sampled bigint[]) → bigint[]: the stacks that are neither
 * in `sampled` nor a prefix of one of them, ascending.
 */
Datum
calltree_unused_stacks(PG_FUNCTION_ARGS)
{
	ArrayType  *sampled = PG_GETARG_ARRAYTYPE_P(0);
	Datum	   *ids;
	bool	   *nulls;
	int			nids;
	StackLinks	links;
	ArrayBuildState *unused = initArrayResult(INT8OID, CurrentMemoryContext, false);

	deconstruct_array(sampled, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &ids, &nulls, &nids);
	read_links(&links);
	mark_used(&links, ids, nulls, nids);
	for (int64 i = 0; i < links.count; i++)
		if (!links.links[i].used)
			accumArrayResult(unused, Int64GetDatum(links.links[i].id), false, INT8OID, CurrentMemoryContext);
	PG_RETURN_DATUM(makeArrayResult(unused, CurrentMemoryContext));
}
