-- import_pprof: real Go profiles, checked against `go tool pprof` (Debian
-- golang-go, Go 1.19), and hand-made profiles for labels, inlining,
-- mappings and malformed data.
--
-- The reference numbers come from these commands (F the file):
--   go tool pprof -symbolize=none -top -nodecount=40 -sample_index=cpu F    flat = self, cum = running
--   go tool pprof -symbolize=none -raw F                                     sample count, time
--   go tool pprof -symbolize=none -traces -sample_index=samples F | python3 test/pprof_trace_paths.py 40
--                                                                            running weight of node paths
-- The files are read from ../shared beside the repository; the runner
-- exports its absolute path as CALLTREE_SHARED.
SET search_path = calltree, public;
\getenv shared_dir CALLTREE_SHARED
\set sample_cpu :shared_dir '/data/pprof/sample.cpu'
\set simple_prof :shared_dir '/data/speedscope-samples/pprof/simple.prof'

-- Names of a func path, for readable node paths
CREATE FUNCTION pg_temp.names(path int4[]) RETURNS text
LANGUAGE sql STABLE
AS $$ SELECT string_agg(f.name, ' > ' ORDER BY p.i) FROM unnest(path) WITH ORDINALITY AS p(func, i) JOIN calltree.func f ON f.id = p.func $$;

-- The tree of a profile
CREATE FUNCTION pg_temp.tree(profile bigint) RETURNS calltree
LANGUAGE sql STABLE
AS $$ SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = profile $$;

SELECT count(*) AS profiles_before FROM profile \gset

------------------------------------------------------------------------
-- sample.cpu (google/pprof internal/report/testdata): gzip, sample types
-- samples/count and cpu/nanoseconds, no default: the last one, cpu.
------------------------------------------------------------------------
SELECT import_pprof(pg_read_binary_file(:'sample_cpu'), name => 'sample.cpu',
                    meta => '{"service": "busyloop"}') AS cpu \gset
-- -raw: "Time: 2017-09-29 20:57:59.25723537 +0000 UTC"; 76 sample lines
SELECT name, format, weight_unit, started_at AT TIME ZONE 'UTC' AS started_at_utc, meta
  FROM profile WHERE id = :cpu;
SELECT count(*) AS samples FROM sample WHERE profile_id = :cpu;
-- -top: "Total samples = 1.76s"
SELECT total(pg_temp.tree(:cpu));
-- -top -nodecount=14 -sample_index=cpu, every function (flat, cum):
--  1.28s 1.37s runtime.mapiternext          0.15s 1.76s main.busyLoop
--  0.11s 0.11s math.Abs (inline)             0.06s 0.07s runtime.evacuate
--  0.04s 0.04s runtime.add (inline)          0.04s 0.13s runtime.mapassign_fast64
--  0.03s 0.04s runtime.(*bmap).overflow      0.02s 0.02s runtime.(*hmap).growing
--  0.02s 0.02s runtime.memmove               0.01s 0.01s runtime.tooManyOverflowBuckets
--  0 1.76s main.main   0 0.07s runtime.growWork   0 1.76s runtime.main   0 0.02s runtime.typedmemmove
SELECT f.name, fn.self, fn.running
  FROM functions(pg_temp.tree(:cpu)) fn JOIN func f ON f.id = fn.func
 ORDER BY fn.running DESC, fn.self DESC, f.name;
-- the same by sample count: -top -sample_index=samples gives 128 / 137 for
-- runtime.mapiternext and 15 / 176 for main.busyLoop
SELECT import_pprof(pg_read_binary_file(:'sample_cpu'), 'samples') AS cpu_count \gset
SELECT weight_unit FROM profile WHERE id = :cpu_count;
-- the sample type's name is kept in meta, so a query can tell them apart
-- (asked for: no NOTICE); a sample_type key of the caller's meta is the caller's
SELECT id = :cpu_count AS by_count, meta->>'sample_type' AS sample_type, weight_unit
  FROM profile WHERE id IN (:cpu, :cpu_count) ORDER BY id;
SELECT import_pprof(pg_read_binary_file(:'sample_cpu'), 'cpu', meta => '{"sample_type": "mine"}') AS mine \gset
SELECT meta FROM profile WHERE id = :mine;
DELETE FROM profile WHERE id = :mine;
SELECT total(pg_temp.tree(:cpu_count));
SELECT f.name, fn.self, fn.running
  FROM functions(pg_temp.tree(:cpu_count)) fn JOIN func f ON f.id = fn.func
 WHERE f.name IN ('runtime.mapiternext', 'main.busyLoop')
 ORDER BY f.name;
