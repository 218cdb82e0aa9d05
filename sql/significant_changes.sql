-- significant_changes(base calltree[], test calltree[], alpha): the
-- Mann-Whitney U test of each function's running share over the trees of
-- two sides, Benjamini-Hochberg q-values over the functions tested.  Every
-- expected value below was computed by hand; the computation is in the
-- comments.
SET search_path = calltree, public;

SELECT intern_func('sig_main') AS m, intern_func('sig_a') AS a, intern_func('sig_b') AS b,
       intern_func('sig_c') AS c, intern_func('sig_x') AS x, intern_func('sig_y') AS y \gset

-- Eight trees of total 10, each main→a, main→b, main→c (weights a, b, c):
--   base 1..4:  a 1 2 3 4    b 9 8 6 5    c 0 0 1 1
--   test 1..4:  a 5 6 7 8    b 5 3 2 0    c 0 1 1 2
-- (a tree where a weight is 0 lacks the function)
CREATE TEMP TABLE sig (side text, k int, tree calltree, PRIMARY KEY (side, k));
INSERT INTO sig
SELECT side, k, calltree_agg(path, weight)
  FROM (SELECT side, k, ARRAY[:m, f] AS path, w AS weight
          FROM (VALUES ('base', 1, 1, 9, 0), ('base', 2, 2, 8, 0), ('base', 3, 3, 6, 1), ('base', 4, 4, 5, 1),
                       ('test', 1, 5, 5, 0), ('test', 2, 6, 3, 1), ('test', 3, 7, 2, 1), ('test', 4, 8, 0, 2))
               AS v(side, k, wa, wb, wc),
               LATERAL (VALUES (:a, wa), (:b, wb), (:c, wc)) AS fw(f, w)
         WHERE w > 0) AS s
 GROUP BY side, k;
CREATE FUNCTION pg_temp.side(s text) RETURNS calltree[] LANGUAGE sql AS $$
  SELECT array_agg(tree ORDER BY k) FROM sig WHERE side = s
$$;
SELECT side, k, total(tree), to_collapsed(tree) FROM sig ORDER BY side, k;

-- main: running share 1 in every tree: untested, p = 1, q = 1.
--
-- a: base .1 .2 .3 .4 < test .5 .6 .7 .8, no ties.  Ranks of test 5..8,
--   sum 26; U = 26 - 4·5/2 = 16 = n1·n2: effect 16/16 = 1.  Exact (8 trees,
--   no ties): U's distribution counts the C(8,4) = 70 orderings; only one
--   has U = 0 and one U = 16, so p = 2·(1/70) = 0.028571.
--
-- b: base .9 .8 .6 .5, test .5 .3 .2 0.  Pooled, ascending: 0 .2 .3 (test,
--   ranks 1 2 3), .5 .5 (one each, ranks 4 and 5: 4.5 each), .6 .8 .9
--   (base).  Test's rank sum 1 + 2 + 3 + 4.5 = 10.5, U = 10.5 - 10 = 0.5,
--   effect 0.5/16 = 0.03125.  A tie: the normal approximation.  Ties
--   sum(t³ - t) = 2³ - 2 = 6;  σ² = 16/12·((8 + 1) - 6/(8·7)) = 11.857143,
--   σ = 3.443420;  z = (|0.5 - 8| - 0.5)/σ = 2.032864;
--   p = 2·(1 - Φ(z)) = 0.042066.
--
-- c: base 0 0 .1 .1, test 0 .1 .1 .2.  Pooled: three 0 (ranks 1-3, 2
--   each: two base, one test), four .1 (ranks 4-7, 5.5 each: two and two),
--   .2 (test, rank 8).  Test's rank sum 2 + 5.5 + 5.5 + 8 = 21, U = 11,
--   effect 11/16 = 0.6875.  Ties 3³ - 3 + 4³ - 4 = 84;
--   σ² = 16/12·(9 - 84/56) = 10;  z = (|11 - 8| - 0.5)/√10 = 0.790569;
--   p = 0.429195.
--
-- Benjamini-Hochberg over the 3 tested (main is left out): p ascending
--   a .028571 (rank 1), b .042066 (rank 2), c .429195 (rank 3);
--   q(c) = .429195·3/3 = .429195;  q(b) = min(.429195, .042066·3/2 = .063100)
--   = .063100;  q(a) = min(.063100, .028571·3/1 = .085714) = .063100.
-- So at alpha 0.05 nothing is significant though two p-values are below
-- it; at alpha 0.1 both a and b are.
--
-- Means: a base (.1+.2+.3+.4)/4 = .25, test .65, change .4; b base .7,
-- test .25, change -.45; c base .05, test .1, change .05.  a, b and c are
-- leaves: their self shares are their running shares; main's self is 0.
SELECT name, round(base_running_share::numeric, 4) AS base_run, round(test_running_share::numeric, 4) AS test_run,
       round(delta_running_share::numeric, 4) AS delta_run, round(base_self_share::numeric, 4) AS base_self,
       round(test_self_share::numeric, 4) AS test_self, round(delta_self_share::numeric, 4) AS delta_self,
       round(effect_size::numeric, 5) AS effect, round(p_value::numeric, 6) AS p, round(q_value::numeric, 6) AS q,
       significant
  FROM significant_changes(pg_temp.side('base'), pg_temp.side('test'));
