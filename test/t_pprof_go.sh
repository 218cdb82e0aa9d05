#!/usr/bin/env bash
# to_pprof output read by Go's own pprof: `go tool pprof -top` reports for
# every function the same flat (self) and cum (running) weights as
# calltree.functions() on the tree, for a real profile (sample.cpu, with
# inlined frames, files and a mapping) and for a tree with recursion.
#
# Then a heap profile that mixes two builds (test/mixed_builds_pprof.py),
# read by pprof as it is: each function of the binary is two funcs there,
# one per build id.  functions() of unify_funcs(tree) agrees with
# `go tool pprof -top` on every function, and unify_funcs(tree, 'file')
# with `-top -filefunctions`; functions() of the tree itself does not.
#
# Needs `go` (Debian package golang-go).  Runs against the cluster of
# test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN, CALLTREE_SHARED).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_pprof_go
ct_use_go


ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'

# The trees under test, in a table: sample.cpu by sample count, and a tree
# of named paths with recursion.
ct_psql "$db" -At -v file="$shared/data/pprof/sample.cpu" <<'SQL'
CREATE TABLE trees (name text PRIMARY KEY, tree calltree.calltree);
SELECT calltree.import_pprof(pg_read_binary_file(:'file'), 'samples') AS id \gset
INSERT INTO trees
SELECT 'sample.cpu', calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = :id;
INSERT INTO trees
SELECT 'recursive', calltree.calltree_agg(path, weight)
  FROM (VALUES (ARRAY['main', 'a', 'b', 'a', 'c'], 7), (ARRAY['main', 'a'], 3),
               (ARRAY['main', 'b', 'c'], 2), (ARRAY['other', 'c'], 5)) AS v(names, weight),
       LATERAL (SELECT array_agg(calltree.intern_func(n) ORDER BY i) AS path
                  FROM unnest(names) WITH ORDINALITY AS u(n, i)) p;
SQL

# top_from_go FILE [OPTION...]: "name flat cum" lines, sorted, from go tool pprof -top
top_from_go() {
	local file=$1
	shift
	go tool pprof -symbolize=none -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$@" "$file" 2>"$work/go.err" |
		awk 'found { name = $6; for (i = 7; i <= NF; i++) name = name " " $i;
		             sub(/ \(inline\)$/, "", name); print name, $1, $4 }
		     /^ *flat +flat% +sum% +cum +cum%/ { found = 1 }' | LC_ALL=C sort
}

# top_from_sql NAME: the same lines from functions()
top_from_sql() {
	ct_psql "$db" -At -F ' ' -v name="$1" <<'SQL' | LC_ALL=C sort
SELECT f.name, fn.self, fn.running
  FROM trees t, calltree.functions(t.tree) fn JOIN calltree.func f ON f.id = fn.func
 WHERE t.name = :'name' AND fn.running <> 0;
SQL
}

checked=0
for name in sample.cpu recursive; do
	ct_psql "$db" -At -v name="$name" <<<"SELECT encode(calltree.to_pprof(tree), 'base64') FROM trees WHERE name = :'name'" |
		base64 -d >"$work/$name.pb.gz"
	[ -s "$work/$name.pb.gz" ] || fail "$name: to_pprof gave nothing"
	top_from_go "$work/$name.pb.gz" >"$work/$name.go"
	[ -s "$work/$name.go" ] || { cat "$work/go.err" >&2; fail "$name: go tool pprof -top printed no functions"; }
	top_from_sql "$name" >"$work/$name.sql"
	if ! diff -u "$work/$name.sql" "$work/$name.go" >"$work/$name.diff"; then
		cat "$work/$name.diff" >&2
		fail "$name: go tool pprof -top (+) disagrees with functions() (-)"
	fi
	echo "t_pprof_go: $name: $(wc -l <"$work/$name.go") functions agree"
	checked=$((checked + 1))
done
[ "$checked" = 2 ] || fail "checked $checked trees of 2"

# The mixed-build heap profile, imported by alloc_objects and alloc_space.
python3 "$repo/test/mixed_builds_pprof.py" "$work/mixed.pb.gz"
for sample_type in alloc_objects alloc_space; do
	ct_psql "$db" -At -v data="$(base64 -w0 "$work/mixed.pb.gz")" -v type="$sample_type" <<'SQL'
SELECT calltree.import_pprof(decode(:'data', 'base64'), :'type') AS id \gset
INSERT INTO trees
SELECT 'mixed ' || :'type', calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = :id;
SQL
done

# top_of_mixed SAMPLE_TYPE BY: functions() of unify_funcs(tree, BY) (of the
# tree itself when BY is empty), as top_from_go prints it; 'file' names a
# function by name and file, as -filefunctions does
top_of_mixed() {
	ct_psql "$db" -At -F ' ' -v name="mixed $1" -v by="$2" <<'SQL' | LC_ALL=C sort
SELECT CASE WHEN :'by' = 'file' THEN f.name || ' ' || f.file ELSE f.name END, fn.self, fn.running
  FROM trees t,
       calltree.functions(CASE WHEN :'by' = '' THEN t.tree ELSE calltree.unify_funcs(t.tree, :'by') END) fn
  JOIN calltree.func f ON f.id = fn.func
 WHERE t.name = :'name' AND fn.running <> 0;
SQL
}

# in_units: "name flat cum" lines with pprof's unit (B, with -unit=B) taken off the numbers
in_units() {
	awk '{ sub(/B$/, "", $NF); sub(/B$/, "", $(NF - 1)); print }'
}

[ "$(ct_query "$db" "SELECT count(*) FROM calltree.func WHERE name = 'main.handle'")" = 2 ] ||
	fail "mixed builds: main.handle should be two funcs, one per build"
for sample_type in alloc_objects alloc_space; do
	top_from_go "$work/mixed.pb.gz" -sample_index="$sample_type" -unit=B | in_units >"$work/$sample_type.go"
	top_from_go "$work/mixed.pb.gz" -sample_index="$sample_type" -unit=B -filefunctions |
		in_units >"$work/$sample_type.file.go"
	[ -s "$work/$sample_type.go" ] || { cat "$work/go.err" >&2; fail "mixed $sample_type: go tool pprof -top printed no functions"; }
	top_of_mixed "$sample_type" name >"$work/$sample_type.sql"
	top_of_mixed "$sample_type" file >"$work/$sample_type.file.sql"
	top_of_mixed "$sample_type" '' >"$work/$sample_type.ununified.sql"
	for by in '' .file; do
		if ! diff -u "$work/$sample_type$by.sql" "$work/$sample_type$by.go" >"$work/$sample_type.diff"; then
			cat "$work/$sample_type.diff" >&2
			fail "mixed $sample_type: go tool pprof -top${by:+ -filefunctions} (+) disagrees with functions(unify_funcs(tree${by:+, 'file'})) (-)"
		fi
	done
	if diff -q "$work/$sample_type.ununified.sql" "$work/$sample_type.go" >/dev/null; then
		fail "mixed $sample_type: functions() of the tree itself agrees with go tool pprof, so the profile tests nothing"
	fi
	echo "t_pprof_go: mixed builds, $sample_type: $(wc -l <"$work/$sample_type.go") functions by name and $(wc -l <"$work/$sample_type.file.go") by name and file agree"
done
