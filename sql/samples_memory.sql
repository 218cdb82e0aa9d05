-- A samples value received in binary form is checked without unpacking
-- its samples: a few bytes can hold up to 4,194,304 identical samples
-- (a constant column costs only its base), which unpacked take 40 bytes
-- each, about 160 MB.  The backend's peak resident memory (VmHWM of
-- /proc/<pid>/status, Linux) must not grow by that much on receipt.
SET search_path = calltree, public;
\set VERBOSITY terse
\set SHOW_CONTEXT never

CREATE TEMP TABLE received (v samples);
-- receives `bytes` through a binary COPY file of one row and one column
CREATE FUNCTION pg_temp.receive(bytes bytea) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    file oid;
BEGIN
    file := lo_from_bytea(0, '\x5047434f50590aff0d0a00'::bytea || '\x0000000000000000'::bytea
                             || '\x0001'::bytea || int4send(length(bytes)) || bytes || '\xffff'::bytea);
    PERFORM lo_export(file, 'samples_memory.copy');
    PERFORM lo_unlink(file);
    TRUNCATE received;
    COPY received FROM 'samples_memory.copy' (FORMAT binary);
END $$;
-- the backend's peak resident memory, in kB
CREATE FUNCTION pg_temp.peak_kb() RETURNS bigint LANGUAGE sql AS $$
    SELECT substring(pg_read_file('/proc/' || pg_backend_pid() || '/status') FROM 'VmHWM:\s*(\d+) kB')::bigint
$$;

-- a small value first, so that COPY and the functions have run once
SELECT pg_temp.receive(samples_send('{1:1}'));
SELECT pg_temp.peak_kb() AS before_kb \gset

-- {1:1} 4,194,304 times, in 13 bytes: version 2, no flags, n =
-- 4194304 (80 80 80 02), 1 stack, unit 1, dictionary zigzag(1) = 02;
-- the stack steps a frame of width 0 (tag 00) of base 0, the weights one
-- of base zigzag(1) = 02
SELECT pg_temp.receive('\x02008080800201010200000002'::bytea);
SELECT length(samples_send(v)) AS bytes, samples_send(v) = '\x02008080800201010200000002' AS same_bytes
  FROM received;
-- the same samples, 4,194,304 distinct stacks 1 to 4194304 (their gaps
-- a frame of width 0 of base 0), all on the first: stack 2 is unused
SELECT pg_temp.receive('\x020080808002808080020102000000000002'::bytea);

-- receipt took no memory in proportion to the samples: well under the
-- 32 MB of one int64 per sample
SELECT pg_temp.peak_kb() - :before_kb < 16384 AS small_peak;

-- A value received is read without unpacking it either, where what is
-- read from it is smaller than its samples unpacked: stack_agg (a sum per
-- distinct stack), unnest (rows into a tuplestore, which goes to disk past
-- work_mem), with_label_sets; and samples_out takes about its text.  The
-- 4,194,304 samples of one stack and one label set, in 15 bytes plus the
-- varints of their ids, take 64 MB unpacked by stack_agg, 230 MB by the
-- others.
CREATE FUNCTION pg_temp.varint(n bigint) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
    bytes bytea := '';
BEGIN
    WHILE n >= 128 LOOP
        bytes := bytes || set_byte('\x00'::bytea, 0, (n % 128 + 128)::int);
        n := n / 128;
    END LOOP;
    RETURN bytes || set_byte('\x00'::bytea, 0, n::int);
END $$;
SELECT intern_stack('{samples_memory_main}') AS stack, intern_labels('{"samples_memory": "1"}') AS labels \gset
-- version 2, labels; n = 4194304, 1 stack, 1 label set, unit 1; the
-- dictionaries zigzag(id); the stack steps a frame of width 0 of base 0,
-- the weights of base zigzag(1) = 02, the label codes of base 1
SELECT pg_temp.receive('\x0202808080020101 01'::bytea || pg_temp.varint(2 * :stack) || pg_temp.varint(2 * :labels)
                       || '\x0000 0002 0001'::bytea);
SELECT sample_count(v), label_set_ids(v) = ARRAY[:labels]::bigint[] AS labelled FROM received;
SELECT pg_temp.peak_kb() AS before_kb \gset
SELECT label, running, self FROM report((SELECT stack_agg(v) FROM received));
SELECT pg_temp.peak_kb() - :before_kb < 16384 AS stack_agg_small_peak;
SELECT count(*), sum(weight), min(stack_id) = :stack AND max(stack_id) = :stack AS stacks,
       min(labels_id) = :labels AND max(labels_id) = :labels AS label_sets, count(ts) AS times
  FROM received, unnest(v);
SELECT pg_temp.peak_kb() - :before_kb < 16384 AS unnest_small_peak;
SELECT samples_send(with_label_sets(v, ARRAY[:labels]::bigint[])) = samples_send(v) AS all_kept,
       sample_count(with_label_sets(v, ARRAY[:labels + 1]::bigint[])) AS none_kept
  FROM received;
SELECT pg_temp.peak_kb() - :before_kb < 16384 AS with_label_sets_small_peak;
-- the text, 4,194,304 times "stack:1#labels" and the commas: the peak
-- is its cstring and its text, not the samples unpacked
SELECT length(v::text) AS text_length FROM received \gset
SELECT :text_length = 4194304 * length(:stack || ':1#' || :labels || ',') + 1 AS text_length_right;
SELECT pg_temp.peak_kb() - :before_kb < 3 * :text_length / 1024 AS samples_out_peak_of_its_text;

-- Read by cursors, a dense value gives what its text says: 300 untimed
-- samples of a stack, 300 of another, then 1,000 timed ones of the first
-- every 100 ns, all of one label set; 1,600 samples in fewer than 200
-- bytes (fewer than a bit each: not unpacked).  A value whose samples
-- differ in label set or weight takes a bit a sample at least: unpacked.
SELECT intern_stack('{samples_memory_main,a}') AS s1 \gset
SELECT intern_stack('{samples_memory_main,b}') AS s2 \gset
CREATE TEMP TABLE dense_rows AS
SELECT i, CASE WHEN i <= 300 OR i > 600 THEN :s1 ELSE :s2 END AS stack_id, 2::bigint AS weight,
       CASE WHEN i > 600 THEN (i - 600) * 100 END::bigint AS ts, :labels::bigint AS labels_id
  FROM generate_series(1, 1600) AS i;
CREATE TEMP TABLE dense AS
SELECT samples_agg(stack_id, weight, ts, labels_id) AS v,
       '{' || string_agg(stack_id || ':' || weight || coalesce('@' || ts, '') || '#' || labels_id, ',' ORDER BY i) || '}' AS text
  FROM dense_rows;
SELECT sample_count(v), length(samples_send(v)) < 200 AS dense, v::text = text AS same_text FROM dense;
SELECT count(*) AS differing
  FROM (SELECT stack_id, weight, ts, labels_id FROM dense, unnest(v)
        EXCEPT ALL SELECT stack_id, weight, ts, labels_id FROM dense_rows) AS x;
SELECT (SELECT stack_agg(v) FROM dense) = (SELECT stack_agg(stack_id, weight) FROM dense_rows) AS same_tree;
SELECT samples_send(with_label_sets(v, ARRAY[:labels]::bigint[])) = samples_send(v) AS all_kept,
       sample_count(with_label_sets(v, ARRAY[:labels + 1]::bigint[])) AS none_kept
  FROM dense;
