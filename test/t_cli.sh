#!/usr/bin/env bash
# bin/calltree, the command line, against go tool pprof on a real Go
# program: test/cli/burn.go, built and run here, writes two CPU profiles
# (a base, then a test in which one function takes twice the time) and a
# heap profile with runtime/pprof.  `calltree load` loads them; then
#   calltree top   equals go tool pprof -top, header and rows, line for line
#                  (CPU in s/ms, and the heap's alloc_space in kB/MB), also
#                  with --nodecount, --nodefraction and --cum;
#   calltree peek  equals go tool pprof -peek;
#   calltree diff  equals go tool pprof -top -diff_base (and with -cum);
#   --focus, --ignore, --hide and --show_from filter as pprof's do;
# pprof's " (inline)" marks are taken off its lines: calltree does not
# tell inlined calls apart.  Then each verb's happy path (tree, flame and
# its differential graph, selections by --name, --where, --from/--until
# that give what ids give, psql's -d, a search_path of the user's that puts
# decoy operators and functions before pg_catalog's), --help of every verb, usage errors
# (exit status 2) and errors (exit status 1: a profile that does not
# exist, a selection that matches none, profiles of two units, of two
# sample types: a JFR recording's cpu and wall; names that PGCLIENTENCODING
# cannot print, and those it can).  `calltree load` of a JFR recording
# prints its three ids, and with --skip-duplicates those of its first load.
# And `make install` put calltree beside psql.
#
# Needs `go` (Debian package golang-go).  Runs against the cluster of
# test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init
ct_use_go

db=calltree_cli
cli=$repo/bin/calltree
export PGDATABASE=$db
unset PGAPPNAME
ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree' >/dev/null

expect() { # expect WHAT ACTUAL EXPECTED
	[ "$2" = "$3" ] || fail "$1: expected \"$3\", got \"$2\""
}

# ---------------------------------------------------------------- the profiles
go build -o "$work/burn" "$repo/test/cli/burn.go" 2>"$work/go.err" || fail "go build failed: $(cat "$work/go.err")"
"$work/burn" "$work/base.pprof" "$work/test.pprof" "$work/heap.pprof" || fail "the Go program failed"

# calltree load: one id a line, one line a file, as bin/calltree-load
ids=$("$cli" load --no-progress --meta run=base "$work/base.pprof" 2>"$work/load.err") ||
	fail "calltree load failed: $(cat "$work/load.err")"
base=$ids
ids=$("$cli" load --no-progress --meta run=test "$work/test.pprof" "$work/base.pprof" 2>"$work/load.err") ||
	fail "calltree load of two files failed: $(cat "$work/load.err")"
expect "calltree load of two files prints" "$(wc -l <<<"$ids")" 2
test=$(head -n 1 <<<"$ids")
again=$(tail -n 1 <<<"$ids")
heap=$("$cli" load --no-progress --option sample_type=alloc_space "$work/heap.pprof" 2>"$work/load.err") ||
	fail "calltree load of the heap profile failed: $(cat "$work/load.err")"
# a CPU profile without a sample (an idle process's), of burn's sample and period types
PYTHONPATH="$repo/test" python3 - "$work/idle.pprof" <<-'PY'
	import sys

	from protobuf_write import field_bytes as ld, field_varint as vint

	def value_type(type_, unit):
	    return vint(1, type_) + vint(2, unit)

	strings = [b'', b'samples', b'count', b'cpu', b'nanoseconds']
	profile = (ld(1, value_type(1, 2)) + ld(1, value_type(3, 4)) + b''.join(ld(6, s) for s in strings)
	           + ld(11, value_type(3, 4)) + vint(12, 10000000))
	with open(sys.argv[1], 'wb') as f:
	    f.write(profile)
PY
idle=$("$cli" load --no-progress --meta run=idle "$work/idle.pprof" 2>"$work/load.err") ||
	fail "calltree load of a profile without samples failed: $(cat "$work/load.err")"
expect "the loaded profiles" "$(ct_query "$db" "SELECT string_agg(concat_ws(':', name, weight_unit, meta->>'run'), ' ' ORDER BY id) FROM calltree.profile")" \
	"base.pprof:nanoseconds:base test.pprof:nanoseconds:test base.pprof:nanoseconds:test heap.pprof:bytes idle.pprof:nanoseconds:idle"

