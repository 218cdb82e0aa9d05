/*
 * symbol_table.h
 *	  A sorted symbol table of one resource: start addresses and names, and
 *	  the look-up "the symbol with the highest start not above an address".
 *
 * Addresses are unsigned 64-bit values; SQL passes them as bigint, so an
 * address of 2^63 or more (a kernel address) arrives as a negative number
 * and is compared here as the unsigned value with the same bits.
 */
#ifndef CALLTREE_SYMBOL_TABLE_H
#define CALLTREE_SYMBOL_TABLE_H

#include "postgres.h"

typedef struct Symbol
{
	uint64		start;
	const char *name;			/* NUL-terminated */
} Symbol;

typedef struct SymbolTable
{
	Symbol	   *symbols;		/* sorted by start, unique starts */
	int			count;
} SymbolTable;

extern void symbol_table_sort(SymbolTable *table);
extern int	symbol_table_find(const SymbolTable *table, uint64 address);
extern void symbol_table_merge(SymbolTable *into, const SymbolTable *newer);

#endif							/* CALLTREE_SYMBOL_TABLE_H */
