#!/usr/bin/env bash
# The runner behind `make run`, `make test` and `make bench`.
#
#   test/run.sh run      build, install, load the README quick start's profiles (examples/web-*.pprof)
#                        as it does, with bin/calltree-load, print the hot part of profile 1's call tree
#   test/run.sh test     build with -Werror, install, pg_regress + isolation, test/t_*.sh
#   test/run.sh bench    build, install, bench/run.sh
#   test/run.sh shell [CMD...]   build, install, run CMD (default: bash) against the cluster
#
# Each mode installs the Debian packages that are missing, builds and installs
# the extension, and starts a throwaway PostgreSQL 15 cluster (socket only, in
# a temp folder) that is stopped and removed on exit, failure or ^C.
# test/lib.sh (the library of every script test) says how.
set -euo pipefail

CT_NAME=test/run.sh
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mode=${1:-}
case "$mode" in
	run | test | bench | shell) ;;
	*)
		echo "usage: $0 run|test|bench|shell [CMD...]" >&2
		exit 2
		;;
esac
shift

passed=0
failed=0
reported=0

# In test mode the last line is always the count, even when set-up fails.
on_exit() {
	local rc=$?
	ct_cleanup
	if [ "$mode" = test ] && [ "$reported" = 0 ]; then
		echo "$passed passed, $((failed + 1)) failed"
		[ "$rc" -ne 0 ] || rc=1
	fi
	exit "$rc"
}

setup() {
	trap on_exit EXIT
	ct_ensure_packages
	ct_make_tmp
	if [ "$mode" = test ]; then
		# -B: a stale object built without -Werror must not hide a warning.
		ct_build -B CI=1
	else
		ct_build
	fi
	ct_install
	if [ "$mode" = bench ]; then
		# a benchmark measures a server as it runs by default: each commit
		# flushed to disk (the tests' clusters skip it, test/lib.sh)
		ct_cluster_start "$CT_TMP/main" "fsync = on"
	else
		ct_cluster_start "$CT_TMP/main"
	fi
	export PGHOST="$CT_TMP/main" PGPORT="$CT_PORT" PGUSER=postgres PGDATABASE=postgres
	ct_say "cluster: up (socket $PGHOST, port $PGPORT)"
}

# ---------------------------------------------------------------- run
do_run() {
	local db=calltree file host id
	"$PG_BIN/createdb" "$db"
	export PGDATABASE=$db
	ct_psql "$db" -c 'CREATE EXTENSION calltree'
	# The quick start's loads (README.md), in its order, so that its ids
	# are these: each file travels from the client, streamed through psql
	# (no server-side file access needed).
	for file in web-1 web-2 web-1-later; do
		host=${file%-later}
		id=$(cd "$CT_REPO" && bin/calltree-load "examples/$file.pprof" --meta "host=$host")
		ct_say "loaded: examples/$file.pprof (host $host) as profile $id" \
			"($(ct_query "$db" "SELECT count(*) || ' samples, ' || (sum(weight) / 1000000)::bigint || ' ms of CPU' FROM calltree.sample WHERE profile_id = $id"))"
	done
	ct_say "call tree of profile 1, the nodes on 25% or more of its CPU time (README.md, Quick start):"
	ct_psql "$db" -P pager=off <<-'SQL'
		SELECT label, running_pct, self_pct
		  FROM calltree.report((SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = 1))
		 WHERE running_pct >= 25;
	SQL
	ct_say "more: README.md's quick start; test/run.sh shell opens a shell on such a cluster"
}

