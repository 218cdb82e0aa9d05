-- bench/diff.sql: comparing the benchmark's tree with a changed copy:
-- diff(), diff(..., true), regressions() and tree - tree, against nodes()
-- of the larger tree.
--
-- Run after bench/run.sh has generated the 'bench' profile:
--   psql -X -q -At -v runs=5 -f bench/diff.sql
-- Prints the trees' sizes, each query's best time and all runs, the ratio
-- of diff() to nodes() (target: at most 2x) and the checks of the results.
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';
\if :{?runs}
\else
\set runs 5
\endif

-- base: the tree of every sample; test: a changed copy, in which one stack
-- in 5 weighs twice as much, one in 11 is gone, and the hottest func below
-- the roots is merged away (its callees move up to its callers: new nodes)
CREATE TEMP TABLE bench_stack_sums AS
SELECT s.stack_id, sum(s.weight)::bigint AS weight
  FROM public.bench_sample s JOIN calltree.profile p ON p.id = s.profile_id WHERE p.name = 'bench'
 GROUP BY s.stack_id;
CREATE TEMP TABLE bench_trees AS
SELECT calltree.stack_agg(stack_id, weight) AS base,
       calltree.stack_agg(stack_id, weight * (1 + (stack_id % 5 = 0)::int)) FILTER (WHERE stack_id % 11 <> 0) AS test
  FROM bench_stack_sums;
SELECT f.func AS func
  FROM bench_trees, calltree.functions(base) f
 WHERE f.func NOT IN (SELECT n.func FROM bench_trees, calltree.nodes(base) n WHERE n.depth = 0)
 ORDER BY f.running DESC LIMIT 1 \gset
UPDATE bench_trees SET test = calltree.merge_function(test, :func);

SELECT (SELECT count(*) FROM bench_trees, calltree.nodes(base)) AS base_nodes,
       (SELECT count(*) FROM bench_trees, calltree.nodes(test)) AS test_nodes,
       (SELECT count(*) FROM bench_trees, calltree.nodes(base OPERATOR(calltree.+) test)) AS union_nodes \gset
SELECT CASE WHEN :base_nodes >= :test_nodes THEN 'base' ELSE 'test' END AS larger \gset
\echo diff: base :base_nodes nodes, test (changed copy) :test_nodes nodes, union :union_nodes nodes; nodes() on the larger, :larger

CREATE TEMP TABLE diff_cases (ord int, name text, query text);
INSERT INTO diff_cases VALUES
  (1, 'nodes(larger)', 'SELECT count(*), sum(self), sum(running) FROM pg_temp.bench_trees, calltree.nodes(' || :'larger' || ')'),
  (2, 'diff(base, test)', 'SELECT count(*), sum(delta_self), sum(delta_running) FROM pg_temp.bench_trees, calltree.diff(base, test)'),
  (3, 'diff(base, test, true)', 'SELECT count(*), sum(base_self), sum(delta_running) FROM pg_temp.bench_trees, calltree.diff(base, test, true)'),
  (4, 'regressions(base, test)', 'SELECT count(*), sum(delta_self_share), 0 FROM pg_temp.bench_trees, calltree.regressions(base, test)'),
  (5, 'test - base', 'SELECT calltree.total(test OPERATOR(calltree.-) base), 0, 0 FROM pg_temp.bench_trees');

-- each query runs `runs` times, round-robin; the best run counts
CREATE FUNCTION pg_temp.time_cases(runs int, OUT ord int, OUT name text, OUT best float8, OUT all_runs text, OUT result text)
RETURNS SETOF record LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    c record;
    t0 timestamptz;
    ms float8;
    r text;
BEGIN
    CREATE TEMP TABLE diff_times (ord int, run int, ms float8, result text);
    FOR run IN 1 .. runs LOOP
        FOR c IN SELECT * FROM pg_temp.diff_cases ORDER BY diff_cases.ord LOOP
            t0 := clock_timestamp();
            EXECUTE 'SELECT row(q.*)::text FROM (' || c.query || ') q' INTO r;
            ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
            INSERT INTO diff_times VALUES (c.ord, run, ms, r);
        END LOOP;
    END LOOP;
    RETURN QUERY
    SELECT c.ord, c.name, min(t.ms), string_agg(to_char(t.ms, 'FM99990.0'), ' ' ORDER BY t.run),
           CASE WHEN count(DISTINCT t.result) = 1 THEN min(t.result) ELSE 'FAILED: runs differ' END
      FROM pg_temp.diff_cases c JOIN diff_times t USING (ord)
     GROUP BY c.ord, c.name ORDER BY c.ord;
END $$;

CREATE TEMP TABLE diff_report AS SELECT * FROM pg_temp.time_cases(:runs);
SELECT format('%s [%s]  %s: %s', lpad(to_char(best, 'FM99990.0'), 9), all_runs, name, result) FROM diff_report ORDER BY ord;

-- checks: diff has a row per node of base + test; its deltas sum to the
-- totals' difference; normalized, base sums to test's total
SELECT format('check: diff rows %s = nodes(base + test) %s; sum of delta_self %s = total(test) - total(base) %s: %s',
              d.rows, :union_nodes, d.delta, t.delta,
              CASE WHEN d.rows = :union_nodes AND d.delta = t.delta THEN 'ok' ELSE 'FAILED' END)
  FROM (SELECT count(*) AS rows, sum(delta_self) AS delta FROM bench_trees, calltree.diff(base, test)) d,
       (SELECT calltree.total(test) - calltree.total(base) AS delta FROM bench_trees) t;
SELECT format('check: normalized base sums to %s, test total %s: %s', n.base_total, t.total,
              CASE WHEN n.base_total = t.total THEN 'ok' ELSE 'FAILED' END)
  FROM (SELECT sum(base_self) AS base_total FROM bench_trees, calltree.diff(base, test, true)) n,
       (SELECT calltree.total(test) AS total FROM bench_trees) t;
SELECT format('check: every run of a query returned the same result: %s',
              CASE WHEN bool_and(result NOT LIKE 'FAILED%') THEN 'ok' ELSE 'FAILED' END)
  FROM diff_report;
SELECT format('diff / nodes(larger): %sx (target <= 2x) %s',
              round((d.best / n.best)::numeric, 2), CASE WHEN d.best <= 2 * n.best THEN 'met' ELSE 'MISSED' END)
  FROM diff_report d, diff_report n WHERE d.ord = 2 AND n.ord = 1;
