-- The aggregates' states as values: stack_weights (stack_agg) and calltree
-- (calltree_agg, calltree_merge).  Their text forms round-trip, combining
-- partial states gives the one-pass result (in parallel plans and in the
-- way Citus combines a worker's printed state on the coordinator), and bad
-- literals give clear errors.
--
-- Every expected sum below is small enough to check by hand; the larger
-- data compare two ways of computing the same value with each other.
SET search_path = calltree, public;

-- aggregates that return their state as it is, to look at partial states
CREATE AGGREGATE pg_temp.stack_state(bigint, bigint) (
    SFUNC = calltree.stack_agg_transfn, STYPE = calltree.stack_weights,
    COMBINEFUNC = calltree.stack_agg_combinefn, PARALLEL = SAFE);
CREATE AGGREGATE pg_temp.tree_state(int4[], bigint) (
    SFUNC = calltree.calltree_agg_transfn, STYPE = calltree.calltree,
    COMBINEFUNC = calltree.calltree_agg_combinefn, PARALLEL = SAFE);
-- and aggregates that combine states, as the Citus coordinator does
CREATE AGGREGATE pg_temp.combine_stack_states(calltree.stack_weights) (
    SFUNC = calltree.stack_agg_combinefn, STYPE = calltree.stack_weights,
    FINALFUNC = calltree.stack_agg_finalfn);
CREATE AGGREGATE pg_temp.combine_tree_states(calltree.calltree) (
    SFUNC = calltree.calltree_agg_combinefn, STYPE = calltree.calltree,
    FINALFUNC = calltree.calltree_agg_finalfn);

----------------------------------------------------------------------------
-- stack_weights: text form
----------------------------------------------------------------------------

-- the sums per stack id, in id order: 5 -> 3 + 4, 2 -> 1, 9 -> -2 + 0
SELECT pg_temp.stack_state(s, w)
  FROM (VALUES (5::bigint, 3::bigint), (2, 1), (5, 4), (9, -2), (9, 0), (NULL, 8), (7, NULL)) AS v(s, w);
-- no row, or only NULL stacks: NULL
SELECT pg_temp.stack_state(s, w) IS NULL AS no_state
  FROM (VALUES (NULL::bigint, 1::bigint)) AS v(s, w);

-- literals: whitespace is free, the output is compact
SELECT '{}'::stack_weights, ' { } '::stack_weights,
       '{ 3 : 20 , 17:5 }'::stack_weights, '{-4:1,0:-1}'::stack_weights;
-- the extremes of bigint, for ids and for weights
SELECT '{-9223372036854775808:9223372036854775807,9223372036854775807:-9223372036854775808}'::stack_weights;
-- round trip: text -> value -> text is the identity on the output form
SELECT v::text = v::stack_weights::text AS round_trip
  FROM (VALUES ('{}'), ('{1:1}'), ('{-9223372036854775808:0,1:-1,2:9223372036854775807}')) AS t(v);
-- a state made by the aggregate prints and reads back to the same value
-- (compared as text: the type has no equality)
SELECT pg_temp.stack_state(g % 1000, g)::text::stack_weights::text = pg_temp.stack_state(g % 1000, g)::text
       AS aggregate_round_trip
  FROM generate_series(1, 5000) AS g;
-- a state that spans the dense array and the hash table (ids far apart)
SELECT pg_temp.stack_state(s, 1)
  FROM (VALUES (1::bigint), (2), (3), (4611686018427387904), (-4611686018427387905),
               (9223372036854775807), (2)) AS v(s);
-- ids that went to the hash table first and to the array later (it grew
-- over them) are each listed once: the text reads back (ids ascending),
-- with 8001 stacks and the weights' sum 1 + ... + 8000 + 20000 = 32024000
SELECT count(*) AS stacks, sum(split_part(p, ':', 2)::bigint) AS total
  FROM (SELECT pg_temp.stack_state(s, s)::text::stack_weights::text AS state
          FROM (SELECT g FROM generate_series(1, 2000) AS g
                UNION ALL SELECT 20000
                UNION ALL SELECT g FROM generate_series(2001, 8000) AS g) AS v(s)) AS t,
       unnest(string_to_array(trim(BOTH '{}' FROM state), ',')) AS p;
-- stored in a table and read back (flattened, then TOASTed)
CREATE TEMP TABLE stored_states AS
SELECT g % 3 AS part, pg_temp.stack_state(g, g * 1000) AS state FROM generate_series(1, 30000) AS g GROUP BY 1;
SELECT part, state::text = (SELECT pg_temp.stack_state(g, g * 1000)::text
                              FROM generate_series(1, 30000) AS g WHERE g % 3 = part) AS read_back,
       pg_column_size(state) > 0 AS stored
  FROM stored_states ORDER BY part;

----------------------------------------------------------------------------
-- bad stack_weights literals
----------------------------------------------------------------------------
SELECT ''::stack_weights;
SELECT '{1:2'::stack_weights;
SELECT '{1:2,}'::stack_weights;
SELECT '{1 2}'::stack_weights;
SELECT '{1:}'::stack_weights;
-- (shorter than its pairs would need: the parse never writes past them)
SELECT '{5:'::stack_weights;
SELECT '{5:1,6:'::stack_weights;
SELECT '{:1}'::stack_weights;
SELECT '{1:2} x'::stack_weights;
SELECT '{5:1,3:1}'::stack_weights;
SELECT '{5:1,5:1}'::stack_weights;
SELECT '{9223372036854775808:1}'::stack_weights;
SELECT '{1:-9223372036854775809}'::stack_weights;
SELECT '{1:+2}'::stack_weights;
SELECT '[1:2]'::stack_weights;

-- the support functions outside an aggregate
SELECT stack_agg_transfn(NULL, 1, 1);
SELECT calltree_agg_combinefn(NULL, '{1:1/1}');
-- the final function reads a state as a value
SELECT stack_agg_finalfn('{}');

----------------------------------------------------------------------------
-- combining states equals one pass
----------------------------------------------------------------------------
INSERT INTO profile (name) VALUES ('agg_state') RETURNING id AS state_profile \gset
-- stacks a;b;c (3 + 4), a;b (2), a;d (5), x (1)
SELECT intern_stack(ARRAY['a', 'b', 'c']) AS abc, intern_stack(ARRAY['a', 'b']) AS ab,
       intern_stack(ARRAY['a', 'd']) AS ad, intern_stack(ARRAY['x']) AS x \gset
INSERT INTO sample (profile_id, stack_id, weight)
VALUES (:state_profile, :abc, 3), (:state_profile, :ab, 2), (:state_profile, :ad, 5),
       (:state_profile, :x, 1), (:state_profile, :abc, 4);
-- one pass: a 14 {b 9 {c 7}, d 5}, x 1
SELECT to_collapsed(stack_agg(stack_id, weight)) FROM sample WHERE profile_id = :state_profile;
-- two partial states, split by weight parity, printed and read back as
-- Citus ships them, combined and finished: the same tree
SELECT to_collapsed(pg_temp.combine_stack_states(state::text::stack_weights))
  FROM (SELECT pg_temp.stack_state(stack_id, weight) AS state
          FROM sample WHERE profile_id = :state_profile GROUP BY weight % 2) AS partial;
-- the same through calltree_agg's state, from func paths
SELECT to_collapsed(pg_temp.combine_tree_states(state::text::calltree))
  FROM (SELECT pg_temp.tree_state(stack_path(stack_id), weight) AS state
          FROM sample WHERE profile_id = :state_profile GROUP BY weight % 2) AS partial;
-- a state whose stack does not exist fails in the final function, naming it
SELECT stack_agg_finalfn('{9000000000000000000:1}') IS NULL;

-- larger: 20,000 samples over 2,000 stacks, split into 1 to 64 parts
SELECT setseed(0.3);
CREATE TEMP TABLE state_paths AS
SELECT g AS n, array(SELECT 1 + (random() * 30)::int FROM generate_series(1, 1 + (random() * 8)::int + 0 * g)) AS path
  FROM generate_series(1, 2000) AS g;
-- each sample has its stack and that stack's func path: stack_agg and
-- calltree_agg compute the same tree from them in two independent ways
-- (each path interned once, not once per sample: the same stacks)
CREATE TEMP TABLE state_path_stacks AS
SELECT n, intern_stack(array(SELECT 's' || f FROM unnest(path) AS f)) AS stack_id FROM state_paths;
CREATE TEMP TABLE state_interned AS
SELECT g AS n, p.stack_id, (random() * 2000)::bigint - 100 AS weight
  FROM generate_series(1, 20000) AS g JOIN state_path_stacks p ON p.n = 1 + g % 2000;
CREATE TEMP TABLE state_samples AS
SELECT n, stack_id, stack_path(stack_id) AS path, weight FROM state_interned;
CREATE TABLE one_pass AS
SELECT (SELECT stack_agg(stack_id, weight) FROM state_samples) AS by_stack,
       (SELECT calltree_agg(path, weight) FROM state_samples) AS by_path;
SELECT parts,
       (SELECT pg_temp.combine_stack_states(state::text::stack_weights)
          FROM (SELECT pg_temp.stack_state(stack_id, weight) AS state
                  FROM state_samples GROUP BY n % parts) AS partial) = by_stack AS stack_agg_same,
       (SELECT pg_temp.combine_tree_states(state::text::calltree)
          FROM (SELECT pg_temp.tree_state(path, weight) AS state
                  FROM state_samples GROUP BY n % parts) AS partial) = by_path AS calltree_agg_same,
       (SELECT calltree_merge(tree)
          FROM (SELECT calltree_agg(path, weight) AS tree
                  FROM state_samples GROUP BY n % parts) AS partial) = by_path AS calltree_merge_same
  FROM one_pass, (VALUES (1), (2), (7), (64)) AS p(parts);
SELECT stack_agg(stack_id, weight) = calltree_agg(path, weight) AS stack_agg_is_calltree_agg FROM state_samples;

-- parallel plans: workers hand their states to the leader flattened
ANALYZE state_samples;
CREATE TABLE state_samples_shared AS SELECT * FROM state_samples;
CREATE TABLE state_trees AS
SELECT calltree_agg(path, weight) AS tree FROM state_samples GROUP BY n % 500;
ANALYZE state_samples_shared;
ANALYZE state_trees;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT stack_agg(stack_id, weight) FROM state_samples_shared;
EXPLAIN (COSTS OFF) SELECT calltree_merge(tree) FROM state_trees;
SELECT (SELECT stack_agg(stack_id, weight) FROM state_samples_shared) = by_stack AS stack_agg_same,
       (SELECT stack_agg(stack_id) FROM state_samples_shared)
     = (SELECT calltree_agg(path) FROM state_samples) AS stack_agg_unit_same,
       (SELECT calltree_agg(path, weight) FROM state_samples_shared) = by_path AS calltree_agg_same,
       (SELECT calltree_merge(tree) FROM state_trees) = by_path AS calltree_merge_same,
       (SELECT pg_temp.stack_state(stack_id, weight)::text FROM state_samples_shared)
     = (SELECT pg_temp.stack_state(stack_id, weight)::text FROM state_samples) AS state_same
  FROM one_pass;
-- and the workers did run: the states above went through the leader
CREATE FUNCTION pg_temp.workers_launched(query text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
    RETURN (SELECT max((m[1])::int) FROM regexp_matches(plan::text, '"Workers Launched": (\d+)', 'g') AS m);
END $$;
SELECT pg_temp.workers_launched('SELECT pg_temp.stack_state(stack_id, weight) FROM state_samples_shared') > 0 AS stack_state_parallel,
       pg_temp.workers_launched('SELECT calltree_merge(tree) FROM state_trees') > 0 AS calltree_merge_parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;

----------------------------------------------------------------------------
-- a state shared by two aggregates, and finished more than once
----------------------------------------------------------------------------
-- stack_agg and stack_state have the same transition: PostgreSQL keeps one
-- state for both, and stack_agg's final function must leave it intact
SELECT to_collapsed(stack_agg(stack_id, weight)) AS tree, pg_temp.stack_state(stack_id, weight) IS NOT NULL AS has_state,
       pg_temp.stack_state(stack_id, weight)::text = (SELECT pg_temp.stack_state(stack_id, weight)::text
                                                       FROM sample WHERE profile_id = :state_profile) AS state_intact
  FROM sample WHERE profile_id = :state_profile;
-- a window's running aggregate finishes the state after every row and goes
-- on adding to it: a 3, a 3 + 2, ..., each prefix's tree
SELECT weight, to_collapsed(stack_agg(stack_id, weight) OVER w) AS stack_tree,
       to_collapsed(calltree_agg(stack_path(stack_id), weight) OVER w) AS path_tree
  FROM sample WHERE profile_id = :state_profile
WINDOW w AS (ORDER BY weight ROWS UNBOUNDED PRECEDING) ORDER BY weight;
-- grouped: one state per group, in a hash table
SELECT weight % 2 AS parity, to_collapsed(stack_agg(stack_id, weight)) AS tree
  FROM sample WHERE profile_id = :state_profile GROUP BY 1 ORDER BY 1;

DELETE FROM sample WHERE profile_id = :state_profile;
DELETE FROM profile WHERE id = :state_profile;
DROP TABLE state_samples_shared, state_trees, one_pass;
