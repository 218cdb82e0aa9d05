-- expire() and collect_garbage() on hand-made profiles whose samples are
-- known.  The profiles here start in January 2020, long before now(), and
-- live in time windows of their own (new_sample_partition), so that the
-- profiles of the other tests (in sample_set_0, never rolled up) stay.  The
-- expected counts follow from the profiles below: each line of collapsed
-- text is one sample.
SET search_path = calltree, public;
SET timezone = 'UTC';
SET datestyle = 'ISO';
SET intervalstyle = 'postgres';
\set SHOW_CONTEXT never

-- bad arguments, and no rollup level yet: nothing is expired
SELECT * FROM expire(NULL);
SELECT * FROM expire('-1 day');
SELECT * FROM expire('1 day', '0 seconds');
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT * FROM expire('1 day');
ROLLBACK;
SELECT * FROM expire('30 days');

-- the profile ids of the other tests, given back at the end
SELECT last_value AS seq_before FROM profile_id_seq \gset

-- window 1: a and b, started long ago; c with no start time yet (so
-- never rolled up)
SELECT new_sample_partition() AS w1 \gset
SELECT import_collapsed(E're_main;re_keep 2\nre_main;re_old_only 1\n', 're-a', '{"service": "re"}') AS a,
       import_collapsed(E're_main;re_keep 3\n', 're-b', '{"service": "re"}') AS b,
       import_collapsed(E're_main;re_keep 5\n', 're-c', '{"service": "re"}') AS c \gset
-- window 2: d, started long ago, whose stacks no other profile has
SELECT new_sample_partition() AS w2 \gset
SELECT import_collapsed(E're_main;re_gone;re_deep 4\nre_main;re_gone 1\nre_main;re_other 2\n', 're-d', '{"service": "re"}') AS d \gset
-- window 3, the current one: empty
SELECT new_sample_partition() AS w3 \gset
SELECT :a >= 10000000000 AND :b = :a + 1 AND :c = :a + 2 AS window_1_ids,
       :d = :a + 10000000000 AS window_2_ids;
SELECT p.partition = :'w1'::regclass AS is_w1, p.end_id - p.first_id AS ids,
       (SELECT sum(sample_count(s.samples)) FROM sample_set s WHERE s.tableoid = p.partition) AS samples
  FROM sample_partitions() p WHERE p.first_id IN (:a, :d) ORDER BY p.first_id;
UPDATE profile SET started_at = '2020-01-06 10:10' WHERE id IN (:a, :b);
UPDATE profile SET started_at = '2020-01-06 11:20' WHERE id = :d;
SELECT rollup('1 hour', '{service}', since => '2020-01-01') AS hourly_rows;
SELECT rollup('1 day', '{service}', since => '2020-01-01') AS daily_rows;
SELECT tree_between('{"service": "re"}', '2020-01-06', '2020-01-07') AS day_before \gset

-- d's window goes: its only profile is old and rolled up (3 samples); a
-- and b are old and rolled up but share window 1 with c: kept.
SELECT * FROM expire('30 days');
SELECT name FROM profile WHERE id IN (:a, :b, :c, :d) ORDER BY name;
SELECT count(*) AS samples_of_d FROM sample WHERE profile_id = :d;
SELECT count(*) AS window_2_left FROM sample_partitions() WHERE first_id = :d;
-- the rollup rows stay, and answer for the day
SELECT tree_between('{"service": "re"}', '2020-01-06', '2020-01-07') = :'day_before'::calltree AS day_same;
SELECT rtrim(to_collapsed(tree_between('{"service": "re"}', '2020-01-06', '2020-01-07')), E'\n') AS day;

-- c, given a start long ago, is not rolled up yet: window 1 stays
UPDATE profile SET started_at = '2020-01-06 10:40' WHERE id = :c;
SELECT * FROM expire('30 days');
-- rolled up, window 1 goes: 4 samples of a, b and c
SELECT rollup('1 hour', '{service}', since => '2020-01-01') AS hourly_rows;
SELECT rollup('1 day', '{service}', since => '2020-01-01') AS daily_rows;
SELECT * FROM expire('30 days');
SELECT count(*) AS left_of_abcd FROM profile WHERE id IN (:a, :b, :c, :d);
SELECT partition = :'w3'::regclass AS is_w3 FROM sample_partitions() WHERE first_id >= :a;

-- a profile whose id no window holds writes into sample_set_default, and is
-- expired row by row
INSERT INTO profile (id, name, meta, started_at) VALUES (:d + 7, 're-e', '{"service": "re"}', '2020-01-06 12:00');
INSERT INTO sample (profile_id, stack_id, weight) VALUES (:d + 7, intern_stack(ARRAY['re_main', 're_keep']), 6);
SELECT tableoid::regclass FROM sample_set WHERE profile_id = :d + 7;
SELECT * FROM expire('30 days');
SELECT rollup('1 hour', '{service}', since => '2020-01-01') AS hourly_rows;
SELECT * FROM expire('30 days');
SELECT count(*) AS left_of_e FROM profile WHERE id = :d + 7;

-- garbage: no sample uses the stacks and frames of this test's paths
-- any more, but the rollup trees use their funcs, which stay.
SELECT s.id AS gone_stack FROM stack s JOIN frame f ON f.id = s.frame_id JOIN func fn ON fn.id = f.func_id
 WHERE fn.name = 're_deep' \gset
