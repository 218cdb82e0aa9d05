-- calltree_agg, calltree_merge, stack_agg, + and the reading functions.
SET search_path = calltree, public;

-- weights add up per path; running is the sum over the subtree
SELECT calltree_agg(path, weight)
  FROM (VALUES ('{1,2}'::int4[], 5), ('{1,2}', 7), ('{1,3}', 2), ('{1}', 1)) AS v(path, weight);
-- the one-argument form counts samples
SELECT calltree_agg(path) FROM (VALUES ('{1,2}'::int4[]), ('{1,2}'), ('{1}')) AS v(path);

-- a forest: several roots, ordered by running desc, then func asc
SELECT node, parent, depth, func, path, running, self, calls
  FROM nodes((SELECT calltree_agg(path, weight)
                FROM (VALUES ('{9,1}'::int4[], 2), ('{3}', 5), ('{7,8}', 2), ('{7}', 3), ('{4}', 2)) AS v(path, weight)));

-- a single-frame stack
SELECT * FROM nodes((SELECT calltree_agg('{42}'::int4[], 3)));

-- NULL paths, NULL weights and empty paths are skipped; no rows at all gives NULL
SELECT calltree_agg(path, weight)
  FROM (VALUES ('{1,2}'::int4[], 1), (NULL, 5), ('{1,2}', NULL), ('{}', 4), ('{1}', 1)) AS v(path, weight);
SELECT calltree_agg(path) IS NULL AS empty_is_null FROM (SELECT '{1}'::int4[] WHERE false) AS v(path);
SELECT calltree_agg(NULL::int4[]) IS NULL AS all_null_is_null FROM generate_series(1, 3);
SELECT stack_agg(s) IS NULL AS stack_empty_is_null FROM (SELECT 1::bigint WHERE false) AS v(s);
SELECT calltree_merge(t) IS NULL AS merge_empty_is_null FROM (SELECT NULL::calltree) AS v(t);

-- zero weights keep their node; negative weights are allowed and exact
SELECT calltree_agg(path, weight)
  FROM (VALUES ('{1,2}'::int4[], 0), ('{1,3}', -4), ('{1,3}', 10)) AS v(path, weight);

-- a 10,000-deep stack: one node per level, the leaf holds the weight
CREATE TEMP TABLE deep AS
SELECT calltree_agg(array(SELECT g FROM generate_series(1, 10000) AS g), 7) AS tree;
SELECT count(*) AS nodes, max(depth) AS max_depth, min(running) AS min_running,
       sum(self) AS total_self, max(cardinality(path)) AS longest_path
  FROM nodes((SELECT tree FROM deep));
SELECT (tree::text)::calltree = tree AS deep_text_round_trip, total(tree) FROM deep;
-- and through the stack table: 10,000 interned frames, stack_path and stack_agg
SELECT intern_stack(array(SELECT 'deep' || g FROM generate_series(1, 10000) AS g)) AS deep_stack \gset
SELECT cardinality(stack_path(:deep_stack)) AS deep_path_length;
SELECT count(*) AS nodes, max(depth) AS max_depth, sum(self) AS total
  FROM nodes((SELECT stack_agg(:deep_stack, 3)));

-- calltree_merge of two trees equals the tree of the union of their samples,
-- and so does +.  Random paths over 30 funcs, deterministic.
SELECT setseed(0.42);
CREATE TEMP TABLE random_samples AS
SELECT i, array(SELECT 1 + (random() * 29)::int FROM generate_series(1, 1 + (random() * 8)::int + 0 * i)) AS path,
       1 + (random() * 100)::bigint AS weight
  FROM generate_series(1, 3000) AS i;
CREATE TEMP TABLE halves AS
SELECT i % 2 AS half, calltree_agg(path, weight) AS tree FROM random_samples GROUP BY i % 2;
SELECT (SELECT calltree_merge(tree) FROM halves) = (SELECT calltree_agg(path, weight) FROM random_samples)
       AS merge_equals_union,
       (SELECT h0.tree + h1.tree FROM halves h0, halves h1 WHERE h0.half = 0 AND h1.half = 1)
         = (SELECT calltree_agg(path, weight) FROM random_samples) AS plus_equals_union,
       (SELECT h1.tree + h0.tree FROM halves h0, halves h1 WHERE h0.half = 0 AND h1.half = 1)
         = (SELECT h0.tree + h1.tree FROM halves h0, halves h1 WHERE h0.half = 0 AND h1.half = 1)
       AS plus_commutes;

