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
