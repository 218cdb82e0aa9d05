-- Helpers for sql/import_cpuprofile.sql and sql/import_speedscope.sql,
-- included with \ir (psql reads the tests from stdin, so the path is from
-- the repository root).  They live in pg_temp and vanish with the session.

-- A profile's numbers, printed line for line like test/reference/json_profiles.py
-- prints them, so the two can be compared with diff (test/t_json_reference.sh does).
CREATE FUNCTION pg_temp.summary(profile bigint) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    t calltree.calltree;
BEGIN
    SELECT calltree.stack_agg(stack_id, weight) INTO t FROM calltree.sample WHERE profile_id = profile;
    RETURN QUERY
        SELECT format('  samples %s  total %s  sum(ts) %s', count(*), coalesce(sum(weight), 0),
                      coalesce(sum(ts)::text, 'None'))
          FROM calltree.sample WHERE profile_id = profile;
    RETURN QUERY
        SELECT format('  thread %s: samples %s total %s', coalesce(thread, 'None'), count(*), sum(weight))
          FROM calltree.sample WHERE profile_id = profile
         GROUP BY thread ORDER BY coalesce(thread, 'None') COLLATE "C";
    RETURN NEXT '  functions (name | file | self | running):';
    RETURN QUERY
        SELECT format('    %s | %s | %s | %s', f.name, coalesce(f.file, ''), fn.self, fn.running)
          FROM calltree.functions(t) AS fn JOIN calltree.func AS f ON f.id = fn.func
         ORDER BY fn.self DESC, fn.running DESC, f.name COLLATE "C", coalesce(f.file, '') COLLATE "C"
         LIMIT 5;
    RETURN NEXT '  nodes (depth | leaf | md5 of path names | running | self):';
    RETURN QUERY
        SELECT format('    %s | %s | %s | %s | %s', n.depth + 1, f.name, md5(names), n.running, n.self)
          FROM calltree.nodes(t) AS n
          JOIN calltree.func AS f ON f.id = n.func
         CROSS JOIN LATERAL (SELECT string_agg(pf.name, ';' ORDER BY u.ord) AS names
                               FROM unnest(n.path) WITH ORDINALITY AS u(id, ord)
                               JOIN calltree.func AS pf ON pf.id = u.id) AS p
         ORDER BY n.self DESC, n.running DESC, names COLLATE "C"
         LIMIT 5;
END
$$;

-- Imports every cut of data at k/50 of its length (k = 1..49) with importer;
-- each must fail.  Reports how many failed, how many of those errors name
-- the format and a byte offset, the SQLSTATEs seen, and one message.
CREATE FUNCTION pg_temp.truncations(importer text, format_name text, data text)
RETURNS TABLE (cuts int, errors int, named int, sqlstates text, sample_message text)
LANGUAGE plpgsql AS $$
DECLARE
    cut text;
    states text[] := '{}';
BEGIN
    cuts := 0; errors := 0; named := 0;
    FOR k IN 1..49 LOOP
        cut := left(data, length(data) * k / 50);
        cuts := cuts + 1;
        BEGIN
            EXECUTE format('SELECT calltree.%I($1)', importer) USING cut;
        EXCEPTION WHEN others THEN
            errors := errors + 1;
            IF SQLERRM ~ ('^invalid ' || format_name || ' file: .* at byte offset [0-9]+') THEN
                named := named + 1;
            END IF;
            IF NOT SQLSTATE = ANY (states) THEN
                states := states || SQLSTATE;
            END IF;
            IF k = 25 THEN
                sample_message := SQLERRM;
            END IF;
        END;
    END LOOP;
    sqlstates := array_to_string(states, ',');
    RETURN NEXT;
END
$$;