-- every node checked against plain SQL: running of a prefix is the sum of
-- weights of the paths that start with it, self the sum of those equal to it
CREATE TEMP TABLE expected_nodes AS
SELECT prefix, sum(weight) AS running, sum(weight) FILTER (WHERE cardinality(path) = k) AS self
  FROM (SELECT path, weight, k, path[1:k] AS prefix
          FROM random_samples, generate_series(1, cardinality(path)) AS k) AS p
 GROUP BY prefix;
SELECT count(*) AS nodes,
       count(*) FILTER (WHERE e.prefix IS NULL) AS missing,
       count(*) FILTER (WHERE e.running IS DISTINCT FROM n.running
                           OR coalesce(e.self, 0) IS DISTINCT FROM n.self) AS wrong
  FROM nodes((SELECT calltree_agg(path, weight) FROM random_samples)) AS n
  LEFT JOIN expected_nodes AS e ON e.prefix = n.path;
SELECT count(*) AS expected_nodes FROM expected_nodes;

-- preorder with siblings by running desc, func asc: check it from the rows
SELECT bool_and(n.parent IS NULL OR n.parent < n.node) AS parents_first,
       bool_and(n.depth = cardinality(n.path) - 1) AS depth_matches_path
  FROM nodes((SELECT calltree_agg(path, weight) FROM random_samples)) AS n;
SELECT count(*) AS misordered_siblings
  FROM (SELECT parent, running, func,
               lag(running) OVER w AS prev_running, lag(func) OVER w AS prev_func
          FROM nodes((SELECT calltree_agg(path, weight) FROM random_samples))
        WINDOW w AS (PARTITION BY parent ORDER BY node)) AS s
 WHERE prev_running < running OR (prev_running = running AND prev_func > func);

-- stack_agg over the stack table equals calltree_agg over stack_path
INSERT INTO profile (name) VALUES ('random') RETURNING id AS random_profile \gset
INSERT INTO sample (profile_id, stack_id, weight)
SELECT :random_profile, intern_stack(array(SELECT 'r' || f FROM unnest(path) AS f)), weight
  FROM random_samples;
SELECT (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :random_profile)
     = (SELECT calltree_agg(stack_path(stack_id), weight) FROM sample WHERE profile_id = :random_profile)
       AS stack_agg_equals_calltree_agg,
       (SELECT total(stack_agg(stack_id)) FROM sample WHERE profile_id = :random_profile) AS samples,
       (SELECT total(stack_agg(stack_id, weight)) FROM sample WHERE profile_id = :random_profile)
     = (SELECT sum(weight) FROM random_samples) AS total_is_sum;

-- both ways of reading the stack table give the same tree: index probes,
-- and the whole table read at once (chosen for big profiles)
SELECT setting AS default_stack_read FROM pg_settings WHERE name = 'calltree.stack_read';
SET calltree.stack_read = scan;
CREATE TEMP TABLE by_scan AS SELECT stack_agg(stack_id, weight) AS tree FROM sample WHERE profile_id = :random_profile;
SET calltree.stack_read = index;
SELECT (SELECT tree FROM by_scan) = stack_agg(stack_id, weight) AS scan_equals_index
  FROM sample WHERE profile_id = :random_profile;
-- ids far apart are read into hash tables instead of arrays: same tree
BEGIN;
INSERT INTO stack (id, prefix_id, frame_id)
SELECT 9000000000, id, frame_id FROM stack WHERE id = (SELECT max(stack_id) FROM sample WHERE profile_id = :random_profile);
SET LOCAL calltree.stack_read = scan;
SELECT (SELECT tree FROM by_scan) = stack_agg(stack_id, weight) AS sparse_scan_equals_index
  FROM sample WHERE profile_id = :random_profile;
-- stack_agg keeps compact ids in an array and far ones in a hash table:
-- samples of both kinds, in any order, give the tree of their paths
SELECT stack_agg(s, w) = calltree_agg(stack_path(s), w) AS dense_and_sparse_ids
  FROM (SELECT stack_id AS s, weight AS w FROM sample WHERE profile_id = :random_profile
        UNION ALL SELECT 9000000000, 5
        UNION ALL SELECT stack_id, 1 FROM sample WHERE profile_id = :random_profile AND weight > 90) AS x;
