-- import_stream(): a profile file as base64 chunks in a table, as
-- bin/calltree-load sends it.  Collapsed stacks and perf script are read a
-- line at a time across chunks, other formats whole; each import must equal
-- the import of the whole file.  Then bad chunks and bad lines.
SET search_path = calltree, public;
\getenv shared_dir CALLTREE_SHARED
\set data_dir :shared_dir '/data/'

CREATE TEMP TABLE chunks (seq bigint, chunk text);

-- fill(data, cuts): data cut at the given byte offsets, as chunks with seq
-- 10, 20, ..., inserted last first (import_stream must follow seq, not the
-- order of the rows), in base64 as encode() writes it (76-character lines).
CREATE FUNCTION pg_temp.fill(data bytea, cuts int[]) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
    bounds int[] := 0 || cuts || length(data);
BEGIN
    DELETE FROM chunks;
    INSERT INTO chunks (seq, chunk)
    SELECT 10 * i, encode(substring(data FROM bounds[i] + 1 FOR bounds[i + 1] - bounds[i]), 'base64')
      FROM generate_series(cardinality(bounds) - 1, 1, -1) AS i;
    RETURN cardinality(bounds) - 1;
END
$$;

-- cuts(total, sizes): offsets cutting `total` bytes into chunks of the sizes
-- given, in turn
CREATE FUNCTION pg_temp.cuts(total int, sizes int[]) RETURNS int[]
LANGUAGE plpgsql AS $$
DECLARE
    pos int := 0;
    result int[] := '{}';
BEGIN
    FOR i IN 0 .. total LOOP
        pos := pos + sizes[1 + i % cardinality(sizes)];
        EXIT WHEN pos >= total;
        result := result || pos;
    END LOOP;
    RETURN result;
END
$$;

-- Whether two profiles have the same samples (thread, ts, stack, weight)
-- and, so, the same tree.
CREATE FUNCTION pg_temp.same_samples(a bigint, b bigint) RETURNS boolean
LANGUAGE sql AS $$
    SELECT NOT EXISTS (
        (SELECT thread, ts, stack_id, weight, labels_id FROM calltree.sample WHERE profile_id = a
         EXCEPT ALL
         SELECT thread, ts, stack_id, weight, labels_id FROM calltree.sample WHERE profile_id = b)
        UNION ALL
        (SELECT thread, ts, stack_id, weight, labels_id FROM calltree.sample WHERE profile_id = b
         EXCEPT ALL
         SELECT thread, ts, stack_id, weight, labels_id FROM calltree.sample WHERE profile_id = a))
    AND (SELECT count(*) FROM calltree.sample WHERE profile_id = a) > 0
    AND (SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = a)
      = (SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = b)
$$;

CREATE FUNCTION pg_temp.tree(profile bigint) RETURNS calltree
LANGUAGE sql AS $$
    SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = profile
$$;

---------------------------------------------------------------------------
-- Collapsed stacks cut inside lines, inside names, inside UTF-8 characters
-- (日 and 本, 3 bytes each) and between CR and LF; a blank line, no final
-- newline.
CREATE TEMP TABLE texts (name text PRIMARY KEY, data bytea);
INSERT INTO texts VALUES ('small', convert_to(E'main;parse input;read line 5\nmain;parse input 2\n'
                                              'main;schön;日本語 3\r\n\nmain;compute;inner loop 7\n'
                                              'main;compute;inner loop 1', 'UTF8'));
\set small '(SELECT data FROM texts WHERE name = ''small'')'
SELECT pg_temp.fill(:small, '{13, 40, 61, 64, 72, 74, 110}') AS chunks;
SELECT seq, encode(decode(chunk, 'base64'), 'escape') AS piece FROM chunks ORDER BY seq;
SELECT import_stream('chunks', 'small', '{"host": "h1"}') AS streamed \gset
SELECT import_collapsed(convert_from(:small, 'UTF8'), 'small whole') AS whole \gset
SELECT name, format, meta, weight_unit FROM profile WHERE id = :streamed;
SELECT pg_temp.same_samples(:streamed, :whole);
SELECT label, running, self FROM report(pg_temp.tree(:streamed));

