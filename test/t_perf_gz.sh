#!/usr/bin/env bash
# import_perf_script() of the Firefox Profiler's gzip-compressed perf script
# fixture (../shared/data/firefox-profiler/test.perf.gz): gunzip -c feeds
# psql, and every fact of test/reference/perf_script_reference.py (samples,
# total, threads, the hottest funcs, a few CallNodes) must match.  The
# fixture has two events, cycles:uppp and one sample of cycles:ppp: the
# default imports the first; event => 'cycles' is an error, since it
# matches both.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN);
# CALLTREE_SHARED is the shared folder (default: ../shared of the repo).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

gz=$shared/data/firefox-profiler/test.perf.gz
db=calltree_perf_gz

[ -r "$gz" ] || fail "cannot read $gz (set CALLTREE_SHARED)"
gunzip -c "$gz" >"$work/test.perf"
python3 "$repo/test/reference/perf_script_reference.py" "$work/test.perf" >"$work/expected"

ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'

# the text goes in as a psql variable read from the decompressed stream
{
	printf '\\set data `gunzip -c %q`\n' "$gz"
	cat "$repo/test/reference/perf_facts.sql"
	echo "SELECT calltree.import_perf_script(:'data', name => 'test.perf.gz') AS id \\gset"
	printf "SELECT pg_temp.perf_facts(:id, string_to_array(%s, E'\\\\n'));\n" \
		"\$facts\$$(cat "$work/expected")\$facts\$"
} >"$work/check.sql"
ct_psql "$db" -At -f "$work/check.sql" >"$work/actual" 2>"$work/stderr" ||
	fail "import failed: $(cat "$work/stderr")"

diff -u "$work/expected" "$work/actual" >"$work/diff" ||
	fail "calltree disagrees with the reference script:
$(cat "$work/diff")"

# event => 'cycles' matches cycles:uppp and cycles:ppp: an error naming the line
if ct_query "$db" "SELECT calltree.import_perf_script(\$\$$(cat "$work/test.perf")\$\$, 'cycles')" >/dev/null 2>"$work/err"; then
	fail "event => 'cycles' should be an error"
fi
grep -q 'matches two events of the perf script, "cycles:uppp" and "cycles:ppp" (line 796)' "$work/err" ||
	fail "unexpected error for event => 'cycles': $(cat "$work/err")"

echo "t_perf_gz: ok ($(wc -l <"$work/expected") facts: $(head -3 "$work/expected" | tr '\n' ' '))"
