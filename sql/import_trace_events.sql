-- import_trace_events: Chrome trace-event JSON into calltree.event, then
-- trace_agg; and the CPU samples of trace-event files into calltree.sample.
-- Files from speedscope's samples (../shared/data).
\set ECHO none
\ir test/reference/helpers.sql
\set ECHO all
SET search_path = calltree, public;
\getenv shared_dir CALLTREE_SHARED
\set trace_dir :shared_dir '/data/speedscope-samples/trace-event/'

-- each thread's trie as name:running/self#calls, in preorder, dots for depth
CREATE FUNCTION pg_temp.trie(profile bigint) RETURNS TABLE (thread text, trie text) LANGUAGE sql AS $$
  SELECT e.thread, string_agg(repeat('.', n.depth) || f.name || ':' || n.running || '/' || n.self || '#' || n.calls,
                              ' ' ORDER BY n.node)
    FROM (SELECT thread, calltree.trace_agg(func_id, enter, ts ORDER BY ts, seq) AS t
            FROM calltree.event WHERE profile_id = profile GROUP BY thread) AS e,
         calltree.nodes(e.t) AS n JOIN calltree.func AS f ON f.id = n.func
   GROUP BY e.thread ORDER BY e.thread
$$;
CREATE FUNCTION pg_temp.load(file text) RETURNS bigint LANGUAGE sql AS $$
  SELECT calltree.import_trace_events(pg_read_file(file), name => regexp_replace(file, '^.*/', ''),
                                      source => 'events')
$$;

-- simple.json: alpha B@0..E@14, beta B@1..E@13, gamma X@2 dur 5, epsilon
-- X@7 with only tdur 4.  In ns: alpha 14000 (self 1000 + 1000 outside beta),
-- beta 12000 (self 12 - 5 - 4 = 3 µs), gamma 5000, epsilon 4000.
SELECT * FROM pg_temp.trie(pg_temp.load(:'trace_dir' || 'simple.json'));
SELECT weight_unit, format FROM profile WHERE name = 'simple.json';

-- an object with "traceEvents"; the X event without a name is "(unnamed)"
SELECT * FROM pg_temp.trie(pg_temp.load(:'trace_dir' || 'simple-object.json'));

-- E of A while B is open: B ends with A at 10; then Z runs 10..11 at the root
SELECT * FROM pg_temp.trie(pg_temp.load(:'trace_dir' || 'end-non-top-of-stack.json'));

-- X events with the same start and end: the first in the file encloses
-- the second (alpha 0..10; beta ⊃ gamma at 1..2; gamma ⊃ beta at 5..6)
SELECT * FROM pg_temp.trie(pg_temp.load(:'trace_dir' || 'matching-x.json'));

-- B/E events at equal timestamps keep their file order: A 0..3 and 4..7,
-- B 0..2 and 5..7, C 0..1 and 6..7, then X 7..10
SELECT * FROM pg_temp.trie(pg_temp.load(:'trace_dir' || 'must-retain-original-order.json'));

-- Hermes: numbers in strings, thread names from metadata, zero-length calls
SELECT * FROM pg_temp.trie(pg_temp.load(:'trace_dir' || 'multi-thread-with-samples.json'));

-- X events that overlap without nesting: alpha's end at 10 ends beta too,
-- and beta's own end at 15 has nothing to close (as trace_agg's rules say)
SELECT * FROM pg_temp.trie(pg_temp.load(:'trace_dir' || 'invalid-x-nesting.json'));

-- a trace cut short (no closing bracket, maybe a trailing comma) still loads
SELECT * FROM pg_temp.trie(pg_temp.load(:'trace_dir' || 'simple-partial.json'));
SELECT * FROM pg_temp.trie(pg_temp.load(:'trace_dir' || 'simple-partial-trailing-comma.json'));

-- every file of the folder imports, as events and by default (notices
-- come in directory order: quiet)
SET client_min_messages = warning;
SELECT count(*) AS files, bool_and(id IS NOT NULL) AS all_imported
  FROM pg_ls_dir(:'trace_dir') AS f, LATERAL (SELECT pg_temp.load(:'trace_dir' || f) AS id) AS x
 WHERE f LIKE '%.json';
