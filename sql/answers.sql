-- Answers in one call: format_weight() and report_scale() (pprof's units
-- and rounding), profile_ids() and tree_of() (selections of profiles, and
-- their errors), top() and peek() (pprof's -top and -peek).
--
-- Weights in the expected output were worked out by hand; the check
-- against go tool pprof itself, on real Go profiles, is test/t_cli.sh.
SET search_path = calltree, public;

-- The tests after this one print ids: everything here is rolled back at
-- the end, and the sequences set back.
SELECT last_value AS func_seq, is_called AS func_seq_called FROM func_id_seq \gset
SELECT last_value AS frame_seq, is_called AS frame_seq_called FROM frame_id_seq \gset
SELECT last_value AS stack_seq, is_called AS stack_seq_called FROM stack_id_seq \gset
SELECT last_value AS profile_seq, is_called AS profile_seq_called FROM profile_id_seq \gset
\set ON_ERROR_ROLLBACK on
BEGIN;
-- so that the ids in messages are these, whatever ran before
SELECT setval('profile_id_seq', 1000) AS profile_ids_from;

------------------------------------------------------------------------
-- format_weight: pprof's ScaledLabel
------------------------------------------------------------------------
SELECT w.weight, w.unit, w.scale, format_weight(w.weight, w.unit, w.scale)
  FROM (VALUES (250000000::bigint, 'nanoseconds', 'auto'),  -- the largest unit with a value of 1 or more
               (250000000, 'nanoseconds', 's'),            -- in a chosen unit
               (250000000, 'nanoseconds', 'seconds'),      -- named as pprof accepts it
               (1500, 'nanoseconds', 'auto'),              -- two decimals
               (999, 'nanoseconds', 'auto'),
               (0, 'nanoseconds', 'auto'),                 -- zero has no unit
               (-10000000, 'nanoseconds', 'auto'),         -- a diff's loss
               (1000000, 'nanoseconds', 's'),              -- 0.001 prints as 0
               (5000000, 'nanoseconds', 's'),              -- 0.005 is 0.005000000000000000104 as a double: up
               (1005000000, 'nanoseconds', 's'),           -- 1.005 is 1.00499999999999989 as a double: down
               (90000000000, 'nanoseconds', 'auto'),       -- no minutes in pprof's units
               (7200000000000, 'nanoseconds', 'auto'),
               (3, 'microseconds', 'auto'),
               (1152, 'bytes', 'auto'),                    -- 1.125 kB, exact: ties go to even
               (1664, 'bytes', 'auto'),                    -- 1.625 kB, exact: to even
               (1536, 'bytes', 'auto'),
               (1572864, 'bytes', 'auto'),                 -- powers of 1024
               (1572864, 'bytes', 'kB'),
               (1572864, 'bytes', 'parsecs'),              -- not a unit of bytes: the default, B
               (42, 'samples', 'auto'),                    -- counts print as numbers
               (42, 'samples', 'samples'),
               (42, 'count', 'count'),
               (42, 'objects', 'auto'),                    -- a unit pprof does not know
               (42, 'objects', 'objects'),
               -- edge cases, as format_weight() printed them in SQL
               (-1536, 'bytes', 'auto'),                   -- negative: the magnitude scaled
               (-1, 'nanoseconds', 'auto'),
               (-42, 'samples', 'auto'),
               (-4, 'nanoseconds', 's'),                   -- -0.000000004s rounds to 0
               (0, 'bytes', 'auto'), (0, 'samples', 'auto'), (0, 'objects', 'objects'),
               (15000000, 'NanoSeconds', 'MilliSeconds'),  -- names in any case
               (1500000000, 'nanoseconds', 'bytes'),       -- a unit of another family: the default, s
               (9000000, 'ms', 'hrs'), (5400000, 'ms', 'auto'), (3599999999999, 'ns', 'auto'),
               (1536, 'B', 'minimum'), (1125899906842624, 'bytes', 'auto'), (1024, 'PB', 'auto'),
               (1500, 'gcu', 'auto'), (1500, 'milligcu', 'auto'), (1, 'nanogcu', 'auto'), (7, 'gcu', 'nanogcu'),
               (42, 'μs', 'auto'),                         -- "μs" loses its s as a plural: a count
               (42, '', 'auto'), (42, 'x', ''), (42, 'samples', 'Samples'),
               (12345678901234, 'samples', 'auto'),        -- 14 digits and one decimal fit a double's 15
               (123456789012345, 'samples', 'auto'),       -- 15 digits: no decimals
               (12345678901234567, 'nanoseconds', 'ns'),
               (9223372036854775807, 'samples', 'auto'),   -- the largest weights
               (-9223372036854775807, 'nanoseconds', 'auto'),
               (-9223372036854775808, 'nanoseconds', 'auto'),  -- an error in SQL ("bigint out of range")
               (9223372036854775807, 'PB', 'B'),           -- over 22 digits: to_char's #s
               (-9223372036854775807, 'petagcu', 'nanogcu')) AS w(weight, unit, scale);

-- format_weight() (C) reads its units as weight_units() lists them (SQL,
-- which scale_weight() reads): every alias of every unit to every unit
-- of its family, as scale_weight() scales it
SELECT count(*) AS checked,
       count(*) FILTER (WHERE format_weight(w.weight, a.alias, s.unit)
                              IS DISTINCT FROM CASE WHEN f.number IN ('0', '-0') THEN '0' ELSE f.number || sw.shown_unit END)
           AS differ
  FROM weight_units() u, unnest(u.aliases) AS a(alias), weight_units() s,
       unnest('{1, 999, 1000, 1023, 1024, 1500, 123456789, -98765432109}'::bigint[]) AS w(weight),
       scale_weight(w.weight, a.alias, s.unit) sw,
       LATERAL (SELECT regexp_replace(to_char(sw.value, 'FM9999999999999999999990.00'), '\.00$', '') AS number) AS f
 WHERE s.family = u.family;

-- report_scale: the unit of the smallest weight, or of 100 times it when
-- that is under a hundredth of the total and the units differ
SELECT r.smallest, r.largest, r.unit, report_scale(r.smallest, r.largest, r.unit)
  FROM (VALUES (10000000::bigint, 1140000000::bigint, 'nanoseconds'),  -- 10ms of 1.14s: 1ms * 100 < 1.14s, so s
               (10000000, 900000000, 'nanoseconds'),                    -- 10ms * 100 = 1s > 0.9s: ms
               (10000000, 1000000000, 'nanoseconds'),                   -- 1s is not under 1s: ms
               (0, 1140000000, 'nanoseconds'),                          -- no non-zero weight: the total's
               (1000, 8490000, 'bytes'),
               (3, 66, 'samples')) AS r(smallest, largest, unit);

-- The unit table is inlined into the queries of scale_weight(), which
-- runs once per weight that top(), peek() and bin/calltree print: a
-- function scan of it was planned again at every call, a millisecond a
-- weight (seconds for bin/calltree tree of a few thousand nodes).
EXPLAIN (COSTS OFF) SELECT u.unit FROM weight_units() u WHERE 'ms' = ANY (u.aliases);

------------------------------------------------------------------------
-- Profiles, their selections and their trees
------------------------------------------------------------------------
-- web: 66 samples.  Functions: main runs 65 (all but other); a runs 35
-- (30 + 5: main;a;a;c counts once) and calls itself; leaf 50 self; b 10
-- self, 30 running; c 5; other 1.
SELECT import_collapsed(E'main;a;leaf 30\nmain;b;leaf 20\nmain;b 10\nmain;a;a;c 5\nother 1\n',
                        'answers web', '{"host": "answers-1", "build": "v1"}') AS web \gset
SELECT import_collapsed(E'main;b;leaf 4\n', 'answers web', '{"host": "answers-2", "build": "v1"}') AS web2 \gset
SELECT import_collapsed(E'main;a 7\n', 'answers batch', '{"host": "answers-1", "build": "v2"}') AS batch \gset
UPDATE profile SET started_at = '2001-02-03 06:00+00' WHERE id = :web;
UPDATE profile SET started_at = '2001-02-03 07:00+00' WHERE id = :web2;
UPDATE profile SET started_at = '2001-02-03 08:00+00' WHERE id = :batch;

-- selections: started in [since, until), meta containing meta, named name
SELECT profile_ids() @> ARRAY[:web, :web2, :batch]::bigint[] AS all_three_among_all,
       profile_ids(meta => '{"host": "answers-1"}') = ARRAY[:web, :batch]::bigint[] AS host_1,
       profile_ids(name => 'answers web') = ARRAY[:web, :web2]::bigint[] AS named_web,
       profile_ids('2001-02-03 07:00+00', '2001-02-03 08:00+00') = ARRAY[:web2]::bigint[] AS seven_to_eight,
       profile_ids(since => '2001-02-03 07:00+00', meta => '{"build": "v1"}') = ARRAY[:web2]::bigint[] AS since_seven_v1,
       profile_ids(meta => '{"host": "answers-9"}') AS none;

-- the tree of a profile is stack_agg of its samples; of several, their sum
SELECT tree_of(:web) = (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :web) AS one,
       tree_of(ARRAY[:web, :web2]) = tree_of(:web) + tree_of(:web2) AS two,
       tree_of('2001-02-03 06:00+00', '2001-02-03 09:00+00', '{"host": "answers-1"}')
           = tree_of(:web) + tree_of(:batch) AS by_time_and_meta,
       tree_of(NULL::timestamptz, NULL, NULL, 'answers web') = tree_of(ARRAY[:web, :web2]) AS by_name,
       tree_of(NULL::timestamptz, NULL, '{"host": "answers-9"}') IS NULL AS nothing_matches,
       total(tree_of(:web)) AS web_total;
SELECT weight_unit_of(ARRAY[:web, :batch]) AS unit, weight_unit_of('{}') IS NULL AS no_profile_no_unit;

-- errors: a profile that does not exist; profiles of two units
\set SHOW_CONTEXT never
SELECT tree_of(999999);
SELECT tree_of(ARRAY[:web, 999998, 999999, NULL]);
UPDATE profile SET weight_unit = 'bytes' WHERE id = :batch;
SELECT tree_of(ARRAY[:web, :web2, :batch]);
SELECT * FROM top(ARRAY[:web, :batch]);
UPDATE profile SET weight_unit = 'samples' WHERE id = :batch;
\set SHOW_CONTEXT errors

------------------------------------------------------------------------
-- top: pprof -top's rows.  66 in all: leaf 50/66 = 75.76%, b 10 (sum
-- 60/66 = 90.91%, running 30/66 = 45.45%), c 5 (7.58%), other 1 (1.52%),
-- then the functions without self weight by name: a (35/66 = 53.03%),
-- main (65/66 = 98.48%).
------------------------------------------------------------------------
SELECT * FROM top(:web);
-- by the tree and its unit, the same
SELECT (SELECT array_agg(t ORDER BY t.name) FROM top(tree_of(:web), 'samples') t)
     = (SELECT array_agg(t ORDER BY t.name) FROM top(:web) t) AS same;
