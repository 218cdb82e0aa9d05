-- Comparing trees: tree - tree, diff() and regressions() on the seed's tree
-- (sql/seed_call_tree.sql) and a changed copy of it.  Every expected
-- value below was computed by hand; the computation is in the comments.
SET search_path = calltree, public;

SELECT intern_func('A') AS a, intern_func('B') AS b, intern_func('C') AS c, intern_func('D') AS d,
       intern_func('E') AS e, intern_func('F') AS f, intern_func('G') AS g, intern_func('H') AS h,
       intern_func('I') AS i \gset

-- seed (base), total 3:   A→B→C→D→E 1, A→B→C→F→G 1, A→B→H→F 1
-- later (test), total 6:  A→B→C→D→E 4, A→B→H→F 1, A→I 1
--   (E got slower, G is gone, I is new)
-- later7 (test), total 7: A→B→C→D→E 4, A→B→H→F 1, A→I 2
CREATE TEMP TABLE trees (name text PRIMARY KEY, tree calltree);
INSERT INTO trees
SELECT name, calltree_agg(path, weight)
  FROM (VALUES ('seed',   ARRAY[:a, :b, :c, :d, :e], 1), ('seed', ARRAY[:a, :b, :c, :f, :g], 1),
               ('seed',   ARRAY[:a, :b, :h, :f], 1),
               ('later',  ARRAY[:a, :b, :c, :d, :e], 4), ('later', ARRAY[:a, :b, :h, :f], 1),
               ('later',  ARRAY[:a, :i], 1),
               ('later7', ARRAY[:a, :b, :c, :d, :e], 4), ('later7', ARRAY[:a, :b, :h, :f], 1),
               ('later7', ARRAY[:a, :i], 2)) AS v(name, path, weight)
 GROUP BY name;

-- show a tree as name:running/self, indented
CREATE FUNCTION pg_temp.draw(t calltree) RETURNS SETOF text LANGUAGE sql AS $$
  SELECT repeat('  ', depth) || name || ':' || running || '/' || self FROM calltree.report(t) ORDER BY node
$$;
CREATE FUNCTION pg_temp.tree(n text) RETURNS calltree LANGUAGE sql AS $$
  SELECT tree FROM trees WHERE name = n
$$;

--------------------------------------------------------------------------
-- tree - tree
--------------------------------------------------------------------------

-- later - seed, path by path: A→B→C→D→E 4-1 = 3, A→B→C→F→G 0-1 = -1,
-- A→B→H→F 1-1 = 0, A→I 1-0 = 1.  Running: D 3, F (under C) -1, C 2,
-- H 0, B 2, I 1, A 3.  Siblings by running: B 2 before I 1, C 2 before
-- H 0, D 3 before F -1.  The node A→B→H→F whose weights cancel is kept.
SELECT pg_temp.draw(pg_temp.tree('later') - pg_temp.tree('seed'));
SELECT total(pg_temp.tree('later') - pg_temp.tree('seed'));   -- 6 - 3
-- the text form without its func ids: nodes with negative and zero weights
SELECT regexp_replace((pg_temp.tree('later') - pg_temp.tree('seed'))::text, '[0-9]+:',
                      '', 'g') AS weights_only;
-- seed - later is its negation, node for node
SELECT pg_temp.draw(pg_temp.tree('seed') - pg_temp.tree('later'));
-- a - a: every node of a, all weights 0; adding a back gives a
SELECT pg_temp.draw(pg_temp.tree('seed') - pg_temp.tree('seed'));
SELECT (pg_temp.tree('seed') - pg_temp.tree('seed')) + pg_temp.tree('seed') = pg_temp.tree('seed') AS back;
-- (b - a) + a has b's weights, but keeps a's nodes that b lacks with weight
-- 0 (A→B→C→F→G here), so it equals b only when b has every node of a
SELECT pg_temp.draw((pg_temp.tree('later') - pg_temp.tree('seed')) + pg_temp.tree('seed'));
-- the difference of a trace's tree drops call counts (they do not subtract)
SELECT n.depth, n.running, n.self, n.calls
  FROM (SELECT trace_agg(f, e, ts ORDER BY ts) AS t
          FROM (VALUES (:a, true, 0), (:b, true, 1), (:b, false, 3), (:a, false, 4)) AS v(f, e, ts)) AS trace,
       nodes(t - t) AS n;
-- weights whose difference leaves bigint
SELECT calltree_agg(ARRAY[:a], 9223372036854775807) - calltree_agg(ARRAY[:a], -1);
SELECT calltree_agg(ARRAY[:a], 0) - calltree_agg(ARRAY[:a], -9223372036854775808);

