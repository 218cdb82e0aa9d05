-- Anonymous JavaScript functions kept apart: every importer of JavaScript
-- profiles names an unnamed function by where it starts, "(anonymous)
-- BASENAME:LINE:COL" (1-based; no COL when unknown), so that two of one
-- script are two funcs; named functions keep their names; without a file
-- or a line the name stays as the profile wrote it.  Each profile below
-- holds two unnamed functions of one file; the weights are checked by hand
-- in the comments.  (test/t_anon_js.sh checks a real node --cpu-prof file.)
-- All in one transaction, rolled back: the profiles (some with a start
-- time) and funcs made here do not reach the tests that follow.
BEGIN;
SET LOCAL search_path = calltree, public;

-- A profile's functions: name, file, self and running weight
CREATE FUNCTION pg_temp.funcs(profile bigint)
RETURNS TABLE (name text, file text, self bigint, running bigint) LANGUAGE sql AS $$
    SELECT f.name, f.file, fn.self::bigint, fn.running::bigint
      FROM calltree.functions((SELECT calltree.stack_agg(stack_id, weight)
                                 FROM calltree.sample WHERE profile_id = profile)) AS fn
      JOIN calltree.func AS f ON f.id = fn.func
     ORDER BY f.name COLLATE "C", f.file COLLATE "C";
$$;

------------------------------------------------------------------------
-- .cpuprofile.  The module (0:0) calls main, which calls two arrow
-- functions on line 20 (0-based 19, columns 4 and 30) and a function
-- expression on line 31.  Samples at 0, 10, ..., 60 µs (end 70):
-- each weighs 10 µs = 10000 ns.  Nodes 4 and 5 are different V8 nodes of
-- the same function as nodes 4 and 7 (same call frame): one func.  Node 8
-- has no url, node 9 no line: both stay "(anonymous)", and node 10 is the
-- old V8 spelling "(anonymous function)" with a url whose query is dropped.
------------------------------------------------------------------------
SELECT import_cpuprofile($${
  "nodes": [
    {"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": [2]},
    {"id": 2, "callFrame": {"functionName": "", "url": "file:///srv/app.js", "lineNumber": 0, "columnNumber": 0}, "children": [3]},
    {"id": 3, "callFrame": {"functionName": "main", "url": "file:///srv/app.js", "lineNumber": 9, "columnNumber": 13}, "children": [4, 5, 6, 8, 9, 10]},
    {"id": 4, "callFrame": {"functionName": "", "url": "file:///srv/app.js", "lineNumber": 19, "columnNumber": 4}, "children": [7]},
    {"id": 5, "callFrame": {"functionName": "", "url": "file:///srv/app.js", "lineNumber": 19, "columnNumber": 30}},
    {"id": 6, "callFrame": {"functionName": "(anonymous)", "url": "file:///srv/app.js", "lineNumber": 30, "columnNumber": 17}},
    {"id": 7, "callFrame": {"functionName": "", "url": "file:///srv/app.js", "lineNumber": 19, "columnNumber": 30}},
    {"id": 8, "callFrame": {"functionName": "", "url": "", "lineNumber": 2, "columnNumber": 0}},
    {"id": 9, "callFrame": {"functionName": "", "url": "file:///srv/app.js", "lineNumber": -1, "columnNumber": -1}},
    {"id": 10, "callFrame": {"functionName": "(anonymous function)", "url": "https://cdn.example.com/lib/v.js?v=3#x", "lineNumber": 4, "columnNumber": -1}}
  ],
  "samples": [4, 5, 6, 7, 8, 9, 10],
  "timeDeltas": [0, 10, 10, 10, 10, 10, 10],
  "startTime": 0, "endTime": 70}$$, 'cpuprofile') AS id \gset
-- (anonymous) app.js:1:1 and main run through all 7 samples (70000), the
-- arrow of column 5 has 1 sample of its own and the one of column 31 below
-- it (running 20000), the arrow of column 31 has 2 (node 5 and node 7);
-- the function expression 1; "(anonymous)" without url 1, without line 1
-- (two funcs: their files differ); v.js:5 1
SELECT * FROM pg_temp.funcs(:id);

