#!/usr/bin/env bash
# bench/fleet.sh: a query over a fleet's profiles, packed against rows (see
# "Fleet queries" in bench/README.md).
#
# The small pprof file of bench/ingest.sh (751 samples of 300 stacks) is
# imported BENCH_FLEET_PROFILES times; the same samples are copied into a
# plain table, a row each, as sample was before version 0.3.  Then, in one
# session, without parallel workers, alternately: stack_agg(samples) over
# sample_set and stack_agg(stack_id, weight) over the rows, each
# BENCH_FLEET_RUNS times; the medians and their ratio are reported, and the
# two trees must be equal.
#
# Environment:
#   BENCH_FLEET_PROFILES=4000
#   BENCH_FLEET_RUNS=7
#   BENCH_FLEET_DB=calltree_bench_fleet
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR="$BENCH_DIR/out"
DATA="$OUT_DIR/import-data/ingest.pb.gz"
REPORT="$OUT_DIR/fleet.txt"
PROFILES=${BENCH_FLEET_PROFILES:-4000}
RUNS=${BENCH_FLEET_RUNS:-7}
DB=${BENCH_FLEET_DB:-calltree_bench_fleet}
TARGET=0.2

# shellcheck source=test/lib.sh
. "$BENCH_DIR/../test/lib.sh"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
die() { printf 'fleet: %s\n' "$*" | tee -a "$REPORT" >&2; exit 1; }

mkdir -p "$OUT_DIR/import-data"
: >"$REPORT"
ct_script_init
ct_at_exit "ct_psql postgres -c 'DROP DATABASE IF EXISTS $DB'"

if [ ! -s "$DATA" ]; then
	(cd "$OUT_DIR/import-data" && python3 "$BENCH_DIR/gen_pprof.py" "$DATA" 0.1 300) >/dev/null
fi
cp "$DATA" "$work/ingest.pb.gz" && chmod a+r "$work/ingest.pb.gz"

ct_psql postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
ct_psql "$DB" -q -v file="$work/ingest.pb.gz" -v n="$PROFILES" >/dev/null <<-'SQL'
	SET client_min_messages = warning;
	CREATE EXTENSION calltree;
	CREATE TABLE fleet_file AS SELECT pg_read_binary_file(:'file') AS data;
	SELECT count(calltree.import_pprof(f.data)) FROM fleet_file f, generate_series(1, :n);
	CREATE TABLE fleet_rows AS SELECT profile_id, thread, ts, stack_id, weight, labels_id FROM calltree.sample;
	VACUUM ANALYZE fleet_rows;
	VACUUM ANALYZE calltree.sample_set;
SQL

{
	echo "SET max_parallel_workers_per_gather = 0;"
	echo "\\timing on"
	for _ in $(seq "$RUNS"); do
		echo "SELECT 'packed', calltree.stack_agg(samples) IS NOT NULL FROM calltree.sample_set;"
		echo "SELECT 'rows', calltree.stack_agg(stack_id, weight) IS NOT NULL FROM fleet_rows;"
	done
} >"$work/fleet.sql"
ct_psql "$DB" -At -f "$work/fleet.sql" >"$work/fleet.out"
median() { grep -A1 "^$1|" "$work/fleet.out" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
packed=$(median packed)
rows=$(median rows)
same=$(ct_query "$DB" "SELECT (SELECT calltree.stack_agg(samples) FROM calltree.sample_set) OPERATOR(calltree.=) (SELECT calltree.stack_agg(stack_id, weight) FROM fleet_rows)")
[ "$same" = t ] || die "stack_agg(samples) and stack_agg(stack_id, weight) gave different trees"
sizes=$(ct_query "$DB" "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid))) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                       WHERE i.inhparent = 'calltree.sample_set'::regclass")
rows_size=$(ct_query "$DB" "SELECT pg_size_pretty(pg_total_relation_size('fleet_rows'))")
nsamples=$(ct_query "$DB" "SELECT count(*) FROM fleet_rows")
ratio=$(awk -v p="$packed" -v r="$rows" 'BEGIN { printf "%.2f", p / r }')
verdict=$(awk -v x="$ratio" -v t="$TARGET" 'BEGIN { print (x <= t ? "met" : "MISSED") }')
say "fleet query over $PROFILES profiles ($nsamples samples), median of $RUNS runs, no parallel workers:"
say "  stack_agg(samples) over sample_set ($sizes): $packed ms"
say "  stack_agg(stack_id, weight) over rows ($rows_size): $rows ms"
say "  ratio ${ratio}x (target <= ${TARGET}x: $verdict); the trees are equal"