# ---------------------------------------------------------------- against go tool pprof
# from_pprof FILE OPTION...: go tool pprof's report from "Showing nodes" on,
# without its inline marks and trailing white space
from_pprof() {
	local file=$1
	shift
	go tool pprof -symbolize=none "$@" "$file" 2>"$work/pprof.err" |
		sed -n '/^Showing nodes accounting for/,$p' |
		sed -E 's/ \((partial-)?inline\)$//; s/[[:space:]]+$//' ||
		fail "go tool pprof $* failed: $(cat "$work/pprof.err")"
}

# same WHAT CALLTREE-ARGS -- PPROF-FILE PPROF-ARGS: calltree's output is pprof's, line for line
same() {
	local what=$1 args=() file
	shift
	while [ "$1" != -- ]; do
		args+=("$1")
		shift
	done
	shift
	file=$1
	shift
	"$cli" "${args[@]}" >"$work/calltree.out" 2>"$work/calltree.err" ||
		fail "$what: calltree ${args[*]} failed: $(cat "$work/calltree.err")"
	sed -E 's/[[:space:]]+$//' "$work/calltree.out" >"$work/calltree.txt"
	from_pprof "$file" "$@" >"$work/pprof.txt"
	# its header and the columns' names at least (all of a profile without samples)
	[ "$(wc -l <"$work/pprof.txt")" -ge 2 ] || fail "$what: go tool pprof printed almost nothing"
	if ! diff -u "$work/pprof.txt" "$work/calltree.txt" >"$work/same.diff"; then
		cat "$work/same.diff" >&2
		fail "$what: calltree ${args[*]} (+) differs from go tool pprof $* (-)"
	fi
	echo "t_cli: $what: $(wc -l <"$work/pprof.txt") lines as go tool pprof prints them"
}

same "top, CPU" top "$test" -- "$work/test.pprof" -top
same "top, CPU, 3 nodes" top "$test" --nodecount 3 -- "$work/test.pprof" -top -nodecount=3
same "top, CPU, all nodes" top "$base" --nodefraction 0 -- "$work/base.pprof" -top -nodefraction=0
same "top, CPU, by cum" top "$test" --cum -- "$work/test.pprof" -top -cum
same "top, heap bytes" top "$heap" -- "$work/heap.pprof" -top -sample_index=alloc_space
same "peek" peek 'main\.(fib|work)$' "$test" -- "$work/test.pprof" -peek 'main\.(fib|work)$'
same "diff" diff "$base" "$test" -- "$work/test.pprof" -top -diff_base "$work/base.pprof"
same "diff by cum" diff --base "$base" "$test" --cum --nodecount 6 -- "$work/test.pprof" -top -cum -nodecount=6 -diff_base "$work/base.pprof"
# pprof's filters: shares of the whole total, the cutoff of what is left
same "top --focus" top "$test" --focus 'main\.fib' -- "$work/test.pprof" -top -focus='main\.fib'
same "top --ignore --hide" top "$test" --ignore 'main\.fast' --hide '^runtime\.' -- "$work/test.pprof" -top -ignore='main\.fast' -hide='^runtime\.'
same "top --show_from --cum" top "$test" --show_from 'main\.work' --cum -- "$work/test.pprof" -top -cum -show_from='main\.work'
same "peek --focus" peek 'main\.(fib|work)$' "$test" --focus 'main\.fib' -- "$work/test.pprof" -peek 'main\.(fib|work)$' -focus='main\.fib'
same "peek --hide --show_from" peek 'main\.work$' "$test" --hide 'main\.fib' --show_from 'main\.profile' -- "$work/test.pprof" -peek 'main\.work$' -hide='main\.fib' -show_from='main\.profile'
same "diff --focus" diff "$base" "$test" --focus 'main\.(slow|fast)' -- "$work/test.pprof" -top -focus='main\.(slow|fast)' -diff_base "$work/base.pprof"
# a profile without samples: a total of 0, as pprof; as a diff's base, shares of the test's total
same "top, no samples" top "$idle" -- "$work/idle.pprof" -top
same "diff from no samples" diff "$idle" "$test" --nodecount 3 -- "$work/test.pprof" -top -nodecount=3 -diff_base "$work/idle.pprof"
same "diff to no samples" diff "$base" "$idle" --nodecount 3 -- "$work/idle.pprof" -top -nodecount=3 -diff_base "$work/base.pprof"

