#!/usr/bin/env bash
# Row-level security survives pg_dump and pg_restore.  The recipes of
# docs/operations.md (Roles, Row-level security), with two tenants, plus a
# forced table, a restrictive policy for one role, a policy whose name and
# expressions need quoting, a renamed one and a dropped one:
# after a restore (custom format, and plain with --load-via-partition-root)
# the tables have the same flags and policies, and each tenant sees only
# its own profiles, samples and events, in the partition of
# new_sample_partition() too.  A restore into a cluster that lacks a role a
# policy names fails, with row-level security on.  What a DBA set up under
# 0.2 is recorded by the update.  A row of the record applies as the role
# that inserts it, as one CREATE POLICY on a table of calltree only.  A
# writer with a restore's settings is still checked.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

src=calltree_dump_rls_src
reader=dumprls_reader writer=dumprls_writer tess=dumprls_tess tom=dumprls_tom gone=dumprls_gone
roles="$tess, $tom, $gone, $writer, $reader"

# the role names as psql variables, for the scripts below
role_vars=(-v reader="$reader" -v writer="$writer" -v tess="$tess" -v tom="$tom" -v gone="$gone")

drop_roles() {
	ct_psql postgres -c "DROP ROLE IF EXISTS $roles" >/dev/null 2>&1 || true
}
drop_roles
ct_at_exit drop_roles

ct_createdb "$src"
ct_psql "$src" -At "${role_vars[@]}" >/dev/null <<'SQL'
CREATE EXTENSION calltree;

-- Roles (docs/operations.md)
CREATE ROLE :reader NOLOGIN;
GRANT USAGE ON SCHEMA calltree TO :reader;
GRANT SELECT ON ALL TABLES IN SCHEMA calltree TO :reader;
CREATE ROLE :writer NOLOGIN IN ROLE :reader;
GRANT INSERT ON calltree.profile, calltree.sample_set, calltree.sample, calltree.event, calltree.func,
                calltree.frame, calltree.stack, calltree.labels, calltree.symbol TO :writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA calltree TO :writer;
GRANT UPDATE (weight_unit, started_at) ON calltree.profile TO :writer;
GRANT UPDATE (id) ON calltree.labels TO :writer;
GRANT UPDATE (name) ON calltree.func TO :writer;
GRANT UPDATE (func_id) ON calltree.frame TO :writer;
GRANT DELETE ON calltree.symbol TO :writer;
GRANT DELETE ON calltree.profile, calltree.sample_set, calltree.sample_row, calltree.sample TO :writer;

-- Row-level security (docs/operations.md), for two tenants
ALTER TABLE calltree.profile ENABLE ROW LEVEL SECURITY;
ALTER TABLE calltree.sample_set ENABLE ROW LEVEL SECURITY;
ALTER TABLE calltree.sample_row ENABLE ROW LEVEL SECURITY;
ALTER TABLE calltree.event ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_profiles ON calltree.profile
    USING (meta->>'tenant' = current_user) WITH CHECK (meta->>'tenant' = current_user);
CREATE POLICY tenant_samples ON calltree.sample_set
    USING (profile_id IN (SELECT id FROM calltree.profile));
CREATE POLICY tenant_sample_rows ON calltree.sample_row
    USING (profile_id IN (SELECT id FROM calltree.profile));
CREATE POLICY tenant_events ON calltree.event
    USING (profile_id IN (SELECT id FROM calltree.profile));
CREATE ROLE :tess LOGIN IN ROLE :writer;
CREATE ROLE :tom LOGIN IN ROLE :writer;

-- and more: a forced table, a restrictive policy for one role only, a
-- policy renamed, one dropped, one whose role is gone
ALTER TABLE calltree.event FORCE ROW LEVEL SECURITY;
-- (on packed sets: it hides the sets whose heaviest sample weighs 5 or less)
CREATE POLICY heavy_only ON calltree.sample_set AS RESTRICTIVE FOR SELECT TO :tom
    USING ((SELECT max(u.weight) FROM calltree.unnest(samples) u) > 5);
