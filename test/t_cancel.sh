#!/usr/bin/env bash
# Long loops honour cancel: with statement_timeout = '1s', reading,
# writing and transforming a tree of 4,000,000 nodes (each operation takes
# several seconds) ends with 57014 (query_canceled) well before the
# operation would have finished.  A loop that never calls
# CHECK_FOR_INTERRUPTS() would run to its end and be canceled only then.
# The timeout leaves time to fetch the stored tree (TOAST reads honour
# cancel by themselves), so that it falls in the operation's own loops.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_cancel
# the binary copy the server writes and reads back, one per run
bin=/tmp/calltree_cancel.$$.bin
nodes=4000000
SLACK_MS=2000	# a cancel later than this after the fetch came at the operation's end

ct_createdb "$db"

# A wide tree: 1,000 roots, each with 4,000 leaves of funcs of their own.
ct_psql "$db" -At -v nodes="$nodes" -v bin="$bin" <<-'SQL'
	CREATE EXTENSION calltree;
	SET work_mem = '256MB';
	CREATE TABLE big AS
	SELECT calltree.calltree_agg(ARRAY[i % 1000, 1000 + i]) AS tree
	  FROM generate_series(1, :nodes) AS i;
	COPY big TO :'bin' (FORMAT binary);
	CREATE TABLE big_copy (tree calltree.calltree);
SQL
ct_at_exit "rm -f $bin"

# the statements, one a line
cases=$(
	cat <<-'CASES'
		SELECT length(tree::text) FROM big
		SELECT length(calltree.calltree_send(tree)) FROM big
		COPY big_copy FROM '/tmp/calltree_cancel.bin' (FORMAT binary)
		SELECT calltree.total(calltree.invert(tree)) FROM big
		SELECT calltree.total(calltree.merge_function(tree, 7)) FROM big
		SELECT count(*) FROM big, calltree.report(big.tree)
		SELECT length(calltree.to_collapsed(tree)) FROM big
	CASES
)
cases=${cases//\/tmp\/calltree_cancel.bin/$bin}

# elapsed STATEMENT: milliseconds for psql to run it (errors ignored)
elapsed() {
	local start
	start=$(date +%s%N)
	ct_query "$db" "$1" >/dev/null 2>&1 || true
	echo $((($(date +%s%N) - start) / 1000000))
}

# What every statement pays before its own loops: psql, and the fetch of the
# stored tree (4,000,000 nodes, 64 MB), which takes longer on a busy machine.
baseline=$(elapsed "SELECT calltree.calltree_hash(tree) FROM big")
LATE_MS=$((baseline + 1000 + SLACK_MS))
echo "fetching the tree: $baseline ms; a cancel after $LATE_MS ms is late"

failures=()
while IFS= read -r statement; do
	[ -n "$statement" ] || continue
	start=$(date +%s%N)
	out=$(ct_psql "$db" -At -v ON_ERROR_STOP=0 2>&1 <<-SQL || true
		\set VERBOSITY sqlstate
		SET statement_timeout = '1s';
		$statement;
	SQL
	)
	ms=$((($(date +%s%N) - start) / 1000000))
	code=$(printf '%s\n' "$out" | sed -n 's/^ERROR:  \([0-9A-Z]\{5\}\).*/\1/p' | head -1)
	printf '%-6s %6s ms  %s\n' "${code:-ok}" "$ms" "$statement"
	# a statement may also end before its timeout (a fast machine); it may
	# not run on past it
	if [ -n "$code" ] && [ "$code" != 57014 ]; then
		failures+=("failed with $code: $statement")
	elif [ "$ms" -gt "$LATE_MS" ]; then
		failures+=("ended after $ms ms, more than $LATE_MS (${code:-not canceled}): $statement")
	fi
done <<<"$cases"

# the same text output, without a timeout, takes longer than LATE_MS
ms=$(elapsed "SELECT length(tree::text) FROM big")
echo "uncanceled text output: $ms ms"
[ "$ms" -gt "$LATE_MS" ] || echo "t_cancel: note: the text output took only $ms ms; the cancel test proves little on this machine" >&2

if [ "${#failures[@]}" -gt 0 ]; then
	printf '%s\n' "${failures[@]}" >&2
	fail "${#failures[@]} statements did not honour statement_timeout"
fi
echo "t_cancel: ok (every statement canceled or done within $LATE_MS ms on a tree of $nodes nodes)"
