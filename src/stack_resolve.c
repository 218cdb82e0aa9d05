/*
 * stack_resolve.c
 *	  From stack ids to func paths, through the tables calltree.stack and
 *	  calltree.frame.
 *
 * A stack row is (id, prefix_id, frame_id) and a frame belongs to a func.
 * Resolving a stack walks its prefix chain up to the first stack already
 * resolved (or to a root), then adds the chain's funcs to a tree builder
 * from the top down and remembers the node of every stack on the way.  So
 * each stack row is read once however many samples or descendants share it.
 *
 * Rows are read with the primary-key indexes directly, one probe per row,
 * under the query's snapshot; or, when a query needs a good share of the
 * stack table (a big profile), both tables are read once sequentially into
 * memory first, which is far cheaper than that many probes.  The walk trusts nothing: a missing stack, a
 * dangling prefix or a prefix that is not smaller than its stack (the only
 * way a cycle can arise, and one the table's CHECK constraint forbids) is an
 * error that names the stack, never a hang.
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/relation.h"
#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_type.h"
#include "catalog/namespace.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "calltree.h"

PG_FUNCTION_INFO_V1(calltree_stack_path);

/* One of the two tables, read by primary key. */
typedef struct KeyedTable
{
	Relation	heap;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
} KeyedTable;

/* stack id -> its node in the builder, and its row */
typedef struct ResolvedStack
{
	int64		stack_id;
	int64		prefix;			/* 0 for a root */
	int64		frame;
	int32		node;
	int32		depth;			/* 0 for a root */
	char		status;
} ResolvedStack;

#define SH_PREFIX		resolved
#define SH_ELEMENT_TYPE ResolvedStack
#define SH_KEY_TYPE		int64
#define SH_KEY			stack_id
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* frame id -> func id */
typedef struct FrameFunc
{
	int64		frame_id;
	int32		func;
	char		status;
} FrameFunc;

#define SH_PREFIX		framefuncs
#define SH_ELEMENT_TYPE FrameFunc
#define SH_KEY_TYPE		int64
#define SH_KEY			frame_id
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* stack id -> its row, when the table is read whole */
typedef struct StackRow
{
	int64		stack_id;
	int64		prefix;			/* 0 for a root */
	int64		frame;
	char		status;
} StackRow;

#define SH_PREFIX		stackrows
#define SH_ELEMENT_TYPE StackRow
#define SH_KEY_TYPE		int64
#define SH_KEY			stack_id
#define SH_HASH_KEY(tb, k)	calltree_hash64((uint64) (k))
#define SH_EQUAL(tb, a, b)	((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* A stack on the walk up, not resolved yet. */
typedef struct ChainLink
{
	int64		stack_id;
	int64		prefix;
	int64		frame;
	int32		func;
} ChainLink;

struct StackResolver
{
	TreeBuilder *builder;
	KeyedTable	stacks;
	KeyedTable	frames;
	AttrNumber	stack_id_attnum;
	AttrNumber	prefix_attnum;
	AttrNumber	frame_attnum;
	AttrNumber	frame_id_attnum;
	AttrNumber	func_attnum;
	stackrows_hash *rows;		/* the whole stack table, or NULL */
	resolved_hash *resolved;
	framefuncs_hash *frame_funcs;
	ChainLink  *chain;
	int32		chain_capacity;
};

static Oid
calltree_relation(Oid namespace, const char *name)
{
	Oid			relid = get_relname_relid(name, namespace);

	if (!OidIsValid(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"calltree.%s\" does not exist", name),
				 errhint("Reinstall the extension with DROP EXTENSION calltree; CREATE EXTENSION calltree.")));
	return relid;
}

static AttrNumber
calltree_column(Oid relid, const char *name)
{
	AttrNumber	attnum = get_attnum(relid, name);

	if (attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						name, get_rel_name(relid))));
	return attnum;
}