CREATE POLICY first_name ON calltree.profile FOR DELETE USING (false);
ALTER POLICY first_name ON calltree.profile RENAME TO no_deletes;
CREATE POLICY "Odd ""name"", quoted" ON calltree.symbol AS RESTRICTIVE FOR UPDATE TO :tom, :tess
    USING (resource <> 'x;y') WITH CHECK (name !~ '^\)');
CREATE POLICY doomed ON calltree.profile USING (true);
DROP POLICY doomed ON calltree.profile;
CREATE ROLE :gone;
CREATE POLICY gone_role ON calltree.labels TO :gone USING (true);
DROP OWNED BY :gone;
DROP ROLE :gone;

-- every tenant imports samples and events, before and after a new window
SET ROLE :tess;
SELECT calltree.import_collapsed(E'main;tess 3\nmain;shared 1\n', 'tess-1', jsonb_build_object('tenant', current_user)) > 0;
SELECT calltree.import_trace_events('[{"name":"main","ph":"B","ts":0,"pid":1,"tid":1},{"name":"main","ph":"E","ts":5,"pid":1,"tid":1}]',
                                    'tess-trace', jsonb_build_object('tenant', current_user)) > 0;
SET ROLE :tom;
SELECT calltree.import_collapsed(E'main;tom 7\nmain;shared 1\n', 'tom-1', jsonb_build_object('tenant', current_user)) > 0;
RESET ROLE;
SELECT calltree.new_sample_partition() IS NOT NULL;
SET ROLE :tess;
SELECT calltree.import_collapsed(E'main;tess;later 2\n', 'tess-2', jsonb_build_object('tenant', current_user)) > 0;
SET ROLE :tom;
SELECT calltree.import_collapsed(E'main;tom;later 5\n', 'tom-2', jsonb_build_object('tenant', current_user)) > 0;
SELECT calltree.import_trace_events('[{"name":"run","ph":"B","ts":0,"pid":1,"tid":1},{"name":"run","ph":"E","ts":9,"pid":1,"tid":1}]',
                                    'tom-trace', jsonb_build_object('tenant', current_user)) > 0;
RESET ROLE;
-- DDL of a role that owns nothing of calltree's, and concurrent DDL
SET ROLE :tess;
CREATE TEMP TABLE scratch (x int);
RESET ROLE;
CREATE TABLE public.notes (x int);
SQL
ct_query "$src" 'CREATE INDEX CONCURRENTLY notes_x ON public.notes (x)'

# What each role sees; the tables' flags and policies.
seen_by() {
	ct_psql "$1" -At "${role_vars[@]}" <<SQL
SET ROLE $2;
SELECT 'profiles ' || coalesce(string_agg(name, ',' ORDER BY name), '-') FROM calltree.profile;
SELECT 'samples ' || count(*) || ' weight ' || coalesce(sum(weight), 0) FROM calltree.sample;
SELECT 'tree ' || coalesce(calltree.to_collapsed(calltree.stack_agg(stack_id, weight)), '-') FROM calltree.sample;
SELECT 'events ' || count(*) FROM calltree.event;
SQL
}
security() {
	ct_query "$1" "SELECT string_agg(relname || ' ' || relrowsecurity || ' ' || relforcerowsecurity, E'\n' ORDER BY relname)
	          FROM pg_class WHERE relnamespace = 'calltree'::regnamespace AND relkind IN ('r', 'p')"
	ct_query "$1" "SELECT string_agg(concat_ws(' ', tablename, policyname, permissive, roles, cmd, qual, with_check), E'\n'
	                          ORDER BY tablename, policyname)
	          FROM pg_policies WHERE schemaname = 'calltree'"
}

