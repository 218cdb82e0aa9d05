-- bench/measure.sql: time calltree against the floor and against plain SQL,
-- check that both trees agree, and print the report (one line per row; run
-- with psql -At).  Called by bench/run.sh with -v runs=N.

\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';
SET temp_buffers = '256MB';
SELECT set_config('calltree_bench.runs', :'runs', false) \g /dev/null
\ir functions.sql

-- The 100,000 per-stack sums, the input of the tree-building stage.
CREATE TEMP TABLE stack_sums AS
  SELECT stack_id, sum(weight)::bigint AS weight FROM public.bench_sample GROUP BY stack_id;
VACUUM (ANALYZE) stack_sums;

\ir plain.sql

-- The tree that the reading queries read, built once.
CREATE TEMP TABLE ct_tree AS
  SELECT calltree.stack_agg(stack_id, weight) AS tree FROM pg_temp.stack_sums;

-- The timed queries.  Each returns one row, so its whole result is consumed
-- inside the server and nothing is printed.
CREATE TEMP TABLE bench_query (ord int, label text, descr text, query text);
INSERT INTO bench_query VALUES
 (1, 'floor', 'floor: GROUP BY stack_id, sum(weight) over the sample rows',
  $q$SELECT count(*) AS stacks, sum(w)::bigint AS total
       FROM (SELECT stack_id, sum(weight) AS w FROM public.bench_sample GROUP BY stack_id) AS g$q$),
 (2, 'stack_agg', 'calltree.stack_agg(stack_id, weight) over the sample rows',
  $q$SELECT calltree.total(calltree.stack_agg(stack_id, weight)) AS total FROM public.bench_sample$q$),
 (3, 'ct_e2e', 'end to end, calltree: stack_agg + calltree.nodes()',
  $q$SELECT count(*) AS nodes, sum(self)::bigint AS total, sum(running)::bigint AS running
       FROM calltree.nodes((SELECT calltree.stack_agg(stack_id, weight) FROM public.bench_sample))$q$),
 (4, 'plain_e2e', 'end to end, plain SQL: GROUP BY + recursive CTE + prefixes',
  $q$SELECT count(*) AS nodes, sum(self)::bigint AS total, sum(running)::bigint AS running
       FROM pg_temp.plain_tree_from_samples$q$),
 (5, 'ct_build', 'tree building, calltree: stack_agg over the per-stack sums',
  $q$SELECT calltree.total(calltree.stack_agg(stack_id, weight)) AS total FROM pg_temp.stack_sums$q$),
 (6, 'plain_build', 'tree building, plain SQL: recursive CTE over the per-stack sums',
  $q$SELECT count(*) AS nodes, sum(self)::bigint AS total, sum(running)::bigint AS running
       FROM pg_temp.plain_tree_from_sums$q$),
 (7, 'nodes_join', 'reading, calltree.nodes() joined to calltree.func',
  $q$SELECT count(*) AS nodes, sum(length(coalesce(f.name, '#' || n.func))) AS name_chars
       FROM calltree.nodes((SELECT tree FROM pg_temp.ct_tree)) AS n
       LEFT JOIN calltree.func AS f ON f.id = n.func$q$),
 (8, 'report', 'reading, calltree.report()',
  $q$SELECT count(*) AS nodes, sum(length(name)) AS name_chars
       FROM calltree.report((SELECT tree FROM pg_temp.ct_tree))$q$),
 (9, 'packed', 'calltree.stack_agg(samples) over calltree.sample_set (the same samples, packed)',
  $q$SELECT calltree.total(calltree.stack_agg(samples)) AS total FROM calltree.sample_set$q$),
 (10, 'face', 'calltree.stack_agg(stack_id, weight) over the view calltree.sample (unpacked)',
  $q$SELECT calltree.total(calltree.stack_agg(stack_id, weight)) AS total FROM calltree.sample$q$);

-- Round-robin: run 1 of every query, then run 2 of every query, ... so that
-- a slow phase of the machine does not penalise one query only.
DO $$
DECLARE
  q record;
BEGIN
  FOR r IN 1 .. current_setting('calltree_bench.runs')::int LOOP
    FOR q IN SELECT * FROM pg_temp.bench_query ORDER BY ord LOOP
      PERFORM pg_temp.bench_time(q.label, q.query, r);
    END LOOP;
  END LOOP;
END
$$;

-- Correctness: the same tree both ways, node for node.
CREATE TEMP TABLE ct_nodes AS
  SELECT path, running, self FROM calltree.nodes((SELECT tree FROM pg_temp.ct_tree));
CREATE TEMP TABLE plain_nodes AS
  SELECT path, running, self FROM pg_temp.plain_tree_from_sums;
