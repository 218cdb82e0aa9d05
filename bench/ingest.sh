#!/usr/bin/env bash
# bench/ingest.sh: the ingest rate of a fleet's small uploads (see "Ingest
# rate" in bench/README.md).
#
# A small pprof profile (about 25 kB gzipped, 751 samples of 300 stacks,
# bench/gen_pprof.py) is uploaded once into a table of a scratch database;
# pgbench then imports it with import_pprof, one profile per transaction,
# with 1, 4 and 16 clients.  After a first import every stack is known, as
# when the hosts of a fleet upload profiles of one build.  Each run's
# profiles are checked (samples and weight equal to the generator's) and
# deleted.  The report goes to standard output and to bench/out/ingest.txt.
#
# Each commit waits for its WAL to reach the disk (fsync and
# synchronous_commit on, as a server runs by default and as the target
# asks), so with few clients the rate is bound by how often the disk
# flushes: a commit shares its flush only with the commits of the other
# clients waiting at that moment.  Beside each rate, the ceiling: the rate of
# transactions that insert one small row, with as many clients for
# BENCH_INGEST_CEILING_SECONDS, what the disk allows any one-row transaction.
# The server's settings are printed first; with fsync or synchronous_commit
# off the rates measure CPU alone and the target is not judged.
#
# Connects with the usual libpq variables; needs the right to create
# databases, and pgbench beside psql.
#
# With each pgbench run, the CPU time it took per import, all processes of
# the server (backends, WAL writer, checkpointer...) and pgbench together:
# 2 cores divided by it is the rate a quiet 2-core machine would reach at
# best.  Read in /proc, so only when the server runs on this machine.
#
# Then the server's CPU time per import, which the load of other processes
# on the machine changes far less than the rate: one session imports the
# file BENCH_INGEST_CPU_IMPORTS times (a transaction each, after 20 to warm
# up), and the backend's CPU time (/proc/PID/schedstat, so the server must
# run on this machine) is divided by the count.
#
# Environment:
#   BENCH_INGEST_SECONDS=20   length of each pgbench run
#   BENCH_INGEST_CPU_IMPORTS=200   imports timed for the CPU per import (0: skip)
#   BENCH_INGEST_CLIENTS="1 4 16"
#   BENCH_INGEST_CEILING_SECONDS=5   length of each run of one-row inserts (0: none)
#   BENCH_INGEST_PROTOCOL=prepared   pgbench's query mode: prepared (as an
#                        ingest client, calltree-receiver among them, sends
#                        its statement) or simple (parsed and planned each time)
#   BENCH_INGEST_DB=calltree_bench_ingest
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR="$BENCH_DIR/out"
DATA="$OUT_DIR/import-data/ingest.pb.gz"
REPORT="$OUT_DIR/ingest.txt"
SECONDS_PER_RUN=${BENCH_INGEST_SECONDS:-20}
CLIENTS=${BENCH_INGEST_CLIENTS:-1 4 16}
CEILING_SECONDS=${BENCH_INGEST_CEILING_SECONDS:-5}
CPU_IMPORTS=${BENCH_INGEST_CPU_IMPORTS:-200}
DB=${BENCH_INGEST_DB:-calltree_bench_ingest}
PROTOCOL=${BENCH_INGEST_PROTOCOL:-prepared}
TARGET_TPS_4=2000

# shellcheck source=test/lib.sh
. "$BENCH_DIR/../test/lib.sh"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
die() { printf 'ingest: %s\n' "$*" | tee -a "$REPORT" >&2; exit 1; }

mkdir -p "$OUT_DIR/import-data"
: >"$REPORT"
ct_make_tmp
work=$CT_TMP
ct_at_exit "ct_psql postgres -c 'DROP DATABASE IF EXISTS $DB'"

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
	-- the ceiling's table: a key and a few bytes, as a small row of any application
	CREATE TABLE ingest_ceiling (id bigserial PRIMARY KEY, data bytea);
SQL
echo "SELECT calltree.import_pprof(data, name => 'ingest') FROM ingest_file;" >"$work/ingest.sql"
echo "INSERT INTO ingest_ceiling (data) VALUES ('\\x0102');" >"$work/ceiling.sql"

# Whether each commit waits for the disk: fsync on and synchronous_commit
# anything but off (local, on and the remote levels all flush locally)
setting() { ct_query "$DB" "SELECT current_setting('$1')"; }
durable=0
[ "$(setting fsync)" = on ] && [ "$(setting synchronous_commit)" != off ] && durable=1

# The CPU time, in clock ticks, of the server's processes so far: those
# alive, and those that ended (the postmaster's reaped children).
ticks=$(getconf CLK_TCK)
# the postmaster: the parent of a backend (reading /proc/self/stat needs the right to read server files)
postmaster=$(ct_query "$DB" "SELECT split_part(pg_read_file('/proc/self/stat'), ' ', 4)" 2>/dev/null || true)
[ -r "/proc/${postmaster:-0}/stat" ] || postmaster=""
server_ticks() {
	[ -n "$postmaster" ] && [ -r "/proc/$postmaster/stat" ] || return 0
	# fields after the command's closing parenthesis: 14/15 utime/stime, 16/17 of reaped children
	{
		sed 's/.*) //' "/proc/$postmaster/stat" | awk '{ print $12 + $13 + $14 + $15 }'
		for pid in $(pgrep -P "$postmaster"); do
			sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{ print $12 + $13 }'
		done
	} | awk '{ t += $1 } END { print t + 0 }'
}