# expect_seen DB ROLE PROFILES SAMPLES WEIGHT EVENTS
expect_seen() {
	local seen
	seen=$(seen_by "$1" "$2")
	if ! grep -qx "profiles $3" <<<"$seen" || ! grep -qx "samples $4 weight $5" <<<"$seen" ||
		! grep -qx "events $6" <<<"$seen"; then
		fail "$1: $2 should see profiles $3, $4 samples of weight $5, $6 events; sees:
$seen"
	fi
}
expect_tenants() {
	expect_seen "$1" "$tess" tess-1,tess-2,tess-trace 3 6 2
	# tom's restrictive policy hides its set of tom-2 (one sample, weight 5)
	expect_seen "$1" "$tom" tom-1,tom-2,tom-trace 2 8 2
}

expect_tenants "$src"
security "$src" >"$work/security.src"
if ! grep -q '^profile true false$' "$work/security.src" || ! grep -q '^event true true$' "$work/security.src" ||
	! grep -q '^sample_set_1 true false$' "$work/security.src" || grep -q 'doomed\|gone_role\|first_name' "$work/security.src"; then
	fail "the source database is not as set up: $(cat "$work/security.src")"
fi
for r in "$tess" "$tom"; do seen_by "$src" "$r" >"$work/seen.src.$r"; done
[ "$(ct_query "$src" 'SELECT count(*) FROM calltree.row_security_policy')" = 7 ] ||
	fail "the record holds $(ct_query "$src" 'SELECT count(*) FROM calltree.row_security_policy') policies, not 7"

# restored DB HOW: the restored database has the source's flags, policies,
# rows and what each tenant sees.
restored() {
	[ "$(ct_query "$1" 'SELECT count(*) FROM calltree.sample')" = "$(ct_query "$src" 'SELECT count(*) FROM calltree.sample')" ] ||
		fail "$2: $(ct_query "$1" 'SELECT count(*) FROM calltree.sample') samples restored of $(ct_query "$src" 'SELECT count(*) FROM calltree.sample')"
	expect_tenants "$1"
	security "$1" >"$work/security.$1"
	diff -u "$work/security.src" "$work/security.$1" >&2 ||
		fail "$2: row-level security differs after the restore (- before, + after)"
	for r in "$tess" "$tom"; do
		seen_by "$1" "$r" | diff -u "$work/seen.src.$r" - >&2 || fail "$2: $r sees other rows after the restore"
	done
	# the restored record is the catalog, and follows it
	ct_query "$1" 'CREATE POLICY late ON calltree.symbol USING (true)'
	[ "$(ct_query "$1" "SELECT count(*) FROM calltree.row_security_policy WHERE policy_name = 'late'")" = 1 ] ||
		fail "$2: a policy made after the restore is not recorded"
}

"$PG_BIN/pg_dump" -Fc -f "$work/dump" "$src" 2>"$work/pg_dump.err" || fail "pg_dump failed: $(cat "$work/pg_dump.err")"
ct_createdb calltree_dump_rls_dst
"$PG_BIN/pg_restore" --exit-on-error -d calltree_dump_rls_dst "$work/dump" 2>"$work/pg_restore.err" ||
	fail "pg_restore failed: $(cat "$work/pg_restore.err")"
restored calltree_dump_rls_dst "pg_dump -Fc, pg_restore"

# A plain dump loaded through the partitioned tables: sample sets load
# through sample_set, before their stacks.
"$PG_BIN/pg_dump" --load-via-partition-root -f "$work/root.sql" "$src" 2>"$work/pg_dump.err" ||
	fail "pg_dump --load-via-partition-root failed: $(cat "$work/pg_dump.err")"
ct_createdb calltree_dump_rls_root
ct_psql calltree_dump_rls_root -f "$work/root.sql" >/dev/null 2>"$work/psql.err" ||
	fail "restoring the dump made with --load-via-partition-root failed: $(cat "$work/psql.err")"
restored calltree_dump_rls_root "pg_dump --load-via-partition-root, psql"
# and in custom format, with pg_restore
"$PG_BIN/pg_dump" -Fc --load-via-partition-root -f "$work/root.dump" "$src" 2>"$work/pg_dump.err" ||
	fail "pg_dump -Fc --load-via-partition-root failed: $(cat "$work/pg_dump.err")"
