-- Property: for every transform, the tree-level function applied to the
-- aggregated tree equals aggregating the path-level function applied to
-- each sample.  3,000 random samples over 12 funcs (so lots of recursion),
-- every transform, node paths taken from the tree itself.
SET search_path = calltree, public;

SELECT setseed(0.1234);
CREATE TEMP TABLE samples AS
SELECT array(SELECT 1 + (random() * 11)::int FROM generate_series(1, 1 + (random() * 9)::int + 0 * i)) AS path,
       1 + (random() * 50)::bigint AS weight
  FROM generate_series(1, 3000) AS i;
CREATE TEMP TABLE tree AS SELECT calltree_agg(path, weight) AS t FROM samples;
SELECT count(*) AS nodes FROM tree, nodes(t);

-- node paths to transform: every 40th node, and one that is not in the tree
CREATE TEMP TABLE node_paths AS
SELECT n.path FROM tree, nodes(t) AS n WHERE n.node % 40 = 1
UNION ALL SELECT '{1,1,1,1,1,1,1,1,1,1,1,1}'::int4[];
-- funcs named by id must be funcs of calltree.func: make 1 to 13 exist,
-- whatever the tests before left (collect_garbage() deletes unused funcs)
INSERT INTO func (id, name) SELECT i, 'test func ' || i FROM generate_series(1, 13) AS i ON CONFLICT DO NOTHING;
CREATE TEMP TABLE funcs AS SELECT generate_series(1, 13) AS func;
SELECT (SELECT count(*) FROM node_paths) AS node_paths, (SELECT count(*) FROM funcs) AS funcs;

-- an empty result is NULL from calltree_agg and {} from a tree function
CREATE FUNCTION pg_temp.agree(tree_level calltree, path_level calltree) RETURNS boolean
LANGUAGE sql AS $$ SELECT tree_level = coalesce(path_level, '{}') $$;

SELECT 'merge_call_node' AS transform, count(*) AS cases,
       count(*) FILTER (WHERE NOT pg_temp.agree(merge_call_node(t, np.path),
         (SELECT calltree_agg(merge_call_node(s.path, np.path), s.weight) FROM samples s))) AS disagree
  FROM tree, node_paths np
UNION ALL
SELECT 'merge_subtree', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(merge_subtree(t, np.path),
         (SELECT calltree_agg(merge_subtree(s.path, np.path), s.weight) FROM samples s)))
  FROM tree, node_paths np
UNION ALL
SELECT 'hide_call_node', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(hide_call_node(t, np.path),
         (SELECT calltree_agg(hide_call_node(s.path, np.path), s.weight) FROM samples s)))
  FROM tree, node_paths np
UNION ALL
SELECT 'focus_subtree', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(focus_subtree(t, np.path),
         (SELECT calltree_agg(focus_subtree(s.path, np.path), s.weight) FROM samples s)))
  FROM tree, node_paths np
