#!/usr/bin/env bash
# stack_weights values (the state of stack_agg) survive pg_dump and
# pg_restore, in both dump formats, byte for byte: literals at the edges of
# bigint, and states the aggregate made, small and large (TOASTed).  The
# text and binary forms of every value are compared before and after.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

src=stack_weights_src

ct_createdb "$src"
ct_psql "$src" <<'SQL'
CREATE EXTENSION calltree;
CREATE AGGREGATE stack_state(bigint, bigint) (
    SFUNC = calltree.stack_agg_transfn, STYPE = calltree.stack_weights,
    COMBINEFUNC = calltree.stack_agg_combinefn);
CREATE TABLE states (id int PRIMARY KEY, v calltree.stack_weights);
INSERT INTO states VALUES
    (1, '{}'), (2, '{1:1}'), (3, '{-9223372036854775808:9223372036854775807,0:0,9223372036854775807:-9223372036854775808}');
INSERT INTO states SELECT 10 + g % 7, stack_state(g, g::bigint * 1000003) FROM generate_series(1, 20000) AS g GROUP BY g % 7;
INSERT INTO states SELECT 100, stack_state(g * 31, -g) FROM generate_series(1, 300000) AS g;
SQL

digest="SELECT count(*) || ' ' || md5(string_agg(id || ' ' || v::text || ' ' || calltree.stack_weights_send(v)::text, ',' ORDER BY id))
          FROM states"
before=$(ct_query "$src" "$digest")
for format in custom plain; do
	dst=stack_weights_$format
	"$PG_BIN/pg_dump" --format="$format" -f "$work/dump.$format" "$src" 2>"$work/pg_dump.err" ||
		fail "pg_dump --format=$format failed: $(cat "$work/pg_dump.err")"
	ct_createdb "$dst"
	if [ "$format" = custom ]; then
		"$PG_BIN/pg_restore" --exit-on-error -d "$dst" "$work/dump.$format" 2>"$work/restore.err" ||
			fail "pg_restore failed: $(cat "$work/restore.err")"
	else
		ct_psql "$dst" -f "$work/dump.$format" >/dev/null 2>"$work/restore.err" ||
			fail "restoring the plain dump failed: $(cat "$work/restore.err")"
	fi
	after=$(ct_query "$dst" "$digest")
	[ "$before" = "$after" ] || fail "$format dump: rows differ after restore: before $before, after $after"
done

echo "t_stack_weights_dump: ok (${before%% *} values, custom and plain dumps)"