--------------------------------------------------------------------------
-- diff(seed, later)
--------------------------------------------------------------------------

-- The union in the order of nodes(seed + later): seed + later has
-- A→B→C→D→E 5, A→B→C→F→G 1, A→B→H→F 2, A→I 1, so A 9; B 8 before I 1;
-- C 6 before H 2; D 5 before F 1.  Weights (running/self):
--    node                base   later  delta   base_share  test_share
--  1 A                   3/0    6/0    3/0     3/3 = 1     6/6 = 1
--  2 A→B                 3/0    5/0    2/0     3/3 = 1     5/6 = .8333
--  3 A→B→C               2/0    4/0    2/0     2/3 = .6667 4/6 = .6667
--  4 A→B→C→D             1/0    4/0    3/0     1/3 = .3333 4/6 = .6667
--  5 A→B→C→D→E           1/1    4/4    3/3     .3333       .6667
--  6 A→B→C→F             1/0    0/0   -1/0     .3333       0
--  7 A→B→C→F→G           1/1    0/0   -1/-1    .3333       0
--  8 A→B→H               1/0    1/0    0/0     .3333       1/6 = .1667
--  9 A→B→H→F             1/1    1/1    0/0     .3333       .1667
-- 10 A→I                 0/0    1/1    1/1     0           .1667
SELECT d.node, d.parent, d.depth, f.name, d.path = (SELECT array_agg(x) FROM unnest(d.path) x) AS path_ok,
       d.base_running, d.base_self, d.test_running, d.test_self, d.delta_running, d.delta_self,
       round(d.base_share::numeric, 4) AS base_share, round(d.test_share::numeric, 4) AS test_share
  FROM diff(pg_temp.tree('seed'), pg_temp.tree('later')) d JOIN func f ON f.id = d.func
 ORDER BY d.node;
-- the paths are the funcs from the root, and the order is that of nodes(seed + later)
SELECT bool_and(d.path = n.path AND d.func = n.func AND d.depth = n.depth
                AND d.parent IS NOT DISTINCT FROM n.parent) AS same_order, count(*)
  FROM diff(pg_temp.tree('seed'), pg_temp.tree('later')) d
  JOIN nodes(pg_temp.tree('seed') + pg_temp.tree('later')) n USING (node);
-- the running columns are each side's nodes(); the deltas are nodes(later - seed)
SELECT bool_and(d.base_running = COALESCE(s.running, 0) AND d.base_self = COALESCE(s.self, 0)
                AND d.test_running = COALESCE(l.running, 0) AND d.test_self = COALESCE(l.self, 0)
                AND d.delta_running = m.running AND d.delta_self = m.self) AS sides_ok
  FROM diff(pg_temp.tree('seed'), pg_temp.tree('later')) d
  LEFT JOIN nodes(pg_temp.tree('seed')) s ON s.path = d.path
  LEFT JOIN nodes(pg_temp.tree('later')) l ON l.path = d.path
  JOIN nodes(pg_temp.tree('later') - pg_temp.tree('seed')) m ON m.path = d.path;

