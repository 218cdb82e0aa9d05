-- The transforms of the Firefox Profiler's documentation, picture by picture.
SET search_path = calltree, public;

SELECT intern_func('A') AS a, intern_func('B') AS b, intern_func('C') AS c, intern_func('D') AS d,
       intern_func('E') AS e, intern_func('F') AS f, intern_func('G') AS g, intern_func('H') AS h \gset

CREATE TEMP TABLE seed_paths (path int4[], weight bigint);
INSERT INTO seed_paths VALUES
  (ARRAY[:a, :b, :c, :d, :e], 1), (ARRAY[:a, :b, :c, :f, :g], 1), (ARRAY[:a, :b, :h, :f], 1);
CREATE TEMP TABLE seed AS SELECT calltree_agg(path, weight) AS tree FROM seed_paths;

-- show a tree as that documentation draws it: name:running,self
CREATE FUNCTION pg_temp.draw(t calltree) RETURNS SETOF text LANGUAGE sql AS $$
  SELECT repeat('  ', depth) || name || ':' || running || ',' || self FROM calltree.report(t) ORDER BY node
$$;

-- the tree: A:3,0 → B:3,0 → C:2,0 (D:1,0 → E:1,1; F:1,0 → G:1,1), H:1,0 → F:1,1
SELECT pg_temp.draw(tree) FROM seed;

-- Merge C: D and F move up to B, no self time changes
SELECT pg_temp.draw(merge_call_node(tree, ARRAY[:a, :b, :c])) FROM seed;
-- Merge E (a leaf): D goes from self 0 to self 1
SELECT pg_temp.draw(merge_call_node(tree, ARRAY[:a, :b, :c, :d, :e])) FROM seed;
-- Merge subtree C: B:3,2, and only H → F stays below it
SELECT pg_temp.draw(merge_subtree(tree, ARRAY[:a, :b, :c])) FROM seed;
-- Hide C: 2 samples are removed, the total goes from 3 to 1
SELECT pg_temp.draw(hide_call_node(tree, ARRAY[:a, :b, :c])) FROM seed;
SELECT total(hide_call_node(tree, ARRAY[:a, :b, :c])) FROM seed;
-- Focus on subtree C: C:2,0 is the root
SELECT pg_temp.draw(focus_subtree(tree, ARRAY[:a, :b, :c])) FROM seed;

-- each picture is the same through the path functions, sample by sample
SELECT merge_call_node(tree, ARRAY[:a, :b, :c])
         = (SELECT calltree_agg(merge_call_node(path, ARRAY[:a, :b, :c]), weight) FROM seed_paths) AS merge_c,
       merge_call_node(tree, ARRAY[:a, :b, :c, :d, :e])
         = (SELECT calltree_agg(merge_call_node(path, ARRAY[:a, :b, :c, :d, :e]), weight) FROM seed_paths) AS merge_e,
       merge_subtree(tree, ARRAY[:a, :b, :c])
         = (SELECT calltree_agg(merge_subtree(path, ARRAY[:a, :b, :c]), weight) FROM seed_paths) AS prune_c,
       hide_call_node(tree, ARRAY[:a, :b, :c])
         = (SELECT calltree_agg(hide_call_node(path, ARRAY[:a, :b, :c]), weight) FROM seed_paths) AS hide_c,
       focus_subtree(tree, ARRAY[:a, :b, :c])
         = (SELECT calltree_agg(focus_subtree(path, ARRAY[:a, :b, :c]), weight) FROM seed_paths) AS focus_c
  FROM seed;

-- How call tree modifications affect function paths: the saved path
-- A→B→C→D→E is carried through "merge C" by the same path function, and it
-- still names E's CallNode (E:1,1) in the merged tree.
SELECT merge_call_node(ARRAY[:a, :b, :c, :d, :e], ARRAY[:a, :b, :c]) = ARRAY[:a, :b, :d, :e] AS carried;
SELECT n.running, n.self
  FROM seed, nodes(merge_call_node(tree, ARRAY[:a, :b, :c])) AS n
 WHERE n.path = merge_call_node(ARRAY[:a, :b, :c, :d, :e], ARRAY[:a, :b, :c]);
-- a path through the merged node itself lands on its parent
SELECT merge_call_node(ARRAY[:a, :b, :c], ARRAY[:a, :b, :c]) = ARRAY[:a, :b] AS lands_on_parent;

