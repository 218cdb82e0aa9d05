#!/usr/bin/env bash
# diff() and regressions() agree with an independent computation on random
# trees: test/reference/diff_reference.py generates pairs of trees (seeded;
# signed and zero weights, empty sides, changed copies and unrelated trees),
# the database prints both trees' nodes() and diff(), diff(..., true) and
# regressions() of each pair, and the script computes every row of the
# last three from the two nodes() lists alone (a FULL JOIN by path) and
# compares every column of every row, in order.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
#   test/t_diff_reference.sh [SEED [PAIRS]]
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

seed=${1:-20261126}
pairs=${2:-300}
db=calltree_diff_reference
reference=$repo/test/reference/diff_reference.py


ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'
python3 "$reference" generate "$seed" "$pairs" >"$work/samples.tsv"

ct_psql "$db" -At <<SQL
CREATE TABLE samples (pair int, side text, path int4[], weight bigint, min_share float8);
\\copy samples FROM '$work/samples.tsv'
CREATE TABLE pairs AS
SELECT pair, min(min_share) AS min_share,
       coalesce(calltree.calltree_agg(path, weight) FILTER (WHERE side = 'b'), '{}') AS base,
       coalesce(calltree.calltree_agg(path, weight) FILTER (WHERE side = 't'), '{}') AS test
  FROM samples GROUP BY pair;
SQL
[ "$(ct_query "$db" 'SELECT count(*) FROM pairs')" = "$pairs" ] || fail "not $pairs pairs loaded"

out() { ct_psql "$db" -At -F '|' -c "$1" >"$work/$2"; }
out "SELECT p.pair, 'b', n.path, n.running, n.self, p.min_share FROM pairs p, calltree.nodes(p.base) n
     UNION ALL
     SELECT p.pair, 't', n.path, n.running, n.self, p.min_share FROM pairs p, calltree.nodes(p.test) n
     UNION ALL
     SELECT p.pair, 'b', NULL, NULL, NULL, p.min_share FROM pairs p" nodes.txt
out "SELECT p.pair, d.* FROM pairs p, calltree.diff(p.base, p.test) d" diff.txt
out "SELECT p.pair, d.* FROM pairs p, calltree.diff(p.base, p.test, true) d
      WHERE calltree.total(p.base) <> 0" diff_normalized.txt
out "SELECT p.pair, r.* FROM pairs p, calltree.regressions(p.base, p.test, p.min_share) WITH ORDINALITY r" regressions.txt

summary=$(python3 "$reference" check "$work") || { echo "$summary" >&2; fail "diff() or regressions() disagree with the reference (seed $seed)"; }
echo "t_diff_reference: ok (seed $seed: $summary)"