-- node paths, in samples (-traces -sample_index=samples, summed per path prefix):
--  176 runtime.main > main.main > main.busyLoop
--  137 ... > main.busyLoop > runtime.mapiternext
--   13 ... > main.busyLoop > runtime.mapassign_fast64
--    7 ... > runtime.mapassign_fast64 > runtime.growWork > runtime.evacuate
--    4 ... > runtime.mapiternext > runtime.(*bmap).overflow
--    1 ... > runtime.mapassign_fast64 > runtime.tooManyOverflowBuckets
SELECT pg_temp.names(path) AS node_path, running, self
  FROM nodes(pg_temp.tree(:cpu_count))
 WHERE pg_temp.names(path) IN (
       'runtime.main > main.main > main.busyLoop',
       'runtime.main > main.main > main.busyLoop > runtime.mapiternext',
       'runtime.main > main.main > main.busyLoop > runtime.mapassign_fast64',
       'runtime.main > main.main > main.busyLoop > runtime.mapassign_fast64 > runtime.growWork > runtime.evacuate',
       'runtime.main > main.main > main.busyLoop > runtime.mapiternext > runtime.(*bmap).overflow',
       'runtime.main > main.main > main.busyLoop > runtime.mapassign_fast64 > runtime.tooManyOverflowBuckets')
 ORDER BY running DESC, node_path;
-- Location 44 (-raw) holds three lines at 0x409a3e: runtime.add stubs.go:15
-- inlined into runtime.(*bmap).overflow hashmap.go:177 inlined into
-- runtime.mapiternext hashmap.go:906.  Three frames, outermost first on the stack.
SELECT pg_temp.names(stack_path(s.stack_id)) AS stack, s.weight
  FROM sample s JOIN stack st ON st.id = s.stack_id JOIN frame fr ON fr.id = st.frame_id
 WHERE s.profile_id = :cpu AND fr.address = x'409a3e'::bigint;
SELECT f.name, fr.line, to_hex(fr.address) AS address, f.file
  FROM frame fr JOIN func f ON f.id = fr.func_id
 WHERE fr.address = x'409a3e'::bigint ORDER BY fr.line;
-- the resource is the mapping's filename (no build id in this file)
SELECT DISTINCT f.resource
  FROM sample s, unnest(stack_path(s.stack_id)) AS p(func) JOIN func f ON f.id = p.func
 WHERE s.profile_id = :cpu;

