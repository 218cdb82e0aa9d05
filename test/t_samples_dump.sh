#!/usr/bin/env bash
# samples values (packed sample sets) survive pg_dump and pg_restore, in
# both dump formats, byte for byte: literals at the edges of bigint, with
# and without times and label sets, the empty set, and values samples_agg
# packed, small and large (TOASTed).  The text and binary
# forms of every value are compared before and after.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

src=samples_src

ct_createdb "$src"
ct_psql "$src" <<'SQL'
CREATE EXTENSION calltree;
CREATE TABLE sets (id int PRIMARY KEY, v calltree.samples);
INSERT INTO sets VALUES
    (1, '{}'), (2, '{1:1}'), (3, '{3:2,3:2,5:1}'), (4, '{7:10@5000#-2,7:-10@6000#-2,4:1}'),
    (5, '{-9223372036854775808:9223372036854775807@-9223372036854775808#-9223372036854775808,'
        '9223372036854775807:-9223372036854775808@9223372036854775807#9223372036854775807,0:0,0:0#0}');
-- per group: some without a time, some with, label sets on a third
INSERT INTO sets
SELECT 10 + g % 7, calltree.samples_agg(g % 500, (g % 11 - 3) * 1000,
                                        CASE WHEN g % 2 = 0 THEN g * 1000 END,
                                        CASE WHEN g % 3 = 0 THEN g % 4 END)
  FROM generate_series(1, 20000) AS g GROUP BY g % 7;
-- one large value, far over the 2 kB at which PostgreSQL TOASTs a value
INSERT INTO sets SELECT 100, calltree.samples_agg(g * 31 % 100003, -g, g * 7) FROM generate_series(1, 300000) AS g;
SQL

big=$(ct_query "$src" "SELECT octet_length(calltree.samples_send(v)) > 8192 FROM sets WHERE id = 100")
[ "$big" = t ] || fail "the large value is not large enough to be TOASTed"
digest="SELECT count(*) || ' ' || md5(string_agg(id || ' ' || v::text || ' ' || calltree.samples_send(v)::text, ',' ORDER BY id))
          FROM sets"
before=$(ct_query "$src" "$digest")
for format in custom plain; do
	dst=samples_$format
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

echo "t_samples_dump: ok (${before%% *} values, custom and plain dumps)"
