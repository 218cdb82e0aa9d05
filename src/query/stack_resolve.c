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
 * Rows are read with the primary-key indexes directly (after the checks a
 * SELECT of them would make: calltree_check_read), one probe per row,
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

#include "module.h"
#include "tree/calltree.h"
#include "tree/builder.h"
#include "tree/hash64.h"
#include "tree/path.h"
#include "store/store.h"
#include "query/stack_resolve.h"

PG_FUNCTION_INFO_V1(calltree_stack_path);

/* One of the two tables, read by primary key. */
typedef struct KeyedTable
{
	Relation	heap;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	MemoryContext cxt;			/* the scan's: it allocates lazily */
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

/*
 * The stack table read whole, by id, when its ids are compact (they come
 * from a sequence): arrays instead of hash tables, since this is the path
 * of big profiles.  prefix -1 marks an id with no row; node -1 a stack not
 * resolved yet.
 */
typedef struct DenseStack
{
	int64		prefix;
	int64		frame;
	int32		node;
	int32		depth;
} DenseStack;

typedef struct DenseTables
{
	int64		first_stack;
	int64		nstacks;
	DenseStack *stacks;
	int64		first_frame;
	int64		nframes;
	int32	   *frame_funcs;
	bool	   *frame_present;
} DenseTables;

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
	DenseTables *dense;			/* both tables whole, by id, or NULL */
	resolved_hash *resolved;
	framefuncs_hash *frame_funcs;
	ChainLink  *chain;
	int32		chain_capacity;
};

static void
keyed_table_open(KeyedTable *table, Oid heap_relid, Oid index_relid)
{
	table->heap = table_open(heap_relid, AccessShareLock);
	table->index = index_open(index_relid, AccessShareLock);
	table->scan = index_beginscan(table->heap, table->index, GetActiveSnapshot(), 1, 0);
	table->slot = table_slot_create(table->heap, NULL);
	table->cxt = CurrentMemoryContext;
}

/* The row with primary key `id` in table->slot; false if there is none. */
static bool
keyed_table_fetch(KeyedTable *table, int64 id)
{
	ScanKeyData key;
	MemoryContext old = MemoryContextSwitchTo(table->cxt);
	bool		found;

	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_INT8EQ, Int64GetDatum(id));
	index_rescan(table->scan, &key, 1, NULL, 0);
	found = index_getnext_slot(table->scan, ForwardScanDirection, table->slot);
	MemoryContextSwitchTo(old);
	return found;
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
	Oid			namespace;
	Oid			stacks;
	Oid			frames;
	AttrNumber	stack_columns[3];
	AttrNumber	frame_columns[2];

	/*
	 * The first lock, which may wait for a DROP EXTENSION open in another
	 * session, taken before the tables are found: found before, they could
	 * be the dropped ones (an aggregate over no table of calltree's).
	 */
	(void) calltree_locked_relation("stack", AccessShareLock);
	/* the control file fixes the schema: the extension is not relocatable */
	namespace = get_namespace_oid("calltree", false);
	stacks = calltree_local_relation(namespace, "stack");
	frames = calltree_local_relation(namespace, "frame");
	resolver->builder = builder;
	stack_columns[0] = resolver->stack_id_attnum = calltree_column(stacks, "id");
	stack_columns[1] = resolver->prefix_attnum = calltree_column(stacks, "prefix_id");
	stack_columns[2] = resolver->frame_attnum = calltree_column(stacks, "frame_id");
	frame_columns[0] = resolver->frame_id_attnum = calltree_column(frames, "id");
	frame_columns[1] = resolver->func_attnum = calltree_column(frames, "func_id");
	/* as SELECT id, prefix_id, frame_id FROM stack and SELECT id, func_id FROM frame */
	calltree_check_read(stacks, stack_columns, lengthof(stack_columns));
	calltree_check_read(frames, frame_columns, lengthof(frame_columns));
	keyed_table_open(&resolver->stacks, stacks, calltree_local_relation(namespace, "stack_pkey"));
	keyed_table_open(&resolver->frames, frames, calltree_local_relation(namespace, "frame_pkey"));
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