SELECT count(*) AS files, bool_and(id IS NOT NULL) AS all_imported
  FROM pg_ls_dir(:'trace_dir') AS f,
       LATERAL (SELECT import_trace_events(pg_read_file(:'trace_dir' || f)) AS id) AS x
 WHERE f LIKE '%.json';
RESET client_min_messages;

-- bad input: each an error, and nothing left behind
SELECT count(*) AS profiles_before FROM profile \gset
SELECT import_trace_events('');
SELECT import_trace_events('{"traceEvents": 5}');
SELECT import_trace_events('[{"ph": "B", "name": "x"}]');
SELECT import_trace_events('[{"ph": "B", "name": "x", "ts": "soon"}]');
SELECT import_trace_events('[{"ph": "X", "name": "x", "ts": 1, "dur": -3}]');
SELECT import_trace_events('[{"ph": "B", "name": "x", "ts": 1}, 7]');
SELECT import_trace_events('[{"ph": "B", "name": 12, "ts": 1}]');
-- a time beyond a double's range is out of range too, not an error of the
-- float8 type that names neither the event nor the member
SELECT import_trace_events('[{"ph": "B", "name": "x", "ts": 1}, {"ph": "E", "ts": 1e400}]');
SELECT import_trace_events('[{"ph": "X", "name": "x", "ts": 1, "dur": -1e400}]');
-- a thread name too long for the index on events ("pid/tid" here, 4000
-- characters of hex digits, which do not compress, and "/1")
SELECT import_trace_events('[{"ph": "X", "name": "x", "ts": 1, "dur": 1, "tid": 1, "pid": "'
                           || (SELECT string_agg(md5(i::text), '' ORDER BY i) FROM generate_series(1, 125) AS i)
                           || '"}]');
-- every cut of a real file at 1/50ths of its length fails cleanly, or loads
-- the events before the cut; the failed ones leave nothing behind
SELECT set_config('regress.trace_file', :'trace_dir' || 'simple-with-samples.json', false) AS trace_file \gset
DO $$
DECLARE
    data text := pg_read_file(current_setting('regress.trace_file'));
    failed int := 0;
    loaded int := 0;
    before bigint := (SELECT count(*) FROM calltree.profile);
BEGIN
    FOR i IN 1 .. 49 LOOP
        BEGIN
            PERFORM calltree.import_trace_events(left(data, length(data) * i / 50));
            loaded := loaded + 1;
        EXCEPTION WHEN invalid_text_representation OR invalid_parameter_value THEN
            failed := failed + 1;
        END;
    END LOOP;
    RAISE NOTICE '% cuts failed, % loaded, % new profiles', failed, loaded,
        (SELECT count(*) FROM calltree.profile) - before;
END $$;

------------------------------------------------------------------------
-- CPU samples inside trace-event files
------------------------------------------------------------------------
\set chrome_file :shared_dir '/data/speedscope-samples/Chrome/69/simple.json'

-- Chrome 69, the DevTools Performance panel: 1 Profile and 21 ProfileChunk
-- events.  By default the samples are imported (with a notice on the B, E
-- and X events left out).  The numbers of pg_temp.summary() are those of
-- test/reference/json_profiles.py (t_json_reference.sh diffs the two):
-- 2051 samples over 276.45 ms, all on the thread of the Profile event
-- (pid 85129, tid 775), named by its thread_name metadata event.
SELECT import_trace_events(pg_read_file(:'chrome_file'), 'chrome 69') AS id \gset
SELECT name, format, weight_unit FROM profile WHERE id = :id;
SELECT * FROM pg_temp.summary(:id);
SELECT count(*) AS events FROM event WHERE profile_id = :id;
-- a node path: (root) is not a frame, (idle) and (program) are root funcs
SELECT f.name, r.running, r.self
  FROM nodes((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id)) AS r
  JOIN func AS f ON f.id = r.func
 WHERE r.parent IS NULL ORDER BY r.running DESC, f.name;
-- import_profile recognizes the file as trace events and gets the same samples
SELECT import_profile(pg_read_binary_file(:'chrome_file')) AS id2 \gset
SELECT p.format, count(*) AS samples, sum(s.weight) AS total
  FROM sample AS s JOIN profile AS p ON p.id = s.profile_id
 WHERE s.profile_id = :id2 GROUP BY p.format;
