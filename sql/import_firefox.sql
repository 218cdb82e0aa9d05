-- import_firefox: Gecko profiles (as Firefox and its DevTools write them) and
-- processed profiles (as profiler.firefox.com saves them).
--
-- Every number checked against the two real files below was computed
-- independently, without calltree, by test/reference/firefox_reference.py
-- (python3 test/reference/firefox_reference.py FILE SUBTREE_ROOT; its output
-- is kept in test/reference/firefox_reference.txt).
SET search_path = calltree, public;
-- Funcs, frames and stacks are shared by every profile and outlive them: the
-- whole test runs in one transaction, rolled back at the end, so that the
-- tests after this one see none of its funcs.
BEGIN;
\getenv shared_dir CALLTREE_SHARED
\set simple_file :shared_dir '/data/speedscope-samples/Firefox/59/simple-firefox.json'
\set recursion_file :shared_dir '/data/speedscope-samples/Firefox/61/recursion.json'
SELECT pg_read_file(:'simple_file') AS simple_json \gset
SELECT pg_read_file(:'recursion_file') AS recursion_json \gset

-- func paths as names, for readable node checks
CREATE FUNCTION ff_names(path int4[]) RETURNS text[] LANGUAGE sql STABLE AS $$
    SELECT array_agg(f.name ORDER BY u.o)
      FROM unnest(path) WITH ORDINALITY AS u(id, o) JOIN calltree.func f ON f.id = u.id
$$;
-- the tree of one profile
CREATE FUNCTION ff_tree(profile bigint) RETURNS calltree LANGUAGE sql STABLE AS $$
    SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = profile
$$;
-- the top functions: running weight counts a sample once, even under recursion
CREATE FUNCTION ff_top(profile bigint, n int)
RETURNS TABLE (func text, running bigint, self bigint) LANGUAGE sql STABLE AS $$
    SELECT f.name || coalesce(' @ ' || f.file, ''), fn.running, fn.self
      FROM calltree.functions(ff_tree(profile)) fn JOIN calltree.func f ON f.id = fn.func
     ORDER BY fn.running DESC, fn.self DESC, f.name || coalesce(' @ ' || f.file, '') COLLATE "C"
     LIMIT n
$$;
-- the nodes up to 3 levels below the first node of func `root`
CREATE FUNCTION ff_subtree(profile bigint, root text)
RETURNS TABLE (node text, running bigint, self bigint) LANGUAGE sql STABLE AS $$
    SELECT array_to_string(names[array_position(names, root):], ' > '), n.running, n.self
      FROM calltree.nodes(ff_tree(profile)) n, LATERAL ff_names(n.path) AS names
     WHERE array_position(names, root) IS NOT NULL
       AND cardinality(names) - array_position(names, root) <= 3
     ORDER BY array_to_string(names[array_position(names, root):], ' > ') COLLATE "C", n.running DESC
$$;
-- the distinct frames on the stacks of a profile's samples
CREATE FUNCTION ff_frames(profile bigint)
RETURNS TABLE (name text, file text, resource text, address bigint, line int4, col int4,
               implementation text) LANGUAGE sql STABLE AS $$
    WITH RECURSIVE chain(id) AS (
        SELECT DISTINCT stack_id FROM calltree.sample WHERE profile_id = profile
        UNION
        SELECT st.prefix_id FROM chain JOIN calltree.stack st ON st.id = chain.id
         WHERE st.prefix_id IS NOT NULL)
    SELECT * FROM (
        SELECT DISTINCT f.name, f.file, f.resource, fr.address, fr.line, fr.col, fr.implementation
          FROM chain JOIN calltree.stack st ON st.id = chain.id
          JOIN calltree.frame fr ON fr.id = st.frame_id JOIN calltree.func f ON f.id = fr.func_id) d
     ORDER BY name COLLATE "C", file COLLATE "C", line, implementation