-- every cut of the same text into two chunks, and into chunks of 1 byte
SELECT count(*) AS cuts,
       count(*) FILTER (WHERE pg_temp.same_samples(id, :whole)) AS same
  FROM (SELECT pg_temp.fill(:small, ARRAY[k]), import_stream('chunks') AS id
          FROM generate_series(1, octet_length(:small) - 1) AS k) AS s;
SELECT pg_temp.fill(:small, pg_temp.cuts(octet_length(:small), '{1}')) AS one_byte_chunks;
SELECT pg_temp.same_samples(import_stream('chunks'), :whole) AS same;

-- a UTF-8 byte-order mark, cut in two, is dropped
SELECT pg_temp.fill('\xefbbbf'::bytea || :small, '{2, 5}');
SELECT pg_temp.same_samples(import_stream('chunks'), :whole) AS same_without_bom;

-- A larger file (264 kB, past the 64 kB read to recognize the format) in
-- chunks of odd sizes.
\set vertx :data_dir 'speedscope-samples/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt'
SELECT pg_temp.fill(pg_read_binary_file(:'vertx'),
                    pg_temp.cuts(octet_length(pg_read_binary_file(:'vertx')), '{9973, 1, 65537, 2, 30011}')) AS chunks;
SELECT import_stream('chunks', 'vertx') AS streamed \gset
SELECT import_collapsed(pg_read_file(:'vertx'), 'vertx whole') AS whole \gset
SELECT format, pg_temp.same_samples(:streamed, :whole),
       (SELECT count(*) FROM sample WHERE profile_id = :streamed) AS samples,
       total(pg_temp.tree(:streamed))
  FROM profile WHERE id = :streamed;

---------------------------------------------------------------------------
-- perf script: forks (160 kB, 4 threads) and a file with perf's '#' header,
-- in chunks of odd sizes; samples, threads and timestamps as the whole text's.
\set forks :data_dir 'speedscope-samples/linux-perf/forks.linux-perf.txt'
SELECT pg_temp.fill(pg_read_binary_file(:'forks'),
                    pg_temp.cuts(octet_length(pg_read_binary_file(:'forks')), '{1, 4093, 7, 65537, 3, 10007, 2}')) AS chunks;
SELECT import_stream('chunks', 'forks') AS streamed \gset
SELECT import_perf_script(pg_read_file(:'forks'), name => 'forks whole') AS whole \gset
SELECT format, pg_temp.same_samples(:streamed, :whole),
       (SELECT count(*) FROM sample WHERE profile_id = :streamed) AS samples,
       (SELECT count(DISTINCT thread) FROM sample WHERE profile_id = :streamed) AS threads,
       total(pg_temp.tree(:streamed))
  FROM profile WHERE id = :streamed;

\set header :data_dir 'speedscope-samples/linux-perf/simple-with-header.linux-perf.txt'
SELECT pg_temp.fill(pg_read_binary_file(:'header'),
                    pg_temp.cuts(octet_length(pg_read_binary_file(:'header')), '{333, 5, 8191}')) AS chunks;
SELECT import_stream('chunks') AS streamed \gset
SELECT import_perf_script(pg_read_file(:'header')) AS whole \gset
SELECT format, pg_temp.same_samples(:streamed, :whole),
       (SELECT count(*) FROM sample WHERE profile_id = :streamed) AS samples
  FROM profile WHERE id = :streamed;

