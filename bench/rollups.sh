#!/usr/bin/env bash
# bench/rollups.sh: tree_between over a week of rollups (see bench/README.md).
#
# The benchmark's profile 'bench' (10,000,000 samples over 100,000 stacks,
# made by bench/generate.sql when missing) is spread over one week: 168
# profiles of the service "bench-week", one per hour, each with the samples
# of every 168th timestamp of 'bench' (so every hour has the same mix of
# stacks).  Then rollup('1 hour'), rollup('1 day') and rollup('7 days'),
# and the timings of tree_between for the week at each level, against
# stack_agg over the same raw samples.
#
# Connects with the usual libpq variables, as bench/run.sh.  Environment:
#   BENCH_RUNS=N        runs per query, best one counts (default 3)
#   BENCH_REGENERATE=1  spread the week again even if it is there
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR="$BENCH_DIR/out"
RUNS=${BENCH_RUNS:-3}
# shellcheck source=test/lib.sh
. "$BENCH_DIR/../test/lib.sh"
say() { printf '%s\n' "$*"; }
mkdir -p "$OUT_DIR"

if [ -z "$(ct_query "" "SELECT 1 FROM pg_extension WHERE extname = 'calltree'")" ]; then
	ct_psql "" -c 'CREATE EXTENSION calltree'
fi
if [ "$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE name = 'bench' AND meta @> '{\"complete\": true}'")" = 0 ]; then
	say "rollups: generating the profile 'bench' first (bench/generate.sql, about a minute)"
	ct_psql "" -v gen_version=1 -f "$BENCH_DIR/generate.sql" >"$OUT_DIR/generate.log" 2>&1 ||
		{ say "rollups: generation failed (bench/out/generate.log)" >&2; exit 1; }
fi

week_ready=$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE meta @> '{\"service\": \"bench-week\"}'")
if [ "${BENCH_REGENERATE:-0}" = 1 ] || [ "$week_ready" != 168 ]; then
	say "rollups: spreading 'bench' over a week (168 hourly profiles)"
	start=$SECONDS
	ct_psql "" >"$OUT_DIR/rollups-setup.log" 2>&1 <<-'SQL'
		DELETE FROM calltree.rollup WHERE group_key = '{"service": "bench-week"}';
		DELETE FROM calltree.profile WHERE meta @> '{"service": "bench-week"}';
		INSERT INTO calltree.profile (name, format, started_at, weight_unit, meta)
		SELECT 'bench-week ' || h, 'synthetic', '2031-03-03 00:10+00'::timestamptz + h * interval '1 hour',
		       'nanoseconds', '{"service": "bench-week"}'
		  FROM generate_series(0, 167) AS h;
		BEGIN;
		-- as bench/generate.sql: the samples' references are known good, so
		-- a superuser skips the per-row integrity triggers
		SET LOCAL session_replication_role = replica;
		INSERT INTO calltree.sample (profile_id, thread, ts, stack_id, weight)
		SELECT w.id, s.thread, s.ts, s.stack_id, s.weight
		  FROM calltree.sample s
		  JOIN calltree.profile b ON b.id = s.profile_id AND b.name = 'bench'
		  JOIN calltree.profile w ON w.name = 'bench-week ' || (s.ts / 1000000) % 168;
		COMMIT;
		VACUUM ANALYZE calltree.profile, calltree.sample_set, calltree.sample_row;
	SQL
	say "rollups: spread in $((SECONDS - start)) s"
fi