static void
keyed_table_open(KeyedTable *table, Oid namespace, const char *heap_name, const char *index_name)
{
	table->heap = table_open(calltree_relation(namespace, heap_name), AccessShareLock);
	table->index = index_open(calltree_relation(namespace, index_name), AccessShareLock);
	table->scan = index_beginscan(table->heap, table->index, GetActiveSnapshot(), 1, 0);
	table->slot = table_slot_create(table->heap, NULL);
}

/* The row with primary key `id` in table->slot; false if there is none. */
static bool
keyed_table_fetch(KeyedTable *table, int64 id)
{
	ScanKeyData key;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(id));
	index_rescan(table->scan, &key, 1, NULL, 0);
	return index_getnext_slot(table->scan, ForwardScanDirection, table->slot);
}

static void
keyed_table_close(KeyedTable *table)
{
	ExecDropSingleTupleTableSlot(table->slot);
	index_endscan(table->scan);
	index_close(table->index, NoLock);
	table_close(table->heap, NoLock);
}

StackResolver *
stack_resolver_begin(TreeBuilder *builder)
{
	StackResolver *resolver = palloc0(sizeof(StackResolver));
	/* the control file fixes the schema: the extension is not relocatable */
	Oid			namespace = get_namespace_oid("calltree", false);

	resolver->builder = builder;
	keyed_table_open(&resolver->stacks, namespace, "stack", "stack_pkey");
	keyed_table_open(&resolver->frames, namespace, "frame", "frame_pkey");
	resolver->stack_id_attnum = calltree_column(RelationGetRelid(resolver->stacks.heap), "id");
	resolver->prefix_attnum = calltree_column(RelationGetRelid(resolver->stacks.heap), "prefix_id");
	resolver->frame_attnum = calltree_column(RelationGetRelid(resolver->stacks.heap), "frame_id");
	resolver->frame_id_attnum = calltree_column(RelationGetRelid(resolver->frames.heap), "id");
	resolver->func_attnum = calltree_column(RelationGetRelid(resolver->frames.heap), "func_id");
	resolver->resolved = resolved_create(CurrentMemoryContext, 1024, NULL);
	resolver->frame_funcs = framefuncs_create(CurrentMemoryContext, 1024, NULL);
	resolver->chain_capacity = 64;
	resolver->chain = palloc(sizeof(ChainLink) * resolver->chain_capacity);
	return resolver;
}

void
stack_resolver_end(StackResolver *resolver)
{
	keyed_table_close(&resolver->stacks);
	keyed_table_close(&resolver->frames);
}

static int32
frame_func(StackResolver *resolver, int64 stack_id, int64 frame_id)
{
	FrameFunc  *entry = framefuncs_lookup(resolver->frame_funcs, frame_id);
	bool		found;
	bool		isnull;
	int32		func;

	if (entry != NULL)
		return entry->func;
	if (resolver->rows != NULL || !keyed_table_fetch(&resolver->frames, frame_id))
		ereport(ERROR,
				(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
				 errmsg("stack " INT64_FORMAT " refers to frame " INT64_FORMAT ", which does not exist",
						stack_id, frame_id),
				 errhint("The stack table is damaged: check calltree.stack against calltree.frame.")));
	func = DatumGetInt32(slot_getattr(resolver->frames.slot, resolver->func_attnum, &isnull));
	if (isnull)
		elog(ERROR, "frame " INT64_FORMAT " has no func", frame_id);
	entry = framefuncs_insert(resolver->frame_funcs, frame_id, &found);
	entry->func = func;
	return func;
}

static void
chain_push(StackResolver *resolver, int32 *len, int64 stack_id, int64 prefix, int64 frame, int32 func)
{
	if (*len == resolver->chain_capacity)
	{
		resolver->chain_capacity *= 2;
		resolver->chain = repalloc_huge(resolver->chain,
										sizeof(ChainLink) * (Size) resolver->chain_capacity);
	}
	resolver->chain[*len].stack_id = stack_id;
	resolver->chain[*len].prefix = prefix;
	resolver->chain[*len].frame = frame;
	resolver->chain[*len].func = func;
	(*len)++;
}

