-- import_speedscope: speedscope files (sampled and evented profiles).
--
-- The numbers printed by pg_temp.summary() below were computed
-- independently by test/reference/json_profiles.py on the same files;
-- test/t_json_reference.sh diffs the two outputs on every run.  The inline
-- files are checked by hand in the comments next to them.
\set ECHO none
\ir test/reference/helpers.sql
\set ECHO all
\getenv shared_dir CALLTREE_SHARED
\set dir :shared_dir '/data/speedscope-samples/speedscope/'
SET search_path = calltree, public;

SELECT count(*) AS profiles_before FROM profile \gset

-- 0.0.1, evented, unit none: a → b → {c 0-2, d 2-6, c 6-9}, b alone 9-14
\set f :dir '0.0.1/simple.speedscope.json'
SELECT import_speedscope(pg_read_file(:'f'), 'simple evented') AS id \gset
SELECT name, format, weight_unit, started_at FROM profile WHERE id = :id;
SELECT * FROM pg_temp.summary(:id);
SELECT label, running, self FROM report((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id));
-- the same file without pretty printing gives the same tree
\set g :dir '0.0.1/simple-no-pretty-print.speedscope.json'
SELECT import_speedscope(pg_read_file(:'g')) AS id2 \gset
SELECT * FROM pg_temp.summary(:id2);
SELECT (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id)
     = (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id2) AS same_tree;

-- 0.1.2, sampled, seconds: weights become ns
\set f :dir '0.1.2/simple-sampled.speedscope.json'
SELECT import_speedscope(pg_read_file(:'f')) AS id \gset
SELECT name, format, weight_unit FROM profile WHERE id = :id;
SELECT * FROM pg_temp.summary(:id);

-- 0.6.0, two sampled profiles: one thread each, named by the profile
\set f :dir '0.6.0/two-sampled.speedscope.json'
SELECT import_speedscope(pg_read_file(:'f')) AS id \gset
SELECT * FROM pg_temp.summary(:id);
SELECT thread, total(stack_agg(stack_id, weight)) FROM sample WHERE profile_id = :id GROUP BY thread ORDER BY thread;

-- Evented with a time unit, by hand: milliseconds, startValue 1; x opens at
-- 1, y at 1.0000004 (rounds to 1000000 ns), y closes at 1.0000015 (1000002 ns,
-- half away from zero), x closes at 3.  Samples: x [1000000, 1000000) has
-- length 0 and adds nothing; x→y 2 ns at ts 0; x 1999998 ns at ts 2.
-- An unnamed profile is thread "1" (its index); an empty sampled stack is
-- skipped with a NOTICE; line and col are kept as given.
SELECT import_speedscope($${
  "$schema": "https://www.speedscope.app/file-format-schema.json",
  "shared": {"frames": [{"name": "x", "file": "x.c", "line": 10, "col": 2}, {"name": "y"}]},
  "profiles": [
    {"type": "evented", "name": "events", "unit": "milliseconds", "startValue": 1, "endValue": 3,
     "events": [{"type": "O", "frame": 0, "at": 1}, {"type": "O", "frame": 1, "at": 1.0000004},
                {"type": "C", "frame": 1, "at": 1.0000015}, {"type": "C", "frame": 0, "at": 3}]},
    {"type": "sampled", "unit": "milliseconds", "startValue": 0, "endValue": 1,
     "samples": [[0, 1], [], [1]], "weights": [0.5, 7, 0.0000025]}
  ]}$$) AS id \gset
SELECT thread, ts, weight, (SELECT string_agg(f.name, ' → ' ORDER BY u.ord)
                              FROM unnest(stack_path(stack_id)) WITH ORDINALITY AS u(func, ord)
                              JOIN func AS f ON f.id = u.func) AS stack
  FROM sample WHERE profile_id = :id ORDER BY thread, ts, weight;
SELECT DISTINCT f.name, f.file, fr.line, fr.col
  FROM sample AS s JOIN stack AS st ON st.id = s.stack_id
  JOIN frame AS fr ON fr.id = st.frame_id JOIN func AS f ON f.id = fr.func_id
 WHERE s.profile_id = :id ORDER BY f.name;

-- bytes stay bytes
SELECT import_speedscope($${"shared": {"frames": [{"name": "malloc"}]},
  "profiles": [{"type": "sampled", "name": "heap", "unit": "bytes", "startValue": 0, "endValue": 4096,
                "samples": [[0]], "weights": [4096]}]}$$) AS id \gset
SELECT p.weight_unit, s.thread, s.weight FROM profile AS p JOIN sample AS s ON s.profile_id = p.id WHERE p.id = :id;

SELECT count(*) - :profiles_before AS profiles_added FROM profile;

-- The two invalid files of speedscope's repository: the error names the event
SELECT count(*) AS profiles_before FROM profile \gset
\set f :dir 'invalid/out-of-order-events.json'
SELECT import_speedscope(pg_read_file(:'f'));
\set f :dir 'invalid/incomplete-trace.json'
SELECT import_speedscope(pg_read_file(:'f'));

