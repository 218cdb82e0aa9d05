-- import_trace_events: Chrome trace-event JSON into calltree.event, then
-- trace_agg.  Files from speedscope's samples (../shared/data).
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
  SELECT calltree.import_trace_events(pg_read_file(file), name => regexp_replace(file, '^.*/', ''))
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

-- every file of the folder imports (notices come in directory order: quiet)
SET client_min_messages = warning;
SELECT count(*) AS files, bool_and(id IS NOT NULL) AS all_imported
  FROM pg_ls_dir(:'trace_dir') AS f, LATERAL (SELECT pg_temp.load(:'trace_dir' || f) AS id) AS x
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