# ---------------------------------------------------------------- the other verbs
# tree: the call tree, roots first, children indented under their parent
"$cli" tree "$test" --depth 3 --nodefraction 0 >"$work/tree.txt" || fail "calltree tree failed"
expect "tree's first line" "$(head -n 1 "$work/tree.txt" | sed -E 's/^Showing ([0-9]+) of [0-9]+ nodes, .* in all$/showing \1/')" \
	"showing $(($(wc -l <"$work/tree.txt") - 2))"
expect "tree's main branch" "$(awk 'NR > 2 { print $NF, index($0, $NF) }' "$work/tree.txt" | grep -E '^(runtime\.main|main\.main|main\.profile) ' | tr '\n' ' ')" \
	"runtime.main 38 main.main 40 main.profile 42 "
[ "$(awk 'NR > 2' "$work/tree.txt" | grep -c .)" -ge 3 ] || fail "tree printed under 3 nodes"
# tree --focus: the samples through main.fib, shares of the whole total, no node left at 0
"$cli" tree "$test" --nodefraction 0 >"$work/tree.txt" || fail "calltree tree failed"
"$cli" tree "$test" --nodefraction 0 --focus 'main\.fib' >"$work/focus.txt" || fail "calltree tree --focus failed"
expect "tree --focus: the whole total" "$(head -n 1 "$work/focus.txt" | sed 's/.*, //')" "$(head -n 1 "$work/tree.txt" | sed 's/.*, //')"
expect "tree --focus: main.fib's running weight at its outermost node" \
	"$(awk 'NR > 2 && $NF == "main.fib" { print $1; exit }' "$work/focus.txt")" "$(awk 'NR > 2 && $NF == "main.fib" { print $1; exit }' "$work/tree.txt")"
! awk 'NR > 2' "$work/focus.txt" | grep -qE '^ +0 +0% ' || fail "tree --focus shows nodes of weight 0: $(cat "$work/focus.txt")"
! awk 'NR > 2' "$work/focus.txt" | grep -q 'main\.fast$' || fail "tree --focus shows main.fast, which does not call main.fib"
"$cli" tree "$idle" >"$work/tree.txt" || fail "calltree tree of a profile without samples failed"
expect "tree of a profile without samples" "$(head -n 1 "$work/tree.txt")" "Showing 0 of 0 nodes, 0 in all"

# flame: an SVG on stdout or in a file, and a differential one
"$cli" flame "$test" --title 'test run' >"$work/flame.svg" || fail "calltree flame failed"
{ grep -q '<svg' "$work/flame.svg" && grep -q 'test run' "$work/flame.svg" && grep -q 'main.fib' "$work/flame.svg"; } ||
	fail "calltree flame: no SVG with the title and main.fib"
# its tooltips in the profile's unit, as pprof prints weights: "running 1.23s (45.60%), self ..."
grep -qE '^running [0-9.]+(s|ms) \([0-9.]+%\), self (0|[0-9.]+(s|ms|us|ns)) \([0-9.]+%\)</title>' "$work/flame.svg" &&
	! grep -qE '^running [0-9]+ \(' "$work/flame.svg" ||
	fail "calltree flame: tooltips not in the profile's unit: $(grep -m 3 '^running' "$work/flame.svg")"
"$cli" flame "$test" --ignore 'main\.fib' -o "$work/ignore.svg" || fail "calltree flame --ignore failed"
[ "$(ct_query "$db" "SELECT calltree.flamegraph(calltree.drop_function(calltree.tree_of($test), calltree.funcs('main\.fib')), 'profile $test', false, unit => 'nanoseconds')")" = "$(cat "$work/ignore.svg")" ] ||
	fail "calltree flame --ignore: not the flame graph of drop_function()"
"$cli" flame "$test" --base "$base" -o "$work/diff.svg" || fail "calltree flame --base failed"
[ "$(ct_query "$db" "SELECT calltree.flamegraph_diff(calltree.tree_of($base), calltree.tree_of($test), 'profile $test against profile $base', unit => 'nanoseconds')")" = "$(cat "$work/diff.svg")" ] ||
	fail "calltree flame --base: not flamegraph_diff() of the two trees"

