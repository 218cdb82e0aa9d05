#!/usr/bin/env bash
# bench/ingest_instructions.sh: the instructions one repeat import of
# bench/ingest.sh's pprof file costs inside import_pprof, counted by
# callgrind (see "Ingest rate" in bench/README.md).
#
# A rate on a shared machine moves by tens of percent from run to run; an
# instruction count does not, so this is how two builds of the import
# path are compared.  In a cluster of its own, a single-user backend under
# callgrind (collecting inside calltree_import_pprof only) imports the file
# N1 times, then another N2 times; the difference over N2 - N1 is the cost
# of an import whose funcs, frames and stacks the backend has met (the
# first import of each run, with an empty cache, cancels out).  SHA-256 of
# the file is counted at its software cost: the CPUs that have SHA
# instructions take a fraction of it.
#
# Needs valgrind (apt-get install valgrind) and the extension installed;
# run it with test/run.sh shell bench/ingest_instructions.sh.
#
# Environment:
#   BENCH_INSTRUCTIONS_FILE=bench/out/import-data/ingest.pb.gz
#   BENCH_INSTRUCTIONS_RUNS="5 25"
#   BENCH_INSTRUCTIONS_WHOLE=1   count the whole backend, not only inside
#                        import_pprof: the statement, the executor, the
#                        commit (WAL written, not flushed: a single-user
#                        backend); the fixed cost of an import shows best
#                        with a file of one sample
#   BENCH_INSTRUCTIONS_CACHE=1   also simulate the caches of one core of
#                        the bench's machine (L1 data 64 kB, last level
#                        512 kB) and print every event per repeat import:
#                        D1mr/D1mw lines missed in L1, DLmr/DLmw in L2
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
. "$BENCH_DIR/../test/lib.sh"
ct_script_init --no-cluster

file=${BENCH_INSTRUCTIONS_FILE:-$BENCH_DIR/out/import-data/ingest.pb.gz}
read -r first second <<<"${BENCH_INSTRUCTIONS_RUNS:-5 25}"
command -v valgrind >/dev/null || fail "valgrind is not installed (apt-get install valgrind)"
if [ ! -s "$file" ]; then
	mkdir -p "$BENCH_DIR/out/import-data"
	(cd "$BENCH_DIR/out/import-data" && python3 "$BENCH_DIR/gen_pprof.py" "$file" 0.1 300) >/dev/null
fi

cluster=$work/instructions
ct_cluster_init "$cluster"
cp "$file" "$work/profile.pb.gz"
chmod 644 "$work/profile.pb.gz"

# one single-user session reading SQL from a file: its output, as the owner
single() {
	ct_as_pg "$@" "$PG_BIN/postgres" --single -D "$cluster/data" -c shared_buffers=64MB postgres
}
cat >"$work/setup.sql" <<-SQL
	CREATE EXTENSION calltree;
	CREATE TABLE ingest_file AS SELECT pg_read_binary_file('$work/profile.pb.gz') AS data;
	SELECT calltree.import_pprof(data, name => 'first') FROM ingest_file;
SQL
single <"$work/setup.sql" >"$work/setup.log" 2>&1 || fail "setting up the database failed" "$work/setup.log"

# the instructions of N imports in a new backend
instructions() {
	local n=$1 out=$work/callgrind.$1
	{
		echo "SET client_min_messages = warning;"
		for _ in $(seq "$n"); do echo "SELECT calltree.import_pprof(data, name => 'ingest') FROM ingest_file;"; done
	} >"$work/imports.sql"
	single valgrind --tool=callgrind --callgrind-out-file="$out" "${collect[@]}" "${cache_sim[@]}" \
		<"$work/imports.sql" >"$work/callgrind.log" 2>&1 || fail "the imports under callgrind failed" "$work/callgrind.log"
	callgrind_annotate "$out" | awk '/PROGRAM TOTALS/ && !seen { gsub(",", "", $1); print $1; seen = 1 }'
}
# every event of a run's totals, one "name count" a line
events() {
	callgrind_annotate "$work/callgrind.$1" | awk '
		/^Events shown:/ { for (i = 3; i <= NF; i++) name[i - 2] = $i; n = NF - 2 }
		/PROGRAM TOTALS/ && !seen { gsub(/\([^)]*\)/, ""); gsub(",", ""); for (i = 1; i <= n; i++) print name[i], $i; seen = 1 }'
}
collect=(--toggle-collect=calltree_import_pprof)
where="import_pprof"
if [ "${BENCH_INSTRUCTIONS_WHOLE:-0}" = 1 ]; then
	collect=()
	where="the whole backend"
fi
cache_sim=()
[ "${BENCH_INSTRUCTIONS_CACHE:-0}" = 1 ] && cache_sim=(--cache-sim=yes --D1=65536,2,64 --LL=524288,8,64)
a=$(instructions "$first")
b=$(instructions "$second")
echo "import_pprof of $(stat -c %s "$file") bytes, a repeat import: $(((b - a) / (second - first))) instructions in $where"
if [ ${#cache_sim[@]} -gt 0 ]; then
	paste -d ' ' <(events "$first") <(events "$second") |
		awk -v n=$((second - first)) '{ printf "%s%s %d", sep, $1, ($4 - $2) / n; sep = ", " } END { print "" }' |
		sed 's/^/per repeat import: /'
fi
