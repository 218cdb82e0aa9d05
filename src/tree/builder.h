/*
 * builder.h
 *	  The tree builder: a trie of func paths under construction, turned into
 *	  a stored calltree (calltree.h) in canonical order when finished.
 *
 * Nodes are numbered in creation order, so a parent always precedes its
 * children.  All of a builder's memory lives in the context given at
 * creation.  Every calltree value is made by a builder: aggregates, text
 * and binary input, merging, transforms.
 */
#ifndef CALLTREE_BUILDER_H
#define CALLTREE_BUILDER_H

#include "postgres.h"

#include "tree/calltree.h"

typedef struct TreeBuilder TreeBuilder;

extern TreeBuilder *tree_builder_create(MemoryContext cxt);
extern void tree_builder_reserve(TreeBuilder *builder, int64 expected);

/* nodes: -1 as a parent stands for the forest's root level */
extern int32 tree_builder_child(TreeBuilder *builder, int32 parent, int32 func);
extern int32 tree_builder_find_child(const TreeBuilder *builder, int32 parent, int32 func);

/* what a node holds */
extern void tree_builder_add_self(TreeBuilder *builder, int32 node, int64 weight);
extern void tree_builder_add_calls(TreeBuilder *builder, int32 node, int64 calls);
extern void tree_builder_add_duration(TreeBuilder *builder, int32 node, int64 duration);
extern void tree_builder_add_latency(TreeBuilder *builder, int32 node, int64 min, int64 max,
									 const uint64 *buckets, int32 nbuckets);

/* whole paths and trees */
extern void tree_builder_add_path(TreeBuilder *builder, const int32 *funcs,
								  int32 len, int64 weight);
extern void tree_builder_add_tree(TreeBuilder *builder, const CallTree *tree);
extern int32 *tree_builder_add_weights(TreeBuilder *builder, const CallTree *tree, bool subtract);
extern void tree_builder_add_builder(TreeBuilder *builder, const TreeBuilder *other);

/* reading the trie */
extern int32 tree_builder_count(const TreeBuilder *builder);
extern int32 tree_builder_func(const TreeBuilder *builder, int32 node);
extern int32 tree_builder_parent(const TreeBuilder *builder, int32 node);
extern int32 *tree_builder_depths_below(const TreeBuilder *builder, int32 target);

extern CallTree *tree_builder_finish(const TreeBuilder *builder);
extern CallTree *tree_builder_finish_mapped(const TreeBuilder *builder, int32 *placed);

#endif							/* CALLTREE_BUILDER_H */
