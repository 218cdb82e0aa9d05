/*
 * fuzz_symbols.c
 *	  libFuzzer harness of the symbol tables (symbol_table.c).
 *
 * The input is a list of symbols, each a width byte w (0..8, modulo 9), w
 * bytes of start address (little-endian), a length byte n (modulo 16) and
 * n bytes of name; narrow starts make shared starts likely.  The first
 * half of the symbols is one table, the rest another.  Each table is
 * sorted: an ERROR exactly when a start has two names; otherwise starts
 * strictly increase and the distinct starts are kept, each with its name.
 * Look-ups agree with a linear search, and the merge of the two tables
 * holds every start of both, with the newer table's name where both have
 * one.
 */
#include "postgres.h"

#include "pg_stubs.h"
#include "formats/symbol_table.h"

typedef struct Input
{
	const uint8 *data;
	size_t		len;
} Input;

static int
read_symbols(const Input *input, Symbol **symbols)
{
	size_t		pos = 0;
	int			count = 0;
	int			capacity = 16;

	*symbols = palloc(sizeof(Symbol) * capacity);
	while (pos < input->len)
	{
		int			width = input->data[pos++] % 9;
		uint64		start = 0;
		int			n;
		char	   *name;

		for (int i = 0; i < width && pos < input->len; i++)
			start |= (uint64) input->data[pos++] << (8 * i);
		n = pos < input->len ? input->data[pos++] % 16 : 0;
		n = Min((size_t) n, input->len - pos);
		name = palloc(n + 1);
		memcpy(name, input->data + pos, n);
		name[n] = '\0';
		pos += n;
		if (count == capacity)
		{
			capacity *= 2;
			*symbols = repalloc(*symbols, sizeof(Symbol) * capacity);
		}
		(*symbols)[count].start = start;
		(*symbols)[count++].name = name;
	}
	return count;
}

/* The linear search that symbol_table_find must agree with */
static int
find_linear(const SymbolTable *table, uint64 address)
{
	int			found = -1;

	for (int i = 0; i < table->count; i++)
		if (table->symbols[i].start <= address)
			found = i;
	return found;
}

static void
check_finds(const SymbolTable *table)
{
	for (int i = 0; i < table->count; i++)
	{
		uint64		start = table->symbols[i].start;
		uint64		probes[3] = {start, start - 1, start + 1};

		for (int p = 0; p < 3; p++)
			FUZZ_CHECK(symbol_table_find(table, probes[p]) == find_linear(table, probes[p]),
					   "find(0x%" INT64_MODIFIER "x) disagrees with a linear search", probes[p]);
	}
	FUZZ_CHECK(symbol_table_find(table, 0) == find_linear(table, 0), "find(0)");
	FUZZ_CHECK(symbol_table_find(table, PG_UINT64_MAX) == table->count - 1, "find(max)");
}

/* The name that the unsorted symbols give start, or NULL; *clash when they give two. */
static const char *
name_of(const Symbol *symbols, int count, uint64 start, bool *clash)
{
	const char *name = NULL;

	for (int i = 0; i < count; i++)
		if (symbols[i].start == start)
		{
			if (name && strcmp(name, symbols[i].name) != 0)
				*clash = true;
			name = symbols[i].name;
		}
	return name;
}

static void
check_sorted(const SymbolTable *table, const Symbol *original, int count)
{
	int			distinct = 0;

	for (int i = 1; i < table->count; i++)
		FUZZ_CHECK(table->symbols[i - 1].start < table->symbols[i].start, "starts do not increase at %d", i);
	for (int i = 0; i < count; i++)
	{
		bool		clash = false;
		int			at = symbol_table_find(table, original[i].start);

		FUZZ_CHECK(at >= 0 && table->symbols[at].start == original[i].start, "a start was lost");
		FUZZ_CHECK(strcmp(table->symbols[at].name, name_of(original, count, original[i].start, &clash)) == 0,
				   "a start has another name");
		distinct += name_of(original, i, original[i].start, &clash) == NULL;
	}
	FUZZ_CHECK(distinct == table->count, "%d distinct starts became %d symbols", distinct, table->count);
}

static void
sort_in_try(void *table)
{
	symbol_table_sort(table);
}

/* Sorts a copy of symbols[0..count); false for the error of a start with two names. */
static bool
sort_table(const Symbol *symbols, int count, SymbolTable *table)
{
	bool		clash = false;
	bool		sorted;

	table->symbols = palloc(sizeof(Symbol) * Max(count, 1));
	memcpy(table->symbols, symbols, sizeof(Symbol) * count);
	table->count = count;
	for (int i = 0; i < count; i++)
		(void) name_of(symbols, count, symbols[i].start, &clash);
	sorted = fuzz_try(sort_in_try, table);
	FUZZ_CHECK(sorted == !clash, "sorting %s, but the table %s a start with two names",
			   sorted ? "succeeded" : "failed", clash ? "has" : "has no");
	if (sorted)
	{
		check_sorted(table, symbols, count);
		check_finds(table);
	}
	return sorted;
}

static void
check_merge(const SymbolTable *older, const SymbolTable *newer)
{
	SymbolTable merged = *older;

	symbol_table_merge(&merged, newer);
	for (int i = 1; i < merged.count; i++)
		FUZZ_CHECK(merged.symbols[i - 1].start < merged.symbols[i].start, "merged starts do not increase");
	for (int i = 0; i < older->count + newer->count; i++)
	{
		bool		from_newer = i >= older->count;
		const Symbol *s = from_newer ? &newer->symbols[i - older->count] : &older->symbols[i];
		int			at = symbol_table_find(&merged, s->start);

		FUZZ_CHECK(at >= 0 && merged.symbols[at].start == s->start, "the merge lost a start");
		if (from_newer || symbol_table_find(newer, s->start) < 0 ||
			newer->symbols[symbol_table_find(newer, s->start)].start != s->start)
			FUZZ_CHECK(merged.symbols[at].name == s->name, "the merge kept the wrong name");
	}
	check_finds(&merged);
}

static void
run(void *arg)
{
	Symbol	   *symbols;
	int			count = read_symbols(arg, &symbols);
	int			half = count / 2;
	SymbolTable older;
	SymbolTable newer;

	if (sort_table(symbols, half, &older) && sort_table(symbols + half, count - half, &newer))
		check_merge(&older, &newer);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input = {data, size};

	FUZZ_CHECK(fuzz_try(run, &input), "unexpected error: %s", fuzz_last_error.message);
	return 0;
}
