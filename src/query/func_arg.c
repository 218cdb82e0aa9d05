/*
 * func_arg.c
 *	  The funcs a SQL argument names (func_arg.h): an int4 func, an int4[]
 *	  of funcs or a name, resolved and checked against calltree.func once
 *	  per call site and argument value.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "tree/path.h"
#include "tree/func_ids.h"
#include "store/store.h"
#include "query/func_arg.h"

/* The arguments a call site caches: those before this position */
#define FUNC_ARG_SLOTS 4

/* What one argument resolved to, for the value it had */
typedef struct ArgEntry
{
	bool		known;			/* `value` is the argument the rest is for */
	Datum		value;			/* an int4, or a copy of the detoasted varlena */
	bool		has_set;
	FuncSet		set;			/* func_arg_set() */
	bool		looked_up;		/* `missing` is known */
	int32	   *missing;		/* the argument's funcs that calltree.func lacks, sorted */
	int32		nmissing;
} ArgEntry;

typedef struct FuncArgCache
{
	Oid			argtypes[FUNC_ARG_SLOTS];
	ArgEntry	args[FUNC_ARG_SLOTS];
} FuncArgCache;

bool
func_set_has(const FuncSet *set, int32 func)
{
	if (set->count == 1)
		return set->ids[0] == func;
	return func_ids_find(set->ids, set->count, func) >= 0;
}

/* The declared argument types of the function, read once per call site */
static FuncArgCache *
call_site_cache(FunctionCallInfo fcinfo)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;
	FuncArgCache *cache = (FuncArgCache *) flinfo->fn_extra;
	Oid		   *argtypes;
	int			nargs;

	if (cache != NULL)
		return cache;
	cache = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(FuncArgCache));
	get_func_signature(flinfo->fn_oid, &argtypes, &nargs);
	for (int i = 0; i < Min(nargs, FUNC_ARG_SLOTS); i++)
		cache->argtypes[i] = argtypes[i];
	flinfo->fn_extra = cache;
	return cache;
}

/* Whether a varlena argument is the one the entry holds */
static bool
same_varlena(Datum held, Datum given)
{
	Size		size = VARSIZE_ANY(DatumGetPointer(given));

	return VARSIZE_ANY(DatumGetPointer(held)) == size &&
		memcmp(DatumGetPointer(held), DatumGetPointer(given), size) == 0;
}

/*
 * The entry of argument argno, emptied first when the argument differs
 * from the one it was filled for.
 */
static ArgEntry *
arg_entry(FunctionCallInfo fcinfo, int argno, Oid *argtype)
{
	FuncArgCache *cache = call_site_cache(fcinfo);
	ArgEntry   *entry;
	Datum		value;

	Assert(argno < FUNC_ARG_SLOTS);
	entry = &cache->args[argno];
	*argtype = cache->argtypes[argno];
	if (*argtype == INT4OID)
	{
		value = PG_GETARG_DATUM(argno);
		if (entry->known && DatumGetInt32(entry->value) == DatumGetInt32(value))
			return entry;
	}
	else
	{
		struct varlena *given = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(argno));
		Size		size = VARSIZE_ANY(given);
		void	   *copy;

		if (entry->known && same_varlena(entry->value, PointerGetDatum(given)))
			return entry;
		if (entry->known)
			pfree(DatumGetPointer(entry->value));
		copy = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, size);
		memcpy(copy, given, size);
		value = PointerGetDatum(copy);
	}
	if (entry->has_set)
		pfree((void *) entry->set.ids);
	if (entry->missing)
		pfree(entry->missing);
	memset(entry, 0, sizeof(ArgEntry));
	entry->known = true;
	entry->value = value;
	return entry;
}

/* "focus_function()": the SQL function called, for messages */
static char *
called_function(FunctionCallInfo fcinfo)
{
	char	   *name = get_func_name(fcinfo->flinfo->fn_oid);

	return psprintf("%s()", name ? name : "?");
}

/* "\"a\", \"b\" or \"c\"" */
static char *
quoted_names(char **names, int count)
{
	StringInfoData out;

	initStringInfo(&out);
	for (int i = 0; i < count; i++)
		appendStringInfo(&out, "%s\"%s\"", i == 0 ? "" : i == count - 1 ? " or " : ", ", names[i]);
	return out.data;
}

/*
 * A name calltree.func does not hold; a quoted id or array says how to
 * pass ids, another name suggests the closest names it holds.
 */