-- source => 'events': the instrumented events instead, no samples
SET client_min_messages = warning;
SELECT import_trace_events(pg_read_file(:'chrome_file'), source => 'events') AS id3 \gset
RESET client_min_messages;
SELECT (SELECT count(*) FROM event WHERE profile_id = :id3) > 0 AS has_events,
       (SELECT count(*) FROM sample WHERE profile_id = :id3) AS samples;

-- Chrome's other shapes, one small file each in test/data/chrome (made
-- here, after the real traces' shapes); t_json_reference.sh checks their
-- summaries against test/reference/json_profiles.py too.  Times by hand:
\set chrome_dir `pwd` '/test/data/chrome/'
CREATE FUNCTION pg_temp.per_thread(profile bigint) RETURNS TABLE (thread text, samples bigint, total bigint, stacks text)
LANGUAGE sql AS $$
  SELECT thread, count(*), sum(weight),
         string_agg(ts / 1000 || ':' || path || '=' || weight / 1000, ' ' ORDER BY ts, path)
    FROM (SELECT s.thread, s.ts, s.weight,
                 (SELECT string_agg(f.name, '>' ORDER BY u.ord)
                    FROM unnest(calltree.stack_path(s.stack_id)) WITH ORDINALITY AS u(func, ord)
                    JOIN calltree.func AS f ON f.id = u.func) AS path
            FROM calltree.sample AS s WHERE s.profile_id = profile) AS x
   GROUP BY thread ORDER BY thread
$$;
-- Chrome 66 to 69: no Profile events, but a CpuProfile instant event per
-- thread, each a whole .cpuprofile (nodes linked by children).  Main thread
-- (startTime 5000000 µs, the origin): samples at +100 (program), +200
-- onClick, +250 and +400 layout, +500 (garbage collector); endTime +600;
-- weights 100, 50, 150, 100, 100 µs: 500 µs.  Worker (startTime +50):
-- deltas 50, 100, 100, -20, 120 put its samples at +100 onmessage, +200
-- crunch, +300 and +280 crunch>crunch, +400 (program); in time order they
-- weigh 100, 80, 20, 100 and, until endTime +450, 50 µs: 350 µs.
SELECT import_trace_events(pg_read_file(:'chrome_dir' || 'chrome66-cpuprofile-events.json')) AS id \gset
SELECT * FROM pg_temp.per_thread(:id);
-- source => 'samples' finds them; NULL picks them over the B, E and X events
SELECT import_trace_events(pg_read_file(:'chrome_dir' || 'chrome66-cpuprofile-events.json'),
                           source => 'samples') AS id2 \gset
