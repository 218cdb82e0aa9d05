#!/usr/bin/env bash
# import_cpuprofile, import_speedscope and import_trace_events (CPU samples)
# agree with an independent reading
# of the same files: test/reference/json_profiles.py (Python's json module,
# the rules in docs/formats.md, no code shared with the C importers)
# prints per file the samples, total, sum(ts), per-thread counts, the top
# functions' self and running and the top CallNodes; the database prints the
# same lines through pg_temp.summary() of test/reference/helpers.sql; the
# two must be identical.  It also checks that test/reference/firefox_reference.txt,
# whose numbers sql/import_firefox.sql asserts, is still what
# test/reference/firefox_reference.py computes from the real Firefox files.
#
# Starts nothing: uses the runner's cluster (PGHOST, PGPORT, PGUSER) and a
# scratch database.  Needs python3.  CALLTREE_SHARED defaults to ../shared.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_json_reference

files=(
	speedscope-samples/Chrome/65/simple.cpuprofile
	speedscope-samples/Chrome/65/sucrase.cpuprofile
	speedscope-samples/node/10.11.0/example.cpuprofile
	firefox-profiler/hello.cjs-20231120T211435.cpuprofile
	speedscope-samples/speedscope/0.0.1/simple.speedscope.json
	speedscope-samples/speedscope/0.0.1/simple-no-pretty-print.speedscope.json
	speedscope-samples/speedscope/0.1.2/simple-sampled.speedscope.json
	speedscope-samples/speedscope/0.6.0/two-sampled.speedscope.json
	speedscope-samples/Chrome/69/simple.json
	speedscope-samples/trace-event/simple-with-samples.json
	speedscope-samples/trace-event/multi-thread-with-samples.json
)
# Files of this repository (test/data): one per shape of Chrome's traces
# that the real files above do not show
repo_files=(
	chrome/chrome66-cpuprofile-events.json
	chrome/chrome70-worker-chunks-first.json
	chrome/chrome116-parent-and-children.json
)

ct_createdb "$db"
ct_psql "$db" -c 'CREATE EXTENSION calltree'

{
	(cd "$shared/data" && python3 "$repo/test/reference/json_profiles.py" "${files[@]}")
	(cd "$repo/test/data" && python3 "$repo/test/reference/json_profiles.py" "${repo_files[@]}")
} >"$work/reference.txt"

# check_lines DIR FILE...: the psql lines that print each file's numbers
check_lines() {
	local dir=$1 f importer
	shift
	for f in "$@"; do
		case "$f" in
			*.cpuprofile) importer=import_cpuprofile ;;
			*.speedscope.json) importer=import_speedscope ;;
			*) importer=import_trace_events ;;
		esac
		echo "\\echo $f"
		echo "SELECT calltree.$importer(pg_read_file('$dir/$f')) AS id \\gset"
		echo "SELECT * FROM pg_temp.summary(:id);"
	done
}

{
	echo '\set ON_ERROR_STOP 1'
	echo 'SET client_min_messages = warning;'
	echo "\\i $repo/test/reference/helpers.sql"
	check_lines "$shared/data" "${files[@]}"
	check_lines "$repo/test/data" "${repo_files[@]}"
} >"$work/check.sql"
ct_psql "$db" -At -v ON_ERROR_STOP=0 -f "$work/check.sql" >"$work/database.txt"

if ! diff -u "$work/reference.txt" "$work/database.txt"; then
	echo "t_json_reference: the database disagrees with test/reference/json_profiles.py" >&2
	exit 1
fi

# sql/import_firefox.sql checks the numbers of test/reference/firefox_reference.txt;
# that file must still be what firefox_reference.py reads in the real files.
ff=$shared/data/speedscope-samples/Firefox
{
	python3 "$repo/test/reference/firefox_reference.py" "$ff/59/simple-firefox.json" a
	echo
	python3 "$repo/test/reference/firefox_reference.py" "$ff/61/recursion.json" main
} >"$work/firefox.txt"
if ! diff -u "$repo/test/reference/firefox_reference.txt" "$work/firefox.txt"; then
	echo "t_json_reference: test/reference/firefox_reference.txt is not what firefox_reference.py computes now" >&2
	exit 1
fi
echo "t_json_reference: ok ($((${#files[@]} + ${#repo_files[@]})) files, $(wc -l <"$work/reference.txt") lines agree; the Firefox reference is current)"
