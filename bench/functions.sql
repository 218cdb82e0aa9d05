-- bench/functions.sql: session-local helpers for the benchmark generator.
--
-- Everything lives in pg_temp, so nothing is left behind in the database.
-- Randomness is a pure function of its arguments (a 64-bit hash), never of
-- the order in which rows happen to be evaluated: the same arguments give
-- the same value in every run, every plan and every session.

-- A uniform float8 in [0, 1) from (a, b, salt).
CREATE FUNCTION pg_temp.u(a bigint, b bigint, salt bigint)
RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (hashint8extended(a, hashint8extended(b, salt)) & 9007199254740991)::float8
         / 9007199254740992.0::float8
$$;

-- A Zipf-Mandelbrot-like rank in 1..n from a uniform x: rank r has
-- probability about proportional to 1 / (r + q - 1).  q = 1 is plain Zipf
-- with exponent 1; a larger q flattens the head.
CREATE FUNCTION pg_temp.zipf(x float8, n bigint, q float8)
RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT least(n, greatest(1::bigint,
           floor(exp(ln(q) + x * (ln(n + q) - ln(q))) - q + 1)::bigint))
$$;

-- Timing: bench_time(label, query) runs query once and records how long it
-- took (clock_timestamp() deltas, so no client round trip or output
-- printing is measured).  The query must return one row; that row, as text,
-- is recorded too, so each result is consumed and can be checked.
CREATE TABLE pg_temp.bench_run (
  label  text,
  run    int,
  ms     float8,
  result text
);

CREATE FUNCTION pg_temp.bench_time(p_label text, p_query text, p_run int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t0  timestamptz;
  t1  timestamptz;
  res text;
BEGIN
  t0 := clock_timestamp();
  EXECUTE format('SELECT r::text FROM (%s) AS r', p_query) INTO res;
  t1 := clock_timestamp();
  INSERT INTO pg_temp.bench_run
  VALUES (p_label, p_run, extract(epoch FROM t1 - t0) * 1000, res);
END
$$;