ct_psql "" -v runs="$RUNS" <<-'SQL' | tee "$OUT_DIR/rollups-report.txt"
	SET jit = off;
	SET max_parallel_workers_per_gather = 0;
	SET work_mem = '256MB';
	\pset footer off
	-- the time of one query, in ms
	CREATE FUNCTION pg_temp.ms(q text) RETURNS numeric LANGUAGE plpgsql AS $$
	DECLARE t0 timestamptz;
	BEGIN
	    t0 := clock_timestamp();
	    EXECUTE q;
	    RETURN round(extract(epoch FROM clock_timestamp() - t0)::numeric * 1000, 1);
	END $$;
	CREATE FUNCTION pg_temp.best(q text, runs int) RETURNS numeric LANGUAGE sql AS $$
	    SELECT min(pg_temp.ms(q)) FROM generate_series(1, runs)
	$$;
	CREATE TEMP TABLE report (what text, ms numeric);

	\echo 'rollups: rolling up (hours from samples, then days from hours, then a week from days) and timing'
	DELETE FROM calltree.rollup WHERE group_key = '{"service": "bench-week"}';
	INSERT INTO report SELECT 'rollup(''1 hour''), 10,000,000 samples', pg_temp.ms($$SELECT calltree.rollup('1 hour', since => '2031-03-03')$$);

	-- the week, from the hourly rows alone
	INSERT INTO report SELECT 'tree_between, week, 168 hourly rows',
	    pg_temp.best($$SELECT calltree.total(calltree.tree_between('{"service": "bench-week"}', '2031-03-03', '2031-03-10'))$$, :runs);
	INSERT INTO report SELECT 'rollup(''1 day'') from the hours', pg_temp.ms($$SELECT calltree.rollup('1 day', since => '2031-03-03')$$);
	INSERT INTO report SELECT 'tree_between, week, 7 daily rows',
	    pg_temp.best($$SELECT calltree.total(calltree.tree_between('{"service": "bench-week"}', '2031-03-03', '2031-03-10'))$$, :runs);
	-- edges that cut an hour: 6 days, 22 hours from the rollups, the last hour's profile from raw samples
	INSERT INTO report SELECT 'tree_between, week cut at :30 (1 hour of raw samples)',
	    pg_temp.best($$SELECT calltree.total(calltree.tree_between('{"service": "bench-week"}', '2031-03-03 00:30', '2031-03-09 23:30'))$$, :runs);
	INSERT INTO report SELECT 'rollup(''7 days'') from the days', pg_temp.ms($$SELECT calltree.rollup('7 days', since => '2031-03-03')$$);
	INSERT INTO report SELECT 'tree_between, week, 1 weekly row',
	    pg_temp.best($$SELECT calltree.total(calltree.tree_between('{"service": "bench-week"}', '2031-03-03', '2031-03-10'))$$, :runs);
	INSERT INTO report SELECT 'the floor: reading the weekly row''s tree',
	    pg_temp.best($$SELECT calltree.total(tree) FROM calltree.rollup WHERE width = '7 days' AND group_key = '{"service": "bench-week"}'$$, :runs);
	INSERT INTO report SELECT 'stack_agg over the week''s raw samples',
	    pg_temp.best($$SELECT calltree.total(calltree.stack_agg(s.stack_id, s.weight))
	                     FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
	                    WHERE p.meta @> '{"service": "bench-week"}'$$, 1);

	SELECT what, ms FROM report;
	-- correctness: the rollup answers equal the raw trees
	SELECT calltree.tree_between('{"service": "bench-week"}', '2031-03-03', '2031-03-10')
	       OPERATOR(calltree.=) (SELECT calltree.stack_agg(s.stack_id, s.weight)
	                               FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
	                              WHERE p.meta @> '{"service": "bench-week"}') AS week_equals_raw,
	       calltree.tree_between('{"service": "bench-week"}', '2031-03-03 00:30', '2031-03-09 23:30')
	       OPERATOR(calltree.=) (SELECT calltree.stack_agg(s.stack_id, s.weight)
	                               FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
	                              WHERE p.meta @> '{"service": "bench-week"}'
	                                AND p.started_at >= '2031-03-03 00:30' AND p.started_at < '2031-03-09 23:30') AS cut_week_equals_raw,
	       (SELECT count(*) FROM calltree.rollup WHERE group_key = '{"service": "bench-week"}') AS rollup_rows,
	       (SELECT pg_size_pretty(sum(pg_column_size(tree))) FROM calltree.rollup WHERE group_key = '{"service": "bench-week"}') AS rollup_tree_bytes;
SQL
