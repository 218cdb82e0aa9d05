-- trace_agg: the function call trie of LLVM XRay's documentation.
SET search_path = calltree, public;

-- XRay's worked example, with t[0..5] = 0, 10, 30, 60, 100, 150:
--   (f1 -> f2) @ t0, (f2 -> f3) @ t1, (f2 <- f3) @ t2,
--   (f2 -> f3) @ t3, (f2 <- f3) @ t4, (f1 <- f2) @ t5
-- f1 and f2 are entered at t0 and exit at t5.  XRay's values:
--   CTT(f3) = (t4-t3) + (t2-t1) = 40 + 20 = 60 = CLT(f3), 2 calls
--   CLT(f2) = (t5-t4) + (t3-t2) + (t1-t0) = 50 + 30 + 10 = 90, CTT(f2) = t5-t0 = 150
--   CLT(f1) = 0, CTT(f1) = CTT(f2) + 0 = 150
CREATE TEMP TABLE seed_events (func int4, enter boolean, ts bigint, seq int);
INSERT INTO seed_events VALUES
  (1, true, 0, 1), (2, true, 0, 2), (3, true, 10, 3), (3, false, 30, 4),
  (3, true, 60, 5), (3, false, 100, 6), (2, false, 150, 7), (1, false, 150, 8);
SELECT trace_agg(func, enter, ts ORDER BY ts, seq) FROM seed_events;
SELECT node, func, running AS ctt, self AS clt, calls
  FROM nodes((SELECT trace_agg(func, enter, ts ORDER BY ts, seq) FROM seed_events));
-- running = self + the children's running, exactly, at every node
SELECT bool_and(n.running = n.self + coalesce((SELECT sum(c.running) FROM nodes(t) c WHERE c.parent = n.node), 0))
       AS ctt_is_clt_plus_callees
  FROM (SELECT trace_agg(func, enter, ts ORDER BY ts, seq) AS t FROM seed_events) AS x, nodes(t) AS n;

-- an exit of a function entered higher up unwinds every call above it:
-- f1@0 → f2@5 → f3@7, then f1 exits at 20: f3 and f2 end at 20 too
SELECT trace_agg(func, enter, ts ORDER BY ts)
  FROM (VALUES (1, true, 0), (2, true, 5), (3, true, 7), (1, false, 20)) AS v(func, enter, ts);

-- an exit with no matching entry is skipped and counted
SELECT trace_agg(func, enter, ts ORDER BY ts)
  FROM (VALUES (9, false, 0), (1, true, 1), (2, true, 2), (7, false, 3), (2, false, 4), (1, false, 6)) AS v(func, enter, ts);

-- calls still open when the events end are closed at the last timestamp
SELECT trace_agg(func, enter, ts ORDER BY ts)
  FROM (VALUES (1, true, 0), (2, true, 10), (8, false, 25)) AS v(func, enter, ts);

-- recursion: f entered three times, each call a node of its own path
SELECT trace_agg(func, enter, ts ORDER BY ts)
  FROM (VALUES (5, true, 0), (5, true, 1), (5, true, 2), (5, false, 4), (5, false, 7), (5, false, 11)) AS v(func, enter, ts);

-- per-thread tries merge into one, calls and times summed
INSERT INTO profile (name, format, weight_unit) VALUES ('traced', 'test', 'nanoseconds')
RETURNING id AS traced \gset
INSERT INTO event (profile_id, thread, ts, func_id, enter, seq)
SELECT :traced, thread, ts, intern_func(name), enter, seq
  FROM (VALUES ('t1', 0, 'main', true, 1), ('t1', 100, 'work', true, 2), ('t1', 300, 'work', false, 3),
               ('t1', 400, 'main', false, 4),
               ('t2', 50, 'main', true, 1), ('t2', 60, 'work', true, 2), ('t2', 90, 'io', true, 3),
               ('t2', 190, 'io', false, 4), ('t2', 200, 'work', false, 5), ('t2', 250, 'main', false, 6))
       AS v(thread, ts, name, enter, seq);
CREATE TEMP TABLE per_thread AS
SELECT thread, trace_agg(func_id, enter, ts ORDER BY ts, seq) AS tree
  FROM event WHERE profile_id = :traced GROUP BY thread;
SELECT thread, r.label, r.running, r.self, r.calls
  FROM per_thread, report(tree) AS r ORDER BY thread, r.node;