-- The error an import raises, as text (primary message and detail), or 'ok'
CREATE FUNCTION pg_temp.try(importer text, data text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    msg text;
    detail text;
BEGIN
    EXECUTE format('SELECT calltree.%I($1)', importer) USING data;
    RETURN 'ok';
EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
    RETURN msg || coalesce(' / ' || nullif(detail, ''), '');
END
$$;

-- Overwrites one character of data at k/50 of its length (k = 1..49) with
-- one of a few troublemakers (a digit, a quote, a bracket, a minus, a
-- letter): the import either succeeds or fails with an error that names
-- the format; it never crashes.
CREATE FUNCTION pg_temp.corruptions(importer text, format_name text, data text)
RETURNS TABLE (tries int, imported int, errors int, named int)
LANGUAGE plpgsql AS $$
DECLARE
    pos int;
    bad text[] := ARRAY['9', '"', ']', '-', 'x', '{', ','];
BEGIN
    tries := 0; imported := 0; errors := 0; named := 0;
    FOR k IN 1..49 LOOP
        pos := greatest(1, length(data) * k / 50);
        tries := tries + 1;
        BEGIN
            EXECUTE format('SELECT calltree.%I($1)', importer)
              USING overlay(data PLACING bad[1 + k % 7] FROM pos FOR 1);
            -- undo the import: these profiles are not worth keeping
            RAISE EXCEPTION 'imported' USING ERRCODE = 'CTOK0';
        EXCEPTION WHEN SQLSTATE 'CTOK0' THEN
            imported := imported + 1;
        WHEN others THEN
            errors := errors + 1;
            IF SQLERRM ~ ('^(invalid )?' || format_name || ' ') THEN
                named := named + 1;
            ELSE
                RAISE NOTICE 'unnamed error at %: %', pos, SQLERRM;
            END IF;
        END;
    END LOOP;
    RETURN NEXT;
END
$$;

-- One import of data with importer, which takes bytea (import_pprof,
-- import_profile) or text (the others: data is taken as UTF-8).  Returns
-- 'ok' and the number of samples or events imported, or 'error' with the
-- SQLSTATE, message and detail.  An import that succeeds is rolled back
-- too, so a run of attempts leaves the tables as they were.
CREATE FUNCTION pg_temp.attempt(importer text, data bytea,
    OUT outcome text, OUT imported bigint, OUT state text, OUT message text, OUT detail text)
LANGUAGE plpgsql AS $$
DECLARE
    id bigint;
    binary_arg boolean := (SELECT p.proargtypes[0] = 'bytea'::regtype
                             FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
                            WHERE n.nspname = 'calltree' AND p.proname = importer);
BEGIN
    BEGIN
        EXECUTE format(CASE WHEN binary_arg THEN 'SELECT calltree.%I($1)'
                            ELSE 'SELECT calltree.%I(convert_from($1, ''UTF8''))' END, importer)
           INTO id USING data;
        SELECT (SELECT count(*) FROM calltree.sample WHERE profile_id = id)
               + (SELECT count(*) FROM calltree.event WHERE profile_id = id) INTO imported;
        RAISE EXCEPTION 'imported' USING ERRCODE = 'CTOK0';
    EXCEPTION WHEN SQLSTATE 'CTOK0' THEN
        outcome := 'ok';
    WHEN others THEN
        GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
                                detail = PG_EXCEPTION_DETAIL;
        outcome := 'error';
        imported := NULL;
    END;
END
$$;

-- data with one bit flipped, at a byte and bit drawn from md5(seed || k):
-- deterministic, so expected output is stable.  Only bits 0..6 are
-- flipped when ascii is true, so that text stays ASCII (a flipped high bit
-- is not UTF-8, which a text argument cannot even hold); a flip that would
-- make a zero byte takes the next bit instead.
CREATE FUNCTION pg_temp.flip(data bytea, seed text, k int, ascii boolean,
    OUT at int, OUT bitno int, OUT damaged bytea)
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    h bigint := ('x' || left(md5(seed || k), 12))::bit(48)::bigint;
    byte int;
BEGIN
    at := h % length(data);
    byte := get_byte(data, at);
    bitno := (h / length(data)) % CASE WHEN ascii THEN 7 ELSE 8 END;
    IF ascii AND byte # (1 << bitno) = 0 THEN
        bitno := (bitno + 1) % 7;
    END IF;
    damaged := set_byte(data, at, byte # (1 << bitno));
END
$$;

-- Every cut of data at k/50 of its length (k = 1..49), then flips bit
-- flips: one row per attempt, with where it cut or flipped.
CREATE FUNCTION pg_temp.damaged_imports(importer text, data bytea, seed text, flips int)
RETURNS TABLE (kind text, k int, at int, bitno int, outcome text, imported bigint,
               state text, message text, detail text)
LANGUAGE sql AS $$
    SELECT 'cut', k, length(data) * k / 50, NULL, a.*
      FROM generate_series(1, 49) AS k,
           LATERAL pg_temp.attempt(importer, substr(data, 1, length(data) * k / 50)) AS a
    UNION ALL
    SELECT 'flip', k, f.at, f.bitno, a.*
      FROM generate_series(1, flips) AS k,
           LATERAL pg_temp.flip(data, seed, k, importer NOT IN ('import_pprof', 'import_profile')) AS f,
           LATERAL pg_temp.attempt(importer, f.damaged) AS a
$$;
