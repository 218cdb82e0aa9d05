#!/usr/bin/env bash
# bench/retention.sh: expire() of one day out of ten (see bench/README.md).
#
# Ten days of profiles, each day in a time window (partition) of its own:
# BENCH_DAY_PROFILES profiles a day (default 100), each of
# BENCH_PROFILE_SAMPLES samples (default 10,000: 10,000,000 samples in
# all) over 1,000 stacks, written by INSERT ... SELECT.  The days started
# 10 to 1 days ago (now() - 10 days, ...).  After rollup('1 hour'),
# expire('9 days 12 hours') deletes the oldest day: its time and the size
# of calltree.sample's partitions before and after.
#
# Connects with the usual libpq variables, as bench/run.sh.  It leaves the
# database with nine days of samples and one window more; run it in a
# database of its own.
set -euo pipefail

# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../test/lib.sh"
DAY_PROFILES=${BENCH_DAY_PROFILES:-100}
PROFILE_SAMPLES=${BENCH_PROFILE_SAMPLES:-10000}

if [ -z "$(ct_query "" "SELECT 1 FROM pg_extension WHERE extname = 'calltree'")" ]; then
	ct_psql "" -c 'CREATE EXTENSION calltree'
fi

start=$SECONDS
ct_psql "" -v day_profiles="$DAY_PROFILES" -v profile_samples="$PROFILE_SAMPLES" <<'SQL'
SET client_min_messages = warning;
CREATE TEMP TABLE bench_stack AS
SELECT calltree.intern_stack(ARRAY['main', 'work' || (i % 37), 'leaf' || i]) AS id, i
  FROM generate_series(0, 999) AS i;
CREATE TEMP TABLE bench_stacks AS SELECT array_agg(id ORDER BY i) AS ids FROM bench_stack;
SELECT format($$
    SELECT calltree.new_sample_partition();
    WITH p AS (
        INSERT INTO calltree.profile (name, started_at, meta)
        SELECT 'retention bench', now() - interval '%s days' + n * interval '1 minute', '{"service": "retention"}'
          FROM generate_series(1, %s) AS n
        RETURNING id)
    INSERT INTO calltree.sample (profile_id, ts, stack_id, weight)
    SELECT p.id, k, (SELECT ids FROM bench_stacks)[1 + (p.id + k * 7919) %% 1000], 1 + k %% 5
      FROM p, generate_series(1, %s) AS k;
$$, day, :day_profiles, :profile_samples)
  FROM generate_series(10, 1, -1) AS day
\gexec
SQL
echo "retention: 10 days written in $((SECONDS - start)) s"

start=$SECONDS
ct_query "" "SELECT calltree.rollup('1 hour')" >/dev/null
echo "retention: rollup('1 hour') in $((SECONDS - start)) s"

size_sql="SELECT pg_size_pretty(sum(pg_total_relation_size(partition))) || ' in ' || count(*) || ' partitions, '
                 || (SELECT count(*) FROM calltree.sample) || ' samples'
            FROM calltree.sample_partitions()"
echo "retention: before: $(ct_query "" "$size_sql")"
ct_psql "" -c '\timing on' -c "SELECT * FROM calltree.expire('9 days 12 hours')"
echo "retention: after:  $(ct_query "" "$size_sql")"
ct_psql "" -c '\timing on' -c "SELECT * FROM calltree.collect_garbage()"
