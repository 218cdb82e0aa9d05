#!/usr/bin/env bash
# Every calltree value that input accepts can be printed, sent, read back and
# dumped: test/calltree_values.py feeds thousands of random and mutated trees
# to text and binary input (seeded, so every run sees the same ones), checks
# that both accept the same values with the same result and that every
# accepted value round-trips both ways, and stores the accepted values in a
# table.  pg_dump -Fc / pg_restore of that database must then bring back
# every row, byte for byte.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
#   test/t_values_dump.sh [SEED [COUNT]]
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

seed=${1:-20260318}
count=${2:-500}
src=calltree_values_src
dst=calltree_values_dst


ct_createdb "$src"
ct_query "$src" 'CREATE EXTENSION calltree'
counts=$(python3 "$repo/test/calltree_values.py" "$src" "$seed" "$count") ||
	fail "the property test failed (seed $seed)"
read -r accepted refused <<<"$counts"
[ "$accepted" -gt $((count / 2)) ] && [ "$refused" -gt 0 ] ||
	fail "too few values: $accepted accepted, $refused refused (seed $seed)"

digest="SELECT count(*) || ' ' || md5(string_agg(id || ' ' || v::text || ' ' || calltree.calltree_send(v)::text, ',' ORDER BY id))
          FROM calltree_values"
before=$(ct_query "$src" "$digest")
"$PG_BIN/pg_dump" -Fc -f "$work/dump" "$src" 2>"$work/pg_dump.err" ||
	fail "pg_dump failed: $(cat "$work/pg_dump.err")"
ct_createdb "$dst"
"$PG_BIN/pg_restore" --exit-on-error -d "$dst" "$work/dump" 2>"$work/pg_restore.err" ||
	fail "pg_restore failed: $(cat "$work/pg_restore.err")"
after=$(ct_query "$dst" "$digest")
[ "$before" = "$after" ] || fail "rows differ after restore: before $before, after $after"

echo "t_values_dump: ok (seed $seed: $accepted values accepted and restored, $refused inputs refused)"