# selections by name, meta and time give what ids give
"$cli" top "$base" "$again" >"$work/by_ids.txt"
"$cli" top --name base.pprof >"$work/by_name.txt"
cmp -s "$work/by_ids.txt" "$work/by_name.txt" || fail "top --name base.pprof differs from top $base $again"
"$cli" top "$test" "$again" >"$work/by_two.txt"
"$cli" top --where run=test >"$work/by_meta.txt"
cmp -s "$work/by_two.txt" "$work/by_meta.txt" || fail "top --where run=test differs from top $test $again"
# a number of meta matches as written, as JFR's sample_rate and the receiver's sampleRate are stored
ct_query "$db" "UPDATE calltree.profile SET meta = meta || '{\"rate\": 100}' WHERE id = $test" >/dev/null
"$cli" top --where rate=100 --where run=test >"$work/by_number.txt" || fail "top --where rate=100 failed"
"$cli" top "$test" >"$work/by_one.txt"
cmp -s "$work/by_one.txt" "$work/by_number.txt" ||
	fail "top --where rate=100 (a number) differs from top $test: $(cat "$work/by_number.txt")"
ct_query "$db" "UPDATE calltree.profile SET meta = meta - 'rate' WHERE id = $test" >/dev/null
"$cli" top "$test" >"$work/by_id.txt"
started=$(ct_query "$db" "SELECT started_at FROM calltree.profile WHERE id = $test")
"$cli" top --from "$started" --until "$(ct_query "$db" "SELECT '$started'::timestamptz + interval '1 microsecond'")" \
	--where run=test >"$work/by_time.txt"
cmp -s "$work/by_id.txt" "$work/by_time.txt" || fail "top --from/--until differs from top $test"
# psql's connection options, without PGDATABASE
(unset PGDATABASE && "$cli" top -d "$db" -h "$PGHOST" -p "$PGPORT" -U "$PGUSER" "$test") >"$work/by_options.txt" ||
	fail "calltree top -d -h -p -U failed"
cmp -s "$work/by_id.txt" "$work/by_options.txt" || fail "top with -d -h -p -U differs"
# a search_path of the user's own that puts a schema before pg_catalog: its operators and
# functions of the same names are not the ones calltree's SQL runs (each decoy raises)
ct_psql "$db" -q >/dev/null <<-'SQL'
	CREATE SCHEMA decoy;
	CREATE FUNCTION decoy.ran(name text) RETURNS boolean LANGUAGE plpgsql AS
	    $$BEGIN RAISE EXCEPTION 'the decoy % of schema decoy ran', name; END$$;
	CREATE FUNCTION decoy.text_eq(text, text) RETURNS boolean LANGUAGE sql AS $$SELECT decoy.ran('text = text')$$;
	CREATE OPERATOR decoy.= (FUNCTION = decoy.text_eq, LEFTARG = text, RIGHTARG = text);
	CREATE FUNCTION decoy.int84ne(bigint, integer) RETURNS boolean LANGUAGE sql AS $$SELECT decoy.ran('bigint <> integer')$$;
	CREATE OPERATOR decoy.<> (FUNCTION = decoy.int84ne, LEFTARG = bigint, RIGHTARG = integer);
	CREATE FUNCTION decoy.abs(bigint) RETURNS bigint LANGUAGE sql AS $$SELECT 0 WHERE decoy.ran('abs(bigint)')$$;
	CREATE FUNCTION decoy.name_eq(name, name) RETURNS boolean LANGUAGE sql AS $$SELECT decoy.ran('name = name')$$;
	CREATE OPERATOR decoy.= (FUNCTION = decoy.name_eq, LEFTARG = name, RIGHTARG = name);
	CREATE FUNCTION decoy.oid_eq(oid, oid) RETURNS boolean LANGUAGE sql AS $$SELECT decoy.ran('oid = oid')$$;
	CREATE OPERATOR decoy.= (FUNCTION = decoy.oid_eq, LEFTARG = oid, RIGHTARG = oid);
