-- Rollups of profiles that start at the limits of timestamps: infinity,
-- -infinity, and within a width of either end of the range of timestamps
-- (4714-11-24 BC to 294276-12-31), where a bucket, or its end (bucket +
-- width), is not a timestamp.  A level skips such a profile, listed in
-- rollup_skipped with a warning once, as one whose weights overflow its
-- row; the others are rolled up, every level runs, and tree_between
-- answers.  Before, the coarser levels failed at every run with "timestamp
-- out of range", and so did tree_between for any range of the group.
-- In a database of its own: rollups without `since` read every profile.
SELECT current_database() AS regression_db \gset
CREATE DATABASE calltree_time_limits;
\c calltree_time_limits
CREATE EXTENSION calltree;
SET search_path = calltree, public;
SET timezone = 'UTC';
SET datestyle = 'ISO';
SET intervalstyle = 'postgres';
\set SHOW_CONTEXT never

CREATE TEMP TABLE tl (name text, started_at timestamptz, data text);
INSERT INTO tl VALUES
  ('normal', '2031-05-05 10:10', E'main;n 1\n'),
  ('inf', 'infinity', E'main;i 2\n'),
  ('ninf', '-infinity', E'main;ni 4\n'),
  -- its hour ends at 294277-01-01, past the last timestamp
  ('last hour', '294276-12-31 23:30', E'main;lh 8\n'),
  -- its hour fits, its day does not
  ('last day', '294276-12-31 12:00', E'main;ld 16\n'),
  -- its hour and day fit; its 5 days would start before 4714-11-24 BC
  ('first', '4714-11-24 00:30 BC', E'main;f 32\n');
SELECT count(import_collapsed(data, name, '{"edge": "e"}')) AS imported FROM tl;
UPDATE profile p SET started_at = tl.started_at FROM tl WHERE p.name = tl.name;

SELECT rollup('1 hour', '{edge}') AS hourly_rows;
SELECT rollup('1 day', '{edge}') AS daily_rows;
SELECT rollup('5 days', '{edge}') AS five_day_rows;
-- again: nothing new, no warning
SELECT rollup('1 hour', '{edge}') AS hourly_rows, rollup('1 day', '{edge}') AS daily_rows,
       rollup('5 days', '{edge}') AS five_day_rows;

SELECT r.width, r.bucket,
       (SELECT string_agg(p.name, ', ' ORDER BY p.name) FROM profile p WHERE r.profiles @> p.id) AS profiles,
       rtrim(to_collapsed(r.tree), E'\n') AS tree
  FROM rollup r ORDER BY r.width, r.bucket;
SELECT k.width, p.name, k.bucket, k.sqlstate, k.reason
  FROM rollup_skipped k JOIN profile p ON p.id = k.profile_id ORDER BY k.width, p.name;
-- every profile is taken or skipped by every level read from raw samples
SELECT p.name, rolled_up(p) FROM profile p ORDER BY p.name;

-- a range of the group, from the rows (the normal profile alone)
SELECT rtrim(to_collapsed(tree_between('{"edge": "e"}', '2031-01-01', '2032-01-01')), E'\n') AS year_2031;
-- the whole range: the rows of normal, first and last day, and the raw
-- samples of -infinity and last hour (infinity is not before until)
SELECT rtrim(to_collapsed(tree_between('{"edge": "e"}', '-infinity', 'infinity')), E'\n') AS all_time;

-- the bucket test agrees with rollup_bucket where its bucket and end are timestamps
SELECT w, ts, rollup_bucket_fits(ts, w) AS fits
  FROM (VALUES (interval '1 hour'), ('24:00:00'), ('120:00:00')) AS x(w),
       (VALUES (timestamptz '4714-11-24 00:00 BC'), ('4714-11-26 00:00 BC'), ('294276-12-31 22:59:59.999999'),
               ('294276-12-31 23:00'), ('-infinity'), ('infinity')) AS v(ts)
 ORDER BY w, ts;

\c :regression_db
DROP DATABASE calltree_time_limits;