UNION ALL
SELECT 'merge_function', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(merge_function(t, f.func),
         (SELECT calltree_agg(merge_function(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'merge_functions', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(merge_functions(t, ARRAY[f.func, f.func % 12 + 1, 5]),
         (SELECT calltree_agg(merge_functions(s.path, ARRAY[f.func, f.func % 12 + 1, 5]), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'collapse_function_subtree', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(collapse_function_subtree(t, f.func),
         (SELECT calltree_agg(collapse_function_subtree(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'drop_function', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(drop_function(t, f.func),
         (SELECT calltree_agg(drop_function(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'focus_function', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(focus_function(t, f.func),
         (SELECT calltree_agg(focus_function(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'collapse_direct_recursion', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(collapse_direct_recursion(t, f.func),
         (SELECT calltree_agg(collapse_direct_recursion(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'collapse_recursion', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(collapse_recursion(t, f.func),
         (SELECT calltree_agg(collapse_recursion(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'remap_functions', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(remap_functions(t, ARRAY[f.func, 3], ARRAY[4, 4]),
         (SELECT calltree_agg(remap_functions(s.path, ARRAY[f.func, 3], ARRAY[4, 4]), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'invert', 1,
       count(*) FILTER (WHERE NOT pg_temp.agree(invert(t),
         (SELECT calltree_agg(invert(s.path), s.weight) FROM samples s)))
  FROM tree;

-- the transforms change the tree: the property is not vacuous
SELECT count(*) FILTER (WHERE merge_function(t, f.func) <> t) AS merge_changed,
       count(*) FILTER (WHERE collapse_recursion(t, f.func) <> t) AS recursion_changed,
       count(*) FILTER (WHERE focus_function(t, f.func) <> t) AS focus_changed
  FROM tree, funcs f;

-- and compose: a chain of transforms on the tree equals the chain on each path
SELECT collapse_recursion(merge_function(focus_function(t, 3), 5), 3)
     = (SELECT calltree_agg(collapse_recursion(merge_function(focus_function(path, 3), 5), 3), weight)
          FROM samples) AS chain_agrees
  FROM tree;

-- backtraces and outgoing calls against their definitions on paths:
-- total = each sample containing f, cut at its outermost f, read upwards;
-- self = each sample whose leaf is f, read upwards
SELECT f.func,
       pg_temp.agree(backtraces(t, f.func),
         (SELECT calltree_agg(invert(s.path[1:array_position(s.path, f.func)]), s.weight)
            FROM samples s WHERE f.func = ANY (s.path))) AS backtraces_total,
       pg_temp.agree(backtraces(t, f.func, 'self'),
         (SELECT calltree_agg(invert(s.path), s.weight)
            FROM samples s WHERE s.path[cardinality(s.path)] = f.func)) AS backtraces_self,
       (outgoing_calls(t, f.func)).outgoing = focus_function(t, f.func) AS outgoing,
       (outgoing_calls(t, f.func)).call_sites
         = (SELECT count(*) FROM nodes(t) AS n
             WHERE n.func = f.func AND NOT (n.path[1:n.depth] @> ARRAY[f.func])) AS call_sites,
       (SELECT running FROM nodes(backtraces(t, f.func)) WHERE node = 1)
         = (SELECT running FROM functions(t) WHERE func = f.func) AS root_is_running,
       (SELECT coalesce(sum(running), 0) FROM nodes(backtraces(t, f.func, 'self')) WHERE parent IS NULL)
         = (SELECT self FROM functions(t) WHERE func = f.func) AS roots_are_self
  FROM tree, funcs f WHERE f.func <= 12 ORDER BY f.func;

-- callers and callees against their definitions: a sample counts once per
-- edge caller → f however often the edge appears in it
CREATE TEMP TABLE edges AS
SELECT DISTINCT s.ctid AS sample, s.weight, s.path[k - 1] AS caller, s.path[k] AS callee,
       k = cardinality(s.path) AS at_leaf
  FROM samples s, generate_series(1, cardinality(s.path)) AS k;
SELECT f.func,
       (SELECT array_agg(ROW(c.caller, c.running, c.self)::text ORDER BY c.caller NULLS FIRST) FROM callers(t, f.func) c)
     = (SELECT array_agg(ROW(caller, running, self)::text ORDER BY caller NULLS FIRST)
          FROM (SELECT caller, sum(weight) AS running, coalesce(sum(weight) FILTER (WHERE leaf), 0) AS self
                  FROM (SELECT sample, weight, caller, bool_or(at_leaf) AS leaf FROM edges
                         WHERE callee = f.func GROUP BY sample, weight, caller) AS e
                 GROUP BY caller) AS x) AS callers_ok,
       (SELECT array_agg(ROW(c.callee, c.running, c.self)::text ORDER BY c.callee) FROM callees(t, f.func) c)
     = (SELECT array_agg(ROW(callee, running, self)::text ORDER BY callee)
          FROM (SELECT callee, sum(weight) AS running, coalesce(sum(weight) FILTER (WHERE leaf), 0) AS self
                  FROM (SELECT sample, weight, callee, bool_or(at_leaf) AS leaf FROM edges
                         WHERE caller = f.func GROUP BY sample, weight, callee) AS e
                 GROUP BY callee) AS x) AS callees_ok
  FROM tree, funcs f WHERE f.func <= 12 ORDER BY f.func;
