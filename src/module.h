/*
 * module.h
 *	  The extension's settings (GUCs), as the C variables that hold them.
 *
 * module.c defines them all and registers them when the library is
 * loaded; any file may read them.  Each variable starts with its setting's
 * default, so code that runs before _PG_init (none does today) or outside
 * a server (the fuzz harnesses) sees the same values.
 */
#ifndef CALLTREE_MODULE_H
#define CALLTREE_MODULE_H

/* calltree.stack_read: how stack ids are read from calltree.stack */
typedef enum StackRead
{
	STACK_READ_AUTO,			/* by the share of the table needed */
	STACK_READ_INDEX,			/* one index probe per stack row */
	STACK_READ_SCAN				/* the whole tables, sequentially */
} StackRead;

extern int	calltree_stack_read;	/* a StackRead */

/* calltree.import_work_mem, in kB: an import's caches stay below it */
extern int	calltree_import_work_mem;

/* calltree.max_path_output: the most func path elements one call may write or walk */
extern int	calltree_max_path_output;

/* calltree.duplicate_notice: a NOTICE for a file imported before (import_duplicates.c) */
extern bool calltree_duplicate_notice;

/*
 * calltree.import_started_at: the start time of the profiles imports write
 * (timestamptz text), in place of their files'; empty: the files'
 */
extern char *calltree_import_started_at;

#endif							/* CALLTREE_MODULE_H */