ct_createdb calltree_dump_rls_root_fc
"$PG_BIN/pg_restore" --exit-on-error -d calltree_dump_rls_root_fc "$work/root.dump" 2>"$work/pg_restore.err" ||
	fail "pg_restore of the dump made with --load-via-partition-root failed: $(cat "$work/pg_restore.err")"
restored calltree_dump_rls_root_fc "pg_dump -Fc --load-via-partition-root, pg_restore"

# A restore into a cluster without a role that a policy names: an error that
# says so, and the table's row-level security on, without the policy.
ct_createdb calltree_dump_rls_gone
ct_psql calltree_dump_rls_gone -At "${role_vars[@]}" <<'SQL'
CREATE EXTENSION calltree;
CREATE ROLE :gone;
ALTER TABLE calltree.profile ENABLE ROW LEVEL SECURITY;
CREATE POLICY for_gone ON calltree.profile TO :gone USING (true);
INSERT INTO calltree.profile (name) VALUES ('hidden');
SQL
"$PG_BIN/pg_dump" -Fc -f "$work/gone.dump" calltree_dump_rls_gone
"$PG_BIN/dropdb" calltree_dump_rls_gone
ct_query postgres "DROP ROLE $gone"
ct_createdb calltree_dump_rls_gone_dst
if "$PG_BIN/pg_restore" --exit-on-error -d calltree_dump_rls_gone_dst "$work/gone.dump" 2>"$work/pg_restore.err"; then
	fail "a restore whose policy names a missing role succeeded"
fi
if ! grep -q "policy for_gone on calltree.profile is for role \"$gone\", which does not exist" "$work/pg_restore.err" ||
	! grep -q 'DETAIL:  Row-level security stays enabled on calltree.profile without this policy.' "$work/pg_restore.err" ||
	! grep -q 'HINT:  Restore the roles first (pg_dumpall --roles-only), then the database.' "$work/pg_restore.err"; then
	fail "a restore whose policy names a missing role failed with: $(cat "$work/pg_restore.err")"
fi
[ "$(ct_query calltree_dump_rls_gone_dst "SELECT relrowsecurity FROM pg_class WHERE oid = 'calltree.profile'::regclass")" = t ] ||
	fail "a restore that could not make a policy left row-level security off"
[ "$(ct_query calltree_dump_rls_gone_dst "SELECT count(*) FROM calltree.profile")" = 1 ] ||
	fail "a restore that could not make a policy lost the rows"

# Row-level security set up under version 0.2 is recorded by the update to
# the current version, and so restored.
ct_createdb calltree_dump_rls_old
ct_psql calltree_dump_rls_old -At "${role_vars[@]}" >/dev/null <<'SQL'
CREATE EXTENSION calltree VERSION '0.2';
ALTER TABLE calltree.profile ENABLE ROW LEVEL SECURITY;
ALTER TABLE calltree.profile FORCE ROW LEVEL SECURITY;
CREATE POLICY from_old ON calltree.profile TO :tess USING (name = 'old');
ALTER EXTENSION calltree UPDATE;
SQL
security calltree_dump_rls_old >"$work/security.old"
grep -q "^profile from_old PERMISSIVE {$tess} ALL (name = 'old'::text)$" "$work/security.old" ||
	fail "the policy made under 0.2 is not as expected: $(cat "$work/security.old")"
"$PG_BIN/pg_dump" -Fc -f "$work/old.dump" calltree_dump_rls_old
ct_createdb calltree_dump_rls_old_dst
"$PG_BIN/pg_restore" --exit-on-error -d calltree_dump_rls_old_dst "$work/old.dump" 2>"$work/pg_restore.err" ||
	fail "pg_restore of a database updated from 0.2 failed: $(cat "$work/pg_restore.err")"
security calltree_dump_rls_old_dst | diff -u "$work/security.old" - >&2 ||
	fail "the row-level security set up under 0.2 differs after an update, dump and restore"

