-- import_cpuprofile: V8 / Chrome / Node .cpuprofile files.
--
-- The numbers printed by pg_temp.summary() below (samples, total, sum(ts),
-- per-thread counts, the top 5 functions' self and running, the top 5
-- CallNodes with the md5 of their path) were computed independently by
-- test/reference/json_profiles.py on the same files; test/t_json_reference.sh
-- diffs the two outputs on every run.  The small inline profiles are checked
-- by hand in the comments next to them.
\set ECHO none
\ir test/reference/helpers.sql
\set ECHO all
\getenv shared_dir CALLTREE_SHARED
\set dir :shared_dir '/data/'
SET search_path = calltree, public;

SELECT count(*) AS profiles_before FROM profile \gset

-- Chrome 65 (nodes, timeDeltas): (anonymous) → a → {b, c} → d
\set f :dir 'speedscope-samples/Chrome/65/simple.cpuprofile'
SELECT import_cpuprofile(pg_read_file(:'f'), 'chrome simple', '{"browser": "chrome 65"}') AS id \gset
SELECT name, format, weight_unit, started_at, meta FROM profile WHERE id = :id;
SELECT * FROM pg_temp.summary(:id);
-- stack_agg(stack_id) counts samples, stack_agg(stack_id, weight) is time
SELECT total(stack_agg(stack_id)) AS samples, total(stack_agg(stack_id, weight)) AS ns
  FROM sample WHERE profile_id = :id;