SELECT r.label, r.running, r.self, r.calls
  FROM report((SELECT calltree_merge(tree) FROM per_thread)) AS r ORDER BY r.node;

-- errors: time going backwards names the event; nulls are refused
SELECT trace_agg(func, enter, ts)
  FROM (VALUES (1, true, 10), (2, true, 20), (2, false, 15)) AS v(func, enter, ts);
SELECT trace_agg(func, enter, ts ORDER BY ts)
  FROM (VALUES (1, true, 10), (NULL, false, 20)) AS v(func, enter, ts);
-- no events, or only exits: NULL
SELECT trace_agg(1, true, 0) IS NULL AS no_events FROM (SELECT 1 WHERE false) AS x;

-- latency: per CallNode, the distribution of its calls' running time.
-- f3's calls in the example last 20 and 40; f2's one call 150.
SELECT node, func, calls, min, max, mean, p50, p90, p99
  FROM latency((SELECT trace_agg(func, enter, ts ORDER BY ts, seq) FROM seed_events));

-- 1,000 calls of g lasting 1..1000 ns (one after another), and one call of
-- h lasting 1,000,000: the exact quantiles of g are 500, 900 and 990, and
-- the histogram's are within 1% of them
CREATE TEMP TABLE many_calls AS
SELECT trace_agg(func, enter, ts ORDER BY ts, seq) AS tree
  FROM (SELECT 7 AS func, true AS enter, sum(d) OVER (ORDER BY d) - d AS ts, 2 * d AS seq
          FROM generate_series(1, 1000) AS d
        UNION ALL
        SELECT 7, false, sum(d) OVER (ORDER BY d), 2 * d + 1 FROM generate_series(1, 1000) AS d
        UNION ALL
        SELECT 8, true, 1000000000, 1 UNION ALL SELECT 8, false, 1001000000, 2) AS events;
SELECT func, calls, min, max, mean, p50, p90, p99
  FROM latency((SELECT tree FROM many_calls)) ORDER BY func;
SELECT abs(p50 - 500) <= 5 AS p50_within_1pct, abs(p90 - 900) <= 9 AS p90_within_1pct,
       abs(p99 - 990) <= 10 AS p99_within_1pct
  FROM latency((SELECT tree FROM many_calls)) WHERE func = 7;

-- histograms survive text and binary round trips, and merge
SELECT (tree::text)::calltree = tree AS text_round_trip FROM many_calls;
CREATE TEMP TABLE latency_copy (tree calltree);
INSERT INTO latency_copy SELECT tree FROM many_calls;
COPY latency_copy TO '/tmp/calltree_regress_latency.copy' WITH (FORMAT binary);
TRUNCATE latency_copy;
COPY latency_copy FROM '/tmp/calltree_regress_latency.copy' WITH (FORMAT binary);
SELECT (SELECT tree FROM latency_copy) = (SELECT tree FROM many_calls) AS binary_round_trip;
SELECT l.func, l.calls, l.min, l.max, l.p50
  FROM latency((SELECT tree + tree FROM many_calls)) AS l ORDER BY l.func;
-- the merge of the per-thread trees: main called twice (400 and 200)
SELECT l.depth, l.calls, l.min, l.max, l.mean
  FROM latency((SELECT calltree_merge(tree) FROM per_thread)) AS l ORDER BY l.node;
SELECT '{1:5/5#1@5..5[83:1]}'::calltree AS parsed;
SELECT '{1:5/5#1@5..5[9999:1]}'::calltree;
SELECT '{1:5/5#1@7..5[83:1]}'::calltree;
-- sampled trees have no latency
SELECT * FROM latency('{1:5/5}');
-- a call whose events are each 9e18 apart, but that lasts 1.8e19 in all:
-- its duration does not fit in bigint
SELECT trace_agg(func, enter, ts ORDER BY ts, seq)
  FROM (VALUES (1, true, -9000000000000000000, 1), (2, true, 0, 2),
               (2, false, 9000000000000000000, 3), (1, false, 9000000000000000000, 4)) AS v(func, enter, ts, seq);
-- 9.2e18 fits
SELECT trace_agg(func, enter, ts ORDER BY ts)
  FROM (VALUES (1, true, -4600000000000000000), (1, false, 4600000000000000000)) AS v(func, enter, ts);