CREATE TEMP TABLE bench_check AS
SELECT (SELECT count(*) FROM pg_temp.ct_nodes) AS ct_count,
       (SELECT count(*) FROM pg_temp.plain_nodes) AS plain_count,
       (SELECT calltree.total(tree) FROM pg_temp.ct_tree) AS ct_total,
       (SELECT sum(self)::bigint FROM pg_temp.plain_nodes) AS plain_total,
       (SELECT count(*) FROM (SELECT * FROM pg_temp.ct_nodes
                              EXCEPT ALL SELECT * FROM pg_temp.plain_nodes) AS d) AS only_ct,
       (SELECT count(*) FROM (SELECT * FROM pg_temp.plain_nodes
                              EXCEPT ALL SELECT * FROM pg_temp.ct_nodes) AS d) AS only_plain,
       -- size of the tree value as computed (not compressed) and as stored
       (SELECT pg_column_size(calltree.stack_agg(stack_id, weight)) FROM pg_temp.stack_sums) AS raw_bytes,
       (SELECT pg_column_size(tree) FROM pg_temp.ct_tree) AS stored_bytes,
       (SELECT count(*) FROM public.bench_sample) AS n_samples_all,
       (SELECT sum(calltree.sample_count(samples)) FROM calltree.sample_set) AS n_packed_all,
       (SELECT count(*) FROM calltree.sample_set) AS n_sets_all,
       (SELECT sum(pg_total_relation_size(i.inhrelid)) FROM pg_inherits i
         WHERE i.inhparent = 'calltree.sample_set'::regclass) AS sets_bytes,
       pg_total_relation_size('public.bench_sample') AS rows_bytes,
       (SELECT count(*) FROM calltree.stack) AS n_stacks_all;