/* The row of a stack: from memory when the table was read whole. */
static bool
fetch_stack_row(StackResolver *resolver, int64 stack_id, int64 *prefix, int64 *frame)
{
	Datum		value;
	bool		isnull;

	if (resolver->rows != NULL)
	{
		StackRow   *row = stackrows_lookup(resolver->rows, stack_id);

		if (row == NULL)
			return false;
		*prefix = row->prefix;
		*frame = row->frame;
		return true;
	}
	if (!keyed_table_fetch(&resolver->stacks, stack_id))
		return false;
	*frame = DatumGetInt64(slot_getattr(resolver->stacks.slot, resolver->frame_attnum, &isnull));
	if (isnull)
		elog(ERROR, "stack " INT64_FORMAT " has no frame", stack_id);
	value = slot_getattr(resolver->stacks.slot, resolver->prefix_attnum, &isnull);
	*prefix = isnull ? 0 : DatumGetInt64(value);
	return true;
}

/*
 * Walks up from `stack_id` to a resolved stack or a root, pushing the
 * unresolved stacks on the chain.  Returns the node the chain hangs from
 * (-1 for the root level).
 */
static int32
walk_up(StackResolver *resolver, int64 stack_id, int32 *len)
{
	int64		current = stack_id;

	for (;;)
	{
		ResolvedStack *known = resolved_lookup(resolver->resolved, current);
		int64		prefix;
		int64		frame_id;

		if (known != NULL)
			return known->node;
		if ((*len & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!fetch_stack_row(resolver, current, &prefix, &frame_id))
		{
			if (*len == 0)
				ereport(ERROR,
						(errcode(ERRCODE_NO_DATA_FOUND),
						 errmsg("stack " INT64_FORMAT " does not exist", current),
						 errhint("Stack ids come from calltree.stack, for example through intern_stack().")));
			ereport(ERROR,
					(errcode(ERRCODE_FOREIGN_KEY_VIOLATION),
					 errmsg("stack " INT64_FORMAT " has prefix " INT64_FORMAT ", which does not exist",
							resolver->chain[*len - 1].stack_id, current),
					 errdetail("Stack " INT64_FORMAT " was reached from stack " INT64_FORMAT ".",
							   current, stack_id),
					 errhint("The stack table is damaged: a prefix_id refers to no stack.")));
		}
		chain_push(resolver, len, current, prefix, frame_id, frame_func(resolver, current, frame_id));
		if (prefix == 0)
			return -1;
		if (prefix >= current)
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("stack " INT64_FORMAT " has prefix " INT64_FORMAT ", which is not smaller",
							current, prefix),
					 current != stack_id ?
					 errdetail("Stack " INT64_FORMAT " was reached from stack " INT64_FORMAT ".",
							   current, stack_id) : 0,
					 errhint("The stack table is damaged: prefix_id < id must hold, and prefix chains must not loop.")));
		current = prefix;
	}
}

/*
 * Reads both tables whole into memory when `expected` stacks are to be
 * resolved and that is a good share of the stack table: one sequential
 * read costs about as much as a few index probes per row.  Stack ids are
 * never 0 (the sequences start at 1), so 0 can stand for "no prefix".
 */
int			calltree_stack_read = STACK_READ_AUTO;

