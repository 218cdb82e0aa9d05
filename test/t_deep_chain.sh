#!/usr/bin/env bash
# Every public function that takes a call tree or a func path, fed a chain
# 1,000,000 deep (every node with self weight 1, so every node holds
# samples), either works in bounded memory, temporary space and time, or
# refuses up front with 54000 (program_limit_exceeded) naming
# calltree.max_path_output.  A chain n deep has n (n + 1) / 2 func path
# elements in its nodes' paths: about 5e11 here, which no function may
# write or walk.
#
# Each case runs in a session of its own with temp_file_limit and
# statement_timeout set, and is then measured: the backend's peak memory
# (VmHWM of /proc/self/status, read by the backend itself) must stay
# within MEMORY_BUDGET_KB, and the case must end as expected.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_deep_chain
# the binary copy the server writes and reads back, one per run
bin=/tmp/calltree_deep_chain.$$.bin
depth=1000000
MEMORY_BUDGET_KB=400000		# the chain is 16 MB stored; a builder of it about 60 MB
TEMP_BUDGET=64MB
TIMEOUT=20s

ct_createdb "$db"

# The chain as text: func i at depth i - 1, running depth - i + 1, self 1.
ct_psql "$db" -At -v depth="$depth" -v bin="$bin" <<-'SQL'
	CREATE EXTENSION calltree;
	CREATE TABLE deep (tree calltree.calltree, path int4[]);
	INSERT INTO deep
	SELECT ('{' || string_agg(format('%s:%s/1', i, :depth - i + 1) || CASE WHEN i < :depth THEN ' {' ELSE '' END,
	                          '' ORDER BY i)
	        || repeat('}', :depth))::calltree.calltree,
	       array_agg(i ORDER BY i)
	  FROM generate_series(1, :depth) AS i;
	-- the same chain through a trace: nested enters, then the exits
	CREATE TABLE deep_trace AS
	SELECT calltree.trace_agg(func, enter, ts ORDER BY ts) AS tree
	  FROM (SELECT i AS func, true AS enter, i::bigint AS ts FROM generate_series(1, :depth) AS i
	        UNION ALL
	        SELECT i, false, 3 * :depth - i FROM generate_series(1, :depth) AS i) AS events;
	-- a binary copy, read back by COPY FROM below (calltree_recv)
	COPY (SELECT tree FROM deep) TO :'bin' (FORMAT binary);
	CREATE TABLE deep_copy (tree calltree.calltree);
SQL
ct_at_exit "rm -f $bin"

[ "$(ct_query "$db" "SELECT calltree.total(tree) FROM deep")" = "$depth" ] ||
	fail "the chain was not built"

