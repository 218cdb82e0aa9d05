-- All aggregates run in parallel: partial states are serialized in the
-- workers, combined in the leader, and the tree equals the serial one.
SET search_path = calltree, public;

SELECT setseed(0.7);
CREATE TABLE parallel_samples AS
SELECT array(SELECT 1 + (random() * 40)::int FROM generate_series(1, 1 + (random() * 12)::int + 0 * g)) AS path,
       1 + (random() * 1000)::bigint AS weight
  FROM generate_series(1, 20000) AS g;
-- the same samples, imported in one call (a call of intern_stack() per
-- sample took most of this test's time)
SELECT import_collapsed(string_agg((SELECT string_agg('p' || f, ';') FROM unnest(path) AS f) || ' ' || weight, E'\n'),
                        'parallel') AS parallel_profile
  FROM parallel_samples \gset
ANALYZE parallel_samples;
ANALYZE sample_set, sample_row;

-- serial results
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE serial AS
SELECT (SELECT calltree_agg(path, weight) FROM parallel_samples) AS by_path,
       (SELECT calltree_agg(path) FROM parallel_samples) AS by_path_unit,
       (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :parallel_profile) AS by_stack;

-- force parallel plans
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET parallel_leader_participation = off;

EXPLAIN (COSTS OFF) SELECT calltree_agg(path, weight) FROM parallel_samples;
-- the aggregation's part of the plan: how the samples are scanned depends
-- on what the tests before this one left in the table
CREATE FUNCTION explain_aggregation(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        IF line ~ 'Aggregate|Gather|Workers' THEN
            RETURN NEXT line;
        END IF;
    END LOOP;
END $$;
SELECT explain_aggregation(format('SELECT stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = %s',
                                  :parallel_profile)) AS "QUERY PLAN";

-- workers really ran (states went through serialize/deserialize)
CREATE FUNCTION workers_launched(query text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
    RETURN (SELECT max((m[1])::int) FROM regexp_matches(plan::text, '"Workers Launched": (\d+)', 'g') AS m);
END $$;
SELECT workers_launched('SELECT calltree_agg(path, weight) FROM parallel_samples') > 0 AS calltree_agg_parallel;
SELECT workers_launched(format('SELECT stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = %s',
                               :parallel_profile)) > 0 AS stack_agg_parallel;

SELECT (SELECT calltree_agg(path, weight) FROM parallel_samples) = (SELECT by_path FROM serial)
       AS calltree_agg_same,
       (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :parallel_profile)
     = (SELECT by_stack FROM serial) AS stack_agg_same,
       (SELECT calltree_agg(path) FROM parallel_samples) = (SELECT by_path_unit FROM serial) AS unit_weight_same;

-- calltree_merge in parallel over many small trees, one per sample
CREATE TABLE parallel_trees AS SELECT calltree_agg(path, weight) AS tree
  FROM parallel_samples GROUP BY path, weight;
ANALYZE parallel_trees;
EXPLAIN (COSTS OFF) SELECT calltree_merge(tree) FROM parallel_trees;
SELECT workers_launched('SELECT calltree_merge(tree) FROM parallel_trees') > 0 AS calltree_merge_parallel;
SELECT (SELECT calltree_merge(tree) FROM parallel_trees) = (SELECT by_path FROM serial) AS calltree_merge_same;

DROP TABLE parallel_samples, parallel_trees;
DROP FUNCTION workers_launched(text);
DROP FUNCTION explain_aggregation(text);
