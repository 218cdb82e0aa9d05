#!/usr/bin/env bash
# bench/run.sh: the calltree benchmark (see bench/README.md).
#
# Connects with the usual libpq variables (PGHOST, PGPORT, PGUSER,
# PGDATABASE), with the psql of test/lib.sh; `make bench` sets them for a
# throwaway cluster.  Generates the synthetic profile 'bench' once (about a minute; kept in the database for the
# next run), then times calltree against the floor and against plain SQL and
# prints the report, also written to bench/out/report.txt.
#
# Environment:
#   BENCH_RUNS=N        runs per query, best one counts (default 3)
#   BENCH_REGENERATE=1  drop and regenerate the profile even if it is there
#   BENCH_TRANSFORMS=0  skip the transforms (bench/transforms.sql, minutes)
#   BENCH_DIFF=0        skip the comparison of two trees (bench/diff.sql)
#   BENCH_IMPORTS=1     also run bench/imports.sh, the import benchmark
#                       (off by default: about 11 minutes at full sizes;
#                       its BENCH_IMPORT_* variables pass through)
#   BENCH_STORAGE=0     skip the storage benchmarks: what a profile costs on
#                       disk (bench/storage.sh), a query over a fleet of
#                       packed profiles (bench/fleet.sh) and the ingest rate
#                       (bench/ingest.sh), a few minutes in all
#   BENCH_STRICT=1      exit 1 when a target is missed (default: only a
#                       failed correctness check makes the exit status 1)
set -euo pipefail

# Bump when generate.sql changes the data it makes: a database holding an
# older version is regenerated.
GEN_VERSION=2

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR="$BENCH_DIR/out"
RUNS=${BENCH_RUNS:-3}

# shellcheck source=test/lib.sh
. "$BENCH_DIR/../test/lib.sh"
say() { printf '%s\n' "$*"; }

case "$RUNS" in
'' | *[!0-9]* | 0) say "bench: BENCH_RUNS must be a positive integer" >&2; exit 2 ;;
esac

ct_query "" 'SELECT 1' >/dev/null ||
	{ say "bench: cannot connect (PGHOST=${PGHOST:-} PGPORT=${PGPORT:-} PGDATABASE=${PGDATABASE:-})" >&2; exit 1; }

# The extension: test/run.sh installs it with `make install`; by hand, create
# it in the target database if it is not there yet.
if [ -z "$(ct_query "" "SELECT 1 FROM pg_extension WHERE extname = 'calltree'")" ]; then
	say "bench: CREATE EXTENSION calltree"
	ct_psql "" -c 'CREATE EXTENSION calltree'
fi

mkdir -p "$OUT_DIR"

have_data() {
	ct_psql "" -At -v v="$GEN_VERSION" <<-'SQL'
		SELECT count(*) FROM calltree.profile
		 WHERE name = 'bench'
		   AND meta @> jsonb_build_object('generator', 'calltree-bench',
		                                  'version', :'v'::int, 'complete', true);
	SQL
}

if [ "${BENCH_REGENERATE:-0}" != 1 ] && [ "$(have_data)" != 0 ]; then
	say "bench: profile 'bench' (generator v$GEN_VERSION) is already loaded; not regenerating"
else
	say "bench: generating profile 'bench' (generator v$GEN_VERSION): 10,000,000 samples over 100,000 stacks, about a minute"
	start=$SECONDS
	ct_psql "" -v gen_version="$GEN_VERSION" -f "$BENCH_DIR/generate.sql" >"$OUT_DIR/generate.log" 2>&1 ||
		{ say "bench: generation failed:" >&2; tail -n 30 "$OUT_DIR/generate.log" >&2; exit 1; }
	say "bench: generated in $((SECONDS - start)) s"
fi