SQL
# ... which they are on such a search_path, in a query of the user's own
PGOPTIONS='-c search_path=decoy,pg_catalog' ct_query "$db" "SELECT 'a' = 'a'::text" >/dev/null 2>"$work/err" &&
	fail "the decoy = of schema decoy is not used on its search_path"
grep -q 'the decoy text = text of schema decoy ran' "$work/err" || fail "the decoy = of schema decoy: $(cat "$work/err")"
# decoyed CALLTREE-ARGS: calltree's output on a search_path of schema decoy, in $work/decoyed.txt
decoyed() {
	PGOPTIONS='-c search_path=decoy,pg_catalog' "$cli" "$@" >"$work/decoyed.txt" 2>"$work/err" ||
		fail "calltree $* on a search_path of schema decoy failed: $(cat "$work/err")"
}
decoyed top --where run=test
cmp -s "$work/by_meta.txt" "$work/decoyed.txt" || fail "top --where on a search_path of schema decoy: $(cat "$work/decoyed.txt")"
"$cli" peek 'main\.(fib|work)$' "$test" --focus 'main\.fib' >"$work/peek.txt" || fail "calltree peek --focus failed"
decoyed peek 'main\.(fib|work)$' "$test" --focus 'main\.fib'
cmp -s "$work/peek.txt" "$work/decoyed.txt" || fail "peek on a search_path of schema decoy: $(cat "$work/decoyed.txt")"
"$cli" tree "$test" >"$work/tree.txt" || fail "calltree tree failed"
decoyed tree "$test"
cmp -s "$work/tree.txt" "$work/decoyed.txt" || fail "tree on a search_path of schema decoy: $(cat "$work/decoyed.txt")"
# calltree load's SQL too (bin/calltree-load's): the extension found, the profile described
printf 'main;decoyed 1\n' >"$work/decoyed.collapsed"
decoyed load --no-progress "$work/decoyed.collapsed"
expect "calltree load on a search_path of schema decoy" \
	"$(ct_query "$db" "SELECT name FROM calltree.profile WHERE id = $(cat "$work/decoyed.txt")")" decoyed.collapsed
ct_query "$db" 'DROP SCHEMA decoy CASCADE' >/dev/null

# ---------------------------------------------------------------- help, usage, errors
# status WANT CMD...: the exit status of CMD, its stderr in $work/err
status() {
	local want=$1 rc=0
	shift
	"$@" >"$work/out" 2>"$work/err" || rc=$?
	[ "$rc" = "$want" ] || fail "$* exited with $rc, not $want: $(cat "$work/err")"
}
status 0 "$cli" --help
grep -q 'exit status: 0 done; 1 an error' "$work/out" || fail "calltree --help does not say the exit codes"
for verb in top peek tree diff flame; do
	status 0 "$cli" "$verb" --help
	{ grep -q "^usage: calltree $verb" "$work/out" && grep -q 'exit status: 0 done' "$work/out"; } ||
		fail "calltree $verb --help: no usage or exit codes"
done
status 0 "$cli" load --help
grep -q '^usage: calltree load' "$work/out" || fail "calltree load --help: no usage"

status 2 "$cli"
status 2 "$cli" frobnicate 1
grep -q "unknown verb 'frobnicate'" "$work/err" || fail "an unknown verb: $(cat "$work/err")"
status 2 "$cli" top
grep -q 'name the profiles' "$work/err" || fail "top without profiles: $(cat "$work/err")"
status 2 "$cli" top --bogus 1
status 2 "$cli" top x1
status 2 "$cli" top 99999999999999999999
grep -q "a profile id is a number (a bigint), not '99999999999999999999'" "$work/err" || fail "an id past bigint: $(cat "$work/err")"
status 2 "$cli" top "$test" --where run=test
status 2 "$cli" top --where run
status 2 "$cli" top "$test" --nodecount 0
status 2 "$cli" diff "$test"
status 2 "$cli" peek
status 2 "$cli" load --format nonsense "$work/test.pprof"