void
stack_resolver_preload(StackResolver *resolver, int64 expected)
{
	Relation	stacks = resolver->stacks.heap;
	double		rows = stacks->rd_rel->reltuples >= 0 ? stacks->rd_rel->reltuples
		: (double) RelationGetNumberOfBlocks(stacks) * 100.0;
	TableScanDesc scan;
	TupleTableSlot *slot;
	uint64		seen = 0;

	if (calltree_stack_read == STACK_READ_INDEX ||
		(calltree_stack_read == STACK_READ_AUTO && (double) expected * 4 < rows))
		return;
	resolver->rows = stackrows_create(CurrentMemoryContext, (uint32) Min(rows * 1.1 + 64, PG_UINT32_MAX / 2), NULL);

	scan = table_beginscan(stacks, GetActiveSnapshot(), 0, NULL);
	slot = table_slot_create(stacks, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		id_null;
		bool		prefix_null;
		bool		frame_null;
		int64		id = DatumGetInt64(slot_getattr(slot, resolver->stack_id_attnum, &id_null));
		Datum		prefix = slot_getattr(slot, resolver->prefix_attnum, &prefix_null);
		Datum		frame = slot_getattr(slot, resolver->frame_attnum, &frame_null);
		bool		found;
		StackRow   *row;

		if ((++seen & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (id_null || frame_null)
			elog(ERROR, "calltree.stack has a row without id or frame");
		row = stackrows_insert(resolver->rows, id, &found);
		row->prefix = prefix_null ? 0 : DatumGetInt64(prefix);
		row->frame = DatumGetInt64(frame);
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);

	scan = table_beginscan(resolver->frames.heap, GetActiveSnapshot(), 0, NULL);
	slot = table_slot_create(resolver->frames.heap, NULL);
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		id_null;
		bool		func_null;
		int64		id = DatumGetInt64(slot_getattr(slot, resolver->frame_id_attnum, &id_null));
		Datum		func = slot_getattr(slot, resolver->func_attnum, &func_null);
		bool		found;
		FrameFunc  *entry;

		if ((++seen & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (id_null || func_null)
			elog(ERROR, "calltree.frame has a row without id or func");
		entry = framefuncs_insert(resolver->frame_funcs, id, &found);
		entry->func = DatumGetInt32(func);
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
}

/* The builder node of `stack_id`, adding its path to the tree if new. */
int32
stack_resolver_node(StackResolver *resolver, int64 stack_id)
{
	int32		len = 0;
	int32		node = walk_up(resolver, stack_id, &len);

	for (int32 k = len - 1; k >= 0; k--)
	{
		const ChainLink *link = &resolver->chain[k];
		bool		found;
		ResolvedStack *entry;
		int32		depth = 0;

		if (link->prefix != 0)
			depth = resolved_lookup(resolver->resolved, link->prefix)->depth + 1;
		node = tree_builder_child(resolver->builder, node, link->func);
		entry = resolved_insert(resolver->resolved, link->stack_id, &found);
		entry->node = node;
		entry->prefix = link->prefix;
		entry->frame = link->frame;
		entry->depth = depth;
	}
	return node;
}

/*
 * The frame at `depth` (0: the root) of a stack already resolved, or 0 if
 * the stack is not that deep.
 */
int64
stack_resolver_frame_at(StackResolver *resolver, int64 stack_id, int32 depth)
{
	ResolvedStack *entry = resolved_lookup(resolver->resolved, stack_id);

	Assert(entry != NULL);
	if (entry->depth < depth)
		return 0;
	while (entry->depth > depth)
		entry = resolved_lookup(resolver->resolved, entry->prefix);
	return entry->frame;
}

/*
 * stack_path(stack bigint) → int4[]: the funcs of the stack, root first.
 * The stack alone in a tree is a single chain, whose preorder is the path.
 */
Datum
calltree_stack_path(PG_FUNCTION_ARGS)
{
	TreeBuilder *builder = tree_builder_create(CurrentMemoryContext);
	StackResolver *resolver = stack_resolver_begin(builder);
	CallTree   *chain;

	/* weighed, so that finishing keeps the chain */
	tree_builder_add_self(builder, stack_resolver_node(resolver, PG_GETARG_INT64(0)), 0);
	stack_resolver_end(resolver);
	chain = tree_builder_finish(builder);
	PG_RETURN_ARRAYTYPE_P(int4_array(calltree_func(chain), chain->nnodes));
}