---------------------------------------------------------------------------
-- Formats read whole: a .cpuprofile (JSON), UTF-16 text, gzip-compressed
-- perf script; each as import_profile reads the whole file.
\set cpuprofile :data_dir 'firefox-profiler/hello.cjs-20231120T211435.cpuprofile'
SELECT pg_temp.fill(pg_read_binary_file(:'cpuprofile'), '{1, 1000, 1003, 20000}') AS chunks;
SELECT import_stream('chunks', 'hello') AS streamed \gset
SELECT import_profile(pg_read_binary_file(:'cpuprofile')) AS whole \gset
SELECT format, pg_temp.same_samples(:streamed, :whole),
       (SELECT count(*) FROM sample WHERE profile_id = :streamed) AS samples
  FROM profile WHERE id = :streamed;
-- in one chunk, with meta and 300 kB of trailing white space (so that a
-- buffer freed too early would be unmapped: this crashed once)
SELECT pg_temp.fill(pg_read_binary_file(:'cpuprofile') || convert_to(repeat(' ', 300000), 'UTF8'), '{}') AS chunks;
SELECT import_stream('chunks', 'hello', jsonb_build_object('run', 2)) AS streamed \gset
SELECT format, meta, pg_temp.same_samples(:streamed, :whole) FROM profile WHERE id = :streamed;

\set utf16 :data_dir 'speedscope-samples/stackcollapse/simple-utf16-le.txt'
SELECT pg_temp.fill(pg_read_binary_file(:'utf16'), '{1, 2, 41}') AS chunks;
SELECT import_stream('chunks') AS streamed \gset
SELECT import_collapsed(pg_read_file(:'data_dir' || 'speedscope-samples/stackcollapse/simple.txt')) AS whole \gset
SELECT format, pg_temp.same_samples(:streamed, :whole) FROM profile WHERE id = :streamed;

\set gz :data_dir 'firefox-profiler/test.perf.gz'
SELECT pg_temp.fill(pg_read_binary_file(:'gz'), '{1, 1500}') AS chunks;
SELECT import_stream('chunks') AS streamed \gset
SELECT import_profile(pg_read_binary_file(:'gz')) AS whole \gset
SELECT format, pg_temp.same_samples(:streamed, :whole) FROM profile WHERE id = :streamed;

-- format says what the content does not: the same text as collapsed
-- stacks; as perf script or speedscope, errors
SELECT pg_temp.fill(:small, '{50}');
SELECT pg_temp.same_samples(import_stream('chunks', format => 'collapsed'),
                            import_collapsed(convert_from(:small, 'UTF8'))) AS same_as_collapsed;
SELECT import_stream('chunks', format => 'perf_script');
SELECT import_stream('chunks', format => 'speedscope');

-- the importers' options: strict and event reach the streamed parsers,
-- sample_type the pprof read whole; another format's option is an error
SELECT pg_temp.fill(convert_to(E'a;b 1\n# a comment\na 2\n', 'UTF8'), '{8}');
SELECT import_stream('chunks');
SELECT import_stream('chunks', strict => false) AS lenient \gset
SELECT count(*) AS samples, sum(weight) AS total FROM sample WHERE profile_id = :lenient;
SELECT import_stream('chunks', sample_type => 'cpu');
SELECT pg_temp.fill(convert_to(E'app 1/1 1.0: 5 cycles:u:\n\t 400400 main (/bin/app)\n\napp 1/1 1.1: 3 instructions:u:\n\t 400400 main (/bin/app)\n', 'UTF8'), '{30, 60}');
SELECT import_stream('chunks', event => 'instructions') AS instructions \gset
SELECT count(*) AS samples, sum(weight) AS total FROM sample WHERE profile_id = :instructions;
SELECT import_stream('chunks', strict => false);
SELECT pg_temp.fill(pg_read_binary_file(:'data_dir' || 'pprof/sample.cpu'), '{100}');
SELECT import_stream('chunks', sample_type => 'samples') AS by_count \gset
SELECT weight_unit, sum(weight) AS total FROM profile p JOIN sample s ON s.profile_id = p.id
 WHERE p.id = :by_count GROUP BY p.id;