-- at most 2
SELECT name, flat, cum FROM top(:web, node_count => 2);
-- those running under 0.1 of 66 (under trunc(6.6) = 6) left out: c and other
SELECT name, flat, cum FROM top(:web, 0.1);
-- two profiles: the second adds 4 to main, b and leaf (70 in all)
SELECT name, flat, flat_pct, cum, cum_pct FROM top(ARRAY[:web, :web2]);
-- in nanoseconds: from 5 ns to 66 ns, all in ns
SELECT name, flat, cum FROM top(tree_of(:web), 'nanoseconds', node_count => 3);
-- the tree of web2 minus web as a diff (pprof -diff_base): signed weights,
-- shares of the base's total (66): leaf 4 - 50 = -46 (69.70%), b 0 - 10
-- = -10 (running 4 - 30 = -26), c -5, other -1; a 0 - 35 = -35 and main
-- 4 - 65 = -61 running.  The sums of shares are of the magnitudes, as
-- pprof's.  A function that did not change would be left out.
SELECT name, flat, flat_pct, sum_pct, cum, cum_pct FROM top(tree_of(:web2) - tree_of(:web), total => 66, node_fraction => 0);
-- an empty tree has no functions; a NULL tree none either
SELECT count(*) AS empty FROM top('{}'::calltree);
SELECT count(*) AS null_tree FROM top(NULL::calltree);

------------------------------------------------------------------------
-- peek: a's callers (main, 35: a's call of itself is no edge) and callees
-- (leaf 30 of a's 35 = 85.71%, c 5 = 14.29%)
------------------------------------------------------------------------
SELECT * FROM peek(:web, '^a$');
-- several functions: in top()'s order (b's self 10 before a's 0)
SELECT function, relation, name, flat, cum, share FROM peek(:web, '^(a|b)$');
-- leaf: called by a (30 of 50) and b (20), calls nothing
SELECT function, relation, name, cum, share FROM peek(ARRAY[:web], 'leaf');
-- no name matches: no rows
SELECT count(*) AS no_match FROM peek(:web, '^nothing$');

ROLLBACK;
\set ON_ERROR_ROLLBACK off
SELECT setval('func_id_seq', :func_seq, :'func_seq_called') IS NOT NULL AS func_seq_back,
       setval('frame_id_seq', :frame_seq, :'frame_seq_called') IS NOT NULL AS frame_seq_back,
       setval('stack_id_seq', :stack_seq, :'stack_seq_called') IS NOT NULL AS stack_seq_back,
       setval('profile_id_seq', :profile_seq, :'profile_seq_called') IS NOT NULL AS profile_seq_back;