status 1 "$cli" top 999999
grep -q 'profile 999999 does not exist' "$work/err" || fail "an unknown profile: $(cat "$work/err")"
status 1 "$cli" diff "$base" 999999
status 1 "$cli" flame 999999
status 1 "$cli" top --where run=nothing
grep -q 'no profile matches --where run=nothing' "$work/err" || fail "an empty selection: $(cat "$work/err")"
# a time PostgreSQL cannot read: its option named, none of calltree's own SQL shown
status 1 "$cli" top --from 'yesterday-ish'
{ grep -q 'invalid input syntax for type timestamp with time zone: "yesterday-ish"' "$work/err" &&
	grep -q '^HINT:  --from takes a time' "$work/err" && ! grep -q '^LINE' "$work/err"; } ||
	fail "an unreadable --from: $(cat "$work/err")"
status 1 "$cli" diff "$base" --base-until '2026-13-45'
{ grep -q '^HINT:  --base-until takes a time' "$work/err" && ! grep -q 'datestyle' "$work/err"; } ||
	fail "an unreadable --base-until: $(cat "$work/err")"
status 1 "$cli" top "$test" "$heap"
{ grep -q 'several weight units: bytes' "$work/err" && grep -q '^HINT:  .* --where sample_type=TYPE' "$work/err"; } ||
	fail "profiles of two units: $(cat "$work/err")"
# a JFR recording makes a profile per kind of sample: calltree load prints every id, a line
# each in the recording's order (not the first alone, with a NOTICE naming the others), and
# says on stderr what each is
jfr_gz=$shared/data/jfr/FastSlow_2024_01_16_180855.jfr.gz
jfr=$("$cli" load --no-progress --meta run=jfr "$jfr_gz" 2>"$work/load.err") ||
	fail "calltree load of a JFR recording failed: $(cat "$work/load.err")"
expect "calltree load of a JFR recording prints" "$(paste -sd ' ' <<<"$jfr")" \
	"$(ct_query "$db" "SELECT string_agg(id::text, ' ' ORDER BY id) FROM calltree.profile WHERE meta->>'run' = 'jfr'")"
read -r cpu wall alloc <<<"$(paste -sd ' ' <<<"$jfr")"
expect "the JFR recording's sample types, in the order printed" \
	"$(ct_query "$db" "SELECT string_agg(meta->>'sample_type', ' ' ORDER BY array_position(ARRAY[$cpu, $wall, $alloc]::bigint[], id))
	                   FROM calltree.profile WHERE meta->>'run' = 'jfr'")" "cpu wall alloc_in_new_tlab_bytes"
expect "calltree load's description of them" "$(cat "$work/load.err")" \
	"calltree load: $jfr_gz made 3 profiles, named FastSlow_2024_01_16_180855.jfr:
  $cpu  cpu (process_cpu), nanoseconds
  $wall  wall, nanoseconds
  $alloc  alloc_in_new_tlab_bytes (memory), bytes"
# ... as bin/calltree-load prints them, and a file of one profile prints its id alone
"$repo/bin/calltree-load" --no-progress --meta run=jfr-again "$jfr_gz" "$work/heap.pprof" >"$work/out" 2>"$work/err" ||
	fail "calltree-load of a JFR recording and a pprof file failed: $(cat "$work/err")"
expect "calltree-load of a JFR recording and a pprof file prints" "$(wc -l <"$work/out")" 4
grep -q "^calltree-load: $jfr_gz made 3 profiles" "$work/err" || fail "calltree-load's description: $(cat "$work/err")"
! grep -q 'the others are' "$work/err" || fail "the server's NOTICE of the first id alone: $(cat "$work/err")"
# --skip-duplicates of the recording, loaded twice before: the profiles of the first load, all
# three (they name the first in first_of_import), not the earliest alone nor the second load's
profiles=$(ct_query "$db" 'SELECT count(*) FROM calltree.profile')
"$cli" load --no-progress --skip-duplicates "$jfr_gz" >"$work/out" 2>"$work/err" ||
	fail "calltree load --skip-duplicates of a JFR recording loaded before failed: $(cat "$work/err")"
