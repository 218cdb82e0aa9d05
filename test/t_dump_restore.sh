#!/usr/bin/env bash
# The extension's tables survive pg_dump -Fc / pg_restore: the same rows in
# every table, the same call tree from stack_agg, and sequences restored (an
# id handed out after the restore is new).
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

src=calltree_dump_src
dst=calltree_dump_dst

# q DB SQL: one query, unaligned, tuples only.

tables=(profile func frame stack sample labels rollup_level rollup)

# Per table: row count and a digest of all rows, one line each.
snapshot() {
	local t
	for t in "${tables[@]}"; do
		ct_query "$1" "SELECT '$t ' || count(*) || ' ' || coalesce(md5(string_agg(x::text, ',' ORDER BY x::text)), '-')
		          FROM calltree.$t AS x"
	done
}

ct_createdb "$src"
ct_query "$src" 'CREATE EXTENSION calltree'

ct_psql "$src" <<'SQL'
INSERT INTO calltree.profile (name, format, weight_unit, meta)
VALUES ('dump-a', 'collapsed', 'samples', '{"commit": "abc123", "service": "api"}'),
       ('dump-b', 'collapsed', 'nanoseconds', '{"commit": "def456"}');

INSERT INTO calltree.sample (profile_id, thread, ts, stack_id, weight)
SELECT p.id, v.thread, v.ts, calltree.intern_stack(v.path), v.weight
  FROM (VALUES ('dump-a', 'main',   0, ARRAY['main', 'parse', 'lex'],   3),
               ('dump-a', 'main',  10, ARRAY['main', 'parse'],          2),
               ('dump-a', 'main',  20, ARRAY['main', 'eval', 'lex'],    5),
               ('dump-a', 'worker', 5, ARRAY['worker', 'gc'],           1),
               ('dump-b', 'main',   0, ARRAY['main', 'eval', 'eval'],   7),
               ('dump-b', 'main',  30, ARRAY['main'],                   1))
       AS v (profile, thread, ts, path, weight)
  JOIN calltree.profile p ON p.name = v.profile;

-- a time window of sample, made after CREATE EXTENSION (not a member of
-- it): pg_dump dumps the partition and its rows
SELECT calltree.new_sample_partition();
SELECT calltree.import_collapsed(E'main;window 4\nmain;parse 1\n', 'dump-window', '{"service": "api"}');

-- rollups: hourly rows from the samples, daily rows from the hourly ones
UPDATE calltree.profile SET started_at = '2030-06-01 10:20+00';
SELECT calltree.rollup('1 hour'), calltree.rollup('1 day');
SQL

tree_sql="SELECT calltree.stack_agg(stack_id, weight)::text FROM calltree.sample"
max_sql="SELECT (SELECT max(id) FROM calltree.func) || ' ' || (SELECT max(id) FROM calltree.frame)
            || ' ' || (SELECT max(id) FROM calltree.stack) || ' ' || (SELECT max(id) FROM calltree.profile)"
tree_before=$(ct_query "$src" "$tree_sql")
snap_before=$(snapshot "$src")
read -r max_func max_frame max_stack max_profile <<<"$(ct_query "$src" "$max_sql")"
[ -n "$tree_before" ] || fail "stack_agg gave an empty tree before the dump"
[ "$(ct_query "$src" 'SELECT count(*) FROM calltree.rollup')" -gt 0 ] || fail "rollup wrote no rows before the dump"

"$PG_BIN/pg_dump" -Fc -f "$work/dump" "$src" 2>"$work/pg_dump.err" ||
	fail "pg_dump failed: $(cat "$work/pg_dump.err")"
ct_createdb "$dst"
"$PG_BIN/pg_restore" --exit-on-error -d "$dst" "$work/dump" 2>"$work/pg_restore.err" ||
	fail "pg_restore failed: $(cat "$work/pg_restore.err")"

tree_after=$(ct_query "$dst" "$tree_sql")
snap_after=$(snapshot "$dst")

[ "$snap_before" = "$snap_after" ] ||
	fail "tables differ after restore (table, rows, digest):
before:
$snap_before
after:
$snap_after"
parts_sql="SELECT string_agg(partition || ' ' || coalesce(first_id::text, '-'), ', ') FROM calltree.sample_partitions()"
[ "$(ct_query "$src" "$parts_sql")" = "$(ct_query "$dst" "$parts_sql")" ] ||
	fail "the partitions of sample differ after restore: $(ct_query "$dst" "$parts_sql")"
[ "$tree_before" = "$tree_after" ] ||
	fail "stack_agg differs after restore:
before: $tree_before
after:  $tree_after"

# Sequences: new funcs, frames, a stack and a profile get ids above the old ones.
new_stack=$(ct_query "$dst" "SELECT calltree.intern_stack(ARRAY['main', 'restored', 'leaf'])") ||
	fail "interning a new stack after restore failed (sequences not restored?)"
new_profile=$(ct_query "$dst" "INSERT INTO calltree.profile (name) VALUES ('after-restore') RETURNING id") ||
	fail "inserting a profile after restore failed (profile_id_seq not restored?)"
read -r new_func new_frame _ _ <<<"$(ct_query "$dst" "$max_sql")"
[ "$new_stack" -gt "$max_stack" ] || fail "new stack id $new_stack is not above $max_stack: stack_id_seq not restored"
[ "$new_func" -gt "$max_func" ] || fail "new func id $new_func is not above $max_func: func_id_seq not restored"
[ "$new_frame" -gt "$max_frame" ] || fail "new frame id $new_frame is not above $max_frame: frame_id_seq not restored"
[ "$new_profile" -gt "$max_profile" ] || fail "new profile id $new_profile is not above $max_profile: profile_id_seq not restored"

echo "t_dump_restore: ok ($(printf '%s\n' "$snap_after" | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}'))"
