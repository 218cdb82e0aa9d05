-- Rollups that neither lose nor double-count a profile, and that one bad
-- profile does not stop: a coarser level behind its source after expire,
-- profiles moved after their rollup, keys too long for the index, weights
-- that overflow a row, a group key that no profile has any more.  The
-- profiles start in January 2020 and group by the meta key "tr" (levels
-- of their own); they live in time windows of their own, so that expire
-- deletes them and no profile of the other tests.  Runs read from
-- 2019-12-01 on: the rows shown are only those of the key tr.
SET search_path = calltree, public;
SET timezone = 'UTC';
SET datestyle = 'ISO';
SET intervalstyle = 'postgres';
\set SHOW_CONTEXT never

-- the levels of the tests before go: expire waits for every level that
-- reads raw samples
DELETE FROM rollup_level;
SELECT last_value AS seq_before FROM profile_id_seq \gset

-- the rows of the key tr, readable: profiles by name
CREATE FUNCTION pg_temp.rows() RETURNS TABLE (bucket timestamptz, width interval, tr jsonb,
                                              unit text, samples bigint, total bigint, profiles text)
LANGUAGE sql AS $$
  SELECT r.bucket, r.width, r.group_key->'tr', r.weight_unit, r.samples, calltree.total(r.tree),
         (SELECT string_agg(p.name, ' ' ORDER BY p.name) FROM calltree.profile p WHERE r.profiles @> p.id)
    FROM calltree.rollup r WHERE r.group_key ? 'tr' AND r.group_key->>'tr' IS NOT NULL
   ORDER BY r.width, r.group_key::text, r.bucket, r.weight_unit
$$;
CREATE FUNCTION pg_temp.run(width interval, keys text[] DEFAULT '{tr}') RETURNS void
LANGUAGE sql AS $$ SELECT FROM calltree.rollup(width, keys, since => '2019-12-01') $$;

------------------------------------------------------------------------
-- A coarser level behind its source, then expire (issue 29, item 2).
-- p1 (10:10, weight 5) is rolled up hourly and daily; in the next window
-- p2 (11:10, weight 7) is rolled up hourly only; expire deletes both
-- (each is in the only level that reads raw samples).  The daily row lacks
-- p2, whose samples are gone: tree_between reads the hourly rows for that
-- day instead, and finds both.
SELECT new_sample_partition() IS NOT NULL AS window_1;
SELECT import_collapsed(E'tr_main;tr_one 5\n', 'tr-p1', '{"tr": "lag"}') AS p1 \gset
UPDATE profile SET started_at = '2020-01-06 10:10' WHERE id = :p1;
SELECT pg_temp.run('1 hour'), pg_temp.run('1 day');
SELECT new_sample_partition() IS NOT NULL AS window_2;
SELECT import_collapsed(E'tr_main;tr_two 7\n', 'tr-p2', '{"tr": "lag"}') AS p2 \gset
UPDATE profile SET started_at = '2020-01-06 11:10' WHERE id = :p2;
SELECT pg_temp.run('1 hour');
SELECT new_sample_partition() IS NOT NULL AS window_3;
SELECT * FROM pg_temp.rows() WHERE tr = '"lag"';
SELECT partitions, profiles, samples FROM expire('30 days');
SELECT count(*) AS raw_left FROM profile WHERE id IN (:p1, :p2);
-- the day, whole or cut, and the week: 12, as before expire
SELECT total(tree_between('{"tr": "lag"}', '2020-01-06', '2020-01-07')) AS day,
       total(tree_between('{"tr": "lag"}', '2020-01-06 09:00', '2020-01-06 12:00')) AS hours,
       total(tree_between('{"tr": "lag"}', '2020-01-06', '2020-01-13')) AS week;
-- the daily run catches up; its row is read again
SELECT pg_temp.run('1 day');
SELECT * FROM pg_temp.rows() WHERE tr = '"lag"' AND width = '1 day';
BEGIN;
UPDATE rollup SET tree = '{}' WHERE width = '1 hour' AND group_key = '{"tr": "lag"}';
SELECT replace(rtrim(to_collapsed(tree_between('{"tr": "lag"}', '2020-01-06', '2020-01-07')), E'\n'), E'\n', ' | ') AS day_from_daily_row;
ROLLBACK;

------------------------------------------------------------------------
-- The profiles of the rest of the test share window 4, expired at the end.
SELECT new_sample_partition() IS NOT NULL AS window_4;

-- Moved after the rollup (item 3): a level takes a profile once, in the
-- bucket, group and unit where it first read it.  m (weight 10, 10:10) is
-- rolled up, then moved to 12:10, to the unit bytes and to another group:
-- no run takes it again.
SELECT import_collapsed(E'tr_main;tr_moved 10\n', 'tr-m', '{"tr": "move"}') AS m \gset
UPDATE profile SET started_at = '2020-01-06 10:10' WHERE id = :m;
SELECT pg_temp.run('1 hour'), pg_temp.run('1 day');
UPDATE profile SET started_at = '2020-01-06 12:10' WHERE id = :m;
SELECT pg_temp.run('1 hour'), pg_temp.run('1 day');
UPDATE profile SET weight_unit = 'bytes' WHERE id = :m;
SELECT pg_temp.run('1 hour'), pg_temp.run('1 day');
UPDATE profile SET weight_unit = 'samples', meta = '{"tr": "moved"}' WHERE id = :m;
SELECT pg_temp.run('1 hour'), pg_temp.run('1 day');
SELECT * FROM pg_temp.rows() WHERE tr IN ('"move"', '"moved"');
-- the day: 10, as the raw samples say
SELECT total(tree_between('{"tr": "move"}', '2020-01-06', '2020-01-07')) AS day,
       (SELECT sum(weight) FROM sample WHERE profile_id = :m) AS raw;
