-- The aggregates in every shape of query that Citus runs differently:
-- partial aggregates on the workers combined on the coordinator (no GROUP
-- BY, or a GROUP BY other than the profile), whole aggregates on the
-- workers (GROUP BY profile), and the shapes it pulls rows up for (an
-- ORDER BY inside the aggregate, a window over all samples).  Each result
-- must be the one node's, byte for byte.
SET search_path = public, calltree;

-- across all profiles: partial states, combined and finished on the coordinator
SELECT md5(stack_agg(stack_id, weight)::text) AS stack_agg, total(stack_agg(stack_id, weight)),
       md5(stack_agg(stack_id)::text) AS stack_agg_unit, total(stack_agg(stack_id)) AS samples
  FROM sample;
SELECT md5(calltree_agg(stack_path(stack_id), weight)::text) AS calltree_agg,
       md5(calltree_agg(stack_path(stack_id))::text) AS calltree_agg_unit
  FROM sample;
-- the same trees two ways
SELECT stack_agg(stack_id, weight) = calltree_agg(stack_path(stack_id), weight) AS stack_agg_is_calltree_agg
  FROM sample;
-- several aggregates in one query, with expressions as arguments
SELECT count(*), md5(stack_agg(stack_id, weight * 2)::text) AS doubled,
       total(stack_agg(stack_id, weight * 2)) = 2 * sum(weight) AS doubled_total,
       md5(stack_agg(stack_id, weight) FILTER (WHERE weight > 1)::text) AS filtered
  FROM sample;
-- no row, and only NULL stacks: NULL
SELECT stack_agg(stack_id, weight) IS NULL AS no_rows, calltree_agg(stack_path(stack_id), weight) IS NULL AS no_paths
  FROM sample WHERE weight < 0 AND weight > 0;

-- grouped by something other than the profile: partial states per group
SELECT thread, count(*), md5(stack_agg(stack_id, weight)::text) AS tree
  FROM sample GROUP BY thread ORDER BY thread NULLS FIRST;
SELECT p.format, md5(calltree_agg(stack_path(s.stack_id), s.weight)::text) AS tree
  FROM profile p JOIN sample s ON s.profile_id = p.id
 GROUP BY p.format HAVING total(stack_agg(s.stack_id, s.weight)) > 0 ORDER BY p.format;

-- grouped by profile: the whole aggregate on the worker, which resolves
-- stacks through its copy of the stack table
SELECT profile_id, thread, md5(stack_agg(stack_id, weight)::text) AS tree
  FROM sample GROUP BY profile_id, thread ORDER BY profile_id, thread NULLS FIRST;
-- then merged on the coordinator
SELECT md5(calltree_merge(tree)::text) AS merged, total(calltree_merge(tree))
  FROM (SELECT profile_id, stack_agg(stack_id, weight) AS tree FROM sample GROUP BY profile_id) AS per_profile;
SELECT md5(calltree_merge(tree)::text) AS merged_paths
  FROM (SELECT profile_id, calltree_agg(stack_path(stack_id), weight) AS tree FROM sample GROUP BY profile_id) AS per_profile;

-- shapes whose rows come to the coordinator: the same trees
SELECT md5(stack_agg(stack_id, weight ORDER BY ts, stack_id)::text) AS ordered FROM sample;
SELECT profile_id, md5(running::text) AS running
  FROM (SELECT profile_id, stack_agg(stack_id, weight) OVER (ORDER BY profile_id) AS running
          FROM (SELECT DISTINCT ON (profile_id) profile_id, stack_id, weight
                  FROM sample ORDER BY profile_id, stack_id, weight) AS firsts) AS w
 ORDER BY profile_id;

-- packed samples: stack_agg(samples) over sample_set, partial states per
-- shard (test/citus/expect/aggregates.sql shows the plans); the trees of
-- the same samples read a row each
SELECT md5(stack_agg(samples)::text) AS packed, total(stack_agg(samples)), sum(sample_count(samples)) AS samples
  FROM sample_set;
WITH packed AS (SELECT stack_agg(samples) AS tree FROM sample_set),
     a_row_each AS (SELECT stack_agg(stack_id, weight) AS tree FROM sample)
SELECT packed.tree = a_row_each.tree AS packed_is_a_row_each FROM packed, a_row_each;
SELECT thread, md5(stack_agg(samples)::text) AS tree
  FROM sample_set GROUP BY thread ORDER BY thread NULLS FIRST;
SELECT profile_id, md5(stack_agg(samples)::text) AS tree, sum(sample_count(samples)) AS samples
  FROM sample_set GROUP BY profile_id ORDER BY profile_id;
SELECT p.format, md5(stack_agg(s.samples)::text) AS tree
  FROM profile p JOIN sample_set s ON s.profile_id = p.id GROUP BY p.format ORDER BY p.format;
