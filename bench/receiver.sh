#!/usr/bin/env bash
# bench/receiver.sh: pushes through calltree-receiver against the same
# imports called in SQL (see "Receiver" in bench/README.md).
#
# The small pprof file of bench/ingest.sh (about 25 kB gzipped, 751
# samples) is imported by 4 clients at once for BENCH_RECEIVER_SECONDS:
# first by pgbench calling import_pprof on the file stored in a table, then
# by 4 HTTP clients (bench/receiver_push.py, one kept-alive connection each)
# pushing it to POST /ingest of a receiver with 4 database connections.
# Every profile of each run is checked (samples and weight) and deleted.
# Target: the receiver at least 0.8 times as fast as the direct imports.
# Also printed: the CPU time per profile of each side (the client, the
# database's sessions, and the receiver), which a shared machine disturbs
# less than the rate.  The report goes to standard output and to
# bench/out/receiver.txt.
#
# Connects with the usual libpq variables; needs the right to create
# databases, pgbench beside psql and calltree-receiver installed beside
# them (make install).
#
# Environment:
#   BENCH_RECEIVER_SECONDS=20   length of each run
#   BENCH_RECEIVER_DB=calltree_bench_receiver
#   BENCH_RECEIVER_PROGRAM=$PG_BIN/calltree-receiver   the receiver to run
#                               (another build, to compare two)
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR="$BENCH_DIR/out"
DATA="$OUT_DIR/import-data/ingest.pb.gz"
REPORT="$OUT_DIR/receiver.txt"
SECONDS_PER_RUN=${BENCH_RECEIVER_SECONDS:-20}
DB=${BENCH_RECEIVER_DB:-calltree_bench_receiver}
CLIENTS=4
TARGET_RATIO=0.8

# shellcheck source=test/lib.sh
. "$BENCH_DIR/../test/lib.sh"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
die() { printf 'receiver: %s\n' "$*" | tee -a "$REPORT" >&2; exit 1; }

mkdir -p "$OUT_DIR/import-data"
: >"$REPORT"
ct_make_tmp
work=$CT_TMP
ct_at_exit "ct_psql postgres -c 'DROP DATABASE IF EXISTS $DB WITH (FORCE)'"
program=${BENCH_RECEIVER_PROGRAM:-$PG_BIN/calltree-receiver}
[ -x "$program" ] || die "$program is not installed (make install)"

if [ ! -s "$DATA" ]; then
	(cd "$OUT_DIR/import-data" && python3 "$BENCH_DIR/gen_pprof.py" "$DATA" 0.1 300) >/dev/null
fi
expect() { python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$DATA.expect.json" "$1"; }
samples=$(expect samples)
weight=$(expect total_weight)

ct_psql postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
ct_psql "$DB" -v data="$(base64 -w0 "$DATA")" >/dev/null <<-'SQL'
	CREATE EXTENSION calltree;
	CREATE TABLE ingest_file AS SELECT decode(:'data', 'base64') AS data;
	-- the first import makes every func, frame and stack
	SELECT calltree.import_pprof(data, name => 'first') FROM ingest_file;
SQL
echo "SELECT calltree.import_pprof(data, name => 'ingest') FROM ingest_file;" >"$work/ingest.sql"

# check_and_clear WHAT: every profile of the run complete; how many
check_and_clear() {
	local bad n
	bad=$(ct_query "$DB" "SELECT count(*) FROM (SELECT p.id FROM calltree.profile p LEFT JOIN calltree.sample s ON s.profile_id = p.id
	                                  WHERE p.name = 'ingest' GROUP BY p.id
	                                 HAVING count(s.*) <> $samples OR coalesce(sum(s.weight), 0) <> $weight) x")
	n=$(ct_query "$DB" "SELECT count(*) FROM calltree.profile WHERE name = 'ingest'")
	[ "$bad" = 0 ] || die "$bad of $n profiles imported $1 are incomplete"
	ct_psql "$DB" -c "DELETE FROM calltree.profile WHERE name = 'ingest'" >/dev/null
	echo "$n"
}

# CPU seconds (user and system) of a process, and of its children it waited for
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz, ($16 + $17) / hz }' "/proc/$1/stat"; }
# The database's sessions: the postmaster's children, once ended
postmaster=$(head -n 1 "$(ct_query postgres 'SHOW data_directory')/postmaster.pid")
db_cpu() { cpu_of "$postmaster" | awk '{ print $2 }'; }
# per_profile SECONDS PROFILES: milliseconds per profile
per_profile() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.2f", 1000 * s / n }'; }
# run_cpu CMD...: runs CMD; the CPU seconds it took (children included) in $work/cpu
run_cpu() {
	python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[2:]).returncode
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.2f\n" % (r.ru_utime + r.ru_stime))
sys.exit(rc)' "$work/cpu" "$@"
}

say "receiver: a $(stat -c %s "$DATA")-byte pprof file ($samples samples) imported by $CLIENTS clients at once, ${SECONDS_PER_RUN} s per run"
db_before=$(db_cpu)
run_cpu "$PG_BIN/pgbench" -n -f "$work/ingest.sql" -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER_RUN" "$DB" >"$work/pgbench.out" 2>&1 ||
	die "pgbench failed: $(tail -5 "$work/pgbench.out")"
client_cpu=$(cat "$work/cpu")
db_used=$(awk -v a="$db_before" -v b="$(db_cpu)" 'BEGIN { print b - a }')
direct=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$work/pgbench.out")
n=$(check_and_clear "in SQL")
say "  import_pprof in SQL (pgbench): $direct profiles/s ($n profiles, all complete)"
say "    CPU per profile: database $(per_profile "$db_used" "$n") ms, pgbench $(per_profile "$client_cpu" "$n") ms"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
db_before=$(db_cpu)
"$program" --listen "127.0.0.1:$port" --dbname "dbname=$DB" --connections "$CLIENTS" \
	2>"$OUT_DIR/receiver.log" &
receiver_pid=$!
ct_at_exit "kill $receiver_pid 2>/dev/null"
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$port/ready" >/dev/null 2>&1 && break
	sleep 0.1
done
read -r pushed count client_cpu < <(python3 "$BENCH_DIR/receiver_push.py" "http://127.0.0.1:$port" "$DATA" "$CLIENTS" "$SECONDS_PER_RUN") ||
	die "the pushes failed"
receiver_cpu=$(cpu_of "$receiver_pid" | awk '{ print $1 }')
kill "$receiver_pid"
wait "$receiver_pid" 2>/dev/null || true
# the receiver's sessions end with it: wait until the postmaster has reaped them
for _ in $(seq 50); do
	[ "$(ct_query postgres "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'calltree-receiver'")" = 0 ] && break
	sleep 0.1
done
db_used=$(awk -v a="$db_before" -v b="$(db_cpu)" 'BEGIN { print b - a }')
n=$(check_and_clear "through the receiver")
[ "$n" = "$count" ] || die "$count pushes answered 200, $n profiles stored"
ratio=$(awk -v a="$pushed" -v b="$direct" 'BEGIN { printf "%.2f", a / b }')
line="  POST /ingest (calltree-receiver): $pushed profiles/s ($n profiles, all complete), ${ratio}x the direct rate"
if awk "BEGIN { exit !($ratio >= $TARGET_RATIO) }"; then line="$line  target >= ${TARGET_RATIO}x: met"; else line="$line  target >= ${TARGET_RATIO}x: MISSED"; fi
say "$line"
say "    CPU per profile: database $(per_profile "$db_used" "$n") ms, receiver $(per_profile "$receiver_cpu" "$n") ms, clients (Python) $(per_profile "$client_cpu" "$n") ms"
