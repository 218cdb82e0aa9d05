-- collect_garbage() on statistics that call the interned tables nearly
-- empty (as after a collection and a VACUUM, until the next ANALYZE; set
-- by hand and rolled back, as reports_expire does) takes memory bounded by
-- work_mem, not by the tables: it found the garbage frames and funcs by
-- set differences (EXCEPT), which such statistics planned hashed, and
-- PostgreSQL 15's hashed SetOp grows its table in memory without bound.
-- Here 200,000 funcs, frames and stacks that the samples of one profile
-- use, none garbage, with 1 MB of work_mem: the hashes of their ids took
-- 33 MB, the anti-joins that replace them 7 MB (the rest of the function
-- takes that much on any statistics).  The backend's peak resident memory
-- (VmHWM of /proc/<pid>/status, Linux) must stay under 24 MB more.
-- In a database of its own, dropped at the end, rather than the profile
-- deleted and its rows collected (seconds, and dead rows that the
-- statistics of the tests after it would see).
SELECT current_database() AS regression_db \gset
CREATE DATABASE calltree_garbage_memory;
\c calltree_garbage_memory
CREATE EXTENSION calltree;
SET search_path = calltree, public;
\set VERBOSITY terse
SELECT import_collapsed((SELECT string_agg('gm_' || i || ' 1', E'\n') FROM generate_series(1, 200000) AS i),
                        'garbage-memory') AS profile \gset
SET work_mem = '1MB';
SET max_parallel_workers_per_gather = 0;
-- once first, so that the function and its plans have run once
SELECT collect_garbage() IS NOT NULL AS collected;
-- a new backend, whose peak is not the import's
\c
SET search_path = calltree, public;
SET work_mem = '1MB';
SET max_parallel_workers_per_gather = 0;
CREATE FUNCTION pg_temp.peak_kb() RETURNS bigint LANGUAGE sql AS $$
    SELECT substring(pg_read_file('/proc/' || pg_backend_pid() || '/status') FROM 'VmHWM:\s*(\d+) kB')::bigint
$$;
SELECT collect_garbage();
BEGIN;
UPDATE pg_class SET reltuples = 1 WHERE oid = ANY ('{stack, frame, func, labels}'::regclass[]);
SELECT pg_temp.peak_kb() AS before_kb \gset
SELECT collect_garbage();
SELECT pg_temp.peak_kb() - :before_kb AS peak_growth_kb \gset
SELECT :peak_growth_kb < 24576 AS bounded_on_stale_statistics;
ROLLBACK;
\c :regression_db
DROP DATABASE calltree_garbage_memory;
