-- Rollups and tree_between on hand-made profiles whose trees are known.
-- Times are in March 2031 (UTC), after any profile of the other tests, and
-- every rollup here starts at 2031-01-01 (since), so only these profiles
-- are rolled up.
SET search_path = calltree, public;
SET timezone = 'UTC';
SET datestyle = 'ISO';
SET intervalstyle = 'postgres';
-- errors show their message and hint, not the PL/pgSQL lines they come from
\set SHOW_CONTEXT never

-- Monday 2031-03-03, service checkout unless said otherwise:
--   09:15  main;a 3, main;b 1        10:10  main;a 2
--   10:50  main;a;c 4                11:30  main;b 5
--   10:30  no samples                next day 08:00  main;a 1
--   10:20  search: main;s 7          10:40  no service: main;x 1
--   10:15  checkout in bytes: main;alloc 100
CREATE TEMP TABLE rr (name text, started_at timestamptz, meta jsonb, unit text, data text);
INSERT INTO rr VALUES
  ('rr-0915', '2031-03-03 09:15', '{"service": "checkout"}', 'samples', E'main;a 3\nmain;b 1\n'),
  ('rr-1010', '2031-03-03 10:10', '{"service": "checkout", "host": "h1"}', 'samples', E'main;a 2\n'),
  ('rr-1050', '2031-03-03 10:50', '{"service": "checkout"}', 'samples', E'main;a;c 4\n'),
  ('rr-1130', '2031-03-03 11:30', '{"service": "checkout"}', 'samples', E'main;b 5\n'),
  ('rr-next', '2031-03-04 08:00', '{"service": "checkout"}', 'samples', E'main;a 1\n'),
  ('rr-search', '2031-03-03 10:20', '{"service": "search"}', 'samples', E'main;s 7\n'),
  ('rr-nosvc', '2031-03-03 10:40', '{}', 'samples', E'main;x 1\n'),
  ('rr-bytes', '2031-03-03 10:15', '{"service": "checkout"}', 'bytes', E'main;alloc 100\n');
SELECT count(import_collapsed(data, name)) AS imported FROM rr;
INSERT INTO profile (name) VALUES ('rr-empty');
INSERT INTO rr VALUES ('rr-empty', '2031-03-03 10:30', '{"service": "checkout"}', 'samples', '');
UPDATE profile p SET started_at = rr.started_at, meta = rr.meta, weight_unit = rr.unit
  FROM rr WHERE p.name = rr.name;

-- the rows of the rollup, readable: trees as collapsed stacks, profiles by name
CREATE FUNCTION pg_temp.rows() RETURNS TABLE (bucket timestamptz, width interval, group_key jsonb,
                                              unit text, samples bigint, profiles text, tree text)
LANGUAGE sql AS $$
  SELECT r.bucket, r.width, r.group_key, r.weight_unit, r.samples,
         (SELECT string_agg(p.name, ' ' ORDER BY p.name) FROM calltree.profile p WHERE r.profiles @> p.id),
         replace(rtrim(calltree.to_collapsed(r.tree), E'\n'), E'\n', ' | ')
    FROM calltree.rollup r WHERE r.bucket >= '2031-01-01'
   ORDER BY r.width, r.group_key::text, r.bucket, r.weight_unit
$$;
-- stack_agg over the raw samples of a group's profiles in [a, b)
CREATE FUNCTION pg_temp.raw(g jsonb, a timestamptz, b timestamptz, u text DEFAULT 'samples') RETURNS calltree.calltree
LANGUAGE sql AS $$
  SELECT calltree.stack_agg(s.stack_id, s.weight)
    FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
   WHERE p.started_at >= a AND p.started_at < b AND p.weight_unit = u
     AND p.meta->'service' IS NOT DISTINCT FROM g->'service'
$$;
CREATE FUNCTION pg_temp.collapsed(t calltree.calltree) RETURNS text
LANGUAGE sql AS $$ SELECT replace(rtrim(calltree.to_collapsed(t), E'\n'), E'\n', ' | ') $$;

-- bad arguments
SELECT rollup('0 seconds');
SELECT rollup('-1 hour');
SELECT rollup('1 month');
SELECT rollup(NULL);
SELECT rollup('1 hour', '{service,service}');
SELECT rollup('1 hour', '{NULL}');
SELECT rollup('1 hour', '{servce}');
SELECT tree_between('["checkout"]', '2031-03-03', '2031-03-04');
SELECT tree_between('{"service": "checkout"}', '2031-03-04', '2031-03-03');

-- before any rollup, tree_between reads raw samples only
SELECT pg_temp.collapsed(tree_between('{"service": "checkout"}', '2031-03-03 09:00', '2031-03-03 12:00', 'samples'));

-- hourly rows per service: a row per bucket, group and unit; the profile
-- without samples is in its row, with the empty tree
SELECT rollup('1 hour', since => '2031-01-01') AS rows_written;
SELECT * FROM pg_temp.rows();
-- a second run finds nothing new and changes nothing
SELECT rollup('1 hour', since => '2031-01-01') AS rows_written;
SELECT count(*) AS hourly_rows FROM pg_temp.rows();