-- one answer counts it once: here the 10:00 row has it, and the raw
-- samples of 12:00 to 12:30 leave it out
SELECT total(tree_between('{"tr": "move"}', '2020-01-06 10:00', '2020-01-06 12:30')) AS ten_to_half_past_twelve;
-- a range that has only its new time reads it from raw samples, by its
-- start now, until it expires
SELECT total(tree_between('{"tr": "moved"}', '2020-01-06 12:00', '2020-01-06 12:30')) AS moved_raw;

------------------------------------------------------------------------
-- One bad profile does not stop a level (item 4).  Beside good profiles
-- of 10:00 to 11:00 (g1, g2):
--   long: its group key is 8000 characters of hex, more than an index
--         entry of rollup_key holds
--   huge: weight 2^63-1, in the hour of g2 (weight 3): their sum overflows
--   hugeday, small: 2^63-1 and 1 in two hours of one day: the hours hold
--         them, the day cannot
SELECT string_agg(md5(i::text), '') AS long_tr FROM generate_series(1, 250) AS i \gset
SELECT import_collapsed(E'tr_main;tr_good 2\n', 'tr-g1', '{"tr": "good"}') AS g1,
       import_collapsed(E'tr_main;tr_good 3\n', 'tr-g2', '{"tr": "big"}') AS g2,
       import_collapsed(E'tr_main;tr_long 4\n', 'tr-long', jsonb_build_object('tr', :'long_tr')) AS long,
       import_collapsed(E'tr_main;tr_huge 9223372036854775807\n', 'tr-huge', '{"tr": "big"}') AS huge,
       import_collapsed(E'tr_main;tr_huge 9223372036854775807\n', 'tr-hugeday', '{"tr": "bigday"}') AS hugeday,
       import_collapsed(E'tr_main;tr_small 1\n', 'tr-small', '{"tr": "bigday"}') AS small \gset
UPDATE profile SET started_at = '2020-01-06 10:20' WHERE id IN (:g1, :g2, :long, :huge, :hugeday);
UPDATE profile SET started_at = '2020-01-06 11:20' WHERE id = :small;
-- each level goes on, and warns once per profile it skips
SELECT pg_temp.run('1 hour');
SELECT pg_temp.run('1 day');
SELECT pg_temp.run('1 hour'), pg_temp.run('1 day');
SELECT * FROM pg_temp.rows() WHERE tr IN ('"good"', '"big"', '"bigday"');
-- the list of skipped profiles, and why
SELECT k.width, k.group_by, p.name, k.bucket, left(k.group_key->>'tr', 8) AS tr, k.weight_unit, k.sqlstate,
       regexp_replace(k.reason, '[0-9]{4,}', 'N') AS reason
  FROM rollup_skipped k JOIN profile p ON p.id = k.profile_id
 ORDER BY k.width, p.name;
-- the day of bigday: the daily row lacks hugeday, so the hours answer,
-- and their sum is out of range
SELECT tree_between('{"tr": "bigday"}', '2020-01-06', '2020-01-07');
SELECT total(tree_between('{"tr": "bigday"}', '2020-01-06 11:00', '2020-01-06 12:00')) AS small_hour;

-- A level is checked for unknown keys when it is created, not on every
-- run: the level of trhost goes on once no profile has the key any more
-- (runs from 2100 on create the level and read no profile)
SELECT rollup('1 hour', '{trhost}', since => '2100-01-01') AS unknown;
UPDATE profile SET meta = '{"tr": "good", "trhost": "h1"}' WHERE id = :g1;
SELECT rollup('1 hour', '{trost}', since => '2100-01-01') AS typo;
SELECT rollup('1 hour', '{trhost}', since => '2100-01-01') AS created;
UPDATE profile SET meta = '{"tr": "good"}' WHERE id = :g1;
SELECT rollup('1 hour', '{trhost}', since => '2100-01-01') AS no_profile_has_it;

-- A skipped profile, corrected and taken off the list, is taken by the next run
UPDATE profile SET meta = '{"tr": "long, corrected"}' WHERE id = :long;
DELETE FROM rollup_skipped WHERE profile_id = :long;
SELECT pg_temp.run('1 hour'), pg_temp.run('1 day');
SELECT * FROM pg_temp.rows() WHERE tr = '"long, corrected"';

-- expire does not wait for skipped profiles: window 4 goes whole (m, g1,
-- g2, long, huge, hugeday, small: 7 profiles of one sample each), and the
-- list keeps what was skipped
SELECT pg_temp.run('1 hour', '{trhost}');
SELECT partitions, profiles, samples FROM expire('30 days');
SELECT count(*) AS raw_left FROM profile WHERE name LIKE 'tr-%';
SELECT count(*) AS still_listed FROM rollup_skipped;

-- clean up: the levels and rows of this test, the skipped list, its windows, the ids
DELETE FROM rollup WHERE group_key ? 'tr' OR group_key ? 'trhost';
DELETE FROM rollup_level;
DELETE FROM rollup_skipped;
SELECT count(*) >= 0 AS dropped FROM (SELECT expire_drop(p.partition) FROM sample_partitions() p
                                       WHERE p.first_id IS NOT NULL) AS d;
SELECT setval('profile_id_seq', :seq_before) > 0 AS ids_back;
SELECT partition FROM sample_partitions();