ROLLBACK;
RESET calltree.stack_read;

-- functions(): a func's running counts each sample once under recursion
SELECT * FROM functions((SELECT calltree_agg(path, weight)
                           FROM (VALUES ('{1,2,1,2}'::int4[], 1), ('{1,2,1}', 10), ('{1,3}', 100)) AS v(path, weight)));

-- report(): names for interned funcs, '#id' for unknown ones, percentages
SELECT intern_func('main') AS main_func \gset
SELECT label, running, self, running_pct, self_pct, name
  FROM report((SELECT calltree_agg(path, weight)
                 FROM (VALUES (ARRAY[:main_func, -5], 3), (ARRAY[:main_func], 1)) AS v(path, weight)));

-- equality and hashing: DISTINCT and GROUP BY work on trees
SELECT count(*) AS distinct_trees
  FROM (SELECT DISTINCT tree
          FROM (VALUES ('{1:2/1 {2:1/1}}'::calltree), ('{1:2/1{2:1/1}}'), ('{1:2/2}')) AS v(tree)) AS d;
SELECT '{1:2/1 {2:1/1}}'::calltree <> '{1:2/2}'::calltree AS differs;
SET enable_sort = off;
SELECT tree, count(*) FROM (VALUES ('{1:1/1}'::calltree), ('{1:1/1}'), ('{2:1/1}')) AS v(tree)
 GROUP BY tree ORDER BY count(*) DESC;
RESET enable_sort;

-- A node with many children: past a few, its children are also found by
-- hash (tree.c), as are the roots'.  Func 1 gets 20 children, funcs 2 to
-- 21, path {1, r + 2} with weight k for k = 1..100 and r = k % 20: child 2
-- (r = 0) weighs 20+40+60+80+100 = 300, child 3 weighs 1+21+41+61+81 = 205,
-- child 21 weighs 19+39+59+79+99 = 295, and func 1 runs 5050.  30 more
-- roots, funcs 100 to 129, are seen 3 times each with weight 1.
CREATE TEMP TABLE wide (p int4[], w bigint);
INSERT INTO wide SELECT ARRAY[1, k % 20 + 2], k FROM generate_series(1, 100) AS k;
INSERT INTO wide SELECT ARRAY[k % 30 + 100], 1 FROM generate_series(1, 90) AS k;
SELECT count(*) AS nodes,
       count(*) FILTER (WHERE depth = 0) AS roots,
       max(running) FILTER (WHERE path = '{1}') AS running_1,
       count(*) FILTER (WHERE depth = 1) AS children_of_1,
       string_agg(self::text, ',' ORDER BY func) FILTER (WHERE func IN (2, 3, 21)) AS self_2_3_21,
       count(*) FILTER (WHERE func >= 100 AND self = 3 AND running = 3) AS roots_of_3
  FROM nodes((SELECT calltree_agg(p, w) FROM wide));
-- the order of the paths does not matter, nor does merging trees that
-- each hold a part of them
SELECT (SELECT calltree_agg(p, w ORDER BY p DESC, w) FROM wide)
     = (SELECT calltree_agg(p, w ORDER BY w DESC, p) FROM wide) AS any_order,
       (SELECT calltree_merge(t) FROM (SELECT calltree_agg(p, w) AS t FROM wide GROUP BY w % 7) AS parts)
     = (SELECT calltree_agg(p, w) FROM wide) AS merged_parts;
-- the same through stack ids: 20 stacks below one, and 30 roots
CREATE TEMP TABLE wide_stacks AS
  SELECT intern_stack(ARRAY['wide_main', 'wide_f' || (k % 20)]) AS stack_id, k AS weight
    FROM generate_series(1, 100) AS k
  UNION ALL
  SELECT intern_stack(ARRAY['wide_root' || (k % 30)]), 1 FROM generate_series(1, 90) AS k;
SELECT stack_agg(stack_id, weight) = calltree_agg(stack_path(stack_id), weight) AS stack_agg_wide,
       (SELECT count(*) FROM nodes(stack_agg(stack_id, weight))) AS nodes
  FROM wide_stacks;
