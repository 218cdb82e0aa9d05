#!/usr/bin/env bash
# A signed tree (the difference of two trees) through to_pprof, read by
# Go's own pprof: `go tool pprof -top` reports for every function the same
# flat (self) and cum (running) weights, negative ones included, as
# calltree.functions() on the tree.  The trees: one half of the samples of
# sample.cpu (a real profile with inlined frames) minus the other half, and
# a small tree with recursion minus another.
#
# Needs `go` (Debian package golang-go).  Runs against the cluster of
# test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN, CALLTREE_SHARED).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_signed_pprof_go
ct_use_go


ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'

ct_psql "$db" -At -v file="$shared/data/pprof/sample.cpu" <<'SQL'
SET search_path = public, calltree;
CREATE TABLE trees (name text PRIMARY KEY, tree calltree.calltree);
CREATE FUNCTION named(names text[], weight bigint, OUT path int4[], OUT weight bigint) LANGUAGE sql AS $$
  SELECT array_agg(calltree.intern_func(n) ORDER BY i), weight FROM unnest(names) WITH ORDINALITY AS u(n, i)
$$;
SELECT calltree.import_pprof(pg_read_binary_file(:'file'), 'samples') AS id \gset
-- one half of the samples minus the other
INSERT INTO trees
SELECT 'sample.cpu', stack_agg(stack_id, weight) FILTER (WHERE n % 2 = 0)
                     - stack_agg(stack_id, weight) FILTER (WHERE n % 2 = 1)
  FROM (SELECT stack_id, weight, row_number() OVER (ORDER BY stack_id, weight) AS n
          FROM sample WHERE profile_id = :id) AS s;
INSERT INTO trees
SELECT 'recursive', a.t - b.t
  FROM (SELECT calltree.calltree_agg(n.path, n.weight) AS t
          FROM (VALUES (ARRAY['main', 'a', 'b', 'a', 'c'], 7), (ARRAY['main', 'a'], 3),
                       (ARRAY['main', 'b', 'c'], 2), (ARRAY['other', 'c'], 5)) AS v(names, weight),
               named(v.names, v.weight) AS n) AS a,
       (SELECT calltree.calltree_agg(n.path, n.weight) AS t
          FROM (VALUES (ARRAY['main', 'a', 'b', 'a', 'c'], 2), (ARRAY['main', 'a'], 9),
                       (ARRAY['main', 'd'], 4), (ARRAY['other', 'c'], 5)) AS v(names, weight),
               named(v.names, v.weight) AS n) AS b;
SQL

# top_from_go FILE: "name flat cum" lines, sorted, from go tool pprof -top
top_from_go() {
	go tool pprof -symbolize=none -top -nodecount=100000 -nodefraction=0 -edgefraction=0 "$1" 2>"$work/go.err" |
		awk 'found { name = $6; for (i = 7; i <= NF; i++) name = name " " $i;
		             sub(/ \(inline\)$/, "", name); print name, $1, $4 }
		     /^ *flat +flat% +sum% +cum +cum%/ { found = 1 }' | LC_ALL=C sort
}

# top_from_sql NAME: the same lines from functions(); pprof leaves out the
# functions whose weights are all zero
top_from_sql() {
	ct_psql "$db" -At -F ' ' -v name="$1" <<'SQL' | LC_ALL=C sort
SELECT f.name, fn.self, fn.running
  FROM trees t, calltree.functions(t.tree) fn JOIN calltree.func f ON f.id = fn.func
 WHERE t.name = :'name' AND (fn.running <> 0 OR fn.self <> 0);
SQL
}

checked=0
for name in sample.cpu recursive; do
	negative=$(ct_psql "$db" -At -v name="$name" <<<"SELECT count(*) FROM trees, calltree.functions(tree) WHERE name = :'name' AND running < 0")
	[ "$negative" -gt 0 ] || fail "$name: the difference has no negative weight to check"
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
	echo "t_signed_pprof_go: $name: $(wc -l <"$work/$name.go") functions agree, $negative with negative running weight"
	checked=$((checked + 1))
done
[ "$checked" = 2 ] || fail "checked $checked trees of 2"