-- The report.
WITH best AS (
  SELECT q.ord, q.label, q.descr, min(r.ms) AS ms,
         string_agg(to_char(r.ms, 'FM999999990.0'), ' ' ORDER BY r.run) AS runs,
         (array_agg(r.result ORDER BY r.run))[1] AS result,
         count(DISTINCT r.result) AS n_results
    FROM pg_temp.bench_query q JOIN pg_temp.bench_run r USING (label)
   GROUP BY q.ord, q.label, q.descr
), b AS (
  SELECT max(ms) FILTER (WHERE label = 'floor') AS floor,
         max(ms) FILTER (WHERE label = 'stack_agg') AS stack_agg,
         max(ms) FILTER (WHERE label = 'ct_e2e') AS ct_e2e,
         max(ms) FILTER (WHERE label = 'plain_e2e') AS plain_e2e,
         max(ms) FILTER (WHERE label = 'ct_build') AS ct_build,
         max(ms) FILTER (WHERE label = 'plain_build') AS plain_build,
         max(result) FILTER (WHERE label = 'floor') AS floor_res,
         max(result) FILTER (WHERE label = 'stack_agg') AS stack_agg_res,
         max(result) FILTER (WHERE label = 'ct_e2e') AS ct_e2e_res,
         max(result) FILTER (WHERE label = 'plain_e2e') AS plain_e2e_res,
         max(result) FILTER (WHERE label = 'ct_build') AS ct_build_res,
         max(result) FILTER (WHERE label = 'plain_build') AS plain_build_res,
         max(ms) FILTER (WHERE label = 'nodes_join') AS nodes_join,
         max(ms) FILTER (WHERE label = 'report') AS report,
         max(result) FILTER (WHERE label = 'nodes_join') AS nodes_join_res,
         max(result) FILTER (WHERE label = 'report') AS report_res,
         max(ms) FILTER (WHERE label = 'packed') AS packed,
         max(result) FILTER (WHERE label = 'packed') AS packed_res,
         max(result) FILTER (WHERE label = 'face') AS face_res,
         bool_and(n_results = 1) AS stable
    FROM best
), meta AS (
  SELECT meta FROM calltree.profile
   WHERE name = 'bench' AND meta->>'generator' = 'calltree-bench'
   ORDER BY id DESC LIMIT 1
), lines AS (
  SELECT 1 AS ord,
         format('data: profile ''bench'' (generator v%s): %s samples, %s distinct stacks, %s stack rows (%s roots), %s funcs, %s frames',
                meta->>'version', meta->>'samples', meta->>'distinct_stacks', meta->>'stack_rows',
                meta->>'roots', meta->>'funcs', meta->>'frames') AS line
    FROM meta
  UNION ALL
  SELECT 2, format('data: sampled stack depth %s..%s, mean %s, p10/p50/p90/p99 %s; %s sampled stacks are prefixes of other stacks',
                   meta->>'depth_min', meta->>'depth_max', meta->>'depth_mean',
                   (SELECT string_agg(x, '/') FROM jsonb_array_elements_text(meta->'depth_p10_p50_p90_p99') AS x),
                   meta->>'sampled_internal')
    FROM meta
  UNION ALL
  SELECT 3, format('data: every query reads all the samples: %s rows of public.bench_sample (%s MB), the same samples in %s packed sets of calltree.sample_set (%s MB); calltree.stack holds %s rows',
                   n_samples_all, round(rows_bytes / 1048576.0), n_sets_all, round(sets_bytes / 1048576.0), n_stacks_all)
    FROM pg_temp.bench_check
  UNION ALL
  SELECT 4, format('settings: %s, calltree %s; max_parallel_workers_per_gather=%s, jit=%s, work_mem=%s, shared_buffers=%s, calltree.stack_read=%s; runs per query: %s, round-robin; the best run counts',
                   split_part(version(), ' on ', 1),
                   (SELECT extversion FROM pg_extension WHERE extname = 'calltree'),
                   current_setting('max_parallel_workers_per_gather'), current_setting('jit'),
                   current_setting('work_mem'), current_setting('shared_buffers'),
                   coalesce(current_setting('calltree.stack_read', true), '(not defined)'),
                   current_setting('calltree_bench.runs'))
  UNION ALL
  SELECT 10, 'timings (ms): best [all runs]  query'
  UNION ALL
  SELECT 10 + ord, format('  %10s [%s]  %s', to_char(ms, 'FM999999990.0'), runs, descr) FROM best
  UNION ALL
  SELECT 30, format('check: floor and stack_agg total the same weight: %s vs %s: %s',
                    floor_res, stack_agg_res,
                    CASE WHEN split_part(trim(floor_res, '()'), ',', 2) = trim(stack_agg_res, '()')
                         THEN 'ok' ELSE 'FAILED' END)
    FROM b
  UNION ALL
  SELECT 31, format('check: end to end, (nodes, total, sum of running) calltree %s vs plain SQL %s: %s',
                    ct_e2e_res, plain_e2e_res, CASE WHEN ct_e2e_res = plain_e2e_res THEN 'ok' ELSE 'FAILED' END)
    FROM b
  UNION ALL
  SELECT 32, format('check: tree building, calltree %s nodes, total %s vs plain SQL %s nodes, total %s; (path, running, self) rows only in calltree: %s, only in plain SQL: %s: %s',
                    ct_count, ct_total, plain_count, plain_total, only_ct, only_plain,
                    CASE WHEN ct_count = plain_count AND ct_total = plain_total
                              AND only_ct = 0 AND only_plain = 0 THEN 'ok' ELSE 'FAILED' END)
    FROM pg_temp.bench_check
  UNION ALL
  SELECT 35, format('check: stack_agg over the rows, the packed sets and the view total the same weight: %s vs %s vs %s: %s',
                    stack_agg_res, packed_res, face_res,
                    CASE WHEN stack_agg_res = packed_res AND packed_res = face_res THEN 'ok' ELSE 'FAILED' END)
    FROM b
  UNION ALL
  SELECT 33, format('check: every run of a query returned the same result: %s',
                    CASE WHEN stable THEN 'ok' ELSE 'FAILED' END)
    FROM b
  UNION ALL
  SELECT 34, format('check: report() and nodes() joined to calltree.func give the same (rows, characters of names): %s vs %s: %s',
                    report_res, nodes_join_res, CASE WHEN report_res = nodes_join_res THEN 'ok' ELSE 'FAILED' END)
    FROM b
  UNION ALL
  SELECT 40, format('size: calltree value %s bytes as computed, %s bytes as stored in a table, for %s nodes',
                    raw_bytes, stored_bytes, ct_count)
    FROM pg_temp.bench_check
  UNION ALL
  SELECT 50, format('stack_agg / floor: %sx (target <= 1.3x) %s',
                    to_char(stack_agg / floor, 'FM990.00'),
                    CASE WHEN stack_agg / floor <= 1.3 THEN 'met' ELSE 'MISSED' END)
    FROM b
  UNION ALL
  SELECT 51, format('end to end, plain SQL / calltree: %sx (target >= 5x) %s',
                    to_char(plain_e2e / ct_e2e, 'FM99990.00'),
                    CASE WHEN plain_e2e / ct_e2e >= 5 THEN 'met' ELSE 'MISSED' END)
    FROM b
  UNION ALL
  SELECT 52, format('tree building, plain SQL / calltree: %sx (target >= 50x) %s',
                    to_char(plain_build / ct_build, 'FM99990.0'),
                    CASE WHEN plain_build / ct_build >= 50 THEN 'met' ELSE 'MISSED' END)
    FROM b
  UNION ALL
  SELECT 53, format('bytes per node: %s (target <= 40) %s',
                    to_char(raw_bytes::numeric / nullif(ct_count, 0), 'FM99990.00'),
                    CASE WHEN raw_bytes::numeric / nullif(ct_count, 0) <= 40 THEN 'met' ELSE 'MISSED' END)
    FROM pg_temp.bench_check
  UNION ALL
  SELECT 54, format('report() / nodes() + join: %sx (target <= 2x) %s',
                    to_char(report / nodes_join, 'FM990.00'),
                    CASE WHEN report / nodes_join <= 2 THEN 'met' ELSE 'MISSED' END)
    FROM b
  UNION ALL
  SELECT 55, format('stack_agg(samples) over packed sets / stack_agg over rows: %sx (target <= 0.2x) %s',
                    to_char(packed / stack_agg, 'FM990.00'),
                    CASE WHEN packed / stack_agg <= 0.2 THEN 'met' ELSE 'MISSED' END)
    FROM b
)
SELECT line FROM lines ORDER BY ord;
