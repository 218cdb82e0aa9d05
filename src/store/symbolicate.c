/*
 * symbolicate.c
 *	  symbolicate(resource, starts, names): the address frames of a resource
 *	  move to the funcs of their symbols.
 *
 * Set-based from end to end, so that a million symbols against a million
 * frames takes seconds: the symbols are sorted in C (symbol_table.c), the
 * resource's stored symbols are merged in, the address frames are fetched
 * as arrays in one query and each is placed by binary search; then one
 * UPDATE renames funcs, one INSERT interns the funcs still missing, and one
 * UPDATE ... FROM unnest(...) moves the frames that must move.
 *
 * As the Firefox Profiler does, a symbol's func is one of the
 * funcs it combines: when the resource has no func of that name yet, the
 * address func of its frame of lowest id is renamed to the symbol, keeps
 * its id, and its frame does not move.  Only the other frames move.
 *
 * The symbols are stored (calltree.symbol), so a table that arrives in parts
 * gives the same result in any order: every call places every address frame
 * of the resource against all the symbols known so far.
 *
 * The result is the map old func -> new func of the frames that moved, for
 * remap_functions().  A func is listed only when no frame uses it any more:
 * a func that keeps some of its frames (a later part of the table splits an
 * earlier symbol's range) cannot be renamed in a saved path, which may mean
 * either function.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "tree/func_ids.h"
#include "formats/symbol_table.h"
#include "store/intern.h"

PG_FUNCTION_INFO_V1(calltree_symbolicate);

/* The address frames of one resource, as fetched */
typedef struct AddressFrames
{
	int			count;
	Datum	   *ids;
	Datum	   *addresses;
	Datum	   *funcs;
	Datum	   *unnamed;		/* bool: the func is still the one named by the address */
} AddressFrames;

/* A move of a frame's func, and the map entry it implies */
typedef struct FuncPair
{
	int32		old_func;
	int32		new_func;
} FuncPair;

/* The elements of a one-dimensional array argument; errors on NULLs. */
static Datum *
array_elements(ArrayType *array, Oid type, const char *what, int *count)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;

	if (ARR_NDIM(array) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("symbol %s must be a one-dimensional array", what)));
	get_typlenbyvalalign(type, &typlen, &typbyval, &typalign);
	deconstruct_array(array, type, typlen, typbyval, typalign, &elems, &nulls, count);
	for (int i = 0; i < *count; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("symbol %s must not contain nulls", what),
					 errdetail("Element %d of %d is null.", i + 1, *count)));
	return elems;
}

/* The new symbols from the arguments, sorted and checked. */
static SymbolTable
symbols_from_args(ArrayType *starts, ArrayType *names)
{
	SymbolTable table;
	int			nstarts;
	int			nnames;
	Datum	   *start_elems = array_elements(starts, INT8OID, "starts", &nstarts);
	Datum	   *name_elems = array_elements(names, TEXTOID, "names", &nnames);

	if (nstarts != nnames)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("symbol starts and names have different lengths"),
				 errdetail("There are %d starts and %d names.", nstarts, nnames),
				 errhint("Pass one name per start address, in the same order.")));
	table.count = nstarts;
	table.symbols = palloc_extended(sizeof(Symbol) * Max(nstarts, 1), MCXT_ALLOC_HUGE);
	for (int i = 0; i < nstarts; i++)
	{
		table.symbols[i].start = (uint64) DatumGetInt64(start_elems[i]);
		table.symbols[i].name = TextDatumGetCString(name_elems[i]);
	}
	symbol_table_sort(&table);
	return table;
}

/* Runs a query that must succeed; returns its SPI result code. */
static int
run(const char *query, int nargs, Oid *types, Datum *values, int expected)
{
	int			ret = SPI_execute_with_args(query, nargs, types, values, NULL, false, 0);

	if (ret != expected)
		elog(ERROR, "symbolicate: \"%s\" returned %s", query, SPI_result_code_string(ret));
	return ret;
}

