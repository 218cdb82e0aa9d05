#!/usr/bin/env bash
# The backend's peak memory while it imports small inputs that expand a lot
# (test/memory_bombs.py makes them): a deep stack of new funcs, in one
# collapsed line, in one gzipped pprof sample, and once per batch of a
# stream; JSON documents of a million elements, in every JSON format; an old
# Gecko profile of many threads, each a JSON string of its own; a gzip file
# that inflates to 100 MB of collapsed stacks; and a DELETE through the view
# calltree.sample that rewrites many large sample sets.
#
# Each case runs in a session of its own, which reads its backend's
# /proc/self/status through pg_read_file (so the test needs no right on the
# server's processes, whoever runs it): the peak resident set (VmHWM) less
# the shared memory it maps (RssShmem, the shared buffers it touched, which
# only grows), after the import against before it.  That growth must stay
# under the case's budget.  The JSON documents of a million elements, at a
# calltree.import_work_mem of 8MB, must be refused with
# program_limit_exceeded before they are expanded; the others must import.
# Before the budgets held, the cases took (in MB): deep_collapsed 249,
# deep_pprof 228, stream_batches 102, cpuprofile 478, speedscope 679,
# firefox 186, trace_events 219, firefox_string_threads 140,
# gzip_collapsed 304, view_delete 130.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_memory_bounds
ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'
# the server reads the inputs with pg_read_binary_file
chmod a+rx "$work"

# private memory in kB: the peak resident set less the shared memory mapped
private_kb="SELECT (regexp_match(s, 'VmHWM:\\s+(\\d+)'))[1]::bigint
	- (regexp_match(s, 'RssShmem:\\s+(\\d+)'))[1]::bigint
	FROM pg_catalog.pg_read_file('/proc/self/status') AS s"

failures=0
report=()

# measure NAME BUDGET_MB SQL [EXPECTED_SQLSTATE]: runs SQL (which may use
# :'file', the input's path) in a new session at import_work_mem 8MB;
# records the growth of the backend's private peak.  With a SQLSTATE, SQL
# must fail with it, else succeed.
measure() {
	local name=$1 budget=$2 sql=$3 state=${4:-} out before after grown
	out=$(ct_psql "$db" -At -v ON_ERROR_STOP=0 -v file="$work/$name.in" 2>&1 <<-SQL
		\\set VERBOSITY sqlstate
		SET calltree.import_work_mem = '8MB';
		LOAD 'calltree';
		$private_kb;
		$sql;
		$private_kb;
	SQL
	) || true
	before=$(sed -n 1p <<<"$out")
	after=$(tail -n 1 <<<"$out")
	if [[ ! $before =~ ^[0-9]+$ || ! $after =~ ^[0-9]+$ ]]; then
		fail "$name: no memory figures in: $out"
	fi
	if [ -n "$state" ]; then
		grep -qx "ERROR:  $state" <<<"$out" ||
			{ echo "$CT_NAME: $name: expected error $state, got: $out" >&2; failures=$((failures + 1)); }
	elif grep -q '^ERROR' <<<"$out"; then
		echo "$CT_NAME: $name: $out" >&2
		failures=$((failures + 1))
	fi
	grown=$(((after - before) / 1024))
	report+=("$name ${grown}MB (budget ${budget}MB)")
	if [ "$grown" -gt "$budget" ]; then
		echo "$CT_NAME: $name: the backend grew by $grown MB, more than $budget MB" >&2
		failures=$((failures + 1))
	fi
}

# T_MEMORY_CASES: a regular expression of the cases to run (default: all)
want() { [[ $1 =~ ${T_MEMORY_CASES:-.} ]]; }
bomb() { python3 "$repo/test/memory_bombs.py" "$1" "$2" "$work/${3:-$1}.in"; }

bytes="pg_catalog.pg_read_binary_file(:'file')"
text="pg_catalog.convert_from($bytes, 'UTF8')"

# a deep stack: one COPY (or INSERT) per level would leak per statement
if want deep_collapsed; then
	bomb deep_collapsed 50000
	measure deep_collapsed 64 "SELECT calltree.import_collapsed($text) > 0"
fi
if want deep_pprof; then
	bomb deep_pprof 50000
	measure deep_pprof 32 "SELECT calltree.import_pprof($bytes) > 0"
fi

# a stream whose every batch of samples adds a new stack 1,000 deep
if want stream_batches; then
	bomb stream_batches 20
	ct_psql "$db" -At -v file="$work/stream_batches.in" <<-SQL
	CREATE TABLE chunks (seq bigserial, chunk text);
	INSERT INTO chunks (chunk)
	SELECT pg_catalog.encode(pg_catalog.substr(d, o, 65536), 'base64')
	  FROM $bytes AS d, pg_catalog.generate_series(1, pg_catalog.length(d), 65536) AS o
	 ORDER BY o;
	SQL
	measure stream_batches 32 "SELECT calltree.import_stream('chunks') > 0"
fi

# JSON of a million elements, refused before it is expanded
for format in cpuprofile speedscope firefox trace_events; do
	want "$format" || continue
	# a trace event is an object of six members: fewer of them
	bomb "$format" "$([ "$format" = trace_events ] && echo 100000 || echo 1000000)"
	measure "$format" 48 "SELECT calltree.import_$format($text)" 54000
	cp "$work/$format.in" "$work/profile_$format.in"
	measure "profile_$format" 48 "SELECT calltree.import_profile($bytes)" 54000
done

# 40 threads written as JSON strings, each within the limit on its own: one
# is read at a time, and its memory given back before the next
if want firefox_string_threads; then
	bomb firefox_string_threads 40
	measure firefox_string_threads 48 "SELECT calltree.import_firefox($text) > 0"
fi

# 100 MB of collapsed stacks in a gzip of about 100 kB, parsed as it inflates
if want gzip_collapsed; then
	bomb gzip_collapsed 100
	measure gzip_collapsed 32 "SELECT calltree.import_profile($bytes) > 0"
fi

# a DELETE through the view calltree.sample of one sample in each of 250
# profiles, each a set of 40,000 samples (some 125 kB): each set is read,
# rewritten and let go before the next (they were all kept until the
# statement's end, 2 copies of each: 130 MB)
if want view_delete; then
	ct_psql "$db" -At <<-SQL >/dev/null
	INSERT INTO calltree.profile (name) SELECT 'view delete ' || g FROM pg_catalog.generate_series(1, 250) AS g;
	INSERT INTO calltree.sample_set (profile_id, thread, samples)
	SELECT p.id, 't', v.samples
	  FROM calltree.profile p,
	       (SELECT calltree.samples_agg(calltree.intern_stack('{main,work}'), w, w, NULL) AS samples
	          FROM pg_catalog.generate_series(1, 40000) AS w) AS v
	 WHERE p.name LIKE 'view delete %';
	SQL
	measure view_delete 32 "DELETE FROM calltree.sample s WHERE s.ts OPERATOR(pg_catalog.=) 7"
fi

printf "$CT_NAME: %s\n" "${report[@]}"
[ "$failures" = 0 ] || fail "$failures case(s) failed"
echo "$CT_NAME: ok"
