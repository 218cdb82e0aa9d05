-- The tour of README.md and docs/cookbook.md, query by query (profiles 1 to 3
-- are the shop's, the deploys example's follow): identical on one node and on Citus.
SET search_path = public, calltree;

SELECT f.name, fn.self / 1000000 AS self_ms, fn.running / 1000000 AS running_ms
  FROM functions((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = 1)) AS fn
  JOIN func f ON f.id = fn.func
 ORDER BY fn.self DESC, f.name
 LIMIT 5;

SELECT label, running_pct, self_pct
  FROM report((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = 1))
 WHERE running_pct >= 25;

SELECT md5(flamegraph(stack_agg(stack_id, weight), 'web-1, build v1')) AS flamegraph
  FROM sample WHERE profile_id = 1;

SELECT label, running_pct
  FROM report(focus_function((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = 1),
                             'main.checkout'))
 WHERE running_pct >= 20;

SELECT l.labels->>'handler' AS handler, count(*) AS samples, round(sum(s.weight) / 1e6) AS cpu_ms
  FROM sample s LEFT JOIN labels l ON l.id = s.labels_id
 WHERE s.profile_id = 1
 GROUP BY 1
 ORDER BY 3 DESC;

CREATE TEMP TABLE host_tree AS
SELECT p.meta->>'host' AS host, stack_agg(s.stack_id, s.weight) AS tree
  FROM profile p JOIN sample s ON s.profile_id = p.id
 WHERE p.id IN (1, 2)
 GROUP BY 1;

SELECT label, running_pct
  FROM report((SELECT calltree_merge(tree) FROM host_tree))
 WHERE depth < 7 AND running_pct >= 10;

SELECT bucket, group_key->>'host' AS host,
       round(100.0 * running_of(tree, 'main.checkout') / total(tree), 1) AS checkout_pct
  FROM rollup
 WHERE width = '1 hour' AND group_key ? 'host' AND group_key->>'host' LIKE 'web-%'
 ORDER BY host, bucket;

CREATE TEMP VIEW deploy_pair AS
WITH deploy_tree AS (
  SELECT d.commit, d.deployed_at, stack_agg(s.stack_id, s.weight) AS tree
    FROM profile p
   CROSS JOIN LATERAL (SELECT * FROM deploys d
                        WHERE d.service = p.meta->>'service' AND d.deployed_at <= p.started_at
                        ORDER BY d.deployed_at DESC LIMIT 1) d
    JOIN sample s ON s.profile_id = p.id
   GROUP BY d.commit, d.deployed_at)
SELECT lag(commit) OVER w || ' -> ' || commit AS deploy, lag(tree) OVER w AS base, tree AS test
  FROM deploy_tree WINDOW w AS (ORDER BY deployed_at);

SELECT deploy, r.name, round(100 * r.base_running_share::numeric, 1) AS before_pct,
       round(100 * r.test_running_share::numeric, 1) AS after_pct
  FROM deploy_pair, regressions(base, test) AS r
 WHERE base IS NOT NULL AND r.delta_running_share > 0
 ORDER BY r.delta_running_share DESC;

SELECT md5(flamegraph_diff(base, test, 'api: ' || deploy)) AS flamegraph_diff
  FROM deploy_pair WHERE base IS NOT NULL ORDER BY deploy;

CREATE TEMP TABLE web1 AS
SELECT (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = 1) AS before,
       (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = 3) AS after;

SELECT name, round(100 * base_self_share::numeric, 1) AS self_before_pct,
       round(100 * test_self_share::numeric, 1) AS self_after_pct,
       round(100 * delta_running_share::numeric, 1) AS running_change_pct
  FROM web1, regressions(before, after)
 LIMIT 4;

SELECT f.name, d.depth, d.base_running / 1000000 AS before_ms, d.test_running / 1000000 AS after_ms
  FROM web1, diff(before, after, true) d JOIN func f ON f.id = d.func
 ORDER BY d.delta_running DESC, d.node
 LIMIT 5;

SELECT (after - before)::text = (SELECT (after - before)::text FROM web1) AS subtraction FROM web1;
SELECT md5(tree_between('{"host": "web-1"}', '-infinity', 'infinity')::text) AS tree_between;
