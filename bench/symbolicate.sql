-- bench/symbolicate.sql: symbolicate() with 1 million symbols against
-- 1 million address frames of one resource.  Self-contained: it builds its
-- data in one transaction, times symbolicate(), checks a few frames, and
-- rolls everything back.
--
--   psql -X -v ON_ERROR_STOP=1 -f bench/symbolicate.sql
--
-- The frames are made set-based as intern_address() would make them (a
-- func named by the address, implementation 'address'), since a million
-- calls of intern_address() would time the set-up, not symbolicate().
-- Every frame hits a different symbol (the worst case: a million funcs to
-- intern), and the symbols are passed shuffled, so the sort is timed too.
\set n 1000000
CREATE EXTENSION IF NOT EXISTS calltree;
BEGIN;
SET LOCAL search_path = calltree, public;

\echo set-up: :n address frames and :n symbols
CREATE TEMP TABLE bench_frames AS
SELECT i, i * 64 + (i % 61) AS address FROM generate_series(0, :n - 1) AS i;
INSERT INTO func (name, file, resource)
SELECT '0x' || to_hex(address), NULL, 'bench-lib.so' FROM bench_frames;
INSERT INTO frame (func_id, address, implementation)
SELECT f.id, b.address, 'address'
  FROM bench_frames b JOIN func f ON f.name = '0x' || to_hex(b.address) AND f.resource = 'bench-lib.so';
CREATE TEMP TABLE bench_symbols AS
SELECT array_agg(i::bigint * 64 ORDER BY h) AS starts, array_agg('sym_' || i ORDER BY h) AS names
  FROM (SELECT i, hashint4(i) AS h FROM generate_series(0, :n - 1) AS i) s;
ANALYZE func;
ANALYZE frame;

\echo symbolicate:
\timing on
CREATE TEMP TABLE bench_map AS
SELECT m.* FROM bench_symbols, symbolicate('bench-lib.so', starts, names) AS m;
\timing off

-- every frame moved, every address func replaced, and spot checks
SELECT count(*) AS map_rows FROM bench_map;
SELECT b.address, f.name
  FROM bench_frames b JOIN frame fr ON fr.address = b.address AND fr.implementation = 'address'
  JOIN func f ON f.id = fr.func_id AND f.resource = 'bench-lib.so'
 WHERE b.i IN (0, 1, 500000, :n - 1) ORDER BY b.address;

\echo a second part of the table (1000 symbols) against the same frames:
\timing on
SELECT count(*) AS map_rows FROM symbolicate('bench-lib.so',
       array(SELECT i::bigint * 64 + 32 FROM generate_series(0, 999) AS i),
       array(SELECT 'late_' || i FROM generate_series(0, 999) AS i));
\timing off
ROLLBACK;