-- a label set of no sample goes too
INSERT INTO labels (labels) VALUES ('{"re": "unused"}');
SELECT (g).stacks > 0 AS stacks, (g).frames > 0 AS frames, (g).funcs >= 0 AS funcs, (g).label_sets > 0 AS label_sets
  FROM (SELECT collect_garbage() AS g) AS x;
SELECT count(*) AS deep_stack FROM stack WHERE id = :gone_stack;
SELECT count(*) AS unused_labels FROM labels WHERE labels = '{"re": "unused"}';
-- funcs of rollup trees stay, without frames
SELECT fn.name, count(f.id) AS frames FROM func fn LEFT JOIN frame f ON f.func_id = fn.id
 WHERE fn.name IN ('re_gone', 're_deep', 're_old_only', 're_keep', 're_other') GROUP BY fn.name ORDER BY fn.name;
-- e (re_keep 6) counts, though expired: the daily row, not run since e,
-- lacks it, so the hourly rows answer for the day (a, b, c and e: re_keep 16)
SELECT rtrim(to_collapsed(tree_between('{"service": "re"}', '2020-01-06', '2020-01-07')), E'\n') AS day_after_gc;
-- nothing left to collect; no sample or stack refers to a row that is gone
SELECT collect_garbage();
SELECT (SELECT count(*) FROM sample s WHERE NOT EXISTS (SELECT FROM stack t WHERE t.id = s.stack_id))
     + (SELECT count(*) FROM stack s WHERE NOT EXISTS (SELECT FROM stack t WHERE t.id = s.prefix_id) AND s.prefix_id IS NOT NULL)
     + (SELECT count(*) FROM stack s WHERE NOT EXISTS (SELECT FROM frame f WHERE f.id = s.frame_id))
     + (SELECT count(*) FROM frame f WHERE NOT EXISTS (SELECT FROM func fn WHERE fn.id = f.func_id)) AS dangling;

-- collect_garbage() reads each interned row a bounded number of times,
-- however deep the stacks, whatever work_mem and the statistics.  It read
-- the whole stack table at each level of the deepest stack (a stack 400
-- frames deep among 200,000: 37 s): a recursive query whose join hashed
-- the table again at every level once the hash overflowed work_mem, or,
-- on statistics that call the table nearly empty, read a whole index per
-- stack; and on such statistics, anti-joins scanned the stacks whole for
-- each frame and the frames for each func.  Here a chain 200 frames deep,
-- whose prefixes stay, beside 2,000 short stacks, with 64 kB of work_mem,
-- then with such statistics (as after a collection and a VACUUM, until
-- the next ANALYZE; set by hand and rolled back): the rows that scans of
-- the interned tables and their indexes return, counted by this backend's
-- statistics (the same on every run), stay under 10 per interned row,
-- where it read 69 and 435 (now 1.7 and 2.7).
SET work_mem = '64kB';
SET max_parallel_workers_per_gather = 0;
SELECT import_collapsed((SELECT string_agg('re_gc_root;re_gc_' || i || ' 1', E'\n') FROM generate_series(1, 2000) AS i)
                        || E'\n' || (SELECT string_agg('re_gc_deep_' || i, ';') FROM generate_series(1, 200) AS i) || E' 1\n',
                        're-gc') AS gc_profile \gset
CREATE FUNCTION pg_temp.interned() RETURNS SETOF oid LANGUAGE sql AS $$
  SELECT t::oid FROM unnest('{calltree.stack, calltree.frame, calltree.func, calltree.labels}'::regclass[]) AS t
  UNION ALL
  SELECT i.indexrelid FROM pg_index i
   WHERE i.indrelid = ANY ('{calltree.stack, calltree.frame, calltree.func, calltree.labels}'::regclass[])
$$;
CREATE FUNCTION pg_temp.rows_read() RETURNS bigint LANGUAGE sql AS $$
  SELECT sum(pg_stat_get_xact_tuples_returned(r) + pg_stat_get_xact_tuples_fetched(r))::bigint FROM pg_temp.interned() AS r
$$;
SELECT (SELECT count(*) FROM stack) + (SELECT count(*) FROM frame) + (SELECT count(*) FROM func)
       + (SELECT count(*) FROM labels) AS interned \gset
BEGIN;
SELECT pg_temp.rows_read() AS rows_read \gset
SELECT collect_garbage();
SELECT pg_temp.rows_read() - :rows_read < 10 * :interned AS reads_bounded;
COMMIT;
BEGIN;
UPDATE pg_class SET reltuples = 1 WHERE oid = ANY ('{stack, frame, func, labels}'::regclass[]);
SELECT pg_temp.rows_read() AS rows_read \gset
SELECT collect_garbage();
SELECT pg_temp.rows_read() - :rows_read < 10 * :interned AS reads_bounded_on_stale_statistics;
ROLLBACK;
RESET work_mem;
RESET max_parallel_workers_per_gather;
-- its 2,201 stacks, frames and funcs go with it
DELETE FROM profile WHERE id = :gc_profile;
SELECT collect_garbage();
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT collect_garbage();
ROLLBACK;

-- clean up: the levels and rows of this test, its windows, the ids
DELETE FROM rollup WHERE group_key = '{"service": "re"}';
DELETE FROM rollup_level;
DROP TABLE :w3;
SELECT setval('profile_id_seq', :seq_before) > 0 AS ids_back;
SELECT partition FROM sample_partitions();