# expected outcome (ok or 54000), a tab, the memory budget in kB (-:
# MEMORY_BUDGET_KB), a tab, the statements of one session; deep.tree is the
# chain and deep.path its leaf's func path.  flamegraph() lays out every
# node but draws only the boxes at least min_width pixels wide: 833 here
# (with the default, a box per node, 300 MB of SVG, linear but slow).
cases=$(
	cat <<-'CASES'
		ok	-	SELECT calltree.total(tree) FROM deep
		ok	-	SELECT length(tree::text) FROM deep
		ok	-	SELECT (tree::text)::calltree.calltree OPERATOR(calltree.=) tree FROM deep
		ok	-	SELECT length(calltree.calltree_send(tree)) FROM deep
		ok	-	COPY deep_copy FROM '/tmp/calltree_deep_chain.bin' (FORMAT binary)
		ok	-	SELECT tree OPERATOR(calltree.=) tree, tree OPERATOR(calltree.<>) tree FROM deep
		ok	-	SELECT calltree.calltree_hash(tree) FROM deep
		ok	-	SELECT calltree.total(tree OPERATOR(calltree.+) tree) FROM deep
		ok	-	SELECT calltree.total(calltree.calltree_merge(tree)) FROM (SELECT tree FROM deep UNION ALL SELECT tree FROM deep) AS s
		ok	-	SELECT calltree.total(calltree.calltree_agg(path)) FROM deep
		ok	-	SELECT count(*) FROM deep, calltree.functions(deep.tree)
		ok	-	SELECT count(*) FROM deep, calltree.callers(deep.tree, 500000)
		ok	-	SELECT count(*) FROM deep, calltree.callees(deep.tree, 500000)
		ok	-	SELECT (calltree.outgoing_calls(tree, 500000)).call_sites FROM deep
		ok	-	SELECT calltree.total(calltree.backtraces(tree, 500000, 'self')) FROM deep
		54000	-	SELECT calltree.total(calltree.backtraces(tree, 500000)) FROM deep
		54000	-	SELECT count(*) FROM deep, calltree.nodes(deep.tree)
		54000	-	SELECT count(*) FROM deep, calltree.report(deep.tree)
		54000	-	SELECT count(*) FROM deep, calltree.collapse_recursions(deep.tree)
		54000	-	SELECT count(*) FROM deep_trace, calltree.latency(deep_trace.tree)
		ok	-	SELECT calltree.total(tree) FROM deep_trace
		54000	-	SELECT calltree.total(calltree.invert(tree)) FROM deep
		54000	-	SELECT length(calltree.to_collapsed(tree)) FROM deep
		54000	-	SELECT length(calltree.to_pprof(tree)) FROM deep
		54000	-	SELECT length(calltree.to_speedscope(tree)::text) FROM deep
		ok	-	SELECT length(calltree.flamegraph(tree, min_width => 1199)) FROM deep
		54000	-	SELECT count(*) FROM deep, calltree.diff(deep.tree, deep.tree)
		54000	-	SELECT count(*) FROM deep, calltree.diff(deep.tree, deep.tree, true)
		ok	-	SELECT calltree.total(tree OPERATOR(calltree.-) tree) FROM deep
		ok	-	SELECT count(*) FROM deep, calltree.regressions(deep.tree, deep.tree, min_share => 0.9)
		ok	-	SELECT length(calltree.flamegraph_diff(tree, tree, min_width => 1199)) FROM deep
		ok	-	SELECT calltree.total(calltree.unify_funcs(tree)) FROM deep
		ok	-	SELECT calltree.running_of(tree, 500000), calltree.self_of(tree, 500000) FROM deep
		ok	-	SELECT calltree.total(calltree.merge_call_node(tree, '{1,2}')) FROM deep; SELECT calltree.total(calltree.merge_function(tree, 3)) FROM deep; SELECT calltree.total(calltree.merge_functions(tree, '{3,4}')) FROM deep; SELECT calltree.total(calltree.merge_subtree(tree, '{1,2,3}')) FROM deep; SELECT calltree.total(calltree.collapse_function_subtree(tree, 500000)) FROM deep; SELECT calltree.total(calltree.hide_call_node(tree, '{1,2}')) FROM deep; SELECT calltree.total(calltree.drop_function(tree, 500000)) FROM deep; SELECT calltree.total(calltree.focus_subtree(tree, '{1,2}')) FROM deep; SELECT calltree.total(calltree.focus_function(tree, 3)) FROM deep; SELECT calltree.total(calltree.collapse_direct_recursion(tree, 3)) FROM deep; SELECT calltree.total(calltree.collapse_recursion(tree, 3)) FROM deep; SELECT calltree.total(calltree.remap_functions(tree, '{1,2}', '{7,7}')) FROM deep; SELECT calltree.total(tree OPERATOR(calltree.%>) '{1,2}'::int4[]) FROM deep; SELECT calltree.total(tree OPERATOR(calltree.%!) '{1,2}'::int4[]) FROM deep; SELECT calltree.total(tree OPERATOR(calltree.%-) '{1,2}'::int4[]) FROM deep
		ok	-	SELECT cardinality(calltree.merge_call_node(path, '{1,2}')) FROM deep; SELECT cardinality(calltree.merge_function(path, 3)) FROM deep; SELECT cardinality(calltree.merge_functions(path, '{3,4}')) FROM deep; SELECT cardinality(calltree.merge_subtree(path, '{1,2,3}')) FROM deep; SELECT cardinality(calltree.collapse_function_subtree(path, 500000)) FROM deep; SELECT cardinality(calltree.hide_call_node(path, '{1,2}')) FROM deep; SELECT cardinality(calltree.drop_function(path, 5)) FROM deep; SELECT cardinality(calltree.focus_subtree(path, '{1,2}')) FROM deep; SELECT cardinality(calltree.focus_function(path, 3)) FROM deep; SELECT cardinality(calltree.collapse_direct_recursion(path, 3)) FROM deep; SELECT cardinality(calltree.collapse_recursion(path, 3)) FROM deep; SELECT cardinality(calltree.remap_functions(path, '{1,2}', '{7,7}')) FROM deep; SELECT cardinality(calltree.invert(path)) FROM deep; SELECT cardinality(path OPERATOR(calltree.%>) '{1,2}'::int4[]) FROM deep; SELECT cardinality(path OPERATOR(calltree.%!) '{5}'::int4[]) FROM deep; SELECT cardinality(path OPERATOR(calltree.%-) '{1,2}'::int4[]) FROM deep
	CASES
)
cases=${cases//\/tmp\/calltree_deep_chain.bin/$bin}

failures=()
ran=0
while IFS=$'\t' read -r expected budget statement; do
	[ -n "$statement" ] || continue
	[ "$budget" != - ] || budget=$MEMORY_BUDGET_KB
	ran=$((ran + 1))
	start=$(date +%s%N)
	# VERBOSITY sqlstate: an error prints as "ERROR:  <code>"; the memory
	# line comes last, from the same backend, whatever the case did
	out=$(ct_psql "$db" -At -v ON_ERROR_STOP=0 2>&1 <<-SQL || true
		\set VERBOSITY sqlstate
		SET temp_file_limit = '$TEMP_BUDGET';
		SET statement_timeout = '$TIMEOUT';
		$statement;
		SELECT 'hwm ' || substring(pg_catalog.pg_read_file('/proc/self/status') FROM 'VmHWM:\s*(\d+)');
	SQL
	)
	ms=$((($(date +%s%N) - start) / 1000000))
	hwm=$(printf '%s\n' "$out" | sed -n 's/^hwm //p')
	code=$(printf '%s\n' "$out" | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\).*/\1/p' | head -1)
	outcome=${code:-ok}
	printf '%-6s %6s ms %8s kB  %.110s\n' "$outcome" "$ms" "${hwm:-?}" "$statement"
	if [ "$outcome" != "$expected" ]; then
		failures+=("expected $expected, got $outcome: $statement")
	elif [ -z "$hwm" ] || [ "$hwm" -gt "$budget" ]; then
		failures+=("peak memory ${hwm:-?} kB over $budget kB: $statement")
	fi
done <<<"$cases"

# the refusal says which setting to change, and it can be changed
msg=$(ct_query "$db" "SET temp_file_limit = '$TEMP_BUDGET'; SET statement_timeout = '$TIMEOUT'" \
	-c "SELECT count(*) FROM deep, calltree.nodes(deep.tree)" 2>&1 || true)
case "$msg" in
*"more than calltree.max_path_output"*"HINT:"*"raise calltree.max_path_output"*) ;;
*) failures+=("the refusal does not name the setting with a hint: $msg") ;;
esac
[ "$(ct_query "$db" "SET calltree.max_path_output = 1000; SELECT count(*) FROM calltree.nodes('{1:1/0 {2:1/0 {3:1/1}}}')")" = 3 ] ||
	failures+=("a small tree is refused")

# the binary copy came back equal
[ "$(ct_query "$db" "SELECT d.tree OPERATOR(calltree.=) c.tree FROM deep d, deep_copy c")" = t ] ||
	failures+=("the binary copy of the chain differs")

if [ "${#failures[@]}" -gt 0 ]; then
	printf '%s\n' "${failures[@]}" >&2
	fail "${#failures[@]} of $ran cases failed"
fi
echo "t_deep_chain: ok ($ran cases on a chain $depth deep, each within $MEMORY_BUDGET_KB kB and $TEMP_BUDGET of temporary files)"
