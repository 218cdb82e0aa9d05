/*
 * symbol_table.c
 *	  Sorting and searching symbol tables (no fmgr, no SPI).
 *
 * symbolicate() receives symbols in any order.  They are sorted here rather
 * than rejected when unsorted: symbol tables come from tools (nm, readelf,
 * a symbol server) that do not all sort, and a sort of a million symbols
 * costs a fraction of a second.  The same start given twice with the same
 * name is one symbol; with two names it is an error, since no frame could
 * say which of the two it belongs to.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "formats/symbol_table.h"

static int
symbol_cmp(const void *a, const void *b)
{
	const Symbol *x = a;
	const Symbol *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sorts by start and drops exact duplicates; errors on a start with two names. */
void
symbol_table_sort(SymbolTable *table)
{
	int			kept = 0;

	qsort(table->symbols, table->count, sizeof(Symbol), symbol_cmp);
	for (int i = 0; i < table->count; i++)
	{
		Symbol	   *s = &table->symbols[i];

		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (kept > 0 && table->symbols[kept - 1].start == s->start)
		{
			if (strcmp(table->symbols[kept - 1].name, s->name) == 0)
				continue;
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("symbol table has two names for start address 0x%" INT64_MODIFIER "x: \"%s\" and \"%s\"",
							s->start, table->symbols[kept - 1].name, s->name),
					 errdetail("A frame at that address could belong to either."),
					 errhint("Give each start address one name, e.g. keep the first alias that nm prints.")));
		}
		table->symbols[kept++] = *s;
	}
	table->count = kept;
}

/* The index of the symbol with the highest start <= address, or -1. */
int
symbol_table_find(const SymbolTable *table, uint64 address)
{
	int			lo = 0;
	int			hi = table->count;	/* answer is in [lo - 1, hi - 1] */

	while (lo < hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (table->symbols[mid].start <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/*
 * Merges a newer sorted table into a sorted one; at a start both have, the
 * newer name wins.  The result replaces *into (allocated in the current
 * memory context).
 */
void
symbol_table_merge(SymbolTable *into, const SymbolTable *newer)
{
	Symbol	   *out = palloc_extended(sizeof(Symbol) * Max(into->count + newer->count, 1),
									  MCXT_ALLOC_HUGE);
	int			i = 0,
				j = 0,
				n = 0;

	while (i < into->count || j < newer->count)
	{
		if (j == newer->count ||
			(i < into->count && into->symbols[i].start < newer->symbols[j].start))
			out[n++] = into->symbols[i++];
		else
		{
			if (i < into->count && into->symbols[i].start == newer->symbols[j].start)
				i++;
			out[n++] = newer->symbols[j++];
		}
	}
	into->symbols = out;
	into->count = n;
}