------------------------------------------------------------------------
-- Chrome trace events (Profile and ProfileChunk): the same call frames
-- through v8_profile.c.  Samples at 1010, 1030, 1050 µs, the last until
-- endTime 1080: 20000, 20000 and 30000 ns.
------------------------------------------------------------------------
SELECT import_trace_events($$[
 {"ph": "P", "name": "Profile", "id": "0x1", "pid": 1, "tid": 10, "ts": 1000, "args": {"data": {"startTime": 1000}}},
 {"ph": "P", "name": "ProfileChunk", "id": "0x1", "pid": 1, "tid": 11, "ts": 1100, "args": {"data": {
   "cpuProfile": {"nodes": [
     {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}},
     {"id": 2, "parent": 1, "callFrame": {"functionName": "main", "url": "https://a.com/app.js", "lineNumber": 0, "columnNumber": 9}},
     {"id": 3, "parent": 2, "callFrame": {"functionName": "", "url": "https://a.com/app.js", "lineNumber": 4, "columnNumber": 2}},
     {"id": 4, "parent": 2, "callFrame": {"functionName": "", "url": "https://a.com/app.js", "lineNumber": 8, "columnNumber": 2}}],
   "samples": [3, 4, 2]}, "timeDeltas": [10, 20, 20], "endTime": 1080}}}
]$$, 'trace events') AS id \gset
-- main runs through all (70000) with 30000 of its own; app.js:5:3 20000,
-- app.js:9:3 20000
SELECT * FROM pg_temp.funcs(:id);

------------------------------------------------------------------------
-- speedscope: frames named "(anonymous)" (as speedscope names V8's unnamed
-- functions) and "" with a file, line and column; one "(anonymous)" frame
-- without a line keeps its name.  Weights as given (unit none).
------------------------------------------------------------------------
SELECT import_speedscope($${
  "$schema": "https://www.speedscope.app/file-format-schema.json",
  "shared": {"frames": [
    {"name": "main", "file": "/srv/app.js", "line": 10, "col": 14},
    {"name": "(anonymous)", "file": "/srv/app.js", "line": 20, "col": 5},
    {"name": "(anonymous)", "file": "/srv/app.js", "line": 20, "col": 31},
    {"name": "", "file": "/srv/app.js", "line": 40},
    {"name": "(anonymous)", "file": "/srv/app.js"}]},
  "profiles": [{"type": "sampled", "name": "js", "unit": "none", "startValue": 0, "endValue": 15,
                "samples": [[0, 1], [0, 2], [0, 2, 1], [0, 3], [0, 4]],
                "weights": [1, 2, 3, 4, 5]}]}$$, 'speedscope') AS id \gset
-- main 15 running; app.js:20:5 self 1 + 3 = 4, running 1 + 3 = 4 (once in
-- [0, 2, 1]); app.js:20:31 self 2, running 2 + 3 = 5; app.js:40 4;
-- "(anonymous)" without a line 5
SELECT * FROM pg_temp.funcs(:id);

------------------------------------------------------------------------
-- Firefox Profiler, Gecko: locations without a name ("file:line:col",
-- "file:line") were all "(root scope) FILE" in the Firefox Profiler's
-- naming, one func; they are named by where they start.  The frame's own
-- line (column "line") does not change the func.  One sample each, weight 1.
------------------------------------------------------------------------
SELECT import_firefox($${
  "meta": {"version": 24, "startTime": 1700000000000, "interval": 1},
  "threads": [{
    "name": "GeckoMain", "pid": "100", "tid": 100,
    "stringTable": ["js::RunScript", "https://a.com/js/app.js:1", "https://a.com/js/app.js:20:5",
                    "https://a.com/js/app.js:20:31", "run (https://a.com/js/app.js:10:3)"],
    "frameTable": {"schema": {"location": 0, "line": 1},
                   "data": [[0], [1, 1], [4, 11], [2, 21], [3, 20], [2, 22]]},
    "stackTable": {"schema": {"prefix": 0, "frame": 1},
                   "data": [[null, 0], [0, 1], [1, 2], [2, 3], [2, 4], [2, 5]]},
    "samples": {"schema": {"stack": 0, "time": 1},
                "data": [[1, 1.0], [3, 2.0], [4, 3.0], [5, 4.0]]}
  }]
}$$, 'gecko') AS id \gset
-- js::RunScript and app.js:1 run through all 4, app.js:1 with 1 of its own; run
-- 3 running; app.js:20:5 self 2 (frames 3 and 5: two lines of one
-- function), app.js:20:31 self 1
SELECT * FROM pg_temp.funcs(:id);

------------------------------------------------------------------------
-- Firefox Profiler, processed: funcTable rows "(root scope) FILE" (what the
-- Firefox Profiler makes of a Gecko location without a name), "" and
-- "(anonymous)", named by their lineNumber and columnNumber; a
-- "(root scope) OTHER" whose name is not its own file's keeps its name.
-- Weights 1 each.
------------------------------------------------------------------------
SELECT import_firefox($${
  "meta": {"preprocessedProfileVersion": 47, "startTime": 1700000000000, "interval": 1},
  "shared": {"stringArray": ["main", "https://a.com/app.js", "(root scope) https://a.com/app.js",
                             "", "(anonymous)", "(root scope) elsewhere.js"]},
  "threads": [{
    "name": "GeckoMain", "pid": "1",
    "resourceTable": {"length": 0, "name": []},
    "funcTable": {"length": 5, "name": [0, 2, 3, 4, 5], "resource": [-1, -1, -1, -1, -1],
                  "fileName": [1, 1, 1, 1, 1], "lineNumber": [10, 20, 20, 30, 40],
                  "columnNumber": [3, 5, 31, null, 1]},
    "frameTable": {"length": 5, "func": [0, 1, 2, 3, 4], "line": [null, null, null, null, null]},
    "stackTable": {"length": 5, "frame": [0, 1, 2, 3, 4], "prefix": [null, 0, 0, 0, 0]},
    "samples": {"length": 4, "stack": [1, 2, 3, 4], "timeDeltas": [1, 1, 1, 1]}
  }]
}$$, 'processed') AS id \gset
-- main 4 running; app.js:20:5, app.js:20:31, app.js:30 and
-- "(root scope) elsewhere.js" 1 each
SELECT * FROM pg_temp.funcs(:id);

