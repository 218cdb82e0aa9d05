-- Which plans Citus makes for the aggregates: partial aggregates on the
-- workers (worker_partial_agg, which prints each shard's state with the
-- state type's output function) combined on the coordinator
-- (coord_combine_agg: the state type's input function, the combine
-- function, then the final function); the whole aggregate on the workers
-- when grouped by profile; rows pulled up for an ORDER BY inside the
-- aggregate.  Only the lines that show this are printed, with object ids
-- and shard numbers masked.
SET search_path = public, calltree;
SET client_min_messages = warning;
CREATE FUNCTION public.agg_pushdown(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || query LOOP
        IF line ~ 'Aggregate|Output: .*(agg|merge)\(|Query: |Task Count' THEN
            line := regexp_replace(line, '''\d+''::oid', '''<oid>''::oid', 'g');
            line := regexp_replace(line, '_\d{6,}', '_<shard>', 'g');
            -- the view sample's query on a shard, written once
            line := regexp_replace(line, '\(SELECT s\.profile_id, .* FROM calltree\.sample_row_<shard> r\) sample', '(<sample on the shard>) sample');
            RETURN NEXT line;
        END IF;
    END LOOP;
END
$$;

-- over all packed samples: a partial state per shard, each summed from
-- the shard's sample sets without unpacking them to rows
SELECT agg_pushdown('SELECT stack_agg(samples) FROM sample_set');
SELECT agg_pushdown('SELECT thread, stack_agg(samples) FROM sample_set GROUP BY thread');
SELECT agg_pushdown('SELECT profile_id, stack_agg(samples) FROM sample_set GROUP BY profile_id');
-- over all samples a row each (the view sample, of sample_set and
-- sample_row): the same, through the view's query on each shard
SELECT agg_pushdown('SELECT stack_agg(stack_id, weight) FROM sample');
SELECT agg_pushdown('SELECT stack_agg(stack_id) FROM sample');
SELECT agg_pushdown('SELECT calltree_agg(stack_path(stack_id), weight) FROM sample');
-- grouped by another column: a partial state per shard and group
SELECT agg_pushdown('SELECT thread, stack_agg(stack_id, weight) FROM sample GROUP BY thread');
-- grouped by profile: the whole aggregate on the workers
SELECT agg_pushdown('SELECT profile_id, stack_agg(stack_id, weight) FROM sample GROUP BY profile_id');
-- calltree_merge over a table of trees distributed by profile
CREATE TABLE agg_trees AS
SELECT profile_id, stack_agg(stack_id, weight) AS tree FROM sample GROUP BY profile_id;
SELECT create_distributed_table('agg_trees', 'profile_id', colocate_with => 'calltree.sample_set') IS NOT NULL AS distributed;
SELECT agg_pushdown('SELECT calltree_merge(tree) FROM agg_trees');
-- (Citus refuses a subquery over one distributed table in the SELECT list
-- of a query over another: CTEs compare the two)
WITH merged AS (SELECT calltree_merge(tree) AS tree FROM agg_trees),
     whole AS (SELECT stack_agg(stack_id, weight) AS tree FROM sample)
SELECT merged.tree = whole.tree AS merged_is_whole FROM merged, whole;
DROP TABLE agg_trees;
-- an ORDER BY inside the aggregate: no partial aggregation, the rows come up
SELECT agg_pushdown('SELECT stack_agg(stack_id, weight ORDER BY ts) FROM sample');

-- the state a worker sends is text: stack_weights for stack_agg
SELECT left(result, 1) AS starts, right(result, 1) AS ends, result ~ '^\{(-?\d+:-?\d+(,-?\d+:-?\d+)*)?\}$' AS stack_weights_text
  FROM run_command_on_shards('calltree.sample_set',
         $$SELECT worker_partial_agg('calltree.stack_agg(calltree.samples)'::regprocedure, samples)::text FROM %s$$)
 WHERE success AND result <> '' LIMIT 1;

-- EXPLAIN ANALYZE of a partial aggregate of an extension's type fails in
-- Citus itself (its remote EXPLAIN cannot describe the text it ships)
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT stack_agg(stack_id, weight) FROM sample;

DROP FUNCTION public.agg_pushdown(text);