-- Wide sibling groups, matched by searching rather than pair by pair: base
-- has roots 1..30 and, under root 1, children 2..60; test has roots 10..45
-- and, under root 1, children 30..90 (signed and zero weights, so that
-- combined weights tie and func ids decide).  The union has roots 1..45 and
-- children 2..90 under 1: 45 + 89 = 134 nodes, in the order of base + test
-- (made by the tree builder, not by diff's walk), either way round.  Base
-- has 30 + 59 = 89 of them, test 36 + 1 (root 1) + 61 = 98.
CREATE TEMP TABLE wide AS
SELECT (SELECT calltree_agg(p, w) FROM (SELECT ARRAY[r], (r % 7) - 2 FROM generate_series(1, 30) r
                                         UNION ALL
                                         SELECT ARRAY[1, c], c % 5 FROM generate_series(2, 60) c) AS b(p, w)) AS base,
       (SELECT calltree_agg(p, w) FROM (SELECT ARRAY[r], r % 4 FROM generate_series(10, 45) r
                                         UNION ALL
                                         SELECT ARRAY[1, c], (c % 3) - 1 FROM generate_series(30, 90) c) AS t(p, w)) AS test;
SELECT bool_and(d.path = n.path AND d.func = n.func AND d.depth = n.depth
                AND d.parent IS NOT DISTINCT FROM n.parent) AS same_order, count(*)
  FROM wide, diff(base, test) d JOIN nodes(base + test) n USING (node);
SELECT bool_and(d.path = n.path AND d.func = n.func AND d.depth = n.depth
                AND d.parent IS NOT DISTINCT FROM n.parent) AS same_order, count(*)
  FROM wide, diff(test, base) d JOIN nodes(test + base) n USING (node);
SELECT bool_and(d.base_running = COALESCE(b.running, 0) AND d.base_self = COALESCE(b.self, 0)
                AND d.test_running = COALESCE(t.running, 0) AND d.test_self = COALESCE(t.self, 0)) AS sides_ok,
       count(b.node) AS in_base, count(t.node) AS in_test
  FROM wide CROSS JOIN diff(base, test) d
  LEFT JOIN nodes(wide.base) b ON b.path = d.path
  LEFT JOIN nodes(wide.test) t ON t.path = d.path;

-- A signed base: later - seed against seed.  The union's order is that of
-- (later - seed) + seed, later's weights on seed's and later's nodes:
-- A 6; B 5 before I 1; C 4 before H 1; D 4 before F 0.  base (running/self):
-- A 3/0, B 2/0, C 2/0, D 3/0, E 3/3, F -1/0, G -1/-1, H 0/0, F 0/0, I 1/1,
-- total 3; seed: A 3/0, B 3/0, C 2/0, D 1/0, E 1/1, F 1/0, G 1/1, H 1/0,
-- F 1/1, I absent.  base_share of D: 3/3 = 1, of F and G: -1/3.
SELECT d.node, f.name, d.base_running, d.base_self, d.test_running, d.test_self, d.delta_running,
       round(d.base_share::numeric, 4) AS base_share, round(d.test_share::numeric, 4) AS test_share
  FROM diff(pg_temp.tree('later') - pg_temp.tree('seed'), pg_temp.tree('seed')) d JOIN func f ON f.id = d.func
 ORDER BY d.node;

-- diff(seed, seed): every delta 0, both shares alike
SELECT count(*), bool_and(delta_running = 0 AND delta_self = 0 AND base_share = test_share) AS unchanged
  FROM diff(pg_temp.tree('seed'), pg_temp.tree('seed'));

-- An empty side: its weights are 0 and its shares NULL (total 0)
SELECT node, base_running, test_running, delta_running, base_share, test_share
  FROM diff('{}'::calltree, pg_temp.tree('seed'))
 WHERE node <= 2;
SELECT count(*) FROM diff('{}'::calltree, '{}'::calltree);

--------------------------------------------------------------------------
-- diff(..., normalize => true): base scaled to test's total
--------------------------------------------------------------------------

-- seed to later: 6/3 = 2, exact: every base weight doubles
SELECT d.node, f.name, d.base_running, d.base_self, d.test_running, d.test_self, d.delta_running, d.delta_self,
       round(d.base_share::numeric, 4) AS base_share
  FROM diff(pg_temp.tree('seed'), pg_temp.tree('later'), true) d JOIN func f ON f.id = d.func
 ORDER BY d.node;

-- seed to later7: each self weight s becomes s * 7 / 3.  E, G and the F
-- under H have 1 each: 7/3 = 2 + 1/3, so each is 2 with a remainder of
-- 1/3; the floors sum to 6, one short of 7, so one gets 1 more: the
-- remainders tie, and the earliest in the union's order takes it, E (node
-- 5).  Scaled: E 3, G 2, F 2; running D 3, C 5, F 2, B 7, H 2, A 7.
-- (The union of seed and later7 has the order of seed + later.)
SELECT d.node, f.name, d.base_running, d.base_self, d.test_running, d.test_self, d.delta_running, d.delta_self
  FROM diff(pg_temp.tree('seed'), pg_temp.tree('later7'), true) d JOIN func f ON f.id = d.func
 ORDER BY d.node;

-- later7 to seed: each self weight s becomes s * 3 / 7: E 12/7 = 1 + 5/7,
-- the F under H 3/7 = 0 + 3/7, I 6/7 = 0 + 6/7.  The floors sum to 1, two
-- short of 3: the two largest remainders, I's 6/7 and E's 5/7, get 1
-- more each.  Scaled: E 2, F 0, I 1; running A 3, B 2, C 2, D 2, H 0.
-- (Rounding each to the nearest would give the same here; the method
-- makes the scaled weights sum to 3 whatever the weights.)
SELECT d.node, f.name, d.base_running, d.base_self, d.test_running, d.test_self,
       round(d.base_share::numeric, 4) AS base_share, round(d.test_share::numeric, 4) AS test_share
  FROM diff(pg_temp.tree('later7'), pg_temp.tree('seed'), "normalize" => true) d JOIN func f ON f.id = d.func
 ORDER BY d.node;