-- whole hours: 09:00 to 12:00 is main;a 3+2, main;a;c 4, main;b 1+5
SELECT pg_temp.collapsed(tree_between('{"service": "checkout"}', '2031-03-03 09:00', '2031-03-03 12:00', 'samples'));
-- bytes and samples do not add up: choose one
SELECT tree_between('{"service": "checkout"}', '2031-03-03 09:00', '2031-03-03 12:00');
SELECT pg_temp.collapsed(tree_between('{"service": "checkout"}', '2031-03-03 09:00', '2031-03-03 12:00', 'bytes'));
-- edges that cut buckets: 09:30 leaves out the profile of 09:15, 11:45
-- keeps the one of 11:30 (the 11:00 bucket is read from raw samples)
SELECT pg_temp.collapsed(tree_between('{"service": "checkout"}', '2031-03-03 09:30', '2031-03-03 11:45', 'samples'));
-- an edge at the very start of a profile takes it, at the end leaves it out
SELECT pg_temp.collapsed(tree_between('{"service": "checkout"}', '2031-03-03 10:10', '2031-03-03 10:50', 'samples'));
-- other groups; the group without a service is the null key
SELECT pg_temp.collapsed(tree_between('{"service": "search"}', '2031-03-03', '2031-03-04'));
SELECT pg_temp.collapsed(tree_between('{"service": null}', '2031-03-03', '2031-03-04'));
-- a group with no profile, and an empty range, give no tree, as stack_agg does
SELECT tree_between('{"service": "nobody"}', '2031-03-03', '2031-03-04') IS NULL AS no_tree,
       tree_between('{"service": "checkout"}', '2031-03-03 10:00', '2031-03-03 10:00') IS NULL AS empty_range;

-- a profile imported after the run is read from raw samples until the next run
SELECT import_collapsed(E'main;d 2\n', 'rr-late') IS NOT NULL AS imported;
UPDATE profile SET started_at = '2031-03-03 10:05', meta = '{"service": "checkout"}' WHERE name = 'rr-late';
SELECT pg_temp.collapsed(tree_between('{"service": "checkout"}', '2031-03-03 09:00', '2031-03-03 12:00', 'samples'));

-- days from hours: the day level is built from the hourly rows, so it lacks
-- rr-late until the hourly run takes it
SELECT rollup('1 day', since => '2031-01-01') AS rows_written;
SELECT width, group_by, source_width FROM rollup_level ORDER BY width;
SELECT * FROM pg_temp.rows() WHERE width = '1 day';
SELECT rollup('1 hour', since => '2031-01-01') AS hourly_rows_written, rollup('1 day', since => '2031-01-01') AS daily_rows_written;
SELECT * FROM pg_temp.rows() WHERE width = '1 day' AND group_key = '{"service": "checkout"}';
-- nothing new: both levels write nothing
SELECT rollup('1 hour', since => '2031-01-01') AS hourly_rows_written, rollup('1 day', since => '2031-01-01') AS daily_rows_written;

-- whole days read the day rows: spoil the hourly trees, the answer stays
BEGIN;
UPDATE rollup SET tree = '{}' WHERE width = '1 hour' AND bucket >= '2031-01-01';
SELECT pg_temp.collapsed(tree_between('{"service": "checkout"}', '2031-03-03', '2031-03-05', 'samples'));
ROLLBACK;
-- and a day cut at both edges reads hours inside, raw samples at the edges:
-- spoiling the day rows changes nothing
BEGIN;
UPDATE rollup SET tree = '{}' WHERE width = '1 day' AND bucket >= '2031-01-01';
SELECT pg_temp.collapsed(tree_between('{"service": "checkout"}', '2031-03-03 09:30', '2031-03-04 08:30', 'samples'));
ROLLBACK;

-- every range, edges anywhere on a 20-minute grid, equals stack_agg over the same samples
SELECT count(*) AS ranges,
       count(*) FILTER (WHERE tree_between('{"service": "checkout"}', a, b, 'samples') IS NOT DISTINCT FROM pg_temp.raw('{"service": "checkout"}', a, b)) AS equal
  FROM generate_series(timestamptz '2031-03-03 08:00', '2031-03-04 09:00', '20 minutes') AS a,
       generate_series(timestamptz '2031-03-03 08:00', '2031-03-04 09:00', '20 minutes') AS b
 WHERE a <= b;

-- two keys: group_key reads them from meta, a missing one as null; no key is one group
SELECT group_key('{"service": "checkout", "host": "h1", "x": 1}', '{service,host}'),
       group_key('{"service": "checkout"}', '{service,host}'),
       group_key('{"service": "checkout"}', '{}');
SELECT rollup('1 hour', '{host,service}', since => '2031-01-01') AS rows_written;
SELECT * FROM pg_temp.rows() WHERE group_key ? 'host';
SELECT pg_temp.collapsed(tree_between('{"service": "checkout", "host": "h1"}', '2031-03-03', '2031-03-04'));

-- the rows are exactly the raw trees of their buckets
SELECT count(*) AS rows,
       count(*) FILTER (WHERE r.tree = COALESCE((SELECT stack_agg(s.stack_id, s.weight)
                                                   FROM profile p JOIN sample s ON s.profile_id = p.id
                                                  WHERE r.profiles @> p.id), '{}')) AS equal_to_raw
  FROM rollup r WHERE r.bucket >= '2031-01-01';

-- rollup and tree_between run with the caller's rights: a reader may read
-- the rollups but not write them
CREATE ROLE regress_reports_reader;
GRANT USAGE ON SCHEMA calltree TO regress_reports_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA calltree TO regress_reports_reader;
SET ROLE regress_reports_reader;
SELECT pg_temp.collapsed(tree_between('{"service": "checkout"}', '2031-03-03', '2031-03-04', 'samples'));
SELECT rollup('1 hour', since => '2031-01-01');
RESET ROLE;
SELECT count(*) AS definer_functions FROM pg_proc
 WHERE pronamespace = 'calltree'::regnamespace AND prosecdef
   AND proname IN ('rollup', 'tree_between', 'grafana_flamegraph', 'group_key', 'rollup_bucket');
REVOKE ALL ON ALL TABLES IN SCHEMA calltree FROM regress_reports_reader;
REVOKE ALL ON SCHEMA calltree FROM regress_reports_reader;
DROP ROLE regress_reports_reader;