# ---------------------------------------------------------------- test
# count_result EXIT-STATUS
count_result() {
	if [ "$1" = 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
}

# pg_regress_part NAME LABEL DIFFS [MAKE VARIABLES...]: one `make
# installcheck` run; prints its test lines and counts each test.
pg_regress_part() {
	local log="$CT_TMP/$1.log" label=$2 diffs=$3 rc=0 lines ok bad log_lines
	shift 3
	log_lines=$(wc -l <"$CT_TMP/main/server.log")
	make -C "$CT_REPO" PG_CONFIG="$PG_CONFIG" installcheck "$@" >"$log" 2>&1 || rc=$?
	# PostgreSQL 15: "test name ... ok  12 ms", "     name ... FAILED  3 ms"
	lines=$(grep -E '^(test|    ) +[^ ]+ +\.\.\. ' "$log" || true)
	ok=$(grep -cE '\.\.\. +ok( |$)' <<<"$lines" || true)
	bad=$(grep -cvE '\.\.\. +ok( |$)' <<<"$lines" || true)
	[ -n "$lines" ] || bad=0
	ct_say "$label: $((ok + bad)) tests"
	[ -z "$lines" ] || printf '%s\n' "$lines"
	passed=$((passed + ok))
	failed=$((failed + bad))
	if [ "$rc" -ne 0 ]; then
		if [ "$bad" -eq 0 ]; then
			# make failed without a failed test: count the run itself.
			ct_say "$label: make installcheck failed outside any test (exit $rc):"
			tail -n 30 "$log"
			failed=$((failed + 1))
		fi
		if [ -s "$diffs" ]; then
			ct_say "--- head of ${diffs#"$CT_REPO"/} ---"
			head -n 80 "$diffs"
		fi
		crash_report $((log_lines + 1))
	fi
}

# crash_report FROM-LINE: after a failure, whether the main cluster lost a
# server process, and where (test/lib.sh, ct_crash_report).
crash_report() {
	local report
	report=$(ct_crash_report "$CT_TMP/main" "$1")
	[ -z "$report" ] || { echo "    server crash:"; printf '%s\n' "$report" | sed 's/^/    /'; }
}

# run_timed LOG CMD...: run CMD with output to LOG; prints "... ok (N s)".
run_timed() {
	local log=$1 start rc=0
	shift
	start=$SECONDS
	"$@" >"$log" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		echo "ok ($((SECONDS - start)) s)"
	else
		echo "FAILED (exit $rc, $((SECONDS - start)) s)"
		tail -n 30 "$log" | sed 's/^/    /'
	fi
	return "$rc"
}

do_test() {
	local t name rc log_lines
	rm -f "$CT_REPO/regression.diffs" "$CT_REPO/output_iso/regression.diffs"
	# Twice, so that failing sql/ tests do not keep the isolation specs from running.
	pg_regress_part regress "pg_regress (sql/)" "$CT_REPO/regression.diffs" ISOLATION=
	pg_regress_part isolation "isolation (test/isolation/specs/)" "$CT_REPO/output_iso/regression.diffs" REGRESS=

	# The scripts' JavaScript tooling (ajv, the speedscope schema, playwright-core)
	if [ -f "$CT_REPO/test/js/package-lock.json" ]; then
		if (cd "$CT_REPO/test/js" && npm ci --no-audit --no-fund --loglevel=error) >"$CT_TMP/npm.log" 2>&1; then
			ct_say "npm: test/js ready"
		else
			ct_say "npm: npm ci in test/js failed:"
			tail -n 20 "$CT_TMP/npm.log"
		fi
	fi

	local scripts=()
	for t in "$CT_REPO"/test/t_*.sh; do
		[ -x "$t" ] && scripts+=("$t")
	done
	ct_say "scripts (test/t_*.sh): ${#scripts[@]}"
	for t in ${scripts[@]+"${scripts[@]}"}; do
		name=${t#"$CT_REPO"/}
		printf '%-40s ... ' "$name"
		rc=0
		log_lines=$(wc -l <"$CT_TMP/main/server.log")
		run_timed "$CT_TMP/$(basename "$t").log" "$t" || rc=$?
		count_result "$rc"
		[ "$rc" = 0 ] || crash_report $((log_lines + 1))
	done

	reported=1
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

# ---------------------------------------------------------------- bench
do_bench() {
	[ -x "$CT_REPO/bench/run.sh" ] || fail "bench/run.sh is missing or not executable"
	ct_say "bench: bench/run.sh"
	"$CT_REPO/bench/run.sh"
}

do_shell() {
	ct_say "shell: PGHOST=$PGHOST PGPORT=$PGPORT; exit to stop the cluster"
	"${@:-bash}"
}

setup
case "$mode" in
	run) do_run ;;
	test) do_test ;;
	bench) do_bench ;;
	shell) do_shell "$@" ;;
esac