SELECT name, round(q_value::numeric, 6) AS q, significant
  FROM significant_changes(pg_temp.side('base'), pg_temp.side('test'), 0.1);

-- Swapping the sides: U becomes 16 - U (effect 1 - effect), the shares
-- and changes change sides, p and q stay.
SELECT name, round(delta_running_share::numeric, 4) AS delta_run, round(effect_size::numeric, 5) AS effect,
       round(p_value::numeric, 6) AS p, round(q_value::numeric, 6) AS q
  FROM significant_changes(pg_temp.side('test'), pg_temp.side('base'), 0.1);

-- a's exact p is 2/70 to the last digits float8 keeps
SELECT name, abs(p_value - 2.0 / 70) < 1e-15 AS exact_p
  FROM significant_changes(pg_temp.side('base'), pg_temp.side('test')) WHERE name = 'sig_a';

-- Shares are ranked as exact fractions: 1/3 in a tree of total 3 ties
-- 2/6 in a tree of total 6 and 3/9 in one of 9, however float8 rounds
-- them.  x is 1/3 and y 2/3 in every tree: both untested, p = q = 1.
CREATE FUNCTION pg_temp.xy(wx int, wy int) RETURNS calltree LANGUAGE sql
RETURN (SELECT calltree_agg(path, w) FROM (VALUES (ARRAY[:x], wx), (ARRAY[:y], wy)) AS v(path, w));
SELECT name, p_value, q_value, significant
  FROM significant_changes(ARRAY[pg_temp.xy(1, 2), pg_temp.xy(2, 4)], ARRAY[pg_temp.xy(3, 6), pg_temp.xy(1, 2)]);

-- Too few trees: 2 against 2.  Even sides that do not overlap give p of
-- at least 2/C(4,2) = 1/3 exactly, or 0.194 with the normal approximation
-- when each side's shares are all tied (σ² = 4·4/(4·3) = 4/3,
-- z = 1.5/σ = 1.299): a warning, and the rows.
SELECT name, round(p_value::numeric, 4) AS p, significant
  FROM significant_changes((pg_temp.side('base'))[1:2], (pg_temp.side('test'))[3:4]);
-- 4 against 3: the least p is 2/C(7,3) = 2/35 = 0.057 (exact) or, all
-- tied per side (σ² = 12²/(4·6)), z = (12/2 - 1/2)/σ = 11·√6/12 = 2.2454,
-- p = 0.0247: no warning.
SELECT count(*) FROM significant_changes(pg_temp.side('base'), (pg_temp.side('test'))[1:3]);
-- at alpha 0.02 neither can reach it: a warning
SELECT count(*) FROM significant_changes(pg_temp.side('base'), (pg_temp.side('test'))[1:3], 0.02);

-- Bad input
SELECT * FROM significant_changes(pg_temp.side('base'), (pg_temp.side('test'))[1:1]);
SELECT * FROM significant_changes('{}', pg_temp.side('test'));
SELECT * FROM significant_changes(pg_temp.side('base'), pg_temp.side('test') || NULL::calltree);
SELECT * FROM significant_changes(pg_temp.side('base'),
                                  pg_temp.side('test') || (pg_temp.side('test'))[1] - (pg_temp.side('test'))[1]);
SELECT * FROM significant_changes(pg_temp.side('base'), pg_temp.side('test'), 'NaN');
SELECT * FROM significant_changes(pg_temp.side('base'), pg_temp.side('test'), 0);
SELECT * FROM significant_changes(pg_temp.side('base'), pg_temp.side('test'), 1);
-- NULL arrays: a NULL result (the function is strict)
SELECT count(*) FROM significant_changes(NULL, pg_temp.side('test'));