static inline DenseStack *
dense_stack(const StackResolver *resolver, int64 stack_id)
{
	const DenseTables *dense = resolver->dense;
	int64		i = stack_id - dense->first_stack;

	if (i < 0 || i >= dense->nstacks || dense->stacks[i].prefix < 0)
		return NULL;
	return &dense->stacks[i];
}

/* The node of a resolved stack, or -1 */
static inline int32
known_node(const StackResolver *resolver, int64 stack_id)
{
	if (resolver->dense)
	{
		DenseStack *stack = dense_stack(resolver, stack_id);

		return stack ? stack->node : -1;
	}
	else
	{
		ResolvedStack *entry = resolved_lookup(resolver->resolved, stack_id);

		return entry ? entry->node : -1;
	}
}

/* Records a stack's node and depth once its chain is resolved. */
static void
remember(StackResolver *resolver, const ChainLink *link, int32 node, int32 depth)
{
	bool		found;
	ResolvedStack *entry;

	if (resolver->dense)
	{
		DenseStack *stack = dense_stack(resolver, link->stack_id);

		stack->node = node;
		stack->depth = depth;
		return;
	}
	entry = resolved_insert(resolver->resolved, link->stack_id, &found);
	entry->node = node;
	entry->prefix = link->prefix;
	entry->frame = link->frame;
	entry->depth = depth;
}

/* prefix, frame and depth of a resolved stack */
static void
resolved_row(const StackResolver *resolver, int64 stack_id, int64 *prefix, int64 *frame, int32 *depth)
{
	if (resolver->dense)
	{
		DenseStack *stack = dense_stack(resolver, stack_id);

		*prefix = stack->prefix;
		*frame = stack->frame;
		*depth = stack->depth;
	}
	else
	{
		ResolvedStack *entry = resolved_lookup(resolver->resolved, stack_id);

		*prefix = entry->prefix;
		*frame = entry->frame;
		*depth = entry->depth;
	}
}