/* Column col of the single row of the last query, as an array copied into cxt; NULL if NULL. */
static ArrayType *
result_array(int col, MemoryContext cxt)
{
	bool		isnull;
	Datum		d;
	MemoryContext old;
	ArrayType  *array;

	if (SPI_processed != 1)
		elog(ERROR, "symbolicate: expected one row, got " UINT64_FORMAT, SPI_processed);
	d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, &isnull);
	if (isnull)
		return NULL;
	old = MemoryContextSwitchTo(cxt);
	array = DatumGetArrayTypePCopy(d);
	MemoryContextSwitchTo(old);
	return array;
}

static Datum *
array_datums(ArrayType *array, Oid type, int *count, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Datum	   *elems = array_elements(array, type, "column", count);

	MemoryContextSwitchTo(old);
	return elems;
}

static ArrayType *
datum_array(Datum *values, int count, Oid type)
{
	int16		typlen;
	bool		typbyval;
	char		typalign;

	get_typlenbyvalalign(type, &typlen, &typbyval, &typalign);
	return construct_array(values, count, type, typlen, typbyval, typalign);
}

/* The symbols stored for the resource before this call, sorted. */
static SymbolTable
stored_symbols(Datum resource, MemoryContext cxt)
{
	Oid			types[1] = {TEXTOID};
	SymbolTable table = {NULL, 0};
	ArrayType  *starts;
	ArrayType  *names;
	Datum	   *start_elems;
	Datum	   *name_elems;
	int			n;

	run("SELECT pg_catalog.array_agg(start), pg_catalog.array_agg(name) "
		"FROM calltree.symbol WHERE resource OPERATOR(pg_catalog.=) $1",
		1, types, &resource, SPI_OK_SELECT);
	starts = result_array(1, cxt);
	names = result_array(2, cxt);
	if (starts == NULL)
		return table;
	start_elems = array_datums(starts, INT8OID, &n, cxt);
	name_elems = array_datums(names, TEXTOID, &n, cxt);
	table.symbols = MemoryContextAllocExtended(cxt, sizeof(Symbol) * n, MCXT_ALLOC_HUGE);
	for (int i = 0; i < n; i++)
	{
		table.symbols[i].start = (uint64) DatumGetInt64(start_elems[i]);
		table.symbols[i].name = MemoryContextStrdup(cxt, TextDatumGetCString(name_elems[i]));
	}
	table.count = n;
	symbol_table_sort(&table);
	return table;
}

/*
 * Stores the symbols of the new table that the stored one lacks or names
 * differently: a DELETE of the renamed starts and a plain INSERT, which is
 * much cheaper than INSERT ... ON CONFLICT for a million rows.  Only
 * symbolicate() writes symbols, under the intern lock, so no other
 * session can insert the same start meanwhile.
 */
static void
store_symbols(Datum resource, const SymbolTable *stored, const SymbolTable *table)
{
	Oid			types[3] = {TEXTOID, INT8ARRAYOID, TEXTARRAYOID};
	Datum		values[3];
	Datum	   *starts = palloc_extended(sizeof(Datum) * Max(table->count, 1), MCXT_ALLOC_HUGE);
	Datum	   *names = palloc_extended(sizeof(Datum) * Max(table->count, 1), MCXT_ALLOC_HUGE);
	Datum	   *renamed = palloc_extended(sizeof(Datum) * Max(table->count, 1), MCXT_ALLOC_HUGE);
	int			n = 0;
	int			nrenamed = 0;

	for (int i = 0; i < table->count; i++)
	{
		const Symbol *s = &table->symbols[i];
		int			k = symbol_table_find(stored, s->start);

		if (k >= 0 && stored->symbols[k].start == s->start)
		{
			if (strcmp(stored->symbols[k].name, s->name) == 0)
				continue;
			renamed[nrenamed++] = Int64GetDatum((int64) s->start);
		}
		starts[n] = Int64GetDatum((int64) s->start);
		names[n++] = CStringGetTextDatum(s->name);
	}
	values[0] = resource;
	if (nrenamed > 0)
	{
		values[1] = PointerGetDatum(datum_array(renamed, nrenamed, INT8OID));
		run("DELETE FROM calltree.symbol "
			"WHERE resource OPERATOR(pg_catalog.=) $1 AND start OPERATOR(pg_catalog.=) ANY ($2)",
			2, types, values, SPI_OK_DELETE);
	}
	if (n == 0)
		return;
	values[1] = PointerGetDatum(datum_array(starts, n, INT8OID));
	values[2] = PointerGetDatum(datum_array(names, n, TEXTOID));
	run("INSERT INTO calltree.symbol (resource, start, name) "
		"SELECT $1, u.start, u.name "
		"FROM ROWS FROM (pg_catalog.unnest($2), pg_catalog.unnest($3)) AS u(start, name)",
		3, types, values, SPI_OK_INSERT);
}