$$;
-- an import that is expected to fail: its SQLSTATE, message and detail
CREATE FUNCTION ff_error(data text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
BEGIN
    PERFORM calltree.import_firefox(data);
    RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || ' / ' || detail;
END
$$;

SELECT count(*) AS profiles_before FROM profile \gset

------------------------------------------------------------------------
-- Firefox 59, DevTools "Recorded Performance Data" (a Gecko profile inside)
------------------------------------------------------------------------
SELECT import_firefox(:'simple_json', 'simple', '{"app": "firefox 59"}') AS simple \gset
SELECT name, format, weight_unit, started_at AT TIME ZONE 'UTC' AS started_utc, meta
  FROM profile WHERE id = :simple;
-- reference: thread GeckoMain: 38, ts from 910683 to 37888739 ns
SELECT thread, count(*), sum(weight), min(ts), max(ts)
  FROM sample WHERE profile_id = :simple GROUP BY thread;
-- reference: total 38
SELECT total(ff_tree(:simple));
-- reference: top functions
SELECT * FROM ff_top(:simple, 12);
-- reference: nodes below a
SELECT * FROM ff_subtree(:simple, 'a');
-- location strings split into func name, file and line; 'ion' and
-- 'baseline' are the frame's implementation
SELECT * FROM ff_frames(:simple)
 WHERE name IN ('a', 'b', 'c', 'd', 'js::RunScript', 'bound') OR name LIKE '(root%' OR name LIKE '(anonymous)%';

------------------------------------------------------------------------
-- Firefox 61: mutual recursion alpha -> beta -> alpha
------------------------------------------------------------------------
SELECT import_firefox(:'recursion_json', 'recursion') AS recursion \gset
-- reference: thread GeckoMain: 15, ts from 760985 to 14875319 ns
SELECT thread, count(*), sum(weight), min(ts), max(ts)
  FROM sample WHERE profile_id = :recursion GROUP BY thread;
SELECT total(ff_tree(:recursion));
SELECT * FROM ff_top(:recursion, 12);
SELECT * FROM ff_subtree(:recursion, 'main');
-- alpha is on the stack of 10 samples: functions() counts each once, while
-- its CallNodes (one per recursion level) add up to more
SELECT f.name, fn.running AS functions_running,
       (SELECT sum(n.running) FROM nodes(ff_tree(:recursion)) n WHERE n.func = fn.func) AS sum_over_nodes,
       (SELECT count(*) FROM nodes(ff_tree(:recursion)) n WHERE n.func = fn.func) AS call_nodes
  FROM functions(ff_tree(:recursion)) fn JOIN func f ON f.id = fn.func
 WHERE f.name IN ('alpha', 'beta', 'gamma', 'delta')
 ORDER BY 1;
-- stacks are interned: importing the same file again adds no stack
SELECT count(*) AS stacks FROM stack \gset
SELECT import_firefox(:'recursion_json') > :recursion AS new_profile;
SELECT count(*) - :stacks AS new_stacks FROM stack;
SELECT ff_tree(currval('profile_id_seq')) = ff_tree(:recursion) AS same_tree;

-- The same recording in the processed layout, converted here with SQL
-- (columns of the Gecko tables become arrays; one func per location
-- string, its line read from the string): every sample keeps its thread, time, weight and the line and
-- JIT tier of every frame of its stack.
CREATE FUNCTION ff_column(t jsonb, col text) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(jsonb_agg(r.cells -> (t->'schema'->>col)::int ORDER BY r.i), '[]')
      FROM jsonb_array_elements(t->'data') WITH ORDINALITY AS r(cells, i)
$$;
-- the line in a location string, with the Firefox Profiler's regular expressions
CREATE FUNCTION ff_location_line(location text) RETURNS int LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce((regexp_match(location, '^(.*) \((.*):([0-9]+)\)$'))[3],
                    (regexp_match(location, '^()(.*):([0-9]+)$'))[3])::int
$$;
CREATE FUNCTION ff_frame_chain(leaf bigint) RETURNS text LANGUAGE sql STABLE AS $$
    WITH RECURSIVE chain(id, prefix, frame, depth) AS (
        SELECT id, prefix_id, frame_id, 0 FROM calltree.stack WHERE id = leaf
        UNION ALL
        SELECT s.id, s.prefix_id, s.frame_id, c.depth + 1
          FROM chain c JOIN calltree.stack s ON s.id = c.prefix)
    SELECT string_agg(coalesce(fr.line::text, '-') || coalesce(':' || fr.implementation, ''), ' < '
                      ORDER BY c.depth)
      FROM chain c JOIN calltree.frame fr ON fr.id = c.frame
$$;
SELECT import_firefox(jsonb_build_object(
         'meta', jsonb_build_object('preprocessedProfileVersion', 20,
                                    'startTime', g->'meta'->'startTime'),
         'threads', jsonb_build_array(jsonb_build_object(
           'name', t->'name',
           'stringArray', t->'stringTable',
           'funcTable', jsonb_build_object('length', jsonb_array_length(t->'frameTable'->'data'),
                                           'name', ff_column(t->'frameTable', 'location'),
                                           'lineNumber', (SELECT jsonb_agg(ff_location_line(t->'stringTable'->>(l::int)) ORDER BY i)
                                                            FROM jsonb_array_elements(ff_column(t->'frameTable', 'location'))
                                                                 WITH ORDINALITY AS u(l, i))),
           'frameTable', jsonb_build_object('length', jsonb_array_length(t->'frameTable'->'data'),
                                            'func', (SELECT jsonb_agg(i) FROM generate_series(0, jsonb_array_length(t->'frameTable'->'data') - 1) i),
                                            'line', ff_column(t->'frameTable', 'line'),
                                            'implementation', ff_column(t->'frameTable', 'implementation')),
           'stackTable', jsonb_build_object('length', jsonb_array_length(t->'stackTable'->'data'),
                                            'frame', ff_column(t->'stackTable', 'frame'),
                                            'prefix', ff_column(t->'stackTable', 'prefix')),
           'samples', jsonb_build_object('length', jsonb_array_length(t->'samples'->'data'),
                                         'stack', ff_column(t->'samples', 'stack'),
                                         'time', ff_column(t->'samples', 'time')))))::text)
       AS recursion_processed
  FROM (SELECT :'recursion_json'::jsonb->'profile' AS g) AS p, LATERAL (SELECT g->'threads'->0 AS t) AS th \gset
SELECT format, started_at = (SELECT started_at FROM profile WHERE id = :recursion) AS same_start
  FROM profile WHERE id = :recursion_processed;
SELECT count(*) AS samples,
       count(*) FILTER (WHERE (g.thread, g.ts, g.weight, ff_frame_chain(g.stack_id))
                              IS NOT DISTINCT FROM
                              (p.thread, p.ts, p.weight, ff_frame_chain(p.stack_id))) AS same
  FROM (SELECT *, row_number() OVER (ORDER BY ts) FROM sample WHERE profile_id = :recursion) g
  FULL JOIN (SELECT *, row_number() OVER (ORDER BY ts) FROM sample WHERE profile_id = :recursion_processed) p
  USING (row_number);
SELECT ff_frame_chain(stack_id) AS deepest_stack FROM sample WHERE profile_id = :recursion_processed
 ORDER BY length(ff_frame_chain(stack_id)) DESC, ts LIMIT 1;

------------------------------------------------------------------------
-- A hand-made Gecko profile: every location shape (an address inside a
-- library becomes an offset into it), a weight column, a sample without a
-- stack, and a sub-process that started 1000.5 ms later
------------------------------------------------------------------------
SELECT import_firefox($${
  "meta": {"version": 24, "startTime": 1700000000000, "interval": 1},
  "libs": [{"start": 4096, "end": 8192, "name": "libxul.so", "debugName": "libxul.pdb"}],
  "threads": [{
    "name": "GeckoMain", "pid": "100", "tid": 100,
    "stringTable": ["(root)", "0x1a2b", "Foo::bar(int) (in XUL) + 12",
                    "non-virtual thunk to Baz::qux() (in libxul.so)",
                    "f (https://example.com:8080/app/a.js:12:5)",
                    "https://example.com/b.js:7",
                    "g (resource://loader.js -> resource://b/c.js:3)",
                    "plain C++ name", "baseline", "0xdeadbeef"],
    "frameTable": {"schema": {"location": 0, "implementation": 1, "line": 2, "category": 3},
                   "data": [[0], [1], [2], [3], [4, 8, 14], [5], [6], [7, null, 99], [9]]},
    "stackTable": {"schema": {"prefix": 0, "frame": 1},
                   "data": [[null, 0], [0, 1], [1, 2], [2, 3], [0, 4], [4, 5], [5, 6], [6, 7], [0, 8]]},
    "samples": {"schema": {"stack": 0, "time": 1, "weight": 2},
                "data": [[3, 1.5, 2], [7, 2.25], [null, 3.0], [7, 4.0000004, 5], [8, 5]]}
  }],
  "processes": [{
    "meta": {"version": 24, "startTime": 1700000001000.5},
    "threads": [{
      "name": "GeckoMain", "pid": 200,
      "stringTable": ["(root)", "content"],
      "frameTable": {"schema": {"location": 0}, "data": [[0], [1]]},
      "stackTable": {"schema": {"frame": 1, "prefix": 0}, "data": [[null, 0], [0, 1]]},
      "samples": {"schema": {"stack": 0, "time": 1}, "data": [[1, 0.25]]}
    }]
  }]
}$$, 'hand-made gecko') AS gecko \gset
SELECT started_at AT TIME ZONE 'UTC' AS started_utc, weight_unit FROM profile WHERE id = :gecko;
SELECT thread, ts, weight, ff_names(stack_path(stack_id)) AS path
  FROM sample WHERE profile_id = :gecko ORDER BY thread, ts;
SELECT * FROM ff_frames(:gecko);

-- location strings, one root frame each: how each splits into func and frame
WITH locs(l, i) AS (SELECT * FROM unnest(ARRAY[
         'get size (http://a.com/b.js:3)',
         'get size (cached) (http://a.com/b.js:4:9)',
         'f (moz-extension://1234-abcd/c.js:5)',
         'f (self-hosted:6)',
         'http://a.com:8080/b.js:7:2',
         'Foo::bar() (in XUL) (Foo.cpp:12)',
         'Foo::bar() (in XUL) + 48',
         'operator() (in libxul.so)',
         '0xABCdef',
         '0x',
         '0xnot-hex',
         'f (b.js)',
         'f (b.js:)',
         'f (b.js:12345678901)',
         ' (in XUL)',
         'a:1',
         ':1',
         'js::RunScript',
         '']) WITH ORDINALITY)
SELECT import_firefox(jsonb_build_object(
         'meta', jsonb_build_object('version', 24, 'startTime', 0),
         'threads', jsonb_build_array(jsonb_build_object(
           'name', 'T',
           'stringTable', (SELECT jsonb_agg(l ORDER BY i) FROM locs),
           'frameTable', jsonb_build_object('schema', '{"location": 0}'::jsonb,
                           'data', (SELECT jsonb_agg(jsonb_build_array(i - 1) ORDER BY i) FROM locs)),
           'stackTable', jsonb_build_object('schema', '{"prefix": 0, "frame": 1}'::jsonb,
                           'data', (SELECT jsonb_agg(jsonb_build_array(NULL, i - 1) ORDER BY i) FROM locs)),
           'samples', jsonb_build_object('schema', '{"stack": 0, "time": 1}'::jsonb,
                           'data', (SELECT jsonb_agg(jsonb_build_array(i - 1, i) ORDER BY i) FROM locs)))))::text)
       AS locations \gset
SELECT * FROM ff_frames(:locations);

-- old Gecko profiles hold each thread (and libs) as a JSON string
SELECT import_firefox($${"meta": {"version": 3, "startTime": 0}, "libs": "[]",
  "threads": ["{\"name\": \"Old\", \"stringTable\": [\"(root)\", \"main (http://a.com/m.js:1)\"], \"frameTable\": {\"schema\": {\"location\": 0}, \"data\": [[0], [1]]}, \"stackTable\": {\"schema\": {\"prefix\": 0, \"frame\": 1}, \"data\": [[null, 0], [0, 1]]}, \"samples\": {\"schema\": {\"stack\": 0, \"time\": 1}, \"data\": [[1, 1], [0, 2]]}}"]
}$$) AS old_gecko \gset
SELECT thread, ts, ff_names(stack_path(stack_id)) AS path FROM sample WHERE profile_id = :old_gecko ORDER BY ts;
SELECT ff_error($${"meta": {}, "threads": ["{\"name\": "]}$$);

------------------------------------------------------------------------
-- A processed profile, written by hand after the Firefox Profiler's
-- published types (src/types/profile.js): strings in shared.stringArray,
-- struct-of-arrays tables, funcs and resources, timeDeltas, and weights
-- in tracing-ms (so weights become nanoseconds).  No processed profile
-- exists in ../shared/data.
------------------------------------------------------------------------
SELECT import_firefox($${
  "meta": {"preprocessedProfileVersion": 47, "startTime": 1700000000000.25, "interval": 1},
  "libs": [{"name": "libxul.so", "path": "/usr/lib/libxul.so"}],
  "shared": {"stringArray": ["main", "app.js", "work", "helper", "libxul.so", "XRE_main", "ion"]},
  "threads": [{
    "name": "GeckoMain", "pid": "1", "processName": "Parent",
    "resourceTable": {"length": 1, "name": [4], "lib": [0], "host": [null], "type": [1]},
    "funcTable": {"length": 4, "name": [0, 2, 3, 5], "resource": [-1, -1, -1, 0],
                  "fileName": [1, 1, 1, null], "lineNumber": [1, 10, 20, null],
                  "isJS": [true, true, true, false], "relevantForJS": [false, false, false, false]},
    "frameTable": {"length": 5, "func": [3, 0, 1, 2, 1], "address": [4096, -1, -1, -1, -1],
                   "line": [null, 2, 11, 21, 12], "column": [null, 1, 5, 3, 7],
                   "implementation": [null, null, 6, null, null], "inlineDepth": [0, 0, 0, 0, 0]},
    "stackTable": {"length": 5, "frame": [0, 1, 2, 3, 4], "prefix": [null, 0, 1, 2, 1]},
    "samples": {"length": 4, "stack": [2, 3, 4, null], "timeDeltas": [10, 0.5, 0.25, 1],
                "weight": [1.5, 2, 0.000001, 1], "weightType": "tracing-ms"}
  }, {
    "name": "DOM Worker", "pid": "2", "processName": "Web Content",
    "resourceTable": {"length": 0, "name": []},
    "funcTable": {"length": 1, "name": [3], "resource": [-1], "fileName": [null]},
    "frameTable": {"length": 1, "func": [0], "address": [-1], "line": [null]},
    "stackTable": {"length": 1, "frame": [0], "prefix": [null]},
    "samples": {"length": 1, "stack": [0], "time": [3.5], "weight": [0.5], "weightType": "tracing-ms"}
  }]
}$$, 'hand-made processed') AS processed \gset
SELECT started_at AT TIME ZONE 'UTC' AS started_utc, weight_unit, format FROM profile WHERE id = :processed;
SELECT thread, ts, weight, ff_names(stack_path(stack_id)) AS path
  FROM sample WHERE profile_id = :processed ORDER BY thread, ts;
SELECT * FROM ff_frames(:processed);
-- an older processed profile: strings per thread, absolute times, no weights
SELECT import_firefox($${
  "meta": {"preprocessedProfileVersion": 20, "startTime": 0},
  "threads": [{"name": "T", "stringArray": ["x", "y"],
    "funcTable": {"length": 2, "name": [0, 1], "resource": [-1, -1], "fileName": [null, null]},
    "frameTable": {"length": 2, "func": [0, 1]},
    "stackTable": {"length": 2, "frame": [0, 1], "prefix": [null, 0]},
    "samples": {"length": 3, "stack": [1, 1, 0], "time": [1, 2, 3]}}]
}$$) AS old_processed \gset
-- the newest layout: tables shared by all threads, file names in "sources"
SELECT import_firefox($${
  "meta": {"preprocessedProfileVersion": 56, "startTime": 0},
  "shared": {"stringArray": ["x", "y", "/src/x.rs"],
    "sources": {"length": 1, "id": [null], "filename": [2]},
    "resourceTable": {"length": 0, "name": []},
    "funcTable": {"length": 2, "name": [0, 1], "resource": [-1, -1], "source": [0, null]},
    "frameTable": {"length": 2, "func": [0, 1], "line": [5, null]},
    "stackTable": {"length": 2, "frame": [0, 1], "prefix": [null, 0]}},
  "threads": [{"name": "A", "pid": "7", "samples": {"length": 1, "stack": [1], "time": [1]}},
              {"name": "B", "pid": "7", "samples": {"length": 2, "stack": [0, 1], "time": [2, 3]}}]
}$$) AS newest \gset
SELECT thread, ts, ff_names(stack_path(stack_id)) AS path FROM sample WHERE profile_id = :newest ORDER BY ts;
SELECT * FROM ff_frames(:newest);
SELECT ff_tree(:old_processed)::text ~ '^\{[0-9]+:3/1 \{[0-9]+:2/2\}\}$' AS tree_shape,
       (SELECT weight_unit FROM profile WHERE id = :old_processed);

------------------------------------------------------------------------
-- Bad input: an ERROR naming the format, thread, table and row; never a
-- crash; nothing left behind.
------------------------------------------------------------------------
SELECT count(*) AS profiles, (SELECT count(*) FROM sample) AS samples,
       (SELECT count(*) FROM stack) AS stacks, (SELECT count(*) FROM func) AS funcs
  FROM profile \gset before_
-- every 1/50th truncation of each real file
SELECT file, count(*) AS cuts, count(*) FILTER (WHERE e LIKE '22P02: malformed Firefox profile: invalid JSON at byte offset %') AS json_errors
  FROM (VALUES ('simple', :'simple_json'), ('recursion', :'recursion_json')) AS f(file, data),
       LATERAL (SELECT ff_error(left(data, length(data) * k / 50)) AS e FROM generate_series(1, 49) k) t
 GROUP BY file ORDER BY file;
SELECT ff_error(left(:'simple_json', 1000));
SELECT ff_error(:'recursion_json' || '}');
SELECT ff_error('');
SELECT ff_error('[]');
SELECT ff_error('{"meta": {}}');
SELECT ff_error('{"meta": {}, "threads": {}}');
SELECT ff_error('{"meta": {}, "threads": [42]}');
-- the recursion file, damaged in one place at a time
CREATE TABLE ff_damage (what text, path text[], value jsonb);
INSERT INTO ff_damage VALUES
  ('prefix out of range', '{profile,threads,0,stackTable,data,5,0}', '999'),
  ('prefix is the row itself', '{profile,threads,0,stackTable,data,5,0}', '5'),
  ('prefix after the row', '{profile,threads,0,stackTable,data,5,0}', '7'),
  ('prefix negative', '{profile,threads,0,stackTable,data,5,0}', '-1'),
  ('prefix a string', '{profile,threads,0,stackTable,data,5,0}', '"4"'),
  ('prefix fractional', '{profile,threads,0,stackTable,data,5,0}', '4.5'),
  ('frame out of range', '{profile,threads,0,stackTable,data,5,1}', '51'),
  ('frame null', '{profile,threads,0,stackTable,data,5,1}', 'null'),
  ('stack row not an array', '{profile,threads,0,stackTable,data,5}', '{"prefix": 4}'),
  ('sample stack out of range', '{profile,threads,0,samples,data,3,0}', '100'),
  ('sample stack huge', '{profile,threads,0,samples,data,3,0}', '1e300'),
  ('sample time a string', '{profile,threads,0,samples,data,3,1}', '"soon"'),
  ('sample time missing', '{profile,threads,0,samples,data,3}', '[37]'),
  ('sample time huge', '{profile,threads,0,samples,data,3,1}', '1e20'),
  ('location out of range', '{profile,threads,0,frameTable,data,3,0}', '115'),
  ('location null', '{profile,threads,0,frameTable,data,3,0}', 'null'),
  ('line fractional', '{profile,threads,0,frameTable,data,3,3}', '1.5'),
  ('line huge', '{profile,threads,0,frameTable,data,3,3}', '99999999999'),
  ('implementation an object', '{profile,threads,0,frameTable,data,3,1}', '{}'),
  ('string not a string', '{profile,threads,0,stringTable,3}', '3'),
  ('schema index a string', '{profile,threads,0,stackTable,schema,prefix}', '"0"'),
  ('no prefix column', '{profile,threads,0,stackTable,schema}', '{"frame": 1}'),
  ('no stackTable', '{profile,threads,0,stackTable}', 'null'),
  ('data not an array', '{profile,threads,0,frameTable,data}', '{}'),
  ('no samples', '{profile,threads,0,samples}', '[]'),
  ('no string table', '{profile,threads,0,stringTable}', 'null'),
  ('thread name a number', '{profile,threads,0,name}', '7'),
  ('processes hold a number', '{profile,processes}', '[1]'),
  ('sub-process without meta', '{profile,processes}', '[{"threads": []}]');
SELECT what, ff_error(jsonb_set(:'recursion_json'::jsonb, path, value)::text)
  FROM ff_damage;
-- a thread without a stack or time table in the processed format, mixed units
SELECT ff_error($${"meta": {"preprocessedProfileVersion": 47}, "shared": {"stringArray": ["a"]},
  "threads": [{"name": "T1",
      "funcTable": {"length": 1, "name": [0]}, "frameTable": {"length": 1, "func": [0]},
      "stackTable": {"length": 1, "frame": [0], "prefix": [null]},
      "samples": {"length": 1, "stack": [0], "time": [1], "weight": [1], "weightType": "bytes"}},
    {"name": "T2",
      "funcTable": {"length": 1, "name": [0]}, "frameTable": {"length": 1, "func": [0]},
      "stackTable": {"length": 1, "frame": [0], "prefix": [null]},
      "samples": {"length": 1, "stack": [0], "time": [1]}}]}$$);
-- processed profiles, damaged
SELECT ff_error(replace(p, part, damaged))
  FROM (SELECT $${"meta": {"preprocessedProfileVersion": 47}, "shared": {"stringArray": ["a", "b"]},
         "threads": [{"name": "T",
           "funcTable": {"length": 2, "name": [0, 1], "resource": [-1, -1], "fileName": [null, null]},
           "frameTable": {"length": 2, "func": [0, 1]},
           "stackTable": {"length": 2, "frame": [0, 1], "prefix": [null, 0]},
           "samples": {"length": 2, "stack": [1, 0], "time": [1, 2]}}]}$$::text AS p) AS profile,
       (VALUES ('"prefix": [null, 0]', '"prefix": [1, 0]'),
               ('"func": [0, 1]', '"func": [0, 2]'),
               ('"func": [0, 1]', '"func": [0]'),
               ('"frameTable": {"length": 2, ', '"frameTable": {"length": "2", '),
               ('"name": [0, 1]', '"name": [0, 9]'),
               ('"resource": [-1, -1]', '"resource": [-1, 3]'),
               ('"stack": [1, 0]', '"stack": [1, 2]'),
               ('"time": [1, 2]', '"times": [1, 2]'),
               ('"shared": {"stringArray": ["a", "b"]}', '"shared": {}'),
               ('"samples": {', '"samples": {"weight": [1, 1], "weightType": "furlongs", '),
               ('"length": 2, "stack"', '"length": -2, "stack"'),
               ('"stackTable": {', '"stackTable": 5, "x": {')) AS d(part, damaged);
-- a failed import at the top level leaves nothing behind either
SAVEPOINT before_failure;
SELECT import_firefox(jsonb_set(:'recursion_json'::jsonb, '{profile,threads,0,samples,data,14,0}', '1000')::text);
ROLLBACK TO SAVEPOINT before_failure;
SELECT count(*) = :before_profiles AS profiles_unchanged,
       (SELECT count(*) FROM sample) = :before_samples AS samples_unchanged,
       (SELECT count(*) FROM stack) = :before_stacks AS stacks_unchanged,
       (SELECT count(*) FROM func) = :before_funcs AS funcs_unchanged
  FROM profile;
SELECT count(*) - :profiles_before AS profiles_added FROM profile;

-- 200 random one-character damages of the recursion file: each imports or
-- fails with an error of the profile, never anything else (an import that
-- succeeds is rolled back by the exception raised after it)
CREATE FUNCTION ff_outcome(data text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    PERFORM calltree.import_firefox(data);
    RAISE EXCEPTION 'imported' USING ERRCODE = 'P0001';
EXCEPTION WHEN OTHERS THEN
    RETURN CASE WHEN SQLSTATE = 'P0001' THEN 'imported'
                WHEN SQLERRM LIKE 'malformed Firefox profile: invalid JSON at byte offset %' THEN 'invalid JSON'
                WHEN SQLERRM LIKE 'malformed Firefox %' THEN SQLSTATE || ' malformed'
                ELSE SQLSTATE || ': ' || SQLERRM END;
END
$$;
SELECT setseed(0.42);
SELECT ff_outcome(overlay(:'recursion_json'
                          placing (ARRAY['"', ',', '[', ']', '{', '}', '0', '9', '-', '1e999', 'null', 'x'])[1 + floor(random() * 12)::int]
                          from 1 + floor(random() * length(:'recursion_json'))::int for 1)) AS outcome,
       count(*)
  FROM generate_series(1, 200)
 GROUP BY 1 ORDER BY 1;
SELECT count(*) = :before_profiles AS profiles_unchanged FROM profile;

ROLLBACK;