# A row of the record applies as the role that inserts it, and only as one
# statement on a table of calltree's; the extension drops and comes back.
ct_createdb calltree_dump_rls_apply
out=$(ct_psql calltree_dump_rls_apply -At "${role_vars[@]}" 2>&1 <<'SQL' || true
CREATE EXTENSION calltree;
GRANT USAGE ON SCHEMA calltree TO :tess;
GRANT INSERT ON calltree.row_security_flags, calltree.row_security_policy TO :tess;
SET ROLE :tess;
INSERT INTO calltree.row_security_flags VALUES ('profile', true, true);
SQL
)
grep -q 'ERROR:  must be owner of table profile' <<<"$out" || fail "a non-owner's row of the record applied: $out"
out=$(ct_psql calltree_dump_rls_apply -At "${role_vars[@]}" 2>&1 <<'SQL' || true
INSERT INTO calltree.row_security_policy VALUES ('profile', 'sneaky', 'PERMISSIVE', 'ALL', '{public}', 'true); DROP TABLE calltree.symbol; --', NULL);
SQL
)
grep -q 'ERROR:  the expressions of policy sneaky on calltree.profile in calltree.row_security_policy are not single expressions' <<<"$out" ||
	fail "a row of the record with two statements: $out"
out=$(ct_psql calltree_dump_rls_apply -At "${role_vars[@]}" 2>&1 <<'SQL' || true
CREATE TABLE public.mine (x int);
INSERT INTO calltree.row_security_flags VALUES ('mine', true, false);
SQL
)
grep -q 'ERROR:  "mine" is not a table of calltree whose row-level security is recorded' <<<"$out" ||
	fail "a row of the record for another table: $out"
ct_query calltree_dump_rls_apply "INSERT INTO calltree.row_security_policy
                            VALUES ('symbol', 'by_hand', 'RESTRICTIVE', 'SELECT', '{public}', '(start > 0)', NULL)"
[ "$(ct_query calltree_dump_rls_apply "SELECT permissive || ' ' || cmd || ' ' || qual FROM pg_policies WHERE policyname = 'by_hand'
                               UNION ALL SELECT count(*)::text FROM calltree.row_security_policy")" = "RESTRICTIVE SELECT (start > 0)
1" ] || fail "a row of the record inserted by hand did not make its policy, or was not recorded"
ct_psql calltree_dump_rls_apply -At "${role_vars[@]}" >/dev/null <<'SQL'
DROP EXTENSION calltree;
CREATE TABLE public.after_drop (x int);
ALTER TABLE public.after_drop ADD COLUMN y int;
CREATE EXTENSION calltree;
SQL
[ "$(ct_query calltree_dump_rls_apply "SELECT count(*) FROM calltree.row_security_policy")" = 0 ] ||
	fail "the record of a new install holds policies"

# A writer with the settings of a restore is still checked.
ct_createdb calltree_dump_rls_checks
out=$(ct_psql calltree_dump_rls_checks -At "${role_vars[@]}" 2>&1 <<'SQL' || true
CREATE EXTENSION calltree;
GRANT USAGE ON SCHEMA calltree TO :writer;
GRANT SELECT, INSERT ON calltree.profile, calltree.sample_set, calltree.sample, calltree.stack TO :writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA calltree TO :writer;
SET ROLE :tess;
SET check_function_bodies = off;
SET row_security = off;
INSERT INTO calltree.profile (name) VALUES ('checked') RETURNING id AS p \gset
INSERT INTO calltree.sample (profile_id, stack_id) VALUES (:p, 424242);
SQL
)
grep -q 'a new sample refers to stack 424242, which does not exist' <<<"$out" ||
	fail "a writer with check_function_bodies and row_security off wrote a sample of a missing stack: $out"

echo "t_dump_rls: ok (flags and $(ct_query "$src" 'SELECT count(*) FROM pg_policies WHERE schemaname = $$calltree$$') policies restored by pg_restore and by psql with --load-via-partition-root; missing role fails closed)"