expect "calltree load --skip-duplicates of a JFR recording loaded before prints" "$(paste -sd ' ' "$work/out")" "$cpu $wall $alloc"
expect "the profiles after calltree load --skip-duplicates" "$(ct_query "$db" 'SELECT count(*) FROM calltree.profile')" "$profiles"
# ... and those only, however close the loads: two imports of a recording in one transaction
# (one imported_at) are two imports, and --skip-duplicates prints the first one's
dump2=$shared/data/jfr/dump2.jfr.gz
# the recording inline in the SQL (an argument of its size is past the kernel's limit)
{
	printf "CREATE TEMP TABLE jfr AS SELECT decode('%s', 'base64') AS data;\n" "$(gunzip -c "$dump2" | base64 -w 0)"
	echo 'BEGIN;'
	echo "SELECT array_to_string(calltree.import_jfr(data), ' ') FROM jfr;"
	echo "SELECT array_to_string(calltree.import_jfr(data), ' ') FROM jfr;"
	echo 'COMMIT;'
} | ct_psql "$db" -At >"$work/twice.txt" 2>"$work/err" ||
	fail "two imports of $dump2 in one transaction failed: $(cat "$work/err")"
[ "$(wc -l <"$work/twice.txt")" = 2 ] || fail "two imports of $dump2 in one transaction: $(cat "$work/twice.txt")"
"$cli" load --no-progress --skip-duplicates "$dump2" >"$work/out" 2>"$work/err" ||
	fail "calltree load --skip-duplicates of $dump2 failed: $(cat "$work/err")"
expect "calltree load --skip-duplicates of a recording imported twice in one transaction prints" \
	"$(paste -sd ' ' "$work/out")" "$(head -n 1 "$work/twice.txt")"
# a JFR recording's CPU and wall-clock profiles: both in nanoseconds, but pprof never adds
# two sample types up; the choice of one works
ct_query "$db" "UPDATE calltree.profile SET meta = meta || '{\"timed\": \"yes\"}' WHERE id IN ($cpu, $wall)" >/dev/null
for verb in top tree "peek fib" flame; do
	# shellcheck disable=SC2086  # the verb and its argument
	status 1 "$cli" $verb --where timed=yes
	{ grep -q "^calltree ${verb%% *}: the profiles have several sample types: cpu ($cpu), wall ($wall)$" "$work/err" &&
		grep -q '^HINT:  Choose one with --where sample_type=TYPE (--where sample_type=cpu)' "$work/err"; } ||
		fail "$verb of a JFR recording's cpu and wall profiles: $(cat "$work/err")"
done
status 1 "$cli" top "$cpu" "$wall"
grep -q '^HINT:  Name the ids of profiles of one sample type.$' "$work/err" || fail "top of cpu and wall ids: $(cat "$work/err")"
status 1 "$cli" diff --base-where timed=yes "$cpu"
grep -q "^calltree diff: the base profiles have several sample types: cpu ($cpu), wall ($wall)$" "$work/err" &&
	grep -q '^HINT:  Choose one with --base-where sample_type=TYPE' "$work/err" || fail "diff of a mixed base: $(cat "$work/err")"
status 1 "$cli" diff --base "$cpu" --where timed=yes
grep -q "^calltree diff: the test profiles have several sample types" "$work/err" || fail "diff of a mixed test: $(cat "$work/err")"
status 1 "$cli" diff "$cpu" "$wall"
grep -q "^calltree diff: the base and test profiles have several sample types: cpu ($cpu), wall ($wall)$" "$work/err" ||
	fail "diff of cpu against wall: $(cat "$work/err")"
status 1 "$cli" flame "$wall" --base "$cpu"
grep -q "^calltree flame: the base and test profiles have several sample types" "$work/err" ||
	fail "flame of wall against cpu: $(cat "$work/err")"
"$cli" top --where timed=yes --where sample_type=cpu >"$work/chosen.txt" || fail "top of the chosen sample type failed"
"$cli" top "$cpu" >"$work/cpu.txt"
cmp -s "$work/cpu.txt" "$work/chosen.txt" || fail "top --where sample_type=cpu differs from top $cpu"
# PGCLIENTENCODING, the user's terminal's encoding as psql takes it: calltree talks UTF-8 with
# the server and prints in it, reads the arguments in it, and refuses a name it cannot print
printf 'main;rechercher_donn\xc3\xa9e 5\nmain;lire 2\n' >"$work/latin.collapsed"
printf 'main;\xe8\xa8\x88\xe7\xae\x97 3\n' >"$work/cjk.collapsed"
latin=$("$cli" load --no-progress "$work/latin.collapsed") || fail "calltree load of latin.collapsed failed"
cjk=$("$cli" load --no-progress "$work/cjk.collapsed") || fail "calltree load of cjk.collapsed failed"
"$cli" top "$latin" >"$work/utf8.txt" || fail "top of names in UTF-8 failed"
grep -q 'rechercher_donnée$' "$work/utf8.txt" || fail "top of names in UTF-8: $(cat "$work/utf8.txt")"
PGCLIENTENCODING=LATIN1 status 0 "$cli" top "$latin"
iconv -f LATIN1 -t UTF-8 "$work/out" | cmp -s - "$work/utf8.txt" ||
	fail "top in LATIN1 is not top in UTF-8, in LATIN1: $(od -c "$work/out" | head -n 20) $(cat "$work/err")"
