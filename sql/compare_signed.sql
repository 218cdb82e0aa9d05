-- Signed trees (the difference of two trees) are ordinary trees: text and
-- binary forms, nodes(), report(), functions(), the transforms and the
-- collapsed format all take them.  Expected values computed by hand, in
-- the comments; the transforms against their path twins, as in
-- transform_property.
SET search_path = calltree, public;

SELECT intern_func('A') AS a, intern_func('B') AS b, intern_func('C') AS c, intern_func('D') AS d,
       intern_func('E') AS e, intern_func('F') AS f, intern_func('G') AS g, intern_func('H') AS h,
       intern_func('I') AS i \gset

-- later - seed (compare_diff.sql): A→B→C→D→E 3, A→B→C→F→G -1,
-- A→B→H→F 0, A→I 1
CREATE TEMP TABLE signed (id int, tree calltree);
INSERT INTO signed
SELECT 1, l.t - s.t
  FROM (SELECT calltree_agg(p, w) AS t
          FROM (VALUES (ARRAY[:a, :b, :c, :d, :e], 4), (ARRAY[:a, :b, :h, :f], 1), (ARRAY[:a, :i], 1)) AS v(p, w)) AS l,
       (SELECT calltree_agg(p, w) AS t
          FROM (VALUES (ARRAY[:a, :b, :c, :d, :e], 1), (ARRAY[:a, :b, :c, :f, :g], 1), (ARRAY[:a, :b, :h, :f], 1)) AS v(p, w)) AS s;

-- text and binary forms read back
SELECT tree::text::calltree = tree AS text_round_trip FROM signed;
COPY signed TO '/tmp/calltree_regress_signed.copy' WITH (FORMAT binary);
CREATE TEMP TABLE signed_back (id int, tree calltree);
COPY signed_back FROM '/tmp/calltree_regress_signed.copy' WITH (FORMAT binary);
SELECT s.tree = b.tree AS binary_round_trip FROM signed s JOIN signed_back b USING (id);

-- report(): shares of the total 3, negative where the weight is
SELECT label, running, self, running_pct, self_pct FROM signed, report(tree) ORDER BY node;

-- functions(): F is A→B→C→F (-1/0) and A→B→H→F (0/0): running -1, self 0
SELECT f.name, fn.running, fn.self
  FROM signed, functions(tree) fn JOIN func f ON f.id = fn.func
 ORDER BY fn.running DESC, f.name;

-- collapsed stacks: negative and zero counts are written and read back;
-- the zero leaf A→B→H→F keeps its node
SELECT to_collapsed(tree) FROM signed;
SELECT import_collapsed(to_collapsed(tree), 'signed round trip') AS imported FROM signed \gset
SELECT stack_agg(stack_id, weight) = (SELECT tree FROM signed) AS collapsed_round_trip
  FROM sample WHERE profile_id = :imported;
SELECT import_collapsed(E'a;b -9223372036854775808\na;c 9223372036854775807\n', 'signed extremes') > 0 AS extremes;
SELECT import_collapsed(E'a;b -9223372036854775809\n');
SELECT import_collapsed(E'a;b --1\n');
SELECT import_collapsed(E'a;b -\n');

-- The transforms of a signed tree agree with their path twins applied to
-- its samples (the nodes that hold samples: with self weight, or leaves),
-- on a random signed tree: 400 samples minus 400 others over funcs A..I.
SELECT setseed(0.4321);
CREATE TEMP TABLE funcs AS SELECT unnest(ARRAY[:a, :b, :c, :d, :e, :f, :g, :h, :i]) AS func;
CREATE TEMP TABLE random_trees AS
SELECT side, calltree_agg(path, weight) AS t
  FROM (SELECT i % 2 AS side,
               array(SELECT (SELECT array_agg(func) FROM funcs)[1 + (random() * 8)::int]
                       FROM generate_series(1, 1 + (random() * 5)::int + 0 * i)) AS path,
               1 + (random() * 20)::bigint AS weight
          FROM generate_series(1, 800) AS i) AS s
 GROUP BY side;
CREATE TEMP TABLE tree AS
SELECT (SELECT t FROM random_trees WHERE side = 0) - (SELECT t FROM random_trees WHERE side = 1) AS t;
CREATE TEMP TABLE samples AS
SELECT n.path, n.self AS weight
  FROM tree, nodes(t) n
 WHERE n.self <> 0 OR NOT EXISTS (SELECT FROM nodes(t) c WHERE c.parent = n.node);
SELECT count(*) FILTER (WHERE n.running < 0) > 0 AS some_negative, count(*) FILTER (WHERE n.running = 0) > 0 AS some_zero
  FROM tree, nodes(t) n;
-- the samples give back the tree
SELECT calltree_agg(path, weight) = (SELECT t FROM tree) AS samples_ok FROM samples;
CREATE TEMP TABLE node_paths AS SELECT n.path FROM tree, nodes(t) AS n WHERE n.node % 25 = 1;

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
SELECT 'focus_subtree', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(focus_subtree(t, np.path),
         (SELECT calltree_agg(focus_subtree(s.path, np.path), s.weight) FROM samples s)))
  FROM tree, node_paths np
UNION ALL
SELECT 'hide_call_node', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(hide_call_node(t, np.path),
         (SELECT calltree_agg(hide_call_node(s.path, np.path), s.weight) FROM samples s)))
  FROM tree, node_paths np
UNION ALL
SELECT 'merge_function', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(merge_function(t, f.func),
         (SELECT calltree_agg(merge_function(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'focus_function', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(focus_function(t, f.func),
         (SELECT calltree_agg(focus_function(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'drop_function', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(drop_function(t, f.func),
         (SELECT calltree_agg(drop_function(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'collapse_function_subtree', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(collapse_function_subtree(t, f.func),
         (SELECT calltree_agg(collapse_function_subtree(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'collapse_recursion', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(collapse_recursion(t, f.func),
         (SELECT calltree_agg(collapse_recursion(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'collapse_direct_recursion', count(*),
       count(*) FILTER (WHERE NOT pg_temp.agree(collapse_direct_recursion(t, f.func),
         (SELECT calltree_agg(collapse_direct_recursion(s.path, f.func), s.weight) FROM samples s)))
  FROM tree, funcs f
UNION ALL
SELECT 'invert', 1,
       count(*) FILTER (WHERE NOT pg_temp.agree(invert(t),
         (SELECT calltree_agg(invert(s.path), s.weight) FROM samples s)))
  FROM tree;

-- functions() of the signed tree is functions() of one side minus the other's
SELECT bool_and(d.running = COALESCE(p.running, 0) - COALESCE(m.running, 0)
                AND d.self = COALESCE(p.self, 0) - COALESCE(m.self, 0)) AS functions_subtract, count(*)
  FROM tree, functions(t) d
  LEFT JOIN functions((SELECT t FROM random_trees WHERE side = 0)) p USING (func)
  LEFT JOIN functions((SELECT t FROM random_trees WHERE side = 1)) m USING (func);

-- leave no profile behind for the tests that count them
DELETE FROM profile WHERE name IN ('signed round trip', 'signed extremes');