-- Every cut at k/50 of each real file is an error naming the format and the byte offset
\set f :dir '0.0.1/simple.speedscope.json'
SELECT * FROM pg_temp.truncations('import_speedscope', 'speedscope', pg_read_file(:'f'));
\set f :dir '0.0.1/simple-no-pretty-print.speedscope.json'
SELECT * FROM pg_temp.truncations('import_speedscope', 'speedscope', pg_read_file(:'f'));
\set f :dir '0.1.2/simple-sampled.speedscope.json'
SELECT * FROM pg_temp.truncations('import_speedscope', 'speedscope', pg_read_file(:'f'));
\set f :dir '0.6.0/two-sampled.speedscope.json'
SELECT * FROM pg_temp.truncations('import_speedscope', 'speedscope', pg_read_file(:'f'));

-- One character overwritten at k/50 of each file: imported, or an error naming the format
\set f :dir '0.0.1/simple.speedscope.json'
SELECT * FROM pg_temp.corruptions('import_speedscope', 'speedscope', pg_read_file(:'f'));
\set f :dir '0.6.0/two-sampled.speedscope.json'
SELECT * FROM pg_temp.corruptions('import_speedscope', 'speedscope', pg_read_file(:'f'));

-- wrong types, missing members, out-of-range indexes, negative and huge numbers
SELECT pg_temp.try('import_speedscope', doc) FROM (VALUES
  ('{"profiles": []}'),
  ('{"shared": {"frames": {}}, "profiles": []}'),
  ('{"shared": {"frames": [{"file": "a.c"}]}, "profiles": []}'),
  ('{"shared": {"frames": [{"name": "a", "line": -1}]}, "profiles": []}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "startValue": 0, "endValue": 1, "samples": [[0]], "weights": [1]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "furlongs", "startValue": 0, "endValue": 1, "samples": [[0]], "weights": [1]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "timed", "name": "p", "unit": "none", "startValue": 0, "endValue": 1}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "samples": [[0, 1]], "weights": [1]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "samples": [[-1]], "weights": [1]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "samples": [[0]], "weights": [-1]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "samples": [[0]], "weights": [NaN]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "seconds", "startValue": 0, "endValue": 1, "samples": [[0]], "weights": [1e10]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "samples": [[0], [0]], "weights": [1]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "samples": [0], "weights": [1]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "samples": [[0]], "weights": ["1"]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "sampled", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "samples": [[0]], "weights": [1]}, {"type": "sampled", "name": "q", "unit": "seconds", "startValue": 0, "endValue": 1, "samples": [[0]], "weights": [1]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "events": [{"type": "O", "frame": 0, "at": 1}, {"type": "C", "frame": 0, "at": 0}]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "events": [{"type": "C", "frame": 0, "at": 0}]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "events": [{"type": "X", "frame": 0, "at": 0}]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "events": [{"type": "O", "at": 0}]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "events": [{"type": "O", "frame": 3, "at": 0}]}]}'),
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "none", "startValue": 0, "endValue": 1, "events": [{"type": "O", "frame": 0, "at": 1e400}]}]}')
) AS v(doc);
SELECT count(*) - :profiles_before AS profiles_left_behind FROM profile;

-- Times far apart: every event time fits in bigint ns, but a sample's
-- weight (the time between two events) or its time from startValue may
-- not; the import then fails naming the event, and stores nothing.
CREATE FUNCTION pg_temp.sqlstate_of(doc text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM calltree.import_speedscope(doc);
    RETURN 'ok';
EXCEPTION WHEN others THEN
    RETURN SQLSTATE;
END
$$;
SELECT pg_temp.sqlstate_of(doc), pg_temp.try('import_speedscope', doc) FROM (VALUES
  -- events at -(2^63 - 1) and 2^63 - 1 ns
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "nanoseconds", "startValue": -9223372036854775807, "endValue": 9223372036854775807, "events": [{"type": "O", "frame": 0, "at": -9223372036854775807}, {"type": "C", "frame": 0, "at": 9223372036854775807}]}]}'),
  -- events at -9e9 and 9e9 s
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "seconds", "startValue": -9e9, "endValue": 9e9, "events": [{"type": "O", "frame": 0, "at": -9e9}, {"type": "C", "frame": 0, "at": 9e9}]}]}'),
  -- a short sample 2^63 - 2 ns after startValue, which is -(2^63 - 1)
  ('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "nanoseconds", "startValue": -9223372036854775807, "endValue": 9223372036854775807, "events": [{"type": "O", "frame": 0, "at": 9223372036854775805}, {"type": "C", "frame": 0, "at": 9223372036854775807}]}]}')
) AS v(doc);
SELECT count(*) - :profiles_before AS profiles_left_behind FROM profile;
-- the longest interval that fits: one sample of weight 2^63 - 1 ns, at 0
SELECT calltree.import_speedscope('{"shared": {"frames": [{"name": "a"}]}, "profiles": [{"type": "evented", "name": "p", "unit": "nanoseconds", "startValue": 0, "endValue": 9223372036854775807, "events": [{"type": "O", "frame": 0, "at": 0}, {"type": "C", "frame": 0, "at": 9223372036854775807}]}]}') AS far_id \gset
SELECT ts, weight FROM calltree.sample WHERE profile_id = :far_id;