SELECT count(*) AS samples, sum(weight) AS total FROM sample WHERE profile_id = :id2;
-- Chrome 70: a dedicated worker's ProfileChunk events come before its
-- Profile event (its profiler thread's events are written first); chunks
-- are matched to their Profile by pid and id.  Main (Profile 0x1, start
-- 7000000 µs, the origin): runTask at +50 and +200, (idle) at +300, endTime
-- +500: 150, 100, 200 µs.  Worker (Profile 0x2 on tid 209, start +100):
-- onmessage at +200 and +300, crunch at +400, and the (root) node itself
-- at +600, endTime +650: 100, 100, 200, 50 µs.
SELECT import_trace_events(pg_read_file(:'chrome_dir' || 'chrome70-worker-chunks-first.json')) AS id \gset
SELECT * FROM pg_temp.per_thread(:id);
-- Chrome 116: a chunk's nodes carry both "parent" and "children"; a link
-- given both ways is one link.  render (children [4]) at +100 and +700,
-- paint at +200 and +300, (program) at +400, measure (a node of the second
-- chunk, under render) at +550 and +600; endTime +800.
SELECT import_trace_events(pg_read_file(:'chrome_dir' || 'chrome116-parent-and-children.json')) AS id \gset
SELECT * FROM pg_temp.per_thread(:id);

-- By hand: two processes whose profiles both have id 0x1 (ids are per
-- process), chunks interleaved, node 4 arriving in a later chunk under a
-- node of an earlier one, a negative time delta, an endTime, and the thread
-- name coming after the events it names.  Origin: the earlier startTime,
-- 1000 µs.  Process 1 (thread "Main 1/10"): samples at +10, +20, +40, -15,
-- so at 10 main, 30 (program), 70 main→(anonymous), 55 main; in time order
-- 10, 30, 55, 70, weighing 20, 25, 15 µs and the last until endTime (1100,
-- so 100 after the origin): 30 µs.  Process 2 (thread "2/20", no name):
-- starts at 500, samples at 500 and 530 worker, the last weighing 0 (no
-- endTime).  Total 90 + 30 µs = 120000 ns.
SELECT import_trace_events($$[
 {"ph": "P", "name": "Profile", "id": "0x1", "pid": 1, "tid": 10, "ts": 1000, "args": {"data": {"startTime": 1000}}},
 {"ph": "P", "name": "Profile", "id": "0x1", "pid": 2, "tid": 20, "ts": 1500, "args": {"data": {"startTime": 1500}}},
 {"ph": "P", "name": "ProfileChunk", "id": "0x1", "pid": 1, "tid": 11, "ts": 1100, "args": {"data": {
   "cpuProfile": {"nodes": [
     {"id": 1, "callFrame": {"functionName": "(root)", "url": "", "scriptId": 0, "lineNumber": -1, "columnNumber": -1}},
     {"id": 2, "parent": 1, "callFrame": {"functionName": "main", "url": "app.js", "scriptId": 1, "lineNumber": 0, "columnNumber": 9}},
     {"id": 3, "parent": 1, "callFrame": {"functionName": "(program)", "url": "", "scriptId": 0}}],
   "samples": [2, 3]}, "timeDeltas": [10, 20]}}},
 {"ph": "P", "name": "ProfileChunk", "id": "0x1", "pid": 2, "tid": 21, "ts": 1600, "args": {"data": {
   "cpuProfile": {"nodes": [
     {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}},
     {"id": 2, "parent": 1, "callFrame": {"functionName": "worker", "url": "w.js", "lineNumber": 4, "columnNumber": 0}}],
   "samples": [2, 2]}, "timeDeltas": [0, 30]}}},
 {"ph": "P", "name": "ProfileChunk", "id": "0x1", "pid": 1, "tid": 11, "ts": 1200, "args": {"data": {
   "cpuProfile": {"nodes": [
     {"id": 4, "parent": 2, "callFrame": {"functionName": "", "url": "app.js", "lineNumber": 4, "columnNumber": 2}}],
   "samples": [4, 2]}, "timeDeltas": [40, -15], "endTime": 1100}}},
 {"ph": "X", "name": "task", "pid": 1, "tid": 10, "ts": 1000, "dur": 100},
 {"ph": "M", "name": "thread_name", "pid": 1, "tid": 10, "args": {"name": "Main"}}
]$$, 'two processes') AS id \gset
SELECT s.thread, s.ts, s.weight, string_agg(f.name, ' → ' ORDER BY u.ord) AS stack
  FROM sample AS s
 CROSS JOIN LATERAL unnest(stack_path(s.stack_id)) WITH ORDINALITY AS u(func, ord)
  JOIN func AS f ON f.id = u.func
 WHERE s.profile_id = :id
 GROUP BY s.thread, s.ts, s.weight ORDER BY s.thread, s.ts;
SELECT count(*) AS samples, sum(weight) AS total FROM sample WHERE profile_id = :id;
-- func = name + url, frame = 1-based line and column; empty names are (anonymous)
SELECT DISTINCT f.name, f.file, fr.line, fr.col
  FROM sample AS s JOIN stack AS st ON st.id = s.stack_id
  JOIN frame AS fr ON fr.id = st.frame_id JOIN func AS f ON f.id = fr.func_id
 WHERE s.profile_id = :id ORDER BY f.name;

