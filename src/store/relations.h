/*
 * relations.h
 *	  The extension's tables and columns found by name, or an error that
 *	  says what is missing; and the privilege and row-security checks that a
 *	  direct read of them must make first (relations.c).
 */
#ifndef CALLTREE_RELATIONS_H
#define CALLTREE_RELATIONS_H

#include "postgres.h"

#include "access/attnum.h"

extern Oid	calltree_relation(Oid namespace, const char *name);
extern AttrNumber calltree_column(Oid relid, const char *name);
extern void calltree_check_read(Oid relid, const AttrNumber *columns, int ncolumns);

#endif							/* CALLTREE_RELATIONS_H */
