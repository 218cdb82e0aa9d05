-- Retention on both (sql/reports_expire.sql, shortened): time windows
-- of sample, rollups of profiles started long ago, expire() dropping a
-- whole window, and collect_garbage() deleting what nothing uses any more.
SET search_path = calltree, public;
SET timezone = 'UTC';
SET datestyle = 'ISO';

-- window 1: a and b, started long ago; c started now
SELECT new_sample_partition() AS w1;
SELECT import_collapsed(E're_main;re_keep 2\nre_main;re_old_only 1\n', 're-a', '{"service": "re"}') AS a \gset
SELECT import_collapsed(E're_main;re_keep 3\n', 're-b', '{"service": "re"}') AS b \gset
SELECT import_collapsed(E're_main;re_keep 5\n', 're-c', '{"service": "re"}') AS c \gset
-- window 2: d, started long ago, whose stacks no other profile has
SELECT new_sample_partition() AS w2;
SELECT import_collapsed(E're_main;re_gone;re_deep 4\nre_main;re_gone 1\nre_main;re_other 2\n', 're-d', '{"service": "re"}') AS d \gset
-- window 3, the current one: empty
SELECT new_sample_partition() AS w3;
SELECT :a, :b, :c, :d;
SELECT * FROM sample_partitions();
UPDATE profile SET started_at = '2020-01-06 10:10' WHERE id IN (:a, :b);
UPDATE profile SET started_at = now() WHERE id = :c;
UPDATE profile SET started_at = '2020-01-06 11:20' WHERE id = :d;
SELECT rollup('1 hour', '{service}', since => '2020-01-01') AS hourly_rows;
SELECT rollup('1 day', '{service}', since => '2020-01-01') AS daily_rows;

-- d's window goes whole; a and b share window 1 with c: kept
SELECT * FROM expire('30 days');
SELECT name FROM profile WHERE id IN (:a, :b, :c, :d) ORDER BY name;
SELECT count(*) AS samples_of_d FROM sample WHERE profile_id = :d;
SELECT * FROM sample_partitions();
SELECT rtrim(to_collapsed(tree_between('{"service": "re"}', '2020-01-06', '2020-01-07')), E'\n') AS day;

-- c started long ago too, and rolled up: window 1 goes
UPDATE profile SET started_at = '2020-01-06 10:40' WHERE id = :c;
SELECT rollup('1 hour', '{service}', since => '2020-01-01') AS hourly_rows;
SELECT rollup('1 day', '{service}', since => '2020-01-01') AS daily_rows;
SELECT * FROM expire('30 days');
SELECT count(*) AS left_of_abcd FROM profile WHERE id IN (:a, :b, :c, :d);

-- garbage: the stacks and frames of re_deep, an unused label set
INSERT INTO labels (labels) VALUES ('{"re": "unused"}');
SELECT * FROM collect_garbage();
SELECT fn.name, count(f.id) AS frames FROM func fn LEFT JOIN frame f ON f.func_id = fn.id
 WHERE fn.name IN ('re_gone', 're_deep', 're_old_only', 're_keep', 're_other') GROUP BY fn.name ORDER BY fn.name;
SELECT * FROM collect_garbage();
SELECT count(*) AS profiles, sum(weight) AS weight FROM sample;
