#!/usr/bin/env bash
# bench/storage.sh: what a profile costs on disk (see "Storage" in
# bench/README.md).
#
# For each real file of every format calltree reads (../shared/data, the
# examples, test/data), in a scratch database: the file is imported once,
# so that its funcs, frames, stacks and label sets exist; after VACUUM the
# database's size is read; the file is imported again IMPORTS times (each
# its own transaction, as a fleet's uploads are); after VACUUM the size is
# read again.  The growth per import, against the file gzipped (as it is
# when it came gzipped, else `gzip -6`), is what one more profile of a
# known build costs.  Last, the median and the largest ratio.
#
# Environment:
#   BENCH_STORAGE_IMPORTS=200   imports of each small file (files over
#                               100 kB gzipped are imported a tenth as often)
#   BENCH_STORAGE_DB=calltree_bench_storage
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR="$BENCH_DIR/out"
REPORT="$OUT_DIR/storage.txt"
IMPORTS=${BENCH_STORAGE_IMPORTS:-200}
DB=${BENCH_STORAGE_DB:-calltree_bench_storage}
TARGET_MEDIAN=0.25
TARGET_MAX=1.0

# shellcheck source=test/lib.sh
. "$BENCH_DIR/../test/lib.sh"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
die() { printf 'storage: %s\n' "$*" | tee -a "$REPORT" >&2; exit 1; }

mkdir -p "$OUT_DIR"
: >"$REPORT"
ct_script_init
ct_at_exit "ct_psql postgres -c 'DROP DATABASE IF EXISTS $DB'"

data="$shared/data"
ss="$data/speedscope-samples"
# path | importer call, $1 standing for the file's bytes (bytea)
FILES=(
	"$data/pprof/sample.cpu|calltree.import_pprof(\$1)"
	"$repo/examples/web-1.pprof|calltree.import_pprof(\$1)"
	"$repo/examples/web-2.pprof|calltree.import_pprof(\$1)"
	"$ss/pprof/simple.prof|calltree.import_pprof(\$1)"
	"$data/firefox-profiler/hello.cjs-20231120T211435.cpuprofile|calltree.import_cpuprofile(convert_from(\$1, 'UTF8'))"
	"$ss/Chrome/65/sucrase.cpuprofile|calltree.import_cpuprofile(convert_from(\$1, 'UTF8'))"
	"$ss/node/10.11.0/example.cpuprofile|calltree.import_cpuprofile(convert_from(\$1, 'UTF8'))"
	"$ss/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt|calltree.import_collapsed(convert_from(\$1, 'UTF8'))"
	"$ss/linux-perf/forks.linux-perf.txt|calltree.import_perf_script(convert_from(\$1, 'UTF8'))"
	"$ss/linux-perf/system-wide.linux-perf.txt|calltree.import_perf_script(convert_from(\$1, 'UTF8'))"
	"$data/firefox-profiler/test.perf.gz|calltree.import_profile(\$1)"
	"$ss/speedscope/0.6.0/two-sampled.speedscope.json|calltree.import_speedscope(convert_from(\$1, 'UTF8'))"
	"$repo/test/data/chrome/chrome116-parent-and-children.json|calltree.import_trace_events(convert_from(\$1, 'UTF8'))"
	"$data/jfr/async-profiler.jfr.gz|(calltree.import_jfr(\$1))[1]"
	"$data/jfr/FastSlow_2024_01_16_180855.jfr.gz|(calltree.import_jfr(\$1))[1]"
)

# A new database per file: space freed by the profiles of the one before
# would be filled again, and the growth measured short.
fresh_db() {
	ct_psql postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null
	ct_query "$DB" "CREATE EXTENSION calltree" >/dev/null
}

db_size() {
	ct_psql "$DB" -q -c "VACUUM" >/dev/null
	ct_query "$DB" "SELECT pg_database_size(current_database())"
}

say "storage: the growth of the database per further import of the same file, after VACUUM, against the file gzipped"
say "$(printf '%-44s %9s %8s %10s %9s %7s' file gzipped samples per-import B/sample ratio)"
: >"$work/ratios"
for entry in "${FILES[@]}"; do
	file=${entry%%|*}
	call=${entry#*|}
	call=${call//\$1/(SELECT data FROM bench_file)}
	[ -r "$file" ] || die "missing $file"
	case "$file" in
	*.gz) gz=$(stat -c %s "$file") ;;
	*) gz=$(gzip -6 -c "$file" | wc -c) ;;
	esac
	n=$IMPORTS
	[ "$gz" -lt 100000 ] || n=$(((IMPORTS + 9) / 10))
	fresh_db
	cp "$file" "$work/file" && chmod a+r "$work/file"
	ct_psql "$DB" -q -v file="$work/file" >/dev/null <<-SQL
		SET client_min_messages = warning;
		DROP TABLE IF EXISTS bench_file;
		CREATE TABLE bench_file AS SELECT pg_read_binary_file(:'file') AS data;
		SELECT $call;
	SQL
	before=$(db_size)
	{
		echo "SET client_min_messages = warning;"
		for _ in $(seq "$n"); do echo "SELECT $call;"; done
	} >"$work/imports.sql"
	ct_psql "$DB" -q -f "$work/imports.sql" >/dev/null
	after=$(db_size)
	samples=$(ct_query "$DB" "SELECT (sum(calltree.sample_count(s.samples)) / count(DISTINCT s.profile_id))::bigint FROM calltree.sample_set s
	                          WHERE s.profile_id = (SELECT max(id) FROM calltree.profile)")
	per=$(((after - before) / n))
	ratio=$(awk -v p="$per" -v g="$gz" 'BEGIN { printf "%.2f", p / g }')
	per_sample=$(awk -v p="$per" -v s="${samples:-0}" 'BEGIN { if (s > 0) printf "%.1f", p / s; else print "-" }')
	echo "$ratio" >>"$work/ratios"
	# the largest ratio counts a profile of at most 400 bytes as within it
	awk -v p="$per" -v r="$ratio" 'BEGIN { print (p <= 400 ? 0 : r) }' >>"$work/capped"
	say "$(printf '%-44s %9s %8s %10s %9s %6sx' "$(basename "$file")" "$gz" "${samples:-0}" "$per" "$per_sample" "$ratio")"
done
median=$(sort -n "$work/ratios" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
largest=$(sort -n "$work/capped" | tail -1)
verdict() { if awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; then echo met; else echo MISSED; fi; }
say "median ratio ${median}x (target <= ${TARGET_MEDIAN}x: $(verdict "$median" "$TARGET_MEDIAN")), largest over 400 bytes ${largest}x (target <= ${TARGET_MAX}x or 400 bytes: $(verdict "$largest" "$TARGET_MAX"))"
