-- estimated_calls (Chrome DevTools' timeline) and lines (the Firefox Profiler's).
SET search_path = calltree, public;

-- Chrome DevTools' picture: samples at t1, t2 with stack A→B→C→D, then at t3
-- with A→B→C→E.  A, B, C extend from t1 to t3; D ends at t2, the last
-- sample that saw it; E starts at t3.
INSERT INTO profile (name, format) VALUES ('seed 003', 'test') RETURNING id AS calls_profile \gset
INSERT INTO sample (profile_id, thread, ts, stack_id) VALUES
  (:calls_profile, 'main', 1000, intern_stack('{A,B,C,D}')),
  (:calls_profile, 'main', 2000, intern_stack('{A,B,C,D}')),
  (:calls_profile, 'main', 3000, intern_stack('{A,B,C,E}'));
SELECT e.thread_name, f.name, e.depth, e.start_ts, e.end_ts, e.end_ts - e.start_ts AS duration
  FROM estimated_calls(:calls_profile) AS e JOIN func f ON f.id = e.func
 ORDER BY e.start_ts, e.depth;

-- samples come in time order whatever their insertion order; threads are
-- separate timelines; a call that comes back after a gap is a new call
INSERT INTO profile (name, format) VALUES ('two threads', 'test') RETURNING id AS threads_profile \gset
INSERT INTO sample (profile_id, thread, ts, stack_id) VALUES
  (:threads_profile, 'worker', 40, intern_stack('{run,poll}')),
  (:threads_profile, 'main', 30, intern_stack('{main,parse}')),
  (:threads_profile, 'main', 10, intern_stack('{main,parse}')),
  (:threads_profile, 'worker', 10, intern_stack('{run,poll}')),
  (:threads_profile, 'main', 20, intern_stack('{main,render}')),
  (:threads_profile, 'worker', 20, intern_stack('{run}'));
SELECT e.thread_name, array_to_string(array(SELECT name FROM func, unnest(e.path) WITH ORDINALITY u(f, i)
                                            WHERE id = u.f ORDER BY u.i), '>') AS path,
       e.start_ts, e.end_ts
  FROM estimated_calls(:threads_profile) AS e
 ORDER BY e.thread_name, e.start_ts, e.depth;
-- one thread only
SELECT count(*) AS worker_calls FROM estimated_calls(:threads_profile, 'worker');

-- a profile without timestamps cannot be put in time order
INSERT INTO profile (id, name) VALUES (900001, 'no times') RETURNING id AS untimed \gset
INSERT INTO sample (profile_id, stack_id) VALUES (:untimed, intern_stack('{x}'));
SELECT * FROM estimated_calls(:untimed);

-- lines: "which lines inside main() are expensive".  The Firefox Profiler's program,
-- with frames at line addresses 0x02, 0x03, 0x06, 0x08, 0x09 of main and
-- 0x11 of doSomething, 0x15 of someInterlude; samples: 0x02 once,
-- 0x03→0x11 ten times, 0x06→0x15 once, 0x08 once, 0x09→0x11 ten times.
SELECT intern_func('main', 'lines.cpp') AS main, intern_func('doSomething', 'lines.cpp') AS work,
       intern_func('someInterlude', 'lines.cpp') AS interlude \gset
INSERT INTO profile (name) VALUES ('lines') RETURNING id AS lines_profile \gset
INSERT INTO sample (profile_id, stack_id, weight)
SELECT :lines_profile,
       CASE WHEN callee IS NULL THEN intern_stack(NULL, intern_frame(:main, line => line))
            ELSE intern_stack(intern_stack(NULL, intern_frame(:main, line => line)),
                              intern_frame(callee, line => callee_line)) END,
       weight
  FROM (VALUES (2, NULL, NULL, 1), (3, :work, 17, 10), (6, :interlude, 21, 1),
               (8, NULL, NULL, 1), (9, :work, 17, 10)) AS v(line, callee, callee_line, weight);
-- in main: lines 0x02 and 0x08 are self time; 0x03 and 0x09 run doSomething
SELECT line, self, running FROM lines(:lines_profile, ARRAY[:main]) ORDER BY running DESC, line;
SELECT line, self, running FROM lines(:lines_profile, ARRAY[:main, :work]);
-- the totals agree with the call tree
SELECT (SELECT sum(running) FROM lines(:lines_profile, ARRAY[:main]))
     = (SELECT running FROM nodes((SELECT stack_agg(stack_id, weight) FROM sample
                                    WHERE profile_id = :lines_profile)) WHERE path = ARRAY[:main]) AS running_agrees;
-- a CallNode that does not exist has no lines; an empty path is an error
SELECT count(*) FROM lines(:lines_profile, ARRAY[:work]);
SELECT * FROM lines(:lines_profile, '{}');

-- a profile whose samples come from a .cpuprofile with negative timeDeltas
-- (V8 writes them): samples are put in time order on import, and calls are
-- estimated from that order.  Times 10, 40, 20, 60 µs: in order the stacks
-- are main>a (10), main>b (20), main>a (40), main (60).
SELECT import_cpuprofile('{"nodes": [
    {"id": 1, "callFrame": {"functionName": "(root)", "url": ""}, "children": [2]},
    {"id": 2, "callFrame": {"functionName": "main", "url": "app.js"}, "children": [3, 4]},
    {"id": 3, "callFrame": {"functionName": "a", "url": "app.js"}},
    {"id": 4, "callFrame": {"functionName": "b", "url": "app.js"}}],
  "samples": [3, 3, 4, 2], "timeDeltas": [10, 30, -20, 40],
  "startTime": 0, "endTime": 70}', 'negative deltas') AS deltas_profile \gset
SELECT f.name, e.depth, e.start_ts, e.end_ts
  FROM estimated_calls(:deltas_profile) AS e JOIN func f ON f.id = e.func
 ORDER BY e.start_ts, e.depth;