-- (root) is not a frame; frames are 1-based (the file's d is at line 13, col 10, 0-based)
SELECT f.name, f.file, fr.line, fr.col
  FROM frame AS fr JOIN func AS f ON f.id = fr.func_id
 WHERE fr.id IN (SELECT frame_id FROM stack WHERE id IN (SELECT stack_id FROM sample WHERE profile_id = :id))
 ORDER BY f.name, fr.line;
SELECT count(*) AS root_funcs FROM func WHERE name = '(root)';

-- Node 10.11.0 (old format: nested "head", absolute "timestamps", times in
-- seconds).  endTime (163140 s) is before the last sample: it weighs 0.
\set f :dir 'speedscope-samples/node/10.11.0/example.cpuprofile'
SELECT import_cpuprofile(pg_read_file(:'f'), 'node example') AS id \gset
SELECT * FROM pg_temp.summary(:id);
SELECT ts, weight FROM sample WHERE profile_id = :id ORDER BY ts DESC LIMIT 2;

-- node --cpu-prof (Firefox Profiler fixture): (program), (garbage collector) at the root
\set f :dir 'firefox-profiler/hello.cjs-20231120T211435.cpuprofile'
SELECT import_cpuprofile(pg_read_file(:'f'), 'hello.cjs') AS id \gset
SELECT * FROM pg_temp.summary(:id);
SELECT f.name, r.running, r.self
  FROM nodes((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id)) AS r
  JOIN func AS f ON f.id = r.func
 WHERE r.parent IS NULL ORDER BY r.running DESC, f.name;

-- Chrome 65, a real app (sucrase): 17,138 samples, 3,493 nodes
\set f :dir 'speedscope-samples/Chrome/65/sucrase.cpuprofile'
SELECT import_cpuprofile(pg_read_file(:'f'), 'sucrase') AS id \gset
SELECT * FROM pg_temp.summary(:id);
-- with hundreds of funcs, functions() must still count running weight
-- right (its hash table grows during the walk): never below self
SELECT count(*) AS funcs, count(*) FILTER (WHERE running < self) AS running_below_self
  FROM functions((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id));

-- Negative timeDeltas, by hand.  Times (µs after startTime) in file order:
-- s0 10 main, s1 40 main→(anonymous), s2 20 (program), s3 60 main→(anonymous),
-- s4 65 (garbage collector), s5 20 main.  In time order (stable for the tie
-- at 20: s2 before s5): 10, 20, 20, 40, 60, 65; weights are the gaps in ns,
-- 10000, 0, 20000, 20000, 5000, and the last lasts until endTime (100 µs):
-- 35000.  Total 90000 = (100 - 10) µs.
SELECT import_cpuprofile($${
  "nodes": [
    {"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": [2, 3, 4]},
    {"id": 2, "callFrame": {"functionName": "(program)", "url": "", "lineNumber": -1, "columnNumber": -1}},
    {"id": 3, "callFrame": {"functionName": "main", "url": "file:///app.js", "lineNumber": 0, "columnNumber": 9}, "children": [5]},
    {"id": 4, "callFrame": {"functionName": "(garbage collector)", "url": "", "lineNumber": -1, "columnNumber": -1}},
    {"id": 5, "callFrame": {"functionName": "", "url": "file:///app.js", "lineNumber": 4, "columnNumber": 2}}
  ],
  "startTime": 1000, "endTime": 1100,
  "samples": [3, 5, 2, 5, 4, 3],
  "timeDeltas": [10, 30, -20, 40, 5, -45]
}$$, 'negative deltas') AS id \gset
SELECT s.thread, s.ts, s.weight, string_agg(f.name, ' → ' ORDER BY u.ord) AS stack
  FROM sample AS s
 CROSS JOIN LATERAL unnest(stack_path(s.stack_id)) WITH ORDINALITY AS u(func, ord)
  JOIN func AS f ON f.id = u.func
 WHERE s.profile_id = :id
 GROUP BY s.thread, s.ts, s.weight ORDER BY s.ts, s.weight;
SELECT sum(weight) AS total, count(*) AS samples FROM sample WHERE profile_id = :id;
-- func = name + url, frame = 1-based line and column; empty names are (anonymous)
SELECT DISTINCT f.name, f.file, fr.line, fr.col
  FROM sample AS s JOIN stack AS st ON st.id = s.stack_id
  JOIN frame AS fr ON fr.id = st.frame_id JOIN func AS f ON f.id = fr.func_id
 WHERE s.profile_id = :id ORDER BY f.name;

-- endTime before the last sample: that sample weighs 0, not a negative number
SELECT import_cpuprofile($${"nodes": [{"id": 1, "callFrame": {"functionName": "x", "url": ""}}],
  "startTime": 0, "endTime": 5, "samples": [1, 1], "timeDeltas": [3, 4]}$$) AS id \gset
SELECT ts, weight FROM sample WHERE profile_id = :id ORDER BY ts;

-- A sample on (root) itself keeps its time under a "(root)" func
SELECT import_cpuprofile($${"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": ""}}],
  "startTime": 0, "endTime": 5, "samples": [1], "timeDeltas": [0]}$$) AS id \gset
SELECT f.name, s.weight FROM sample AS s JOIN stack AS st ON st.id = s.stack_id
  JOIN frame AS fr ON fr.id = st.frame_id JOIN func AS f ON f.id = fr.func_id WHERE s.profile_id = :id;

SELECT count(*) - :profiles_before AS profiles_added FROM profile;

-- Bad input.  Every cut at k/50 of each real file is an error that names
-- the format and the byte offset; none leaves a profile row behind.
SELECT count(*) AS profiles_before FROM profile \gset
\set f :dir 'speedscope-samples/Chrome/65/simple.cpuprofile'
SELECT * FROM pg_temp.truncations('import_cpuprofile', 'cpuprofile', pg_read_file(:'f'));
\set f :dir 'speedscope-samples/Chrome/65/sucrase.cpuprofile'
SELECT * FROM pg_temp.truncations('import_cpuprofile', 'cpuprofile', pg_read_file(:'f'));
\set f :dir 'speedscope-samples/node/10.11.0/example.cpuprofile'
SELECT * FROM pg_temp.truncations('import_cpuprofile', 'cpuprofile', pg_read_file(:'f'));
\set f :dir 'firefox-profiler/hello.cjs-20231120T211435.cpuprofile'
SELECT * FROM pg_temp.truncations('import_cpuprofile', 'cpuprofile', pg_read_file(:'f'));