static AddressFrames
address_frames(Datum resource, MemoryContext cxt)
{
	Oid			types[1] = {TEXTOID};
	AddressFrames frames = {0, NULL, NULL, NULL, NULL};
	ArrayType  *ids;

	run("SELECT pg_catalog.array_agg(fr.id), pg_catalog.array_agg(fr.address), "
		"pg_catalog.array_agg(fr.func_id), "
		"pg_catalog.array_agg(f.file IS NULL AND f.name OPERATOR(pg_catalog.=) "
		"('0x' OPERATOR(pg_catalog.||) pg_catalog.to_hex(fr.address))) "
		"FROM calltree.frame fr JOIN calltree.func f ON f.id OPERATOR(pg_catalog.=) fr.func_id "
		"WHERE fr.implementation OPERATOR(pg_catalog.=) 'address' AND fr.address IS NOT NULL "
		"AND f.resource OPERATOR(pg_catalog.=) $1",
		1, types, &resource, SPI_OK_SELECT);
	ids = result_array(1, cxt);
	if (ids == NULL)
		return frames;
	frames.ids = array_datums(ids, INT8OID, &frames.count, cxt);
	frames.addresses = array_datums(result_array(2, cxt), INT8OID, &frames.count, cxt);
	frames.funcs = array_datums(result_array(3, cxt), INT4OID, &frames.count, cxt);
	frames.unnamed = array_datums(result_array(4, cxt), BOOLOID, &frames.count, cxt);
	return frames;
}

/*
 * The ids of the funcs (name, NULL, resource) that exist for the given
 * names; 0 where there is none.
 */
