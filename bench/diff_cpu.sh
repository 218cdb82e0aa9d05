#!/usr/bin/env bash
# bench/diff_cpu.sh: the CPU time (user + system, from the server's
# log_statement_stats) of nodes() on the larger tree and of diff(), each run
# RUNS times alternately in one session, on the trees of bench/diff.sql.
# On a busy machine the wall-clock times of bench/diff.sql vary several-fold
# with the other work; the CPU time of the backend much less.
#
#   PGDATABASE=bench bench/diff_cpu.sh [RUNS]     (needs superuser: log_statement_stats)
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../test/lib.sh"
runs=${1:-5}
{
	cat <<'SQL'
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';
CREATE TEMP TABLE bench_trees AS
SELECT calltree.stack_agg(stack_id, weight) AS base,
       calltree.stack_agg(stack_id, weight * (1 + (stack_id % 5 = 0)::int)) FILTER (WHERE stack_id % 11 <> 0) AS test
  FROM (SELECT s.stack_id, sum(s.weight)::bigint AS weight
          FROM calltree.sample s JOIN calltree.profile p ON p.id = s.profile_id WHERE p.name = 'bench'
         GROUP BY s.stack_id) AS sums;
SELECT f.func AS func
  FROM bench_trees, calltree.functions(base) f
 WHERE f.func NOT IN (SELECT n.func FROM bench_trees, calltree.nodes(base) n WHERE n.depth = 0)
 ORDER BY f.running DESC LIMIT 1 \gset
UPDATE bench_trees SET test = calltree.merge_function(test, :func);
SET client_min_messages = log;
SET log_statement_stats = on;
SQL
	for _ in $(seq "$runs"); do
		echo '\warn nodes(larger)'
		echo "SELECT count(*), sum(self) FROM bench_trees, calltree.nodes(base);"
		echo '\warn diff(base, test)'
		echo "SELECT count(*), sum(delta_self) FROM bench_trees, calltree.diff(base, test);"
	done
} | ct_psql "" -At 2>&1 >/dev/null |
	# each query's name (\warn), then its statistics
	awk '/^(nodes|diff)/ { name = $0; next }
	     /s user, .* s elapsed/ && name != "" {
	                              t = ($2 + $5) * 1000;
	                              if (!(name in best) || t < best[name]) best[name] = t;
	                              all[name] = all[name] sprintf(" %.0f", t) }
	     END { printf "%9.1f [%s ]  %s\n", best["nodes(larger)"], all["nodes(larger)"], "nodes(larger), CPU ms (user + system)";
	           printf "%9.1f [%s ]  %s\n", best["diff(base, test)"], all["diff(base, test)"], "diff(base, test), CPU ms (user + system)";
	           printf "diff / nodes(larger), CPU: %.2fx (target <= 2x) %s\n", best["diff(base, test)"] / best["nodes(larger)"],
	                  best["diff(base, test)"] <= 2 * best["nodes(larger)"] ? "met" : "MISSED" }'