SELECT import_stream('chunks', event => 'cycles');
-- source reaches the trace-event importer (read whole): one B/E pair
SELECT pg_temp.fill(convert_to('[{"ph": "B", "name": "f", "ts": 1, "pid": 1, "tid": 1}, {"ph": "E", "ts": 3, "pid": 1, "tid": 1}]', 'UTF8'), '{40}');
SELECT import_stream('chunks', source => 'events') AS events \gset
SELECT count(*) AS events FROM event WHERE profile_id = :events;
SELECT import_stream('chunks', source => 'samples');

---------------------------------------------------------------------------
-- Bad input: clear errors, and nothing left behind.
SELECT count(*) AS profiles FROM profile \gset

-- a malformed line far past the first chunks: its number counts every chunk
INSERT INTO texts
SELECT 'long', convert_to(string_agg(CASE WHEN i = 14321 THEN 'main;oops no count'
                                          ELSE 'main;f' || i % 7 || ' ' || i END, E'\n'), 'UTF8')
  FROM generate_series(1, 20000) AS i;
SELECT pg_temp.fill(data, pg_temp.cuts(octet_length(data), '{10007}')) AS chunks FROM texts WHERE name = 'long';
SELECT import_stream('chunks');
-- and the same in perf script, a stack line of forks broken at line 2997
SELECT pg_temp.fill(convert_to(array_to_string((SELECT array_agg(CASE WHEN n = 2997 THEN E'\tnot a frame' ELSE l END ORDER BY n)
                                                  FROM unnest(string_to_array(pg_read_file(:'forks'), E'\n')) WITH ORDINALITY AS u(l, n)),
                                                 E'\n'), 'UTF8'),
                    pg_temp.cuts(octet_length(pg_read_binary_file(:'forks')), '{65536, 777}')) AS chunks;
SELECT import_stream('chunks');
-- a line that is not UTF-8 (the CONTEXT names it)
SELECT pg_temp.fill(convert_to(repeat(E'a;b 1\n', 20000), 'UTF8') || '\x613bff2031'::bytea, '{65536, 70000}');
SELECT import_stream('chunks');

-- no data
TRUNCATE chunks;
SELECT import_stream('chunks');
INSERT INTO chunks VALUES (1, ''), (2, '');
SELECT import_stream('chunks');
SELECT pg_temp.fill(convert_to(E'  \n\t\r\n', 'UTF8'), '{1}');
SELECT import_stream('chunks');

-- chunks that are not base64
TRUNCATE chunks;
INSERT INTO chunks VALUES (1, encode(convert_to('a;b 1', 'UTF8'), 'base64')), (2, 'YTt*IDE=');
SELECT import_stream('chunks');
UPDATE chunks SET chunk = 'YTti IDE=' WHERE seq = 2;
SELECT import_stream('chunks');
UPDATE chunks SET chunk = 'YTtiIDE' WHERE seq = 2;
SELECT import_stream('chunks');
UPDATE chunks SET chunk = 'YQ==YTsx' WHERE seq = 2;
SELECT import_stream('chunks');
-- or not in order
UPDATE chunks SET chunk = NULL WHERE seq = 2;
SELECT import_stream('chunks');
UPDATE chunks SET seq = 1, chunk = 'Cg==' WHERE seq = 2;
SELECT import_stream('chunks');
UPDATE chunks SET seq = NULL WHERE chunk = 'Cg==';
SELECT import_stream('chunks');

-- not a table of chunks, an unknown format
SELECT import_stream('profile');
CREATE TEMP TABLE wrong (seq bigint, chunk bytea);
SELECT import_stream('wrong');
SELECT import_stream('chunks', format => 'perf script');
SELECT import_stream(NULL) IS NULL AS null_table;

SELECT count(*) = :profiles AS nothing_left_behind FROM profile;