------------------------------------------------------------------------
-- pprof as Node's pprof module writes it: one Function "(anonymous)" for
-- all of a script's unnamed functions, each Line's line where the function
-- starts, no column.  A Function with a start_line is named by it (44 is
-- the sampled line, 40 the start).  A Function without a name keeps its
-- address name.  The protobuf is built here field by field.
------------------------------------------------------------------------
CREATE FUNCTION pg_temp.varint(v bigint) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
    r bytea := '';
BEGIN
    LOOP
        IF v < 128 THEN
            RETURN r || set_byte('\x00'::bytea, 0, v::int);
        END IF;
        r := r || set_byte('\x00'::bytea, 0, (v % 128)::int + 128);
        v := v / 128;
    END LOOP;
END $$;
-- a varint field, a length-delimited field, a string field
CREATE FUNCTION pg_temp.v(field int, value bigint) RETURNS bytea LANGUAGE sql
    AS $$ SELECT pg_temp.varint(field * 8) || pg_temp.varint(value) $$;
CREATE FUNCTION pg_temp.m(field int, body bytea) RETURNS bytea LANGUAGE sql
    AS $$ SELECT pg_temp.varint(field * 8 + 2) || pg_temp.varint(length(body)) || body $$;
CREATE FUNCTION pg_temp.s(field int, body text) RETURNS bytea LANGUAGE sql
    AS $$ SELECT pg_temp.m(field, convert_to(body, 'UTF8')) $$;
-- a Sample of locations (leaf first) and one value
CREATE FUNCTION pg_temp.sample(locations int[], value int) RETURNS bytea LANGUAGE sql AS $$
    SELECT pg_temp.m(2, (SELECT string_agg(pg_temp.v(1, l), '' ORDER BY i)
                           FROM unnest(locations) WITH ORDINALITY AS u(l, i)) || pg_temp.v(2, value))
$$;
-- a Location with one Line (function, line), and an address
CREATE FUNCTION pg_temp.location(id int, function int, line int, address int DEFAULT 0)
RETURNS bytea LANGUAGE sql AS $$
    SELECT pg_temp.m(4, pg_temp.v(1, id) || pg_temp.v(3, address)
                        || CASE WHEN function > 0 THEN pg_temp.m(4, pg_temp.v(1, function) || pg_temp.v(2, line))
                           ELSE '' END)
$$;
-- strings: 0 "", 1 samples, 2 count, 3 (anonymous), 4 /srv/app.js, 5 main
SELECT import_pprof(
    pg_temp.m(1, pg_temp.v(1, 1) || pg_temp.v(2, 2))
    || pg_temp.sample('{2,1}', 3) || pg_temp.sample('{3,1}', 5) || pg_temp.sample('{4,1}', 7)
    || pg_temp.sample('{5,1}', 11)
    || pg_temp.location(1, 2, 10) || pg_temp.location(2, 1, 20) || pg_temp.location(3, 1, 30)
    || pg_temp.location(4, 3, 44) || pg_temp.location(5, 0, 0, 4660)
    || pg_temp.m(5, pg_temp.v(1, 1) || pg_temp.v(2, 3) || pg_temp.v(4, 4))
    || pg_temp.m(5, pg_temp.v(1, 2) || pg_temp.v(2, 5) || pg_temp.v(4, 4))
    || pg_temp.m(5, pg_temp.v(1, 3) || pg_temp.v(2, 3) || pg_temp.v(4, 4) || pg_temp.v(5, 40))
    || pg_temp.s(6, '') || pg_temp.s(6, 'samples') || pg_temp.s(6, 'count')
    || pg_temp.s(6, '(anonymous)') || pg_temp.s(6, '/srv/app.js') || pg_temp.s(6, 'main'),
    name => 'pprof') AS id \gset
-- main 26 running; app.js:20 3, app.js:30 5, app.js:40 7, 0x1234 11
SELECT * FROM pg_temp.funcs(:id);

ROLLBACK;
