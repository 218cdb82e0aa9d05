-- Transforms on edge cases: empty trees, single nodes, forests, deep
-- recursion, absent functions, bad arguments.
SET search_path = calltree, public;

-- A func id that a tree does not hold must be a func of calltree.func.  The
-- tests below name funcs 1 to 9 on trees that do not always hold them, so
-- funcs 1 to 9 are made to exist, whatever the tests before left (another
-- test's collect_garbage() deletes the funcs nothing uses).
INSERT INTO func (id, name) SELECT i, 'test func ' || i FROM generate_series(1, 9) AS i ON CONFLICT DO NOTHING;

CREATE TEMP TABLE shapes (name text, tree calltree);
INSERT INTO shapes VALUES
  ('empty',  '{}'),
  ('single', '{1:5/5}'),
  ('forest', '{1:6/1 {2:5/5}, 3:4/4, 2:2/0 {1:2/2}}'),
  ('deep',   (SELECT calltree_agg(array_fill(7, ARRAY[10000]), 3)));

-- every transform on every shape (7 is the deep recursion's func)
SELECT name,
       merge_call_node(tree, '{1}')::text AS merge_node_1,
       merge_function(tree, 1)::text AS merge_func_1,
       merge_subtree(tree, '{1}')::text AS prune_1,
       hide_call_node(tree, '{1}')::text AS hide_1,
       focus_subtree(tree, '{1}')::text AS focus_1
  FROM shapes WHERE name <> 'deep' ORDER BY name;
SELECT name,
       collapse_function_subtree(tree, 1)::text AS collapse_subtree_1,
       drop_function(tree, 1)::text AS drop_1,
       focus_function(tree, 1)::text AS focus_func_1,
       merge_functions(tree, '{1,3}')::text AS merge_1_3,
       remap_functions(tree, '{3}', '{1}')::text AS remap_3_to_1,
       invert(tree)::text AS inverted
  FROM shapes WHERE name <> 'deep' ORDER BY name;

-- 10,000 levels of direct recursion of func 7, weight 3
SELECT collapse_direct_recursion(tree, 7)::text AS direct,
       collapse_recursion(tree, 7)::text AS any_recursion,
       collapse_function_subtree(tree, 7)::text AS collapsed_subtree,
       merge_function(tree, 7)::text AS merged_away,
       drop_function(tree, 7)::text AS dropped,
       (SELECT count(*) FROM nodes(focus_function(tree, 7))) AS focus_nodes,
       (SELECT count(*) FROM nodes(invert(tree))) AS inverted_nodes,
       (SELECT count(*) FROM nodes(merge_call_node(tree, array_fill(7, ARRAY[5000])))) AS merged_level_5000,
       total(merge_subtree(tree, array_fill(7, ARRAY[2]))) AS pruned_total,
       (SELECT running FROM functions(tree)) AS running_once
  FROM shapes WHERE name = 'deep';

-- a tree that inverts to more nodes than it has: every prefix of a path of
-- 60 funcs holds a sample, and each reads back as a chain of its own
-- (60 * 61 / 2 = 1830 nodes from 60); the same as the path twin's tree
WITH prefixes AS (
    SELECT (SELECT array_agg(f ORDER BY f) FROM generate_series(1, len) AS f) AS path, len AS weight
      FROM generate_series(1, 60) AS len)
SELECT (SELECT count(*) FROM nodes(invert(tree))) AS inverted_nodes,
       (SELECT count(*) FROM nodes(invert(tree)) WHERE depth = 0) AS roots,
       invert(tree) OPERATOR(calltree.=) (SELECT calltree_agg(invert(path), weight) FROM prefixes) AS same_as_paths
  FROM (SELECT calltree_agg(path, weight) AS tree FROM prefixes) AS t;

-- recursion that is not direct: 1→2→1→2→3
SELECT collapse_direct_recursion('{1,2,1,2,3}'::int4[], 1) AS direct_untouched,
       collapse_recursion('{1,2,1,2,3}'::int4[], 1) AS between_removed,
       collapse_recursion('{1,2,1,2,3}'::int4[], 2) AS between_removed_2,
       collapse_direct_recursion('{1,1,2,1,1}'::int4[], 1) AS direct_runs;

-- a function absent from the tree changes nothing (focus keeps nothing).
-- Ids the trees do not hold must be funcs of calltree.func: these are far
-- above the ids the func sequence hands out in the tests.
INSERT INTO func (id, name) VALUES (1000000099, 'absent'), (1000000009, 'a library');
SELECT merge_function(tree, 1000000099) = tree AS merge,
       drop_function(tree, 1000000099) = tree AS drop,
       collapse_function_subtree(tree, 1000000099) = tree AS collapse,
       collapse_recursion(tree, 1000000099) = tree AS recursion,
       remap_functions(tree, '{1000000099}', '{1}') = tree AS remap,
       focus_function(tree, 1000000099)::text AS focus,
       hide_call_node(tree, '{1000000099}') = tree AS hide_absent_node,
       merge_call_node(tree, '{1,1000000099}') = tree AS merge_absent_node
  FROM shapes WHERE name = 'forest';
-- an id that names nothing is an error, on a tree or a path
SELECT merge_function(tree, 1000000098) FROM shapes WHERE name = 'forest';
SELECT hide_call_node(tree, '{1,1000000098}') FROM shapes WHERE name = 'forest';
SELECT drop_function('{1,2,3}'::int4[], 1000000098);

-- path functions: NULL for a dropped sample, never an empty array
SELECT drop_function('{1,2,3}'::int4[], 2) AS dropped,
       merge_function('{2}'::int4[], 2) AS emptied,
       focus_subtree('{1,2}'::int4[], '{1,2,3}') AS above_focus,
       focus_subtree('{1,4,3}'::int4[], '{1,2,3}') AS beside_focus,
       merge_subtree('{1,2}'::int4[], '{1}') AS pruned_root,
       merge_call_node('{}'::int4[], '{1}') AS empty_in,
       invert('{1,2,3}'::int4[]) AS inverted;

-- remap: renamed funcs merge with an equal neighbour; recursion in the data
-- stays (1000000009 is the library's func, interned above)
SELECT remap_functions('{1,5,6,2}'::int4[], '{5,6}', '{1000000009,1000000009}') AS library_collapsed,
       remap_functions('{9,5,2}'::int4[], '{5}', '{9}') AS merged_into_caller,
       remap_functions('{4,4,5,6}'::int4[], '{5}', '{6}') AS recursion_kept,
       remap_functions('{1,2}'::int4[], '{1,2}', '{2,1}') AS swapped;

-- NULL arguments give NULL (the functions are strict)
SELECT merge_call_node('{1:1/1}'::calltree, NULL) IS NULL AS null_node_path,
       drop_function(NULL::calltree, 1) IS NULL AS null_tree,
       focus_subtree(NULL::int4[], '{1}') IS NULL AS null_path;

-- malformed arguments are errors
SELECT merge_call_node('{1:1/1}'::calltree, '{}');
SELECT hide_call_node('{1:1/1}'::calltree, '{{1,2}}');
SELECT focus_subtree('{1:1/1}'::calltree, '{1,NULL}');
SELECT focus_subtree('{1,NULL}'::int4[], '{1}');
SELECT remap_functions('{1:1/1}'::calltree, '{1,2}', '{3}');
SELECT remap_functions('{1:1/1}'::calltree, '{1,1}', '{3,4}');
SELECT merge_functions('{1:1/1}'::calltree, '{1,NULL}');

-- collapse_recursions (JProfiler's "Collapse recursions"): a simple
-- recursion main → f → g → f → g → h.  The second f is stitched back to the
-- first: f shows 1 recursion, and below it g holds 2 merged stacks (the
-- JProfiler: "a node prefixed with 1 recursion would contain a tree with nodes
-- that are prefixed with 2 merged stacks").
SELECT node, parent, depth, func, path, running, self, recursions, merged_stacks
  FROM collapse_recursions((SELECT calltree_agg(path, weight)
                              FROM (VALUES ('{1,2,3,2,3,4}'::int4[], 5), ('{1,2,3}', 2)) AS v(path, weight)));
-- nested recursions: 1 → 2 → 1 → 2 → 1 → 3; every func appears once per path
SELECT node, path, running, self, recursions, merged_stacks
  FROM collapse_recursions('{1:4/0 {2:4/1 {1:3/0 {2:3/0 {1:3/0 {3:3/3}}}}}}');
-- no recursion: the tree itself, each node merged once
SELECT bool_and(recursions = 0 AND merged_stacks = 1) AS unchanged, count(*) AS nodes
  FROM collapse_recursions('{1:3/0 {2:2/2, 3:1/1}}');
SELECT count(*) AS empty FROM collapse_recursions('{}');
