-- bench/transforms.sql: every transform on the benchmark's tree, against its
-- path twin applied to each of the 10 million samples and re-aggregated.
--
-- Run after bench/run.sh has generated the 'bench' profile:
--   psql -X -q -At -f bench/transforms.sql
-- Prints, per transform, both timings, the ratio (target: tree level at
-- least 100x faster) and whether both give the same tree.
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';

-- the tree, and each sampled stack's func path (the path level needs them
-- per sample: a join, not a stack_path() call per row)
CREATE TEMP TABLE bench_tree AS
SELECT calltree.stack_agg(s.stack_id, s.weight) AS tree
  FROM public.bench_sample s JOIN calltree.profile p ON p.id = s.profile_id WHERE p.name = 'bench';
CREATE TEMP TABLE bench_paths AS
SELECT stack_id, calltree.stack_path(stack_id) AS path
  FROM (SELECT DISTINCT s.stack_id FROM public.bench_sample s JOIN calltree.profile p ON p.id = s.profile_id
         WHERE p.name = 'bench') AS d;
ANALYZE bench_paths;

-- arguments: the hottest func below the roots, and a heavy CallNode at depth 3
SELECT f.func AS func
  FROM bench_tree, calltree.functions(tree) f
 WHERE f.func NOT IN (SELECT n.func FROM bench_tree, calltree.nodes(tree) n WHERE n.depth = 0)
 ORDER BY f.running DESC LIMIT 1 \gset
SELECT n.path AS node_path
  FROM bench_tree, calltree.nodes(tree) n WHERE n.depth = 3 ORDER BY n.running DESC LIMIT 1 \gset
SELECT count(*) AS nodes FROM bench_tree, calltree.nodes(tree) \gset
\echo transforms: tree of :nodes nodes; func :func; node path :node_path

CREATE TEMP TABLE transform_cases (name text, tree_sql text, path_sql text);
INSERT INTO transform_cases VALUES
  ('merge_call_node', 'calltree.merge_call_node(tree, %L::int4[])', 'calltree.merge_call_node(path, %L::int4[])'),
  ('merge_function', 'calltree.merge_function(tree, %s)', 'calltree.merge_function(path, %s)'),
  ('merge_functions', 'calltree.merge_functions(tree, ARRAY[%s, 1])', 'calltree.merge_functions(path, ARRAY[%s, 1])'),
  ('merge_subtree', 'calltree.merge_subtree(tree, %L::int4[])', 'calltree.merge_subtree(path, %L::int4[])'),
  ('collapse_function_subtree', 'calltree.collapse_function_subtree(tree, %s)', 'calltree.collapse_function_subtree(path, %s)'),
  ('hide_call_node', 'calltree.hide_call_node(tree, %L::int4[])', 'calltree.hide_call_node(path, %L::int4[])'),
  ('drop_function', 'calltree.drop_function(tree, %s)', 'calltree.drop_function(path, %s)'),
  ('focus_subtree', 'calltree.focus_subtree(tree, %L::int4[])', 'calltree.focus_subtree(path, %L::int4[])'),
  ('focus_function', 'calltree.focus_function(tree, %s)', 'calltree.focus_function(path, %s)'),
  ('collapse_direct_recursion', 'calltree.collapse_direct_recursion(tree, %s)', 'calltree.collapse_direct_recursion(path, %s)'),
  ('collapse_recursion', 'calltree.collapse_recursion(tree, %s)', 'calltree.collapse_recursion(path, %s)'),
  ('remap_functions', 'calltree.remap_functions(tree, ARRAY[%s], ARRAY[1])', 'calltree.remap_functions(path, ARRAY[%s], ARRAY[1])'),
  ('invert', 'calltree.invert(tree)', 'calltree.invert(path)');

CREATE FUNCTION pg_temp.time_transform(name text, tree_sql text, path_sql text, func int, node_path int4[])
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    arg text := CASE WHEN tree_sql LIKE '%%L%' THEN node_path::text ELSE func::text END;
    t0 timestamptz;
    tree_ms float8 := 'Infinity';
    path_ms float8;
    by_tree calltree.calltree;
    by_path calltree.calltree;
BEGIN
    FOR run IN 1 .. 3 LOOP          -- the tree level is fast: best of 3
        t0 := clock_timestamp();
        EXECUTE format('SELECT ' || tree_sql || ' FROM pg_temp.bench_tree', arg) INTO by_tree;
        tree_ms := least(tree_ms, extract(epoch FROM clock_timestamp() - t0) * 1000);
    END LOOP;
    t0 := clock_timestamp();
    EXECUTE format('SELECT calltree.calltree_agg(' || path_sql || ', s.weight)
                      FROM public.bench_sample s JOIN calltree.profile p ON p.id = s.profile_id
                      JOIN pg_temp.bench_paths USING (stack_id) WHERE p.name = ''bench''', arg) INTO by_path;
    path_ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
    RETURN format('%s tree %s ms, path over 10M samples %s ms: %sx (target >= 100x) %s; same tree: %s',
                  rpad(name, 26), to_char(tree_ms, 'FM99990.0'), to_char(path_ms, 'FM9999990.0'),
                  round((path_ms / greatest(tree_ms, 0.001))::numeric),
                  CASE WHEN path_ms / greatest(tree_ms, 0.001) >= 100 THEN 'met' ELSE 'MISSED' END,
                  CASE WHEN by_tree OPERATOR(calltree.=) coalesce(by_path, '{}') THEN 'ok' ELSE 'FAILED' END);
END $$;

SELECT pg_temp.time_transform(name, tree_sql, path_sql, :func, :'node_path') FROM transform_cases;