------------------------------------------------------------------------
-- simple.prof (speedscope's sample programs): a mapping without a file name
------------------------------------------------------------------------
SELECT import_pprof(pg_read_binary_file(:'simple_prof')) AS simple \gset
-- -raw: "Time: 2018-09-16 20:47:43.468834518 +0000 UTC", 9 samples
SELECT weight_unit, started_at AT TIME ZONE 'UTC' AS started_at_utc,
       (SELECT count(*) FROM sample WHERE profile_id = :simple) AS samples
  FROM profile WHERE id = :simple;
-- -top: "Total samples = 1.50s"; (flat, cum) 0.48s 0.48s main.alpha,
-- 0.39s 0.39s main.beta, 0.27s 0.27s main.gamma, 0.22s 0.58s main.delta,
-- 0.11s 0.11s runtime.duffcopy, 0 1.36s main.main, 0 1.36s runtime.main,
-- 0 0.11s runtime.morestack, 0.02s 0.02s runtime.usleep, 0 0.02s runtime.mstart
SELECT total(pg_temp.tree(:simple));
SELECT f.name, fn.self, fn.running, f.resource
  FROM functions(pg_temp.tree(:simple)) fn JOIN func f ON f.id = fn.func
 WHERE fn.running >= 20000000
 ORDER BY fn.running DESC, fn.self DESC, f.name;
-- node paths (-traces, in ms): 580 runtime.main > main.main > main.delta,
-- 220 ... > main.delta > main.alpha, 140 ... > main.delta > main.beta,
-- 250 runtime.main > main.main > main.beta, 110 runtime.morestack > runtime.newstack > runtime.duffcopy
SELECT pg_temp.names(path) AS node_path, running, self
  FROM nodes(pg_temp.tree(:simple))
 WHERE pg_temp.names(path) IN (
       'runtime.main > main.main > main.delta',
       'runtime.main > main.main > main.delta > main.alpha',
       'runtime.main > main.main > main.delta > main.beta',
       'runtime.main > main.main > main.beta',
       'runtime.morestack > runtime.newstack > runtime.duffcopy')
 ORDER BY running DESC, node_path;

-- an unknown sample type lists the available ones
SELECT import_pprof(pg_read_binary_file(:'simple_prof'), 'alloc_space');

------------------------------------------------------------------------
-- Hand-made profiles, written with a few protobuf helpers
------------------------------------------------------------------------
\ir test/reference/protobuf.sql
-- a string field
CREATE FUNCTION pg_temp.s(field int, body text) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$ SELECT pg_temp.m(field, convert_to(body, 'UTF8')) $$;
-- a string table from an array, "" first
CREATE FUNCTION pg_temp.strings(vals text[]) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg(pg_temp.s(6, x), ''::bytea ORDER BY i) FROM unnest(vals) WITH ORDINALITY AS u(x, i)
$$;

-- Strings: 0 "", 1 cpu, 2 nanoseconds, 3 samples, 4 count, 5 main, 6 x.go,
-- 7 leaf, 8 inl, 9 lib.so, 10 abc123, 11 handler, 12 /api, 13 /web,
-- 14 bytes, 15 n, 16 ünïcode
SELECT
    -- sample types cpu/nanoseconds, samples/count; the default is cpu (not the last)
    pg_temp.m(1, pg_temp.v(1, 1) || pg_temp.v(2, 2)) ||
    pg_temp.m(1, pg_temp.v(1, 3) || pg_temp.v(2, 4)) ||
    pg_temp.v(14, 1) ||
    -- 2017-07-14 02:40:00.123456789 UTC
    pg_temp.v(9, 1500000000123456789) ||
    -- mapping 1: lib.so with build id abc123
    pg_temp.m(3, pg_temp.v(1, 1) || pg_temp.v(5, 9) || pg_temp.v(6, 10)) ||
    -- functions: 1 main (x.go), 2 leaf, 3 inl, 4 ünïcode
    pg_temp.m(5, pg_temp.v(1, 1) || pg_temp.v(2, 5) || pg_temp.v(4, 6)) ||
    pg_temp.m(5, pg_temp.v(1, 2) || pg_temp.v(2, 7)) ||
    pg_temp.m(5, pg_temp.v(1, 3) || pg_temp.v(2, 8)) ||
    pg_temp.m(5, pg_temp.v(1, 4) || pg_temp.v(3, 16)) ||
    -- locations: 1 main:10 at 0x1000; 2 at 0x2000, inl:5 inlined into leaf:20,
    -- column 7; 3 at 0x3000 without lines (unsymbolized), no mapping;
    -- 4 ünïcode (system name only), id 1000
    pg_temp.m(4, pg_temp.v(1, 1) || pg_temp.v(2, 1) || pg_temp.v(3, 4096) ||
                 pg_temp.m(4, pg_temp.v(1, 1) || pg_temp.v(2, 10))) ||
    pg_temp.m(4, pg_temp.v(1, 2) || pg_temp.v(2, 1) || pg_temp.v(3, 8192) ||
                 pg_temp.m(4, pg_temp.v(1, 3) || pg_temp.v(2, 5) || pg_temp.v(3, 7)) ||
                 pg_temp.m(4, pg_temp.v(1, 2) || pg_temp.v(2, 20))) ||
    pg_temp.m(4, pg_temp.v(1, 3) || pg_temp.v(3, 12288)) ||
    pg_temp.m(4, pg_temp.v(1, 1000) || pg_temp.m(4, pg_temp.v(1, 4))) ||
    -- samples (locations leaf first):
    --  a: leaf/inl < main, 100 ns, handler=/api, bytes=1024 bytes
    pg_temp.m(2, pg_temp.packed(1, '{2,1}') || pg_temp.packed(2, '{100,1}') ||
                 pg_temp.m(3, pg_temp.v(1, 11) || pg_temp.v(2, 12)) ||
                 pg_temp.m(3, pg_temp.v(1, 14) || pg_temp.v(3, 1024) || pg_temp.v(4, 14))) ||
    --  b: main, 0 ns, handler=/web and handler=/api, n=7 (no unit)
    pg_temp.m(2, pg_temp.packed(1, '{1}') || pg_temp.packed(2, '{0,1}') ||
                 pg_temp.m(3, pg_temp.v(1, 11) || pg_temp.v(2, 13)) ||
                 pg_temp.m(3, pg_temp.v(1, 15) || pg_temp.v(3, 7)) ||
                 pg_temp.m(3, pg_temp.v(1, 11) || pg_temp.v(2, 12))) ||
    --  c: 0x3000 < main, 50 ns, unpacked fields, the same labels as a
    pg_temp.m(2, pg_temp.v(1, 3) || pg_temp.v(1, 1) || pg_temp.v(2, 50) || pg_temp.v(2, 2) ||
                 pg_temp.m(3, pg_temp.v(1, 14) || pg_temp.v(3, 1024) || pg_temp.v(4, 14)) ||
                 pg_temp.m(3, pg_temp.v(1, 11) || pg_temp.v(2, 12))) ||
    --  d: ünïcode < main, 30 ns, a negative value for samples
    pg_temp.m(2, pg_temp.packed(1, '{1000,1}') || pg_temp.packed(2, '{30,-1}')) ||
    --  e: no locations, 5 ns: skipped
    pg_temp.m(2, pg_temp.packed(2, '{5,1}')) ||
    -- an unknown field (99) of each wire type is skipped
    pg_temp.v(99, 1) || pg_temp.m(99, '\xdeadbeef') ||
    pg_temp.varint(99 * 8 + 1) || '\x0102030405060708'::bytea ||
    pg_temp.varint(99 * 8 + 5) || '\x01020304'::bytea ||
    pg_temp.strings('{"",cpu,nanoseconds,samples,count,main,x.go,leaf,inl,lib.so,abc123,handler,/api,/web,bytes,n,ünïcode}')
    AS handmade \gset

SELECT import_pprof(:'handmade', name => 'handmade') AS hm \gset
SELECT name, weight_unit, started_at AT TIME ZONE 'UTC' AS started_at_utc FROM profile WHERE id = :hm;
SELECT pg_temp.names(stack_path(s.stack_id)) AS stack, s.weight, l.labels
  FROM sample s LEFT JOIN labels l ON l.id = s.labels_id
 WHERE s.profile_id = :hm ORDER BY s.weight DESC;
-- labels are interned: a and c share one label set
SELECT count(DISTINCT labels_id) AS label_sets FROM sample WHERE profile_id = :hm;
SELECT sum(s.weight) AS api_weight
  FROM sample s JOIN labels l ON l.id = s.labels_id
 WHERE s.profile_id = :hm AND l.labels->>'handler' = '/api';
SELECT sum(s.weight) AS big_weight
  FROM sample s JOIN labels l ON l.id = s.labels_id
 WHERE s.profile_id = :hm AND (l.labels->'bytes'->>'num')::int >= 1024;
-- funcs: name, file, resource = mapping file (build id); frames keep address, line, column
WITH RECURSIVE stacks AS (
    SELECT stack_id AS id FROM sample WHERE profile_id = :hm
    UNION
    SELECT st.prefix_id FROM stack st JOIN stacks ON st.id = stacks.id WHERE st.prefix_id IS NOT NULL)
SELECT f.name, f.file, f.resource, to_hex(fr.address) AS address, fr.line, fr.col
  FROM frame fr JOIN func f ON f.id = fr.func_id
 WHERE fr.id IN (SELECT frame_id FROM stack WHERE id IN (SELECT id FROM stacks))
 ORDER BY fr.address, fr.line;
-- the other sample type, by name
SELECT import_pprof(:'handmade', 'samples') AS hm_count \gset
SELECT weight_unit, (SELECT sum(weight) FROM sample WHERE profile_id = :hm_count) AS total
  FROM profile WHERE id = :hm_count;

------------------------------------------------------------------------
-- Malformed data: each an error naming pprof and the byte offset
------------------------------------------------------------------------
\set VERBOSITY default
\set types '(pg_temp.m(1, pg_temp.v(1, 1) || pg_temp.v(2, 2)))'
\set strs '(pg_temp.strings(''{"",cpu,nanoseconds,f}''))'
\set fn '(pg_temp.m(5, pg_temp.v(1, 1) || pg_temp.v(2, 3)))'
\set loc '(pg_temp.m(4, pg_temp.v(1, 1) || pg_temp.m(4, pg_temp.v(1, 1))))'
-- the minimal valid profile these are variations of
SELECT import_pprof(:types || :fn || :loc || pg_temp.m(2, pg_temp.v(1, 1) || pg_temp.v(2, 9)) || :strs) AS minimal \gset
SELECT total(pg_temp.tree(:minimal)), (SELECT name FROM func WHERE id = (stack_path(stack_id))[1]) AS func
  FROM sample WHERE profile_id = :minimal;
-- a sample refers to an unknown location
SELECT import_pprof(:types || :fn || :loc || pg_temp.m(2, pg_temp.v(1, 9) || pg_temp.v(2, 9)) || :strs);
-- the same where ids are not 1, 2, 3... (looked up by a hash, not by place):
-- locations 1 and 1000, a sample at 999; functions 1 and 50, a location at 7
SELECT import_pprof(:types || :fn || :loc || pg_temp.m(4, pg_temp.v(1, 1000) || pg_temp.m(4, pg_temp.v(1, 1))) || pg_temp.m(2, pg_temp.v(1, 999) || pg_temp.v(2, 9)) || :strs);
SELECT import_pprof(:types || :fn || pg_temp.m(5, pg_temp.v(1, 50) || pg_temp.v(2, 3)) || pg_temp.m(4, pg_temp.v(1, 1) || pg_temp.m(4, pg_temp.v(1, 7))) || pg_temp.m(2, pg_temp.v(1, 1) || pg_temp.v(2, 9)) || :strs);
-- a location refers to an unknown function, and to an unknown mapping
SELECT import_pprof(:types || pg_temp.m(4, pg_temp.v(1, 1) || pg_temp.m(4, pg_temp.v(1, 5))) || pg_temp.m(2, pg_temp.v(1, 1) || pg_temp.v(2, 9)) || :strs);
SELECT import_pprof(:types || :fn || pg_temp.m(4, pg_temp.v(1, 1) || pg_temp.v(2, 3)) || pg_temp.m(2, pg_temp.v(1, 1) || pg_temp.v(2, 9)) || :strs);
-- a string index beyond the string table
SELECT import_pprof(:types || pg_temp.m(5, pg_temp.v(1, 1) || pg_temp.v(2, 99)) || :loc || pg_temp.m(2, pg_temp.v(1, 1) || pg_temp.v(2, 9)) || :strs);
-- the wrong wire type for a known field: sample_type as a varint, Function.name as bytes
SELECT import_pprof(pg_temp.v(1, 1) || :strs);
SELECT import_pprof(:types || pg_temp.m(5, pg_temp.v(1, 1) || pg_temp.s(2, 'f')) || :strs);
-- a varint of 11 bytes; a length beyond the end; a truncated 64-bit value; a group
SELECT import_pprof(:types || '\x48ffffffffffffffffffff01'::bytea || :strs);
SELECT import_pprof(:types || '\x1264'::bytea || :strs);
SELECT import_pprof(:types || :strs || '\x990601020304'::bytea);
SELECT import_pprof(:types || '\x1b'::bytea || :strs);
-- a sample with more values than sample types
SELECT import_pprof(:types || :fn || :loc || pg_temp.m(2, pg_temp.v(1, 1) || pg_temp.packed(2, '{1,2}')) || :strs);
-- two locations with one id; a function with id 0
SELECT import_pprof(:types || :fn || :loc || :loc || :strs);
SELECT import_pprof(:types || pg_temp.m(5, pg_temp.v(2, 3)) || :strs);
-- a string that is not UTF-8, and one holding a NUL byte
SELECT import_pprof(:types || :fn || :loc || pg_temp.m(2, pg_temp.v(1, 1) || pg_temp.v(2, 9)) || pg_temp.strings('{"",cpu,nanoseconds}') || pg_temp.m(6, '\xff41'));
SELECT import_pprof(:types || :fn || :loc || pg_temp.m(2, pg_temp.v(1, 1) || pg_temp.v(2, 9)) || pg_temp.strings('{"",cpu,nanoseconds}') || pg_temp.m(6, '\x4100'));
-- the first string is not ""
SELECT import_pprof(:types || pg_temp.strings('{x,cpu,nanoseconds}'));
-- no sample types; empty input; NULL
SELECT import_pprof(:strs);
SELECT import_pprof('\x'::bytea);
SELECT import_pprof(NULL) IS NULL AS null_in_null_out;
-- gzip: a bad CRC (one flipped bit of "hello pprof hello pprof"), trailing
-- garbage after a valid stream of "abc", a gzip header alone
SELECT import_pprof('\x1f8b0800000000000203cb488dc9c957282828ca4f53c840b00172d2f9c117000000'::bytea);
SELECT import_pprof('\x1f8b08000000000000034b4c4a0600c241243503000000ffff'::bytea);
SELECT import_pprof('\x1f8b'::bytea);
-- a valid gzip stream of bytes that are not a profile ("abc": 'a' is field 12, period, with wire type 1)
SELECT import_pprof('\x1f8b08000000000000034b4c4a0600c241243503000000'::bytea);

------------------------------------------------------------------------
-- Every 1/50th truncation of sample.cpu (gzip and raw), bit flips, a
-- random blob: each an error, none leaves rows behind.
------------------------------------------------------------------------
-- the raw protobuf: gunzip into the data directory, read it back
\set gunzip 'gzip -dc ''' :sample_cpu ''' > pprof_sample_cpu.pb'
COPY (SELECT 1 WHERE false) TO PROGRAM :'gunzip';
SELECT pg_read_binary_file('pprof_sample_cpu.pb') AS raw_cpu \gset
COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -f pprof_sample_cpu.pb';
SELECT length(:'raw_cpu'::bytea) AS raw_bytes;  -- MANIFEST.txt: 3843 bytes raw
SELECT set_config('pprof_test.sample_cpu', :'sample_cpu', false) IS NOT NULL AS set,
       set_config('pprof_test.raw_cpu', substr(:'raw_cpu', 3), false) IS NOT NULL AS set;

SELECT count(*) AS profiles_before_bad FROM profile \gset
CREATE TEMP TABLE bad_input (kind text, n int, bytes int, sqlstate text, message text);
CREATE FUNCTION pg_temp.try_import(kind text, n int, data bytea) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM calltree.import_pprof(data);
    INSERT INTO bad_input VALUES (kind, n, length(data), 'ok', 'imported');
EXCEPTION WHEN OTHERS THEN
    INSERT INTO bad_input VALUES (kind, n, length(data), SQLSTATE, SQLERRM);
END
$$;
CREATE FUNCTION pg_temp.flip(data bytea, byteno int, bitno int) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$ SELECT set_bit(data, byteno * 8 + bitno, 1 - get_bit(data, byteno * 8 + bitno)) $$;

DO $$
DECLARE
    gz bytea := pg_read_binary_file(current_setting('pprof_test.sample_cpu'));
    raw bytea := decode(current_setting('pprof_test.raw_cpu'), 'hex');
    flip record;
BEGIN
    FOR k IN 1 .. 49 LOOP
        PERFORM pg_temp.try_import('gzip cut', k, substr(gz, 1, length(gz) * k / 50));
        PERFORM pg_temp.try_import('raw cut', k, substr(raw, 1, length(raw) * k / 50));
    END LOOP;
    -- flips in the deflate data, the CRC-32 and the length of the gzip trailer
    FOR flip IN SELECT * FROM unnest(ARRAY[12, 100, 900, 1826, 1833]) AS b LOOP
        PERFORM pg_temp.try_import('gzip flip', flip.b, pg_temp.flip(gz, flip.b, 3));
    END LOOP;
    -- flips in the raw protobuf: tags, lengths and string indices
    FOR flip IN SELECT * FROM (VALUES (0, 0), (1, 6), (0, 2), (83, 4)) AS v(b, bitno) LOOP
        PERFORM pg_temp.try_import('raw flip', flip.b * 8 + flip.bitno, pg_temp.flip(raw, flip.b, flip.bitno));
    END LOOP;
    -- 4 KB of pseudo-random bytes
    PERFORM pg_temp.try_import('random blob', 4096,
        (SELECT string_agg(sha256(int4send(i)), ''::bytea ORDER BY i) FROM generate_series(1, 128) i));
END
$$;
SELECT kind, n, bytes, sqlstate, message FROM bad_input ORDER BY kind, n;
SELECT kind, count(*) AS tries, count(*) FILTER (WHERE sqlstate IN ('22P03', 'XX001')) AS clean_errors
  FROM bad_input GROUP BY kind ORDER BY kind;

-- nothing is left behind by the failed imports; six imports above succeeded
SELECT count(*) - :profiles_before_bad AS new_profiles_from_bad_input,
       count(*) - :profiles_before AS new_profiles FROM profile;
SELECT count(*) AS orphan_samples FROM sample s WHERE NOT EXISTS (SELECT FROM profile p WHERE p.id = s.profile_id);
