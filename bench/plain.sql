-- bench/plain.sql: the call tree computed the way a competent user would
-- without calltree, in plain SQL.  Views are inlined by the planner, so
-- timing a query over these views times exactly the query written here.
--
--   1. pre-aggregate samples per stack              (GROUP BY stack_id)
--   2. walk the stack table from its roots with a recursive CTE that
--      builds each stack's func path               (stack -> frame -> func_id)
--   3. expand each sampled path into its prefixes  (path[1:k], k = 1..n)
--      and sum running (every prefix) and self (the whole path) per prefix.
--
-- A node of the result is a func path, as in calltree.nodes(): stacks whose
-- frames differ but whose funcs agree land in the same node.  The top-down
-- walk (roots first, one index probe per stack row on the unique
-- (prefix_id, frame_id) index) was about 1.7x faster on this data than
-- the other natural formulation, a bottom-up walk from each sampled stack
-- prepending funcs, so it is the baseline.

CREATE TEMP VIEW plain_stack_path AS
WITH RECURSIVE paths(stack_id, path) AS (
  SELECT s.id, ARRAY[f.func_id]
    FROM calltree.stack s
    JOIN calltree.frame f ON f.id = s.frame_id
   WHERE s.prefix_id IS NULL
  UNION ALL
  SELECT s.id, p.path || f.func_id
    FROM paths p
    JOIN calltree.stack s ON s.prefix_id = p.stack_id
    JOIN calltree.frame f ON f.id = s.frame_id
)
SELECT stack_id, path FROM paths;

-- Stage "tree building": from a table of per-stack sums.
CREATE TEMP VIEW plain_tree_from_sums AS
SELECT l.path[1:k] AS path,
       sum(l.weight)::bigint AS running,
       coalesce(sum(l.weight) FILTER (WHERE k = cardinality(l.path)), 0)::bigint AS self
  FROM (SELECT p.path, s.weight
          FROM pg_temp.stack_sums s
          JOIN plain_stack_path p ON p.stack_id = s.stack_id) AS l,
       generate_series(1, cardinality(l.path)) AS k
 GROUP BY 1;

-- End to end: from the sample rows (public.bench_sample, bench/generate.sql).
CREATE TEMP VIEW plain_tree_from_samples AS
SELECT l.path[1:k] AS path,
       sum(l.weight)::bigint AS running,
       coalesce(sum(l.weight) FILTER (WHERE k = cardinality(l.path)), 0)::bigint AS self
  FROM (SELECT p.path, s.weight
          FROM (SELECT stack_id, sum(weight)::bigint AS weight
                  FROM public.bench_sample GROUP BY stack_id) AS s
          JOIN plain_stack_path p ON p.stack_id = s.stack_id) AS l,
       generate_series(1, cardinality(l.path)) AS k
 GROUP BY 1;