-- One character overwritten at k/50 of each file: imported, or an error naming the format
SELECT count(*) AS profiles_before_corruptions FROM profile \gset
\set f :dir 'speedscope-samples/Chrome/65/simple.cpuprofile'
SELECT * FROM pg_temp.corruptions('import_cpuprofile', 'cpuprofile', pg_read_file(:'f'));
\set f :dir 'firefox-profiler/hello.cjs-20231120T211435.cpuprofile'
SELECT * FROM pg_temp.corruptions('import_cpuprofile', 'cpuprofile', pg_read_file(:'f'));
\set f :dir 'speedscope-samples/node/10.11.0/example.cpuprofile'
SELECT * FROM pg_temp.corruptions('import_cpuprofile', 'cpuprofile', pg_read_file(:'f'));
-- (the ones that imported were rolled back by the helper)
SELECT count(*) - :profiles_before_corruptions AS profiles_left_behind FROM profile;

-- An error deep in an old-style nested tree: the path keeps its innermost steps
SELECT pg_temp.try('import_cpuprofile',
  '{"head": ' || repeat('{"id": 1, "functionName": "f", "children": [', 100) || '{"id": "deep"}' || repeat(']}', 100)
  || ', "samples": [], "timestamps": [], "startTime": 0, "endTime": 0}') ~ '^cpuprofile member \$\.\.\.(\[0\]\.children){31}\[0\]\.id is not a number' AS deep_path_named;

-- JSON nested deeper than the parser's stack allows: the parser's own error,
-- in the context of the file (the offset depends on max_stack_depth)
DO $$
DECLARE
    context text;
BEGIN
    PERFORM calltree.import_cpuprofile('{"nodes": ' || repeat('[', 1000000));
EXCEPTION WHEN statement_too_complex THEN
    GET STACKED DIAGNOSTICS context = PG_EXCEPTION_CONTEXT;
    RAISE NOTICE 'context names the file and a place: %',
        context ~ '^reading the cpuprofile file as JSON, at byte offset [0-9]+ \(line 1\)';
END $$;

-- wrong types, missing members, huge and negative numbers, broken links
SELECT pg_temp.try('import_cpuprofile', doc) FROM (VALUES
  (''),
  ('[1, 2]'),
  ('{"nodes": [], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": NaN}'),
  ('{"nodes": {}, "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}'),
  ('{"samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": "1", "callFrame": {"functionName": "x"}}], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1.5, "callFrame": {"functionName": "x"}}], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": 7}}], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x", "lineNumber": -7}}], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}}], "samples": [2], "timeDeltas": [1], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}}], "samples": [1, 1], "timeDeltas": [1], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}}], "samples": [1], "timeDeltas": [1e300], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}}], "samples": [1], "timeDeltas": [1e16], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}}], "samples": [1, 1], "timeDeltas": [9e15, 9e15], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}}, {"id": 1, "callFrame": {"functionName": "y"}}], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}, "children": [2]}, {"id": 2, "callFrame": {"functionName": "y"}, "children": [1]}], "samples": [1], "timeDeltas": [1], "startTime": 0, "endTime": 0}'),
  -- a node that is its own child, and has no other parent
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}}, {"id": 2, "callFrame": {"functionName": "y"}, "children": [2]}], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}, "children": [3]}, {"id": 2, "callFrame": {"functionName": "y"}, "children": [3]}, {"id": 3, "callFrame": {"functionName": "z"}}], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}'),
  ('{"nodes": [{"id": 1, "callFrame": {"functionName": "x"}, "children": [9]}], "samples": [], "timeDeltas": [], "startTime": 0, "endTime": 0}')
) AS v(doc);
SELECT count(*) - :profiles_before AS profiles_left_behind FROM profile;

-- NULL data: NULL, and no profile
SELECT import_cpuprofile(NULL) IS NULL AS is_null;