-- Order matters.  Merging C and then focusing on A→B→C finds nothing: the
-- CallNode is gone.  Focusing first and then merging C (now the root path
-- {C}) leaves D and F as roots.
SELECT total(focus_subtree(merge_call_node(tree, ARRAY[:a, :b, :c]), ARRAY[:a, :b, :c])) AS merge_then_focus
  FROM seed;
SELECT pg_temp.draw(merge_call_node(focus_subtree(tree, ARRAY[:a, :b, :c]), ARRAY[:c])) FROM seed;

-- The operators are the twins of focus_subtree, hide_call_node and merge_call_node
SELECT (tree %> ARRAY[:a, :b, :c]) = focus_subtree(tree, ARRAY[:a, :b, :c]) AS focus_op,
       (tree %! ARRAY[:a, :b, :c]) = hide_call_node(tree, ARRAY[:a, :b, :c]) AS hide_op,
       (tree %- ARRAY[:a, :b, :c]) = merge_call_node(tree, ARRAY[:a, :b, :c]) AS merge_op,
       (ARRAY[:a, :b, :c, :d] %> ARRAY[:a, :b, :c]) = ARRAY[:c, :d] AS focus_path_op,
       (ARRAY[:a, :b, :c, :d] %! ARRAY[:a, :b, :c]) IS NULL AS hide_path_op,
       (ARRAY[:a, :b, :c, :d] %- ARRAY[:a, :b, :c]) = ARRAY[:a, :b, :d] AS merge_path_op
  FROM seed;

-- The "JS only" view: three samples of mixed C++ and JS; a and b have
-- interpreted and JIT frames, which are the same funcs.
SELECT intern_func('JS::RunScript') AS run_script, intern_func('onLoad') AS on_load,
       intern_func('a', 'app.js') AS js_a, intern_func('b', 'app.js') AS js_b,
       intern_func('js::jit::IonCannon') AS ion_cannon \gset
CREATE TEMP TABLE js_stacks AS
SELECT intern_stack(intern_stack(intern_stack(intern_stack(NULL,
         intern_frame(:run_script, implementation => 'cpp')),
         intern_frame(:on_load, implementation => 'js')),
         intern_frame(:js_a, implementation => 'js')),
         intern_frame(:js_b, implementation => 'js')) AS stack, 1 AS samples
UNION ALL
SELECT intern_stack(intern_stack(intern_stack(intern_stack(intern_stack(NULL,
         intern_frame(:run_script, implementation => 'cpp')),
         intern_frame(:on_load, implementation => 'js')),
         intern_frame(:ion_cannon, implementation => 'cpp')),
         intern_frame(:js_a, implementation => 'jit')),
         intern_frame(:js_b, implementation => 'jit')), 2;
-- the full tree: RunScript → onLoad → (IonCannon → a → b) and (a → b)
SELECT pg_temp.draw(stack_agg(stack, samples)) FROM js_stacks;
-- JS only: merge the C++ functions; one onLoad → a → b with every sample
SELECT pg_temp.draw(merge_functions(stack_agg(stack, samples), ARRAY[:run_script, :ion_cannon]))
  FROM js_stacks;
SELECT merge_functions(stack_agg(stack, samples), ARRAY[:run_script, :ion_cannon])
     = (SELECT calltree_agg(merge_functions(stack_path(stack), ARRAY[:run_script, :ion_cannon]), samples)
          FROM js_stacks) AS same_by_path
  FROM js_stacks;

-- the bottom-up tree: roots are the leaf functions, running = their self
SELECT pg_temp.draw(invert(tree)) FROM seed;

-- intarray in the same database: both sets of operators keep working
CREATE EXTENSION intarray;
SELECT ('{1,2,3,4}'::int4[] %> '{1,2,3}'::int4[]) AS focus,
       ('{1,2,3,4}'::int4[] %- '{1,2,3}'::int4[]) AS merge,
       ('{1,2,3,4}'::int4[] %! '{1,2}'::int4[]) AS hide,
       ('{1,2,3,4}'::int4[] & '{2,4,6}'::int4[]) AS intarray_and,
       ('{1,2,3,4}'::int4[] - '{2}'::int4[]) AS intarray_minus,
       ('{1,2,3,4}'::int4[] @> '{2}'::int4[]) AS contains;
DROP EXTENSION intarray;