PGCLIENTENCODING=LATIN1 status 0 "$cli" peek "$(printf 'donn\xe9e$')" "$latin"
iconv -f LATIN1 -t UTF-8 "$work/out" | grep -q '| rechercher_donnée$' || fail "peek of a regex in LATIN1: $(cat "$work/err")"
PGCLIENTENCODING=LATIN1 status 1 "$cli" top "$cjk"
{ grep -q "^calltree top: cannot print '計算' in LATIN1 (PGCLIENTENCODING), which has no such character" "$work/err" &&
	grep -q '^HINT:  Print in UTF8: PGCLIENTENCODING=UTF8' "$work/err" && [ ! -s "$work/out" ]; } ||
	fail "top of a name LATIN1 has not, in LATIN1: $(cat "$work/err")"
PGCLIENTENCODING=win1252 status 0 "$cli" top "$latin"
PGCLIENTENCODING=BOGUS status 1 "$cli" top "$latin"
grep -q '^calltree top: PGCLIENTENCODING=BOGUS: calltree cannot print in this encoding' "$work/err" ||
	fail "an unknown PGCLIENTENCODING: $(cat "$work/err")"
# calltree load reads its options and writes its messages in PGCLIENTENCODING too
PGCLIENTENCODING=LATIN1 status 0 "$cli" load --no-progress --name "$(printf 'donn\xe9es')" --meta "$(printf 'o\xf9=ici')" "$jfr_gz"
read -r latin_cpu _ <<<"$(paste -sd ' ' "$work/out")"
expect "the name and meta calltree load read in LATIN1" \
	"$(ct_query "$db" "SELECT string_agg(DISTINCT concat_ws(' ', name, meta->>'où'), ',') FROM calltree.profile WHERE id >= $latin_cpu")" "données ici"
iconv -f LATIN1 -t UTF-8 "$work/err" | grep -q "made 3 profiles, named données:$" ||
	fail "calltree load's description in LATIN1: $(od -c "$work/err" | head -n 5)"
PGCLIENTENCODING=BOGUS status 1 "$cli" load --no-progress "$work/latin.collapsed"
grep -q '^calltree load: PGCLIENTENCODING=BOGUS: calltree cannot print in this encoding' "$work/err" ||
	fail "calltree load in an unknown PGCLIENTENCODING: $(cat "$work/err")"
status 1 "$cli" top "$test" --focus '('
grep -q "^HINT:  A POSIX regular expression is expected: --focus '('" "$work/err" || fail "a bad --focus: $(cat "$work/err")"
status 1 "$cli" peek 'no_such_function' "$test"
grep -q 'no function matches' "$work/err" || fail "peek of nothing: $(cat "$work/err")"
status 1 "$cli" top -d calltree_cli_no_such_db "$test"
status 1 "$cli" top -d postgres "$test"
grep -q 'database "postgres" has no calltree extension' "$work/err" || fail "a database without calltree: $(cat "$work/err")"
status 1 "$cli" load "$work/no_such_file"

# ---------------------------------------------------------------- installed
{ [ -x "$PG_BIN/calltree" ] && [ -x "$PG_BIN/calltree-load" ]; } || fail "make install did not put calltree and calltree-load in $PG_BIN"
"$PG_BIN/calltree" top "$test" >"$work/installed.txt" || fail "the installed calltree failed"
cmp -s "$work/by_id.txt" "$work/installed.txt" || fail "the installed calltree prints otherwise"
echo "t_cli: every verb, --help, usage errors (2) and errors (1) checked"