say "ingest rate: import_pprof of a $(stat -c %s "$DATA")-byte pprof file ($samples samples), one profile per transaction, ${SECONDS_PER_RUN} s per run, $PROTOCOL statements"
say "  machine: $(ct_machine)"
say "  server: fsync=$(setting fsync), synchronous_commit=$(setting synchronous_commit), wal_sync_method=$(setting wal_sync_method), commit_delay=$(setting commit_delay)"
[ "$durable" = 1 ] || say "  (commits do not wait for the disk: the rates below measure CPU alone, and the target is not judged)"

# ceiling_rate CLIENTS: one-row insert transactions per second
ceiling_rate() {
	PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" "$PG_BIN/pgbench" -n -M "$PROTOCOL" -f "$work/ceiling.sql" \
		-c "$1" -j "$1" -T "$CEILING_SECONDS" "$DB" 2>&1 | sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p'
}
for c in $CLIENTS; do
	server_before=$(server_ticks)
	TIMEFORMAT='%U %S'
	# no NOTICE per import (the file was imported before; its sample type), as
	# calltree-receiver's sessions set it: an ingest client reads none
	{ time PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" "$PG_BIN/pgbench" -n -M "$PROTOCOL" -f "$work/ingest.sql" -c "$c" -j "$c" -T "$SECONDS_PER_RUN" "$DB" >"$work/pgbench.out" 2>&1 ||
		die "pgbench with $c clients failed: $(tail -5 "$work/pgbench.out")"; } 2>"$work/pgbench.time"
	# the backends of pgbench's clients have ended (and been reaped) once a new connection succeeds
	ct_psql "$DB" -c "SELECT pg_sleep(0.2)" >/dev/null
	server_after=$(server_ticks)
	tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p' "$work/pgbench.out")
	bad=$(ct_query "$DB" "SELECT count(*) FROM (SELECT p.id FROM calltree.profile p LEFT JOIN calltree.sample s ON s.profile_id = p.id
	                                  WHERE p.name = 'ingest' GROUP BY p.id
	                                 HAVING count(s.*) <> $samples OR coalesce(sum(s.weight), 0) <> $weight) x")
	n=$(ct_query "$DB" "SELECT count(*) FROM calltree.profile WHERE name = 'ingest'")
	[ "$bad" = 0 ] || die "$bad of $n profiles imported with $c clients are incomplete"
	line="  $c client(s): $(printf '%.0f' "$tps") profiles/s ($n profiles, all complete)"
	if [ -n "$postmaster" ]; then
		cpu_all=$(awk -v b="$server_before" -v a="$server_after" -v t="$ticks" -v n="$n" -v pg="$(cat "$work/pgbench.time")" \
			'BEGIN { split(pg, p, " "); printf "%.2f", ((a - b) / t + p[1] + p[2]) * 1000 / n }')
		line="$line, CPU $cpu_all ms per import (server and pgbench)"
	fi
	if [ "$CEILING_SECONDS" -gt 0 ]; then
		ceiling=$(ceiling_rate "$c")
		[ -n "$ceiling" ] || die "the one-row inserts with $c clients failed"
		line="$line; ceiling: $(printf '%.0f' "$ceiling") one-row transactions/s ($(awk -v t="$tps" -v f="$ceiling" 'BEGIN { printf "%.0f", 100 * t / f }')% of it)"
	fi
	if [ "$c" = 4 ]; then
		if [ "$durable" = 0 ]; then
			line="$line  target >= $TARGET_TPS_4/s: not judged (commits do not wait for the disk)"
		elif awk "BEGIN { exit !($tps >= $TARGET_TPS_4) }"; then
			line="$line  target >= $TARGET_TPS_4/s: met"
		else
			line="$line  target >= $TARGET_TPS_4/s: MISSED"
		fi
	fi
	say "$line"
	ct_psql "$DB" -c "DELETE FROM calltree.profile WHERE name = 'ingest'" >/dev/null
done

# CPU per import, in one session
if [ "$CPU_IMPORTS" -gt 0 ]; then
	{
		echo "SET client_min_messages = warning;"
		echo "SELECT pg_backend_pid() AS pid \\gset"
		echo "\\setenv CT_INGEST_PID :pid"
		for _ in $(seq 20); do cat "$work/ingest.sql"; done
		echo "\\! cut -d' ' -f1 /proc/\$CT_INGEST_PID/schedstat > $work/cpu.before"
		for _ in $(seq "$CPU_IMPORTS"); do cat "$work/ingest.sql"; done
		echo "\\! cut -d' ' -f1 /proc/\$CT_INGEST_PID/schedstat > $work/cpu.after"
	} >"$work/cpu.sql"
	ct_psql "$DB" -f "$work/cpu.sql" >/dev/null
	[ -s "$work/cpu.before" ] && [ -s "$work/cpu.after" ] ||
		die "could not read the backend's CPU time (is the server on this machine?)"
	cpu_ms=$(awk -v b="$(cat "$work/cpu.before")" -v a="$(cat "$work/cpu.after")" -v n="$CPU_IMPORTS" \
		'BEGIN { printf "%.2f", (a - b) / n / 1e6 }')
	say "  CPU per import: $cpu_ms ms in the backend (mean of $CPU_IMPORTS imports in one session)"
	ct_psql "$DB" -c "DELETE FROM calltree.profile WHERE name = 'ingest'" >/dev/null
fi