-- the scaled base always sums to test's total
SELECT sum(base_self) AS base_total, sum(test_self) AS test_total
  FROM diff(pg_temp.tree('later7'), pg_temp.tree('seed'), true);
-- a base whose total is zero cannot be scaled
SELECT * FROM diff(pg_temp.tree('seed') - pg_temp.tree('seed'), pg_temp.tree('seed'), true);
-- a test whose total is zero scales base to zero
SELECT sum(base_self), bool_and(base_running = 0)
  FROM diff(pg_temp.tree('seed'), pg_temp.tree('seed') - pg_temp.tree('seed'), true);

--------------------------------------------------------------------------
-- regressions(seed, later)
--------------------------------------------------------------------------

-- functions(), each sample once per function:
--   seed  (total 3): A 3/0, B 3/0, C 2/0, D 1/0, E 1/1, F 2/1 (under C and
--                    under H), G 1/1, H 1/0
--   later (total 6): A 6/0, B 5/0, C 4/0, D 4/0, E 4/4, F 1/1, H 1/0, I 1/1
-- as shares (self: base, test, delta; running: base, test, delta):
--   E  1/3, 4/6, +1/3;   1/3, 4/6, +1/3
--   I  0,   1/6, +1/6;   0,   1/6, +1/6
--   A  0,   0,   0;      1,   1,    0
--   B  0,   0,   0;      1,   5/6, -1/6
--   C  0,   0,   0;      2/3, 4/6,  0
--   D  0,   0,   0;      1/3, 4/6, +1/3
--   H  0,   0,   0;      1/3, 1/6, -1/6
--   F  1/3, 1/6, -1/6;   2/3, 1/6, -1/2
--   G  1/3, 0,   -1/3;   1/3, 0,   -1/3
-- ordered by delta_self_share descending: E, I, then A B C D H (0, by
-- func), F, G.
SELECT r.name, round(r.base_self_share::numeric, 4) AS base_self, round(r.test_self_share::numeric, 4) AS test_self,
       round(r.delta_self_share::numeric, 4) AS delta_self,
       round(r.base_running_share::numeric, 4) AS base_running, round(r.test_running_share::numeric, 4) AS test_running,
       round(r.delta_running_share::numeric, 4) AS delta_running, r.func = f.id AS func_ok
  FROM regressions(pg_temp.tree('seed'), pg_temp.tree('later')) WITH ORDINALITY AS r JOIN func f ON f.name = r.name
 ORDER BY round(r.delta_self_share::numeric, 4) DESC, r.name;
-- the function's own order: delta_self_share descending, then func
SELECT bool_and(ok) AS ordered, count(*)
  FROM (SELECT lag(delta_self_share) OVER w > delta_self_share
               OR (lag(delta_self_share) OVER w = delta_self_share AND lag(func) OVER w < func)
               OR lag(func) OVER w IS NULL AS ok
          FROM regressions(pg_temp.tree('seed'), pg_temp.tree('later')) WITH ORDINALITY AS r
        WINDOW w AS (ORDER BY ordinality)) AS o;
-- min_share: with 0.4, only the functions with a share of 0.4 or more on
-- some side stay: A, B, C (running), D, E (4/6 in later), F (2/3 in seed)
SELECT name FROM regressions(pg_temp.tree('seed'), pg_temp.tree('later'), 0.4) ORDER BY name;
-- with 1, only A (running share 1 on both sides) and B (running share 1
-- in seed)
SELECT name FROM regressions(pg_temp.tree('seed'), pg_temp.tree('later'), 1);
-- recursion counts once, as in functions(): base a 20; test a→b→a 10 and
-- a 10 (total 20 each).  In test, a runs in all 20 samples (share 1, not
-- 30/20) and is the leaf of all 20 (self share 1); b runs in 10 (0.5).
-- So a: self 1 → 1, running 1 → 1; b: self 0 → 0, running 0 → 0.5.
SELECT r.name, r.base_self_share, r.test_self_share, r.delta_self_share,
       r.base_running_share, r.test_running_share, r.delta_running_share
  FROM (SELECT calltree_agg(p, w) AS t
          FROM (VALUES (ARRAY[:a, :b, :a], 10), (ARRAY[:a], 10)) AS v(p, w)) AS rec,
       regressions((SELECT calltree_agg(ARRAY[:a], 20)), rec.t) AS r
 ORDER BY r.name;
-- an empty base: its shares are NULL, and so are the deltas
SELECT name, base_self_share, test_self_share, delta_self_share
  FROM regressions('{}'::calltree, pg_temp.tree('seed'), 0.5)
 ORDER BY name;
SELECT * FROM regressions(pg_temp.tree('seed'), pg_temp.tree('later'), 'NaN');
