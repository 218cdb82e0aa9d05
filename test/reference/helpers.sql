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

-- A collapsed-stack profile's numbers, printed line for line like
-- test/reference/collapsed_stacks.py prints them after its strict and lenient
-- lines (test/t_collapsed_reference.sh diffs the two): samples and total,
-- the top 10 functions by self, the top 8 CallNodes by running and by self,
-- each node as the ';'-joined names of its path.
CREATE FUNCTION pg_temp.collapsed_summary(profile bigint) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    t calltree.calltree;
BEGIN
    SELECT calltree.stack_agg(stack_id, weight) INTO t FROM calltree.sample WHERE profile_id = profile;
    RETURN QUERY
        SELECT format('  samples %s  total %s', count(*), coalesce(sum(weight), 0))
          FROM calltree.sample WHERE profile_id = profile;
    RETURN NEXT '  functions (name | self | running):';
    RETURN QUERY
        SELECT format('    %s | %s | %s', f.name, fn.self, fn.running)
          FROM calltree.functions(t) AS fn JOIN calltree.func AS f ON f.id = fn.func
         ORDER BY fn.self DESC, fn.running DESC, f.name COLLATE "C"
         LIMIT 10;
    CREATE TEMP TABLE IF NOT EXISTS collapsed_nodes (names text, running bigint, self bigint);
    TRUNCATE collapsed_nodes;
    INSERT INTO collapsed_nodes
        SELECT p.names, n.running, n.self
          FROM calltree.nodes(t) AS n
         CROSS JOIN LATERAL (SELECT string_agg(pf.name, ';' ORDER BY u.ord) AS names
                               FROM unnest(n.path) WITH ORDINALITY AS u(id, ord)
                               JOIN calltree.func AS pf ON pf.id = u.id) AS p;
    RETURN NEXT '  nodes by running (path | running | self):';
    RETURN QUERY
        SELECT format('    %s | %s | %s', names, running, self) FROM collapsed_nodes
         ORDER BY running DESC, self DESC, names COLLATE "C" LIMIT 8;
    RETURN NEXT '  nodes by self (path | running | self):';
    RETURN QUERY
        SELECT format('    %s | %s | %s', names, running, self) FROM collapsed_nodes
         ORDER BY self DESC, running DESC, names COLLATE "C" LIMIT 8;
END
$$;

-- Imports every cut of data at k/50 of its length (k = 1..49; at least one
-- character) with importer, for the line formats, where a cut at the end of a line is a valid file.
-- Each cut either imports, with one sample per line that is not blank, or
-- fails with an error '<format_name> at line N' naming the line it was cut
-- in, the last.  Imports are undone.  Reports the counts, the SQLSTATEs seen
-- and one message.
CREATE FUNCTION pg_temp.line_cuts(importer text, format_name text, data text)
RETURNS TABLE (cuts int, imported int, all_lines int, errors int, last_line int, sqlstates text,
               sample_message text)
LANGUAGE plpgsql AS $$
DECLARE
    cut text;
    id bigint;
    lines bigint;
    states text[] := '{}';
BEGIN
    cuts := 0; imported := 0; all_lines := 0; errors := 0; last_line := 0;
    FOR k IN 1..49 LOOP
        cut := left(data, greatest(1, length(data) * k / 50));
        cuts := cuts + 1;
        BEGIN
            EXECUTE format('SELECT calltree.%I($1)', importer) INTO id USING cut;
            SELECT count(*) INTO lines FROM regexp_split_to_table(cut, E'\n') AS l WHERE l !~ '^\s*$';
            IF (SELECT count(*) FROM calltree.sample WHERE profile_id = id) = lines THEN
                all_lines := all_lines + 1;
            END IF;
            RAISE EXCEPTION 'imported' USING ERRCODE = 'CTOK0';
        EXCEPTION WHEN SQLSTATE 'CTOK0' THEN
            imported := imported + 1;
        WHEN others THEN
            errors := errors + 1;
            IF SQLERRM = format('%s at line %s', format_name,
                                length(cut) - length(replace(cut, E'\n', '')) + 1) THEN
                last_line := last_line + 1;
            ELSE
                RAISE NOTICE 'cut at %: %', length(cut), SQLERRM;
            END IF;
            IF NOT SQLSTATE = ANY (states) THEN
                states := states || SQLSTATE;
            END IF;
            sample_message := coalesce(sample_message, SQLERRM);
        END;
    END LOOP;
    sqlstates := array_to_string(states, ',');
    RETURN NEXT;
END
$$;

-- Flips bits of one byte of data at k/50 of its length (k = 1..49; 0x01,
-- 0x20, 0x80 in turn) and imports the bytes with import_profile: each either
-- imports or fails with an error; never a crash.  Imports are undone.
-- Reports the counts and, per SQLSTATE and first three words of the
-- message, how many errors.
CREATE FUNCTION pg_temp.byte_flips(data bytea)
RETURNS TABLE (flips int, imported int, errors int, messages text)
LANGUAGE plpgsql AS $$
DECLARE
    pos int;
    masks int[] := ARRAY[1, 32, 128];
    seen text[] := '{}';
BEGIN
    flips := 0; imported := 0; errors := 0;
    FOR k IN 1..49 LOOP
        pos := length(data) * k / 50;
        flips := flips + 1;
        BEGIN
            PERFORM calltree.import_profile(set_byte(data, pos, get_byte(data, pos) # masks[1 + k % 3]));
            RAISE EXCEPTION 'imported' USING ERRCODE = 'CTOK0';
        EXCEPTION WHEN SQLSTATE 'CTOK0' THEN
            imported := imported + 1;
        WHEN others THEN
            errors := errors + 1;
            seen := seen || (SQLSTATE || ' ' || substring(SQLERRM FROM '^(\S+ \S+ \S+)'));
        END;
    END LOOP;
    SELECT string_agg(format('%s: %s', m, n), '; ' ORDER BY m) INTO messages
      FROM (SELECT m, count(*) AS n FROM unnest(seen) AS m GROUP BY m) AS c;
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
