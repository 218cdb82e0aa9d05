-- Which deploy made parse_json slower?  examples/deploys/load.sql loads a
-- deploys table and four profiles of a toy API; each profile is tied to
-- the deploy that was live when it started, the trees are merged per
-- deploy, and regressions() compares each deploy with the one before.
--
-- Every number below was worked out by hand from
-- examples/deploys/make_profiles.py: a deploy's tree (its eight profiles
-- merged) is its cost table times 1600 requests (eight profiles of 200)
-- over 100, the hosts' noise cancelling out, so its shares are those of
-- the cost table.  Commit 4f1c2e0 costs 100 samples per 100 requests,
-- commit 9b7d3a1 135: validate_utf8 (30, under parse_json's decode_string)
-- is new and gc went from 5 to 10.  Commit c7e5d20 has 9b7d3a1's costs.
SET search_path = calltree, public;
-- in a transaction rolled back at the end: the tests after this one see
-- none of its profiles (reports_rollup rolls up every profile there is)
BEGIN;
\i examples/deploys/load.sql

-- Each profile's deploy: the service's last deploy before it started.
CREATE TEMP VIEW profile_deploy AS
SELECT p.id AS profile_id, p.name, d.commit, d.deployed_at
  FROM profile AS p
  JOIN LATERAL (SELECT d.* FROM deploys AS d
                 WHERE d.service = p.meta->>'service' AND d.deployed_at <= p.started_at
                 ORDER BY d.deployed_at DESC LIMIT 1) AS d ON true;
SELECT name, commit FROM profile_deploy ORDER BY name;

-- The tree of each deploy, and the one before it.  Totals: 1600 * 100 / 100
-- and twice 1600 * 135 / 100.
CREATE TEMP TABLE deploy_tree AS
SELECT pd.commit, pd.deployed_at, stack_agg(s.stack_id, s.weight) AS tree
  FROM profile_deploy AS pd JOIN sample AS s ON s.profile_id = pd.profile_id
 GROUP BY pd.commit, pd.deployed_at;
CREATE TEMP VIEW deploy_pair AS
SELECT lag(commit) OVER w AS base_commit, commit AS test_commit,
       lag(tree) OVER w AS base, tree AS test
  FROM deploy_tree WINDOW w AS (ORDER BY deployed_at);
SELECT commit, total(tree) FROM deploy_tree ORDER BY deployed_at;

-- The answer: parse_json's share of the service's CPU, per pair of
-- consecutive deploys.  Running: 35 of 100 before (decode_string 20,
-- decode_number 10, itself 5), 65 of 135 after = 48.15%, 13.15 points more.
-- Self: 5 of 100, then 5 of 135 = 3.70%.  From 9b7d3a1 to c7e5d20 nothing
-- changed.
SELECT p.base_commit || ' -> ' || p.test_commit AS deploy,
       round((100 * r.base_running_share)::numeric, 2) AS before_pct,
       round((100 * r.test_running_share)::numeric, 2) AS after_pct,
       round((100 * r.delta_running_share)::numeric, 2) AS change_points,
       round((100 * r.delta_self_share)::numeric, 2) AS self_change_points
  FROM deploy_pair AS p, regressions(p.base, p.test) AS r
 WHERE p.base IS NOT NULL AND r.name = 'parse_json';

-- What grew inside it: every function of the pair, by the change of its
-- self share, largest growth first.  Self shares before / after (of 100 /
-- 135): validate_utf8 0 / 30 = 22.22%, gc 5 / 10 = 7.41%; main, serve,
-- handle_request and query_db 0 / 0; parse_json and render 5 / 5 = 3.70%,
-- decode_number and write_response 10 / 10 = 7.41%, escape_html 15 / 15 =
-- 11.11%, decode_string 20 / 20 = 14.81%, pg_exec 30 / 30 = 22.22%.
-- Equal changes go by func id, the order the names were interned in.
SELECT r.name,
       round((100 * r.base_self_share)::numeric, 2) AS before_pct,
       round((100 * r.test_self_share)::numeric, 2) AS after_pct,
       round((100 * r.delta_self_share)::numeric, 2) AS change_points
  FROM deploy_pair AS p, regressions(p.base, p.test) AS r
 WHERE p.test_commit = '9b7d3a1';

-- The same pair as a differential flame graph.  The largest change of a
-- node's running share is validate_utf8's, 0 -> 30 of 135 = +22.22 points:
-- pure red.  decode_string 20 of 100 -> 50 of 135, +17.04 points: red,
-- 210 * (1 - 17.04 / 22.22) = 49; parse_json +13.15 points: 210 * (1 -
-- 13.15 / 22.22) = 86; pg_exec 30% -> 22.22%, -7.78 points: blue, 210 *
-- (1 - 7/20) = 136.5, rounded to even: 136.
SELECT b.name, b.fill, b.stats
  FROM deploy_pair AS p,
       XMLTABLE(XMLNAMESPACES('http://www.w3.org/2000/svg' AS s),
                '/s:svg/s:g[@id="frames"]/s:g[@class="frame"]'
                PASSING xmlparse(DOCUMENT flamegraph_diff(p.base, p.test))
                COLUMNS i FOR ORDINALITY, tip text PATH 's:title', fill text PATH 's:rect/@fill') AS x,
       LATERAL (SELECT split_part(x.tip, E'\n', 1) AS name, split_part(x.tip, E'\n', 2) AS stats,
                       x.fill) AS b
 WHERE p.test_commit = '9b7d3a1' AND b.name IN ('parse_json', 'decode_string', 'validate_utf8', 'pg_exec')
 ORDER BY x.i;


-- Which changes are more than the hosts' noise: each deploy's eight
-- profiles, one tree each, against the deploy before's.  For the pair
-- 4f1c2e0 -> 9b7d3a1:
--   parse_json's share is larger in every profile after than in any
--   before, and no two shares tie: U = 64 = 8 * 8, exact p = 2 / C(16, 8)
--   = 2 / 12870 = 0.000155.
--   validate_utf8 is 0 in the eight profiles before (a tie of 8) and
--   above 0 in every one after: U = 64, normal approximation, ties
--   8^3 - 8 = 504, sigma^2 = 64/12 * (17 - 504/240) = 79.4667, z = (64 - 32
--   - 0.5) / 8.9144 = 3.5336, p = 0.000410.
-- 9b7d3a1 -> c7e5d20 changed nothing: no function is significant.
CREATE TEMP VIEW deploy_profiles AS
SELECT pd.commit, pd.deployed_at, array_agg(t.tree ORDER BY pd.profile_id) AS trees
  FROM profile_deploy AS pd
 CROSS JOIN LATERAL (SELECT stack_agg(s.stack_id, s.weight) AS tree FROM sample AS s
                      WHERE s.profile_id = pd.profile_id) AS t
 GROUP BY pd.commit, pd.deployed_at;
SELECT x.pair, c.name, round(c.p_value::numeric, 6) AS p, c.effect_size, c.significant
  FROM (SELECT lag(commit) OVER w || ' -> ' || commit AS pair, lag(trees) OVER w AS before, trees
          FROM deploy_profiles WINDOW w AS (ORDER BY deployed_at)) AS x,
       significant_changes(x.before, x.trees) AS c
 WHERE x.before IS NOT NULL AND (c.name IN ('parse_json', 'validate_utf8') OR c.significant)
 ORDER BY x.pair, c.p_value, c.name;

ROLLBACK;