static int32
frame_func(StackResolver *resolver, int64 stack_id, int64 frame_id)
{
	FrameFunc  *entry;
	bool		found;
	bool		isnull;
	int32		func;

	if (resolver->dense)
	{
		const DenseTables *dense = resolver->dense;
		int64		i = frame_id - dense->first_frame;

		if (i >= 0 && i < dense->nframes && dense->frame_present[i])
			return dense->frame_funcs[i];
	}
	else if ((entry = framefuncs_lookup(resolver->frame_funcs, frame_id)) != NULL)
		return entry->func;
	if (resolver->rows != NULL || resolver->dense != NULL ||
		!keyed_table_fetch(&resolver->frames, frame_id))
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

	if (resolver->dense != NULL)
	{
		DenseStack *stack = dense_stack(resolver, stack_id);

		if (stack == NULL)
			return false;
		*prefix = stack->prefix;
		*frame = stack->frame;
		return true;
	}
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
walk_up(StackResolver *resolver, int64 stack_id, int32 *len, int32 *known_depth)
{
	int64		current = stack_id;

	for (;;)
	{
		int32		known = known_node(resolver, current);
		int64		prefix;
		int64		frame_id;

		if (known >= 0)
		{
			int64		unused_prefix;
			int64		unused_frame;

			resolved_row(resolver, current, &unused_prefix, &unused_frame, known_depth);
			return known;
		}
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
		{
			*known_depth = -1;
			return -1;
		}
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


/* Rows of a table read whole: (id, value, value) triples, growing */
typedef struct ReadRows
{
	int64	   *ids;
	int64	   *first;
	int64	   *second;
	int64		count;
	int64		capacity;
	int64		min_id;
	int64		max_id;
} ReadRows;

static void
read_rows_add(ReadRows *rows, int64 id, int64 first, int64 second)
{
	if (rows->count == rows->capacity)
	{
		rows->capacity = Max(1024, rows->capacity * 2);
		rows->ids = repalloc_huge(rows->ids, sizeof(int64) * rows->capacity);
		rows->first = repalloc_huge(rows->first, sizeof(int64) * rows->capacity);
		rows->second = repalloc_huge(rows->second, sizeof(int64) * rows->capacity);
	}
	rows->ids[rows->count] = id;
	rows->first[rows->count] = first;
	rows->second[rows->count] = second;
	rows->count++;
	rows->min_id = Min(rows->min_id, id);
	rows->max_id = Max(rows->max_id, id);
}

/* The rows a table is thought to hold, from its statistics (0: unknown) */
static double
estimated_rows(Relation rel)
{
	return rel->rd_rel->reltuples >= 0 ? rel->rd_rel->reltuples
		: (double) RelationGetNumberOfBlocks(rel) * 100.0;
}

/*
 * Reads a table whole: columns a and b of every row (a NULL a is 0, b must
 * not be NULL).  The arrays start at the size the statistics give, so that
 * a big table is not copied at every doubling.
 */
static void
read_table(Relation rel, AttrNumber id_attnum, AttrNumber a_attnum, AttrNumber b_attnum, ReadRows *rows)
{
	TableScanDesc scan = table_beginscan(rel, GetActiveSnapshot(), 0, NULL);
	TupleTableSlot *slot = table_slot_create(rel, NULL);

	memset(rows, 0, sizeof(ReadRows));
	rows->capacity = (int64) Min(estimated_rows(rel) * 1.05, (double) (MaxAllocHugeSize / sizeof(int64) / 2)) + 1024;
	rows->ids = palloc_extended(sizeof(int64) * rows->capacity, MCXT_ALLOC_HUGE);
	rows->first = palloc_extended(sizeof(int64) * rows->capacity, MCXT_ALLOC_HUGE);
	rows->second = palloc_extended(sizeof(int64) * rows->capacity, MCXT_ALLOC_HUGE);
	rows->min_id = PG_INT64_MAX;
	rows->max_id = PG_INT64_MIN;
	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		id_null;
		bool		a_null;
		bool		b_null;
		int64		id = DatumGetInt64(slot_getattr(slot, id_attnum, &id_null));
		Datum		a = slot_getattr(slot, a_attnum, &a_null);
		Datum		b = slot_getattr(slot, b_attnum, &b_null);

		if ((rows->count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (id_null || b_null)
			elog(ERROR, "%s has a row without id or %s", RelationGetRelationName(rel),
				 get_attname(RelationGetRelid(rel), b_attnum, false));
		/* frame.func_id is int4 */
		read_rows_add(rows, id,
					  a_null ? 0 : (TupleDescAttr(slot->tts_tupleDescriptor, a_attnum - 1)->atttypid == INT4OID
									? DatumGetInt32(a) : DatumGetInt64(a)),
					  TupleDescAttr(slot->tts_tupleDescriptor, b_attnum - 1)->atttypid == INT4OID
					  ? DatumGetInt32(b) : DatumGetInt64(b));
	}
	ExecDropSingleTupleTableSlot(slot);
	table_endscan(scan);
}

/* whether ids fill their range well enough to index arrays by them */
static bool
compact_ids(const ReadRows *rows)
{
	return rows->count == 0 ||
		(rows->max_id - rows->min_id) / 2 <= rows->count + 1024;
}

static void
keep_dense(StackResolver *resolver, const ReadRows *stacks, const ReadRows *frames)
{
	DenseTables *dense = palloc0(sizeof(DenseTables));

	dense->first_stack = stacks->count ? stacks->min_id : 0;
	dense->nstacks = stacks->count ? stacks->max_id - stacks->min_id + 1 : 0;
	dense->stacks = palloc_extended(sizeof(DenseStack) * Max(dense->nstacks, 1), MCXT_ALLOC_HUGE);
	for (int64 i = 0; i < dense->nstacks; i++)
	{
		dense->stacks[i].prefix = -1;
		dense->stacks[i].node = -1;
	}
	for (int64 r = 0; r < stacks->count; r++)
	{
		DenseStack *stack = &dense->stacks[stacks->ids[r] - dense->first_stack];

		stack->prefix = stacks->first[r];
		stack->frame = stacks->second[r];
	}

	dense->first_frame = frames->count ? frames->min_id : 0;
	dense->nframes = frames->count ? frames->max_id - frames->min_id + 1 : 0;
	dense->frame_funcs = palloc_extended(sizeof(int32) * Max(dense->nframes, 1), MCXT_ALLOC_HUGE);
	dense->frame_present = palloc_extended(sizeof(bool) * Max(dense->nframes, 1),
										   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int64 r = 0; r < frames->count; r++)
	{
		dense->frame_funcs[frames->ids[r] - dense->first_frame] = (int32) frames->second[r];
		dense->frame_present[frames->ids[r] - dense->first_frame] = true;
	}
	resolver->dense = dense;
}

static void
keep_hashed(StackResolver *resolver, const ReadRows *stacks, const ReadRows *frames)
{
	resolver->rows = stackrows_create(CurrentMemoryContext,
									  (uint32) Min(stacks->count * 1.1 + 64, PG_UINT32_MAX / 2), NULL);
	for (int64 r = 0; r < stacks->count; r++)
	{
		bool		found;
		StackRow   *row = stackrows_insert(resolver->rows, stacks->ids[r], &found);

		row->prefix = stacks->first[r];
		row->frame = stacks->second[r];
	}
	for (int64 r = 0; r < frames->count; r++)
	{
		bool		found;
		FrameFunc  *entry = framefuncs_insert(resolver->frame_funcs, frames->ids[r], &found);

		entry->func = (int32) frames->second[r];
	}
}

/*
 * Reads both tables whole into memory when `expected` stacks are to be
 * resolved and that is a good share of the stack table: one sequential
 * read costs about as much as a few index probes per row.  Their ids come
 * from sequences, so they are usually compact and index plain arrays;
 * otherwise they go in hash tables.  Stack ids are never 0 (the sequences
 * start at 1), so 0 can stand for "no prefix".
 */
void
stack_resolver_preload(StackResolver *resolver, int64 expected)
{
	Relation	stacks = resolver->stacks.heap;
	double		rows = estimated_rows(stacks);
	ReadRows	stack_rows;
	ReadRows	frame_rows;

	if (calltree_stack_read == STACK_READ_INDEX ||
		(calltree_stack_read == STACK_READ_AUTO && (double) expected * 4 < rows))
		return;
	read_table(stacks, resolver->stack_id_attnum, resolver->prefix_attnum, resolver->frame_attnum,
			   &stack_rows);
	read_table(resolver->frames.heap, resolver->frame_id_attnum, resolver->frame_id_attnum,
			   resolver->func_attnum, &frame_rows);
	if (compact_ids(&stack_rows) && compact_ids(&frame_rows))
		keep_dense(resolver, &stack_rows, &frame_rows);
	else
		keep_hashed(resolver, &stack_rows, &frame_rows);
	/* the tree has at most a node per stack row, and about as many */
	tree_builder_reserve(resolver->builder, Min(stack_rows.count, expected * 4));
	pfree(stack_rows.ids);
	pfree(stack_rows.first);
	pfree(stack_rows.second);
	pfree(frame_rows.ids);
	pfree(frame_rows.first);
	pfree(frame_rows.second);
}

/* The builder node of `stack_id`, adding its path to the tree if new. */
int32
stack_resolver_node(StackResolver *resolver, int64 stack_id)
{
	int32		len = 0;
	int32		known_depth;
	int32		node = walk_up(resolver, stack_id, &len, &known_depth);

	/* the chain hangs below a stack of known depth (-1: the root level) */
	for (int32 k = len - 1; k >= 0; k--)
	{
		node = tree_builder_child(resolver->builder, node, resolver->chain[k].func);
		remember(resolver, &resolver->chain[k], node, known_depth + (len - k));
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
	int64		prefix;
	int64		frame;
	int32		at;

	resolved_row(resolver, stack_id, &prefix, &frame, &at);
	if (at < depth)
		return 0;
	while (at > depth)
	{
		stack_id = prefix;
		resolved_row(resolver, stack_id, &prefix, &frame, &at);
	}
	return frame;
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
