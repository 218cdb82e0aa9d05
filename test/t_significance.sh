#!/usr/bin/env bash
# significant_changes() finds a change that is there, keeps the false ones
# at the rate it promises, and computes its p-values as SciPy does.
#
# 1. Simulation.  Trees of one process: main calls 20 functions, function
#    j's weight is 10 j times a log-normal factor exp(0.2 Z) per tree (Z
#    standard normal, by Box-Muller from random() under a fixed seed), so
#    that shares vary from tree to tree as hosts' profiles do.
#    - Power: 20 comparisons of 8 trees against 8 in which test's function 5
#      weighs twice as much: it must be found (significant) in at least 18.
#    - A/A: 200 comparisons of 8 against 8 trees from the same distribution.
#      No function changed, so any significant function is a false
#      discovery; Benjamini-Hochberg keeps the share of comparisons with
#      any at most alpha (0.05) when nothing changed.  The test wants it at
#      most 0.10 (the binomial spread of 200 comparisons is 0.015) and at
#      least one comparison, and shows what raw p-values would give: with
#      20 functions tested, "any p below 0.05" happens in about half the
#      comparisons, so a significant_changes() whose q-values were its
#      p-values fails here.
# 2. Reference: test/reference/significance_reference.py draws random
#    comparisons (2 to 45 trees a side, tied and untied shares), and every
#    column of every row is compared with SciPy's mannwhitneyu and a
#    Benjamini-Hochberg computed in Python.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
#   test/t_significance.sh [SEED [CASES]]
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

seed=${1:-20261129}
cases=${2:-150}
db=calltree_significance
reference=$repo/test/reference/significance_reference.py
# Debian's python3, which python3-scipy installs into (another python3 may come first on PATH)
python=/usr/bin/python3
"$python" -c 'import scipy' 2>/dev/null || fail "SciPy is missing (Debian: apt-get install python3-scipy)"

ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'

# ---------------------------------------------------------------- simulation
ct_psql "$db" -At >/dev/null <<'SQL'
SELECT setseed(0.20261129);
-- experiment 'power' (reps 1..20, test's function 5 doubled) and 'aa' (reps 1..200)
CREATE TABLE sim AS
SELECT experiment, rep, side, k,
       calltree.calltree_agg(ARRAY[1, f], greatest(1, round(10 * f * factor))::bigint) AS tree
  FROM (SELECT e.experiment, rep, side, k, f,
               exp(0.2 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))
               * CASE WHEN e.experiment = 'power' AND side = 'test' AND f = 5 THEN 2 ELSE 1 END AS factor
          FROM (VALUES ('power', 20), ('aa', 200)) AS e(experiment, reps),
               generate_series(1, e.reps) AS rep, unnest(ARRAY['base', 'test']) AS side,
               generate_series(1, 8) AS k, generate_series(2, 21) AS f) AS draws
 GROUP BY experiment, rep, side, k;
CREATE TABLE sim_result AS
SELECT s.experiment, s.rep, c.func, c.p_value, c.q_value, c.significant
  FROM (SELECT experiment, rep, array_agg(tree ORDER BY k) FILTER (WHERE side = 'base') AS base,
               array_agg(tree ORDER BY k) FILTER (WHERE side = 'test') AS test
          FROM sim GROUP BY experiment, rep) AS s,
       calltree.significant_changes(s.base, s.test) AS c;
SQL

read -r found false_found <<<"$(ct_query "$db" "
	SELECT count(*) FILTER (WHERE func = 5 AND significant), count(*) FILTER (WHERE func <> 5 AND significant)
	  FROM sim_result WHERE experiment = 'power'" -F ' ')"
[ "$found" -ge 18 ] || fail "the doubled function was significant in $found of 20 comparisons, expected at least 18"

read -r any_q any_p reps <<<"$(ct_query "$db" "
	SELECT count(*) FILTER (WHERE any_q), count(*) FILTER (WHERE any_p), count(*)
	  FROM (SELECT rep, bool_or(significant) AS any_q, bool_or(p_value < 0.05) AS any_p
	          FROM sim_result WHERE experiment = 'aa' GROUP BY rep) AS r" -F ' ')"
[ "$reps" -eq 200 ] || fail "$reps A/A comparisons, expected 200"
[ "$any_q" -le 20 ] || fail "$any_q of 200 A/A comparisons had a significant function: above alpha 0.05 (at most 20 allowed)"
[ "$any_q" -ge 1 ] || fail "no A/A comparison had a significant function: the test is far more cautious than alpha 0.05 says"
[ "$any_p" -gt 40 ] || fail "raw p-values below 0.05 in only $any_p of 200 A/A comparisons: the simulation cannot tell q from p"
# q-values are never below p-values, and untested functions (main) have p = q = 1
[ "$(ct_query "$db" "SELECT count(*) FROM sim_result WHERE q_value < p_value OR (func = 1 AND (p_value <> 1 OR q_value <> 1))")" = 0 ] ||
	fail "a q-value below its p-value, or main tested"

# ---------------------------------------------------------------- reference
"$python" "$reference" generate "$seed" "$cases" >"$work/paths.tsv"
ct_psql "$db" -At <<SQL
CREATE TABLE paths (c int, side text, k int, path int4[], weight bigint);
\\copy paths FROM '$work/paths.tsv'
CREATE TABLE cases AS
SELECT c, array_agg(tree ORDER BY k) FILTER (WHERE side = 'b') AS base,
          array_agg(tree ORDER BY k) FILTER (WHERE side = 't') AS test
  FROM (SELECT c, side, k, calltree.calltree_agg(path, weight) AS tree FROM paths GROUP BY c, side, k) AS t
 GROUP BY c;
SQL
ct_psql "$db" -At -F '|' -c "SELECT c.c, r.* FROM cases c, calltree.significant_changes(c.base, c.test) r" \
	>"$work/rows.txt" 2>"$work/warnings.txt"
summary=$("$python" "$reference" check "$work/paths.tsv" "$work/rows.txt") ||
	{ echo "$summary" >&2; fail "significant_changes() disagrees with SciPy (seed $seed)"; }

echo "t_significance: ok (power: doubled function found in $found of 20, $false_found false; A/A: any significant in $any_q of 200 by q, $any_p by raw p; reference: $summary)"
