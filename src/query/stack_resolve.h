/*
 * stack_resolve.h
 *	  From stack ids to func paths: a resolver adds the path of each stack id
 *	  to a tree builder, reading calltree.stack and calltree.frame
 *	  (stack_resolve.c), and answers with the stack's node.
 *
 * calltree.stack_read (module.h) chooses between index probes and reading
 * the tables whole.
 */
#ifndef CALLTREE_STACK_RESOLVE_H
#define CALLTREE_STACK_RESOLVE_H

#include "postgres.h"

#include "tree/builder.h"

typedef struct StackResolver StackResolver;

extern StackResolver *stack_resolver_begin(TreeBuilder *builder);
extern void stack_resolver_preload(StackResolver *resolver, int64 expected);
extern int32 stack_resolver_node(StackResolver *resolver, int64 stack_id);
extern int64 stack_resolver_frame_at(StackResolver *resolver, int64 stack_id, int32 depth);
extern void stack_resolver_end(StackResolver *resolver);

#endif							/* CALLTREE_STACK_RESOLVE_H */