static int32 *
existing_funcs(Datum resource, Datum *names, int count, MemoryContext cxt)
{
	Oid			types[2] = {TEXTOID, TEXTARRAYOID};
	Datum		values[2];
	int32	   *funcs = MemoryContextAllocExtended(cxt, sizeof(int32) * Max(count, 1),
												   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	ArrayType  *places;
	Datum	   *place_elems;
	Datum	   *id_elems;
	int			n;

	if (count == 0)
		return funcs;
	values[0] = resource;
	values[1] = PointerGetDatum(datum_array(names, count, TEXTOID));
	run("SELECT pg_catalog.array_agg(u.i), pg_catalog.array_agg(f.id) "
		"FROM pg_catalog.unnest($2) WITH ORDINALITY AS u(name, i) "
		"JOIN calltree.func f ON f.name OPERATOR(pg_catalog.=) u.name AND f.file IS NULL "
		"AND f.resource OPERATOR(pg_catalog.=) $1",
		2, types, values, SPI_OK_SELECT);
	places = result_array(1, cxt);
	if (places == NULL)
		return funcs;
	place_elems = array_datums(places, INT8OID, &n, cxt);
	id_elems = array_datums(result_array(2, cxt), INT4OID, &n, cxt);
	for (int i = 0; i < n; i++)
		funcs[DatumGetInt64(place_elems[i]) - 1] = DatumGetInt32(id_elems[i]);
	return funcs;
}

/*
 * Interns the funcs of the names whose funcs[] is still 0, with one INSERT
 * and one SELECT.  Under the intern lock no other transaction has an
 * uncommitted func, so the INSERT waits for none.
 */
static void
intern_missing_funcs(Datum resource, Datum *names, int count, int32 *funcs, MemoryContext cxt)
{
	Datum	   *missing = palloc_extended(sizeof(Datum) * Max(count, 1), MCXT_ALLOC_HUGE);
	int		   *place = palloc_extended(sizeof(int) * Max(count, 1), MCXT_ALLOC_HUGE);
	int			n = 0;
	int32	   *found;

	for (int i = 0; i < count; i++)
		if (funcs[i] == 0)
		{
			place[n] = i;
			missing[n++] = names[i];
		}
	if (n == 0)
		return;
	{
		Oid			types[2] = {TEXTOID, TEXTARRAYOID};
		Datum		values[2] = {resource, PointerGetDatum(datum_array(missing, n, TEXTOID))};

		run("INSERT INTO calltree.func (name, file, resource) "
			"SELECT u.name, NULL::pg_catalog.text, $1 FROM pg_catalog.unnest($2) AS u(name) "
			"ON CONFLICT ON CONSTRAINT func_key DO NOTHING",
			2, types, values, SPI_OK_INSERT);
	}
	found = existing_funcs(resource, missing, n, cxt);
	for (int i = 0; i < n; i++)
	{
		if (found[i] == 0)
			elog(ERROR, "symbolicate: no func for symbol \"%s\" after interning it",
				 TextDatumGetCString(missing[i]));
		funcs[place[i]] = found[i];
	}
}

/* Renames funcs in place: one UPDATE; func ids (and the frames' FKs) stay. */
static void
rename_funcs(Datum *ids, Datum *names, int count)
{
	Oid			types[2] = {INT4ARRAYOID, TEXTARRAYOID};
	Datum		values[2];

	if (count == 0)
		return;
	values[0] = PointerGetDatum(datum_array(ids, count, INT4OID));
	values[1] = PointerGetDatum(datum_array(names, count, TEXTOID));
	run("UPDATE calltree.func AS f SET name = u.name "
		"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS u(id, name) "
		"WHERE f.id OPERATOR(pg_catalog.=) u.id",
		2, types, values, SPI_OK_UPDATE);
}

static void
move_frames(Datum *frame_ids, Datum *funcs, int count)
{
	Oid			types[2] = {INT8ARRAYOID, INT4ARRAYOID};
	Datum		values[2];

	if (count == 0)
		return;
	values[0] = PointerGetDatum(datum_array(frame_ids, count, INT8OID));
	values[1] = PointerGetDatum(datum_array(funcs, count, INT4OID));
	run("UPDATE calltree.frame AS fr SET func_id = u.func "
		"FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS u(id, func) "
		"WHERE fr.id OPERATOR(pg_catalog.=) u.id",
		2, types, values, SPI_OK_UPDATE);
}

static int
pair_cmp(const void *a, const void *b)
{
	const FuncPair *x = a;
	const FuncPair *y = b;

	if (x->old_func != y->old_func)
		return x->old_func < y->old_func ? -1 : 1;
	if (x->new_func != y->new_func)
		return x->new_func < y->new_func ? -1 : 1;
	return 0;
}

/* Sorts and dedupes the pairs, then drops the old funcs that frames still use. */
static int
vacated_pairs(FuncPair *pairs, int count, MemoryContext cxt)
{
	Oid			types[1] = {INT4ARRAYOID};
	Datum	   *olds;
	Datum		value;
	ArrayType  *used_array;
	int32	   *used = NULL;
	int			nused = 0;
	int			n = 0;
	int			kept = 0;

	if (count == 0)
		return 0;
	qsort(pairs, count, sizeof(FuncPair), pair_cmp);
	for (int i = 0; i < count; i++)
		if (n == 0 || pair_cmp(&pairs[n - 1], &pairs[i]) != 0)
			pairs[n++] = pairs[i];

	olds = palloc_extended(sizeof(Datum) * n, MCXT_ALLOC_HUGE);
	for (int i = 0; i < n; i++)
		olds[i] = Int32GetDatum(pairs[i].old_func);
	value = PointerGetDatum(datum_array(olds, n, INT4OID));
	run("SELECT pg_catalog.array_agg(DISTINCT u.func) FROM pg_catalog.unnest($1) AS u(func) "
		"WHERE EXISTS (SELECT 1 FROM calltree.frame fr WHERE fr.func_id OPERATOR(pg_catalog.=) u.func)",
		1, types, &value, SPI_OK_SELECT);
	used_array = result_array(1, cxt);
	if (used_array)
	{
		Datum	   *elems = array_datums(used_array, INT4OID, &nused, cxt);

		used = MemoryContextAllocExtended(cxt, sizeof(int32) * nused, MCXT_ALLOC_HUGE);
		for (int i = 0; i < nused; i++)
			used[i] = DatumGetInt32(elems[i]);
		qsort(used, nused, sizeof(int32), func_id_compare);
	}
	for (int i = 0; i < n; i++)
		if (used == NULL ||
			func_ids_find(used, nused, pairs[i].old_func) < 0)
			pairs[kept++] = pairs[i];
	return kept;
}

static const SymbolTable *sorting_table;	/* for name_order() */

static int
name_order(const void *a, const void *b)
{
	return strcmp(sorting_table->symbols[*(const int *) a].name,
				  sorting_table->symbols[*(const int *) b].name);
}

/*
 * The distinct names of the symbols that frames hit: name_of[i] is the
 * place in *names of frame i's symbol's name, -1 for a frame below the
 * first symbol.  Symbols may share a name (static functions of different
 * files), and share its func then.  Returns the number of names.
 */
static int
hit_names(const SymbolTable *table, const AddressFrames *frames, int *name_of, Datum **names)
{
	int		   *slot_of = palloc_extended(sizeof(int) * Max(table->count, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int		   *hit = palloc_extended(sizeof(int) * Max(frames->count, 1), MCXT_ALLOC_HUGE);
	int			nhit = 0;
	int			nnames = 0;

	for (int i = 0; i < frames->count; i++)
	{
		int			k = symbol_table_find(table, (uint64) DatumGetInt64(frames->addresses[i]));

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		name_of[i] = k;
		if (k >= 0 && slot_of[k] == 0)
		{
			slot_of[k] = -1;
			hit[nhit++] = k;
		}
	}
	sorting_table = table;
	qsort(hit, nhit, sizeof(int), name_order);
	*names = palloc_extended(sizeof(Datum) * Max(nhit, 1), MCXT_ALLOC_HUGE);
	for (int h = 0; h < nhit; h++)
	{
		if (h == 0 || strcmp(table->symbols[hit[h]].name, table->symbols[hit[h - 1]].name) != 0)
			(*names)[nnames++] = CStringGetTextDatum(table->symbols[hit[h]].name);
		slot_of[hit[h]] = nnames - 1;
	}
	for (int i = 0; i < frames->count; i++)
		if (name_of[i] >= 0)
			name_of[i] = slot_of[name_of[i]];
	return nnames;
}

/*
 * Places every frame; fills the moves (frame id, new func) and the pairs
 * (old func, new func).  Returns the number of moves.
 *
 * As in the Firefox Profiler, each symbol's func is one of the
 * funcs being combined: when no func of that name exists yet in the
 * resource, the func of the first frame still named by its address is
 * renamed to the symbol.  That frame then does not move, and its func id
 * stays valid in saved paths.  Only the other frames move; a million
 * frames hitting a million symbols move none, which makes symbolication
 * cheap (renaming a func row is far cheaper than moving a frame row, whose
 * foreign key is checked and whose three indexes are updated).
 */
static int
place_frames(Datum resource, const SymbolTable *table, const AddressFrames *frames,
			 Datum *move_ids, Datum *move_funcs, FuncPair *pairs, MemoryContext cxt)
{
	int		   *name_of = palloc_extended(sizeof(int) * Max(frames->count, 1), MCXT_ALLOC_HUGE);
	Datum	   *names;
	int			nnames = hit_names(table, frames, name_of, &names);
	int32	   *funcs = existing_funcs(resource, names, nnames, cxt);
	int64	   *donor = palloc_extended(sizeof(int64) * Max(nnames, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	int32	   *donor_func = palloc_extended(sizeof(int32) * Max(nnames, 1), MCXT_ALLOC_HUGE);
	Datum	   *rename_ids = palloc_extended(sizeof(Datum) * Max(nnames, 1), MCXT_ALLOC_HUGE);
	Datum	   *rename_names = palloc_extended(sizeof(Datum) * Max(nnames, 1), MCXT_ALLOC_HUGE);
	int			nrenames = 0;
	int			nmoves = 0;

	/* the donor of a name without a func: its frame of lowest id still named by address */
	for (int i = 0; i < frames->count; i++)
	{
		int			slot = name_of[i];
		int64		id = DatumGetInt64(frames->ids[i]);

		if (slot >= 0 && funcs[slot] == 0 && DatumGetBool(frames->unnamed[i]) &&
			(donor[slot] == 0 || id < donor[slot]))
		{
			donor[slot] = id;
			donor_func[slot] = DatumGetInt32(frames->funcs[i]);
		}
	}
	for (int slot = 0; slot < nnames; slot++)
		if (donor[slot] != 0)
		{
			funcs[slot] = donor_func[slot];
			rename_ids[nrenames] = Int32GetDatum(donor_func[slot]);
			rename_names[nrenames++] = names[slot];
		}
	rename_funcs(rename_ids, rename_names, nrenames);
	intern_missing_funcs(resource, names, nnames, funcs, cxt);

	for (int i = 0; i < frames->count; i++)
	{
		int32		old_func = DatumGetInt32(frames->funcs[i]);
		int32		new_func;

		if (name_of[i] < 0)
			continue;			/* below the first symbol: keeps its func */
		new_func = funcs[name_of[i]];
		if (new_func == old_func)
			continue;
		move_ids[nmoves] = frames->ids[i];
		move_funcs[nmoves] = Int32GetDatum(new_func);
		pairs[nmoves].old_func = old_func;
		pairs[nmoves].new_func = new_func;
		nmoves++;
	}
	return nmoves;
}

/* symbolicate(resource text, starts bigint[], names text[]) → TABLE(old_func, new_func) */
Datum
calltree_symbolicate(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Datum		resource = PG_GETARG_DATUM(0);
	MemoryContext work = AllocSetContextCreate(CurrentMemoryContext, "symbolicate",
											   ALLOCSET_DEFAULT_SIZES);
	MemoryContext caller = MemoryContextSwitchTo(work);
	SymbolTable table = symbols_from_args(PG_GETARG_ARRAYTYPE_P(1), PG_GETARG_ARRAYTYPE_P(2));
	SymbolTable all;
	AddressFrames frames;
	Datum	   *move_ids;
	Datum	   *move_funcs;
	FuncPair   *pairs;
	int			nmoves;
	int			npairs;

	MemoryContextSwitchTo(caller);
	InitMaterializedSRF(fcinfo, 0);

	/*
	 * Waits for the transactions that write interned rows, address frames
	 * among them, and excludes them until this one ends (intern_lock.c):
	 * every address frame is then either visible to the queries below,
	 * each in a new snapshot, or named after this commits, from the
	 * symbols stored here; and no uncommitted func can collide with the
	 * renames and inserts of funcs.
	 */
	intern_lock_acquire_checked();
	SPI_connect();
	all = stored_symbols(resource, work);
	MemoryContextSwitchTo(work);
	store_symbols(resource, &all, &table);
	MemoryContextSwitchTo(work);
	symbol_table_merge(&all, &table);

	frames = address_frames(resource, work);
	MemoryContextSwitchTo(work);
	move_ids = palloc_extended(sizeof(Datum) * Max(frames.count, 1), MCXT_ALLOC_HUGE);
	move_funcs = palloc_extended(sizeof(Datum) * Max(frames.count, 1), MCXT_ALLOC_HUGE);
	pairs = palloc_extended(sizeof(FuncPair) * Max(frames.count, 1), MCXT_ALLOC_HUGE);
	nmoves = place_frames(resource, &all, &frames, move_ids, move_funcs, pairs, work);
	MemoryContextSwitchTo(work);
	move_frames(move_ids, move_funcs, nmoves);
	MemoryContextSwitchTo(work);
	npairs = vacated_pairs(pairs, nmoves, work);
	SPI_finish();

	MemoryContextSwitchTo(caller);
	for (int i = 0; i < npairs; i++)
	{
		Datum		values[2] = {Int32GetDatum(pairs[i].old_func), Int32GetDatum(pairs[i].new_func)};
		bool		nulls[2] = {false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	MemoryContextDelete(work);
	PG_RETURN_NULL();
}