static pg_attribute_noreturn() void
unknown_name(FunctionCallInfo fcinfo, const char *name)
{
	const char *digits = name + (name[0] == '-');
	bool		number = *digits != '\0' && strspn(digits, "0123456789") == strlen(digits);

	int			nclose = 0;
	char	  **close = number || name[0] == '{' ? NULL : func_suggest_names(name, 3, &nclose);

	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_OBJECT),
			 errmsg("no func is named \"%s\"", name),
			 errdetail("%s was given a function name that calltree.func does not hold.",
					   called_function(fcinfo)),
			 number ? errhint("A quoted number is a name: to pass a func id, write it without quotes.") :
			 name[0] == '{' ? errhint("A quoted array is a name: to pass func ids, write '%s'::int4[].", name) :
			 nclose > 0 ? errhint("Did you mean %s? funcs('regular expression') lists the funcs whose names match a pattern.",
								  quoted_names(close, nclose)) :
			 errhint("funcs('regular expression') lists the funcs whose names match a pattern.")));
}

/* A copy of ids[0 .. n) in `cxt` */
static int32 *
copy_ids(const int32 *ids, int32 n, MemoryContext cxt)
{
	int32	   *copy = MemoryContextAlloc(cxt, sizeof(int32) * Max(n, 1));

	if (n > 0)
		memcpy(copy, ids, sizeof(int32) * n);
	return copy;
}

/*
 * The set an argument names, its ids in `cxt` (the call site's memory);
 * what it takes to find them is left in the current context.
 */
static FuncSet
make_set(FunctionCallInfo fcinfo, int argno, Oid argtype, MemoryContext cxt)
{
	FuncSet		set;
	int32	   *ids;
	int32		len;

	switch (argtype)
	{
		case INT4OID:
			{
				int32		func = PG_GETARG_INT32(argno);

				ids = copy_ids(&func, 1, cxt);
				len = 1;
			}
			break;
		case INT4ARRAYOID:
			{
				const int32 *given = path_argument(PG_GETARG_ARRAYTYPE_P(argno), "funcs", &len);

				ids = copy_ids(given, len, cxt);
				len = func_ids_sort_distinct(ids, len);
			}
			break;
		case TEXTOID:
			{
				char	   *name = text_to_cstring(PG_GETARG_TEXT_PP(argno));
				int32	   *found = func_lookup_by_name(name, &len);

				if (len == 0)
					unknown_name(fcinfo, name);
				ids = copy_ids(found, len, cxt);
			}
			break;
		default:
			elog(ERROR, "argument %d of %s is not a func, a func array or a name",
				 argno + 1, called_function(fcinfo));
	}
	set.ids = ids;
	set.count = len;
	return set;
}

FuncSet
func_arg_set(FunctionCallInfo fcinfo, int argno)
{
	Oid			argtype;
	ArgEntry   *entry = arg_entry(fcinfo, argno, &argtype);

	if (!entry->has_set)
	{
		entry->set = make_set(fcinfo, argno, argtype, fcinfo->flinfo->fn_mcxt);
		entry->has_set = true;
		/* a name's funcs come from calltree.func: none is missing */
		entry->looked_up = argtype == TEXTOID;
	}
	return entry->set;
}

void
func_arg_check(FunctionCallInfo fcinfo, int argno, const char *what,
			   const int32 *ids, int32 n, const int32 *held, int32 nheld)
{
	Oid			argtype;
	ArgEntry   *entry = arg_entry(fcinfo, argno, &argtype);
	bool	   *found;
	int32		nfound = 0;

	if (!entry->looked_up)
	{
		int32	   *missing = func_lookup_missing(ids, n, &entry->nmissing);

		entry->missing = copy_ids(missing, entry->nmissing, fcinfo->flinfo->fn_mcxt);
		entry->looked_up = true;
	}
	if (entry->nmissing == 0)
		return;

	/* ids calltree.func lacks are known when the tree or path holds them */
	found = palloc0(sizeof(bool) * entry->nmissing);
	for (int32 i = 0; i < nheld && nfound < entry->nmissing; i++)
	{
		int32		index = func_ids_find(entry->missing, entry->nmissing, held[i]);

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (index >= 0 && !found[index])
		{
			found[index] = true;
			nfound++;
		}
	}
	for (int32 i = 0; i < entry->nmissing; i++)
		if (!found[i])
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_OBJECT),
					 errmsg("%s %d given to %s does not exist", what, entry->missing[i],
							called_function(fcinfo)),
					 errdetail("Neither calltree.func nor the tree or path given holds func %d.",
							   entry->missing[i]),
					 errhint("Name the function instead, or find its ids with funcs('regular expression').")));
	pfree(found);
}