-- Hermes, by hand: "samples" and "stackFrames" beside "traceEvents",
-- numbers in strings.  Origin: the earliest sample, 90 µs.  Thread "js 7/1":
-- g at 90 (stack f → g, g's parent given as a string), f at 100, the root
-- frame at 130 (a sample on the root marker keeps its name); weights 10 µs,
-- 30 µs, 0.  Thread "7/2": f at 95.5 µs, 5500 ns after the origin, weight 0.
-- The "weight" members are not read.
SELECT import_trace_events($${"traceEvents": [{"ph": "M", "name": "thread_name", "pid": 7, "tid": "1", "args": {"name": "js"}}],
 "samples": [{"ts": "100", "pid": 7, "tid": "1", "sf": 2, "weight": "1"},
             {"ts": "90", "pid": 7, "tid": "1", "sf": 3, "weight": "5"},
             {"ts": "130", "pid": 7, "tid": "1", "sf": "1"},
             {"ts": 95.5, "pid": 7, "tid": "2", "sf": 2}],
 "stackFrames": {"1": {"name": "[root]", "category": "root"},
                 "2": {"name": "f", "category": "JavaScript", "parent": 1},
                 "3": {"name": "g", "category": "JavaScript", "parent": "2"}}}$$) AS id \gset
SELECT s.thread, s.ts, s.weight, string_agg(f.name, ' → ' ORDER BY u.ord) AS stack
  FROM sample AS s
 CROSS JOIN LATERAL unnest(stack_path(s.stack_id)) WITH ORDINALITY AS u(func, ord)
  JOIN func AS f ON f.id = u.func
 WHERE s.profile_id = :id
 GROUP BY s.thread, s.ts, s.weight ORDER BY s.thread, s.ts;

-- Bad input.  Every cut of the Chrome file at k/50 of its length is an
-- error naming the format and the byte offset, except one: the cut at
-- 42/50 falls right after the "}" that closes an event, and a top-level
-- array cut short there loads (as the format allows a trace cut short when
-- its process died), here with all 2051 samples, since the Profile chunks
-- all come before the cut.  The errors leave no profile behind.
SELECT max(id) AS last_id FROM profile \gset
SELECT count(*) AS profiles_before FROM profile \gset
SET client_min_messages = warning;
SELECT * FROM pg_temp.truncations('import_trace_events', 'trace-event', pg_read_file(:'chrome_file'));
RESET client_min_messages;
SELECT right(left(pg_read_file(:'chrome_file'), length(pg_read_file(:'chrome_file')) * 42 / 50), 12) AS cut_42_ends_with;
SELECT count(DISTINCT p.id) AS profiles_added, count(s.*) AS samples, sum(s.weight) AS total
  FROM profile AS p LEFT JOIN sample AS s ON s.profile_id = p.id WHERE p.id > :last_id;
DELETE FROM profile WHERE id > :last_id;
-- one character overwritten at k/50: imported (then rolled back by the
-- helper), or an error naming the format; never a crash
SET client_min_messages = warning;
SELECT * FROM pg_temp.corruptions('import_trace_events', 'trace-event', pg_read_file(:'chrome_file'));
RESET client_min_messages;
SELECT count(*) - :profiles_before AS profiles_left_behind FROM profile;

-- Malformed CPU samples: SQLSTATE, message and detail of each.  The first
-- chunk is good (and imports); each other case breaks one thing.
CREATE FUNCTION pg_temp.fail(doc text, source text DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    detail text;
BEGIN
    PERFORM calltree.import_trace_events(doc, source => source);
    RAISE EXCEPTION 'imported' USING ERRCODE = 'CTOK0';  -- undo it
EXCEPTION WHEN SQLSTATE 'CTOK0' THEN
    RETURN 'ok';
WHEN others THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || msg || coalesce(' / ' || nullif(detail, ''), '');
END
$$;
CREATE FUNCTION pg_temp.chunk(cpu text, deltas text DEFAULT '[1]', profile text DEFAULT NULL) RETURNS text LANGUAGE sql AS $$
  SELECT '[' || coalesce(profile, '{"ph": "P", "name": "Profile", "id": 1, "pid": 1, "tid": 1, "args": {"data": {"startTime": 0}}}')
      || ', {"ph": "P", "name": "ProfileChunk", "id": 1, "pid": 1, "tid": 2, "args": {"data": {"cpuProfile": '
      || cpu || ', "timeDeltas": ' || deltas || '}}}]'
$$;
\set good_nodes '"nodes": [{"id": 1, "callFrame": {"functionName": "(root)"}}, {"id": 2, "parent": 1, "callFrame": {"functionName": "f"}}]'
SELECT pg_temp.fail(doc) FROM (VALUES
  (pg_temp.chunk('{' || :'good_nodes' || ', "samples": [2]}')),
  -- a sample naming an unknown node
  (pg_temp.chunk('{' || :'good_nodes' || ', "samples": [9]}')),
  -- a node whose parent is missing
  (pg_temp.chunk('{"nodes": [{"id": 2, "parent": 7, "callFrame": {"functionName": "f"}}], "samples": [2]}')),
  -- two parents
  (pg_temp.chunk('{"nodes": [{"id": 1, "callFrame": {"functionName": "a"}, "children": [2]}, {"id": 3, "callFrame": {"functionName": "b"}}, {"id": 2, "parent": 3, "callFrame": {"functionName": "f"}}], "samples": [2]}')),
  -- timeDeltas and samples of different lengths
  (pg_temp.chunk('{' || :'good_nodes' || ', "samples": [2, 2]}')),
  (pg_temp.chunk('{' || :'good_nodes' || '}', '[1, 2]')),
  -- a ProfileChunk before its Profile is fine; one with no Profile at all is not,
  -- nor one of another process
  ('[{"ph": "P", "name": "ProfileChunk", "id": 1, "pid": 1, "tid": 2, "args": {"data": {}}}, {"ph": "P", "name": "Profile", "id": 1, "pid": 1, "tid": 1, "args": {"data": {"startTime": 0}}}]'),
  ('[{"ph": "P", "name": "ProfileChunk", "id": 1, "pid": 1, "tid": 2, "args": {"data": {}}}, {"ph": "P", "name": "Profile", "id": 2, "pid": 1, "tid": 1, "args": {"data": {"startTime": 0}}}]'),
  (pg_temp.chunk('{' || :'good_nodes' || ', "samples": [2]}', '[1]',
                 '{"ph": "P", "name": "Profile", "id": 1, "pid": 5, "tid": 1, "args": {"data": {"startTime": 0}}}')),
  -- the same profile started twice
  ('[{"ph": "P", "name": "Profile", "id": 1, "pid": 1, "args": {"data": {"startTime": 0}}}, {"ph": "P", "name": "Profile", "id": 1, "pid": 1, "args": {"data": {"startTime": 5}}}]'),
  -- wrong JSON types
  (pg_temp.chunk('[]')),
  (pg_temp.chunk('{"nodes": {}}')),
  (pg_temp.chunk('{"nodes": [7]}')),
  (pg_temp.chunk('{"nodes": [{"id": "1", "callFrame": {"functionName": "f"}}]}')),
  (pg_temp.chunk('{"nodes": [{"id": 1}]}')),
  (pg_temp.chunk('{"nodes": [{"id": 1, "callFrame": {"functionName": null}}]}')),
  (pg_temp.chunk('{' || :'good_nodes' || ', "samples": [2]}', '["1"]')),
  (pg_temp.chunk('{' || :'good_nodes' || ', "samples": [2]}', '{}')),
  (pg_temp.chunk('{' || :'good_nodes' || ', "samples": [2]}', '[1e300]')),
  (pg_temp.chunk('{' || :'good_nodes' || ', "samples": ["2"]}')),
  (pg_temp.chunk('{}', '[]', '{"ph": "P", "name": "Profile", "id": 1, "pid": 1, "tid": 1, "args": {"data": {"startTime": "soon"}}}')),
  (pg_temp.chunk('{}', '[]', '{"ph": "P", "name": "Profile", "id": 1, "pid": 1, "tid": 1, "args": {"data": {"startTime": -4}}}')),
  (pg_temp.chunk('{}', '[]', '{"ph": "P", "name": "Profile", "id": 1, "pid": 1, "tid": 1, "args": 3}')),
  ('[{"ph": "P", "name": "Profile", "id": 1, "pid": 1, "tid": 1, "args": {"data": {}}}]'),
  -- the same parent named twice (Chrome 116) is fine; a CpuProfile event
  -- without its profile, or with a node of a missing child, is not
  (pg_temp.chunk('{"nodes": [{"id": 1, "callFrame": {"functionName": "a"}, "children": [2]}, {"id": 2, "parent": 1, "callFrame": {"functionName": "f"}}], "samples": [2]}')),
  ('[{"ph": "I", "name": "CpuProfile", "pid": 1, "tid": 1, "ts": 5, "args": {"data": {}}}]'),
  ('[{"ph": "I", "name": "CpuProfile", "pid": 1, "tid": 1, "ts": 5, "args": {"data": {"cpuProfile": {"nodes": [{"id": 1, "callFrame": {"functionName": "a"}, "children": [3]}], "samples": [1], "timeDeltas": [1]}}}}]'),
  ('[{"ph": "I", "name": "CpuProfile", "pid": 1, "tid": 1, "ts": 5, "args": {"data": {"cpuProfile": {"nodes": [{"id": 1, "callFrame": {"functionName": "a"}}], "samples": [1, 1], "timeDeltas": [1]}}}}]'),
  -- a cycle of parent links
  (pg_temp.chunk('{"nodes": [{"id": 1, "parent": 2, "callFrame": {"functionName": "a"}}, {"id": 2, "parent": 1, "callFrame": {"functionName": "b"}}], "samples": [2]}')),
  -- Hermes: an unknown frame, a key that is no id, a missing parent, wrong types
  ('{"traceEvents": [], "samples": [{"ts": 1, "sf": 4}], "stackFrames": {"1": {"name": "a"}}}'),
  ('{"traceEvents": [], "samples": [], "stackFrames": {"one": {"name": "a"}}}'),
  ('{"traceEvents": [], "samples": [{"ts": 1, "sf": 2}], "stackFrames": {"2": {"name": "b", "parent": 1}}}'),
  -- a frame that is its own parent (no other link: not "more than one parent")
  ('{"traceEvents": [], "samples": [{"ts": 1, "sf": 2}], "stackFrames": {"1": {"name": "a"}, "2": {"name": "b", "parent": 2}}}'),
  ('{"traceEvents": [], "samples": [{"ts": "later", "sf": 1}], "stackFrames": {"1": {"name": "a"}}}'),
  ('{"traceEvents": [], "samples": [{"ts": "0x10", "sf": 1}], "stackFrames": {"1": {"name": "a"}}}'),
  ('{"traceEvents": [], "samples": [{"ts": "nan", "sf": 1}], "stackFrames": {"1": {"name": "a"}}}'),
  ('{"traceEvents": [], "samples": [{"ts": 1}], "stackFrames": {"1": {"name": "a"}}}'),
  ('{"traceEvents": [], "samples": {}, "stackFrames": {"1": {"name": "a"}}}'),
  ('{"traceEvents": [], "samples": [], "stackFrames": {"1": {"category": "root"}}}'),
  ('{"traceEvents": [], "samples": [], "stackFrames": []}')
) AS v(doc);
-- the source argument
SELECT pg_temp.fail('[{"ph": "X", "name": "x", "ts": 1, "dur": 2}]', 'samples');
SELECT pg_temp.fail('[{"ph": "X", "name": "x", "ts": 1, "dur": 2}]', 'cpu');
-- Times far apart.  Each ts is within the limit (9e15 us), but events are
-- stored in ns from the earliest one, and an "X" exits at ts + dur: those
-- must fit in bigint (9.22e18 ns), or the import fails naming the event.
SELECT pg_temp.fail(doc) FROM (VALUES
  -- B at -9e15 us, E at 9e15 us: the E is 1.8e19 ns after the B
  ('[{"ph": "B", "name": "far", "ts": -9e15, "pid": 1, "tid": 1}, {"ph": "E", "name": "far", "ts": 9e15, "pid": 1, "tid": 1}]'),
  -- an X at 9e15 us lasting 9e15 us
  ('[{"ph": "X", "name": "long", "ts": 9e15, "dur": 9e15, "pid": 1, "tid": 1}]'),
  -- 9.2e15 us apart: 9.2e18 ns still fits
  ('[{"ph": "B", "name": "near", "ts": -4.6e15, "pid": 1, "tid": 1}, {"ph": "E", "name": "near", "ts": 4.6e15, "pid": 1, "tid": 1}]')
) AS v(doc);
SELECT count(*) - :profiles_before AS profiles_left_behind FROM profile;