# Statistics, hint bits and the visibility map, so that every query sees a
# settled table (no hint-bit writes during the timed runs).  Cheap when
# nothing changed since the last run.
start=$SECONDS
ct_psql "" -c 'VACUUM (ANALYZE) calltree.profile, calltree.func, calltree.frame, calltree.stack, calltree.sample_set, calltree.sample_row'
# Write the dirty pages out now rather than in the middle of a timed query
# (needs superuser or pg_checkpoint; skipped without).
ct_psql "" -c 'CHECKPOINT' >/dev/null 2>&1 || say "bench: CHECKPOINT not allowed for $(ct_query "" 'SELECT current_user'); skipped"
say "bench: VACUUM (ANALYZE) and CHECKPOINT in $((SECONDS - start)) s"

say "bench: timing, runs per query: $RUNS (about a minute for 3)"
machine_before=$(ct_machine)
start=$SECONDS
ct_psql "" -At -v runs="$RUNS" -f "$BENCH_DIR/measure.sql" >"$OUT_DIR/report.txt" 2>"$OUT_DIR/measure.log" ||
	{ say "bench: measurement failed:" >&2; cat "$OUT_DIR/report.txt" "$OUT_DIR/measure.log" >&2; exit 1; }
say "bench: measured in $((SECONDS - start)) s; machine: $machine_before before, load average $(ct_loadavg) after (other work on the machine slows every query)"
say ""
cat "$OUT_DIR/report.txt"

# Transforms: each on the tree, against its path twin over the 10M samples
# (several minutes: the path level aggregates 10M paths per transform).
if [ "${BENCH_TRANSFORMS:-1}" = 1 ]; then
	say ""
	say "bench: transforms (BENCH_TRANSFORMS=0 skips them)"
	ct_psql "" -At -f "$BENCH_DIR/transforms.sql" | tee "$OUT_DIR/transforms.txt" ||
		{ say "bench: transforms failed" >&2; exit 1; }
	cat "$OUT_DIR/transforms.txt" >>"$OUT_DIR/report.txt"
fi

# Comparing: diff(), regressions() and tree - tree on the tree and a
# changed copy, against nodes() of the larger tree.
if [ "${BENCH_DIFF:-1}" = 1 ]; then
	say ""
	say "bench: comparing trees (BENCH_DIFF=0 skips it)"
	ct_psql "" -At -v runs="$RUNS" -f "$BENCH_DIR/diff.sql" | tee "$OUT_DIR/diff.txt" ||
		{ say "bench: comparing failed" >&2; exit 1; }
	cat "$OUT_DIR/diff.txt" >>"$OUT_DIR/report.txt"
fi

rc=0

# Imports: generated perf script, collapsed and pprof files, first and
# repeat imports against the floor, COPY of their sample rows (a scratch
# database of their own; see bench/README.md).  Off by default.
if [ "${BENCH_IMPORTS:-0}" = 1 ]; then
	say ""
	say "bench: imports (bench/imports.sh, BENCH_IMPORTS=1)"
	"$BENCH_DIR/imports.sh" || { say "bench: the import benchmark failed" >&2; rc=1; }
	[ ! -f "$OUT_DIR/imports.txt" ] || cat "$OUT_DIR/imports.txt" >>"$OUT_DIR/report.txt"
fi

# Storage: bytes per profile, fleet queries over packed sets, ingest rate
# (scratch databases of their own; see bench/README.md).
if [ "${BENCH_STORAGE:-1}" = 1 ]; then
	for part in storage fleet ingest; do
		say ""
		say "bench: $part (bench/$part.sh)"
		"$BENCH_DIR/$part.sh" >/dev/null || { say "bench: bench/$part.sh failed" >&2; rc=1; }
		[ ! -f "$OUT_DIR/$part.txt" ] || cat "$OUT_DIR/$part.txt" >>"$OUT_DIR/report.txt"
	done
fi

if grep -q 'FAILED' "$OUT_DIR/report.txt"; then
	say "bench: a correctness check FAILED" >&2
	rc=1
fi
if [ "${BENCH_STRICT:-0}" = 1 ] && grep -q 'MISSED' "$OUT_DIR/report.txt"; then
	say "bench: a target was MISSED (BENCH_STRICT=1)" >&2
	rc=1
fi
exit "$rc"
