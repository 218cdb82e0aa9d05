#!/usr/bin/env bash
# ALTER EXTENSION calltree UPDATE from every released version.
#
# The released scripts of src/releases/ must match SHA256SUMS there.
# For each frozen install script in src/releases/ older than the current
# version, a database installs that version, imports real profiles of
# several formats, and stores call trees in a table of its own.  Then:
#   1. ALTER EXTENSION calltree UPDATE reaches the default version;
#   2. every table row and every query result is what it was before;
#   3. the updated extension's objects are those of a fresh install, read
#      from the catalog (definitions, columns, indexes, triggers, ACLs);
#   4. pg_dump of the old database restores into the current version, and
#      pg_dump of the updated one restores too, with the same results;
#   5. pack_samples() packs the rows the update left in sample_row, with
#      the same results, and a 0.2 database's row-level security still
#      keeps tenants apart after the update and the packing.
#
# Runs against the cluster of test/run.sh.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

# Released scripts are frozen: each is as it was released.
(cd "$repo/src/releases" && sha256sum --quiet -c SHA256SUMS) >&2 ||
	fail "a released script in src/releases/ was edited (SHA256SUMS); a change ships as a new version"
for script in "$repo"/src/releases/calltree--*.sql; do
	grep -q " $(basename "$script")\$" "$repo/src/releases/SHA256SUMS" ||
		fail "$(basename "$script") is not listed in src/releases/SHA256SUMS"
done

current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$repo/calltree.control")
[ -n "$current" ] || fail "no default_version in calltree.control"


# The profiles every old version can import.
load_profiles() {
	ct_psql "$1" -At -v shared="$shared" <<'SQL'
SET client_min_messages = warning;
SELECT calltree.import_collapsed(pg_read_file(:'shared' || '/data/speedscope-samples/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt'), 'collapsed');
SELECT calltree.import_pprof(pg_read_binary_file(:'shared' || '/data/pprof/sample.cpu'), name => 'pprof');
SELECT calltree.import_cpuprofile(pg_read_file(:'shared' || '/data/speedscope-samples/Chrome/65/simple.cpuprofile'), 'cpuprofile');
SELECT calltree.import_speedscope(pg_read_file(:'shared' || '/data/speedscope-samples/speedscope/0.6.0/two-sampled.speedscope.json'), 'speedscope');
SELECT calltree.import_profile(pg_read_binary_file(:'shared' || '/data/firefox-profiler/test.perf.gz'), 'perf');
SELECT calltree.import_trace_events(pg_read_file(:'shared' || '/data/speedscope-samples/trace-event/simple.json'), 'trace');
INSERT INTO calltree.sample (profile_id, stack_id, weight)
SELECT (SELECT min(id) FROM calltree.profile), calltree.intern_stack(ARRAY['A', 'B', 'C']), 5;
CREATE TABLE public.trees AS
SELECT profile_id, calltree.stack_agg(stack_id, weight) AS tree
  FROM calltree.sample GROUP BY profile_id;
SQL
}

# Every table's rows and the results of the main readers, one line each.
# A row is its columns by name, but for the columns a later version added
# (profile.content_sha256 and first_of_import, NULL in the rows of older versions).
results() {
	ct_psql "$1" -At -v shared="$shared" <<'SQL'
SELECT t || ' ' || (xpath('/row/c/text()', query_to_xml(format(
         'SELECT count(*) || '' '' || coalesce(md5(string_agg(r, '','' ORDER BY r)), ''-'') AS c
            FROM (SELECT (to_jsonb(x) - ''content_sha256'' - ''first_of_import'')::text AS r FROM calltree.%I AS x) AS rows', t),
         false, true, '')))[1]::text
  FROM unnest(ARRAY['profile', 'func', 'frame', 'stack', 'sample', 'labels', 'event', 'symbol']) AS t;
SELECT 'trees ' || md5(string_agg(profile_id || ':' || tree::text, ',' ORDER BY profile_id)) FROM public.trees;
SELECT 'merge ' || md5(calltree.calltree_merge(tree)::text) FROM public.trees;
SELECT 'report ' || profile_id || ' ' || md5(string_agg(r::text, ',')) FROM public.trees, calltree.report(tree) r GROUP BY profile_id ORDER BY profile_id;
SELECT 'functions ' || profile_id || ' ' || md5(string_agg(f::text, ',' ORDER BY f::text)) FROM public.trees, calltree.functions(tree) f GROUP BY profile_id ORDER BY profile_id;
SELECT 'collapsed ' || profile_id || ' ' || md5(calltree.to_collapsed(tree)) FROM public.trees ORDER BY profile_id;
SELECT 'flamegraph ' || profile_id || ' ' || md5(calltree.flamegraph(tree)) FROM public.trees ORDER BY profile_id;
SELECT 'pprof ' || profile_id || ' ' || md5(calltree.to_pprof(tree)) FROM public.trees ORDER BY profile_id;
SELECT 'stack_path ' || md5(string_agg(calltree.stack_path(id)::text, ',' ORDER BY id)) FROM calltree.stack;
SQL
}

# The extension's objects as the catalog describes them.
catalog() {
	ct_psql "$1" -At -v shared="$shared" <<'SQL'
-- the tables marked for dump, in name order: the order they were marked in means nothing
SELECT 'version ' || extversion || ' ' || coalesce((SELECT string_agg(c::regclass || ' ' || w, ',' ORDER BY c::regclass::text)
                                                     FROM unnest(extconfig, extcondition) AS u(c, w)), '')
  FROM pg_extension WHERE extname = 'calltree';
SELECT 'member ' || pg_describe_object(classid, objid, objsubid)
  FROM pg_depend d JOIN pg_extension e ON d.refobjid = e.oid AND d.refclassid = 'pg_extension'::regclass
 WHERE e.extname = 'calltree' AND d.deptype = 'e' ORDER BY 1;
SELECT 'function ' || p.oid::regprocedure || ' ' || p.prokind::text || ' ' || p.provolatile::text || p.proparallel::text
       || ' strict=' || p.proisstrict || ' secdef=' || p.prosecdef || ' leakproof=' || p.proleakproof
       || ' config=' || coalesce(array_to_string(p.proconfig, ';'), '') || ' acl=' || coalesce(p.proacl::text, '')
       || ' cost=' || p.procost || ' rows=' || p.prorows || ' returns=' || pg_get_function_result(p.oid)
       || ' args=' || pg_get_function_arguments(p.oid) || ' body=' || md5(coalesce(p.prosrc, '') || coalesce(pg_get_function_sqlbody(p.oid), ''))
       || ' comment=' || coalesce(md5(obj_description(p.oid, 'pg_proc')), '')
  FROM pg_proc p WHERE p.pronamespace = 'calltree'::regnamespace ORDER BY 1;
SELECT 'aggregate ' || a.aggfnoid::regprocedure || ' ' || a.aggkind::text || ' ' || a.aggtransfn || ' ' || a.aggfinalfn
       || ' ' || a.aggcombinefn || ' ' || a.aggserialfn || ' ' || a.aggdeserialfn || ' ' || a.aggtranstype::regtype
       || ' ' || a.aggfinalextra || ' ' || a.aggfinalmodify::text || ' ' || coalesce(a.agginitval, '') || ' ' || a.aggtransspace
  FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid WHERE p.pronamespace = 'calltree'::regnamespace ORDER BY 1;
SELECT 'relation ' || c.relname || ' ' || c.relkind::text || ' acl=' || coalesce(c.relacl::text, '') || ' rls=' || c.relrowsecurity
       || ' comment=' || coalesce(md5(obj_description(c.oid, 'pg_class')), '')
  FROM pg_class c WHERE c.relnamespace = 'calltree'::regnamespace ORDER BY 1;
SELECT 'column ' || a.attrelid::regclass || '.' || a.attname || ' ' || a.attnum || ' ' || format_type(a.atttypid, a.atttypmod)
       || ' notnull=' || a.attnotnull || ' default=' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
       || ' identity=' || a.attidentity::text || ' storage=' || a.attstorage::text || ' collation=' || a.attcollation::regcollation
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE c.relnamespace = 'calltree'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1;
SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
 WHERE c.relnamespace = 'calltree'::regnamespace ORDER BY 1;
SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid)
  FROM pg_constraint WHERE connamespace = 'calltree'::regnamespace ORDER BY 1;
SELECT 'trigger ' || pg_get_triggerdef(t.oid) || ' ' || t.tgenabled::text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
 WHERE c.relnamespace = 'calltree'::regnamespace AND NOT t.tgisinternal ORDER BY 1;
SELECT 'policy ' || polrelid::regclass || ' ' || polname || ' ' || polcmd::text || ' ' || coalesce(pg_get_expr(polqual, polrelid), '')
  FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid WHERE c.relnamespace = 'calltree'::regnamespace ORDER BY 1;
SELECT 'type ' || t.oid::regtype || ' ' || t.typtype::text || ' ' || t.typlen || ' ' || t.typalign::text || ' ' || t.typstorage::text
       || ' ' || t.typinput || ' ' || t.typoutput || ' ' || t.typreceive || ' ' || t.typsend
  FROM pg_type t WHERE t.typnamespace = 'calltree'::regnamespace AND t.typtype <> 'c' ORDER BY 1;
SELECT 'operator ' || o.oid::regoperator || ' ' || o.oprcode || ' ' || o.oprcom::regoperator || ' ' || o.oprnegate::regoperator
       || ' ' || o.oprrest || ' ' || o.oprjoin || ' ' || o.oprcanhash || o.oprcanmerge
  FROM pg_operator o WHERE o.oprnamespace = 'calltree'::regnamespace ORDER BY 1;
SELECT 'opclass ' || c.opcname || ' ' || am.amname || ' ' || c.opcintype::regtype || ' ' || c.opcdefault
  FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod WHERE c.opcnamespace = 'calltree'::regnamespace ORDER BY 1;
SELECT 'cast ' || castsource::regtype || ' -> ' || casttarget::regtype || ' ' || castfunc::regprocedure || ' ' || castcontext::text
  FROM pg_cast WHERE castsource IN (SELECT oid FROM pg_type WHERE typnamespace = 'calltree'::regnamespace)
     OR casttarget IN (SELECT oid FROM pg_type WHERE typnamespace = 'calltree'::regnamespace) ORDER BY 1;
SELECT 'schema acl=' || coalesce(nspacl::text, '') FROM pg_namespace WHERE nspname = 'calltree';
SQL
}

# dump_restore FROM TO: pg_dump -Fc FROM, pg_restore into a new database TO.
dump_restore() {
	"$PG_BIN/pg_dump" -Fc -f "$work/$1.dump" "$1" 2>"$work/pg_dump.err" ||
		fail "pg_dump of $1 failed: $(cat "$work/pg_dump.err")"
	ct_createdb "$2"
	"$PG_BIN/pg_restore" --exit-on-error -d "$2" "$work/$1.dump" 2>"$work/pg_restore.err" ||
		fail "pg_restore of $1 into $2 failed: $(cat "$work/pg_restore.err")"
}

ct_createdb calltree_upgrade_fresh
ct_query calltree_upgrade_fresh 'CREATE EXTENSION calltree'
catalog calltree_upgrade_fresh >"$work/catalog.fresh"

versions=0
for script in "$repo"/src/releases/calltree--*.sql; do
	old=$(basename "$script" .sql)
	old=${old#calltree--}
	case "$old" in *--*) continue ;; esac
	[ "$old" != "$current" ] || continue
	versions=$((versions + 1))
	db=calltree_upgrade_$(tr -c 'a-z0-9\n' _ <<<"$old")

	ct_createdb "$db"
	ct_query "$db" "CREATE EXTENSION calltree VERSION '$old'"
	load_profiles "$db" >/dev/null
	results "$db" >"$work/results.before"
	[ "$(grep -c '^sample 0 ' "$work/results.before")" = 0 ] || fail "$old: the imports left no samples"

	# The old version's dump, restored into the current version.
	dump_restore "$db" "${db}_restored_old"
	ct_query "${db}_restored_old" 'SELECT extversion FROM pg_extension WHERE extname = $$calltree$$' |
		grep -qx "$current" || fail "$old: a restored dump did not install version $current"
	results "${db}_restored_old" >"$work/results.restored_old"
	diff -u "$work/results.before" "$work/results.restored_old" >&2 ||
		fail "$old: the dump of version $old restored into $current gives other rows or results"

	ct_query "$db" 'ALTER EXTENSION calltree UPDATE'
	results "$db" >"$work/results.after"
	diff -u "$work/results.before" "$work/results.after" >&2 ||
		fail "$old -> $current: the update changed stored rows or query results"
	# The rows stay in sample_row until packed, in batches that commit.
	[ "$(ct_query "$db" 'SELECT count(*) > 0 FROM calltree.sample_row')" = t ] ||
		fail "$old -> $current: the update packed the samples itself, in one transaction"
	ct_psql "$db" -q -c 'CALL calltree.pack_samples(2)' 2>"$work/pack.err" ||
		fail "$old -> $current: pack_samples() failed: $(cat "$work/pack.err")"
	[ "$(ct_query "$db" 'SELECT count(*) FROM calltree.sample_row')" = 0 ] ||
		fail "$old -> $current: pack_samples() left rows in sample_row"
	results "$db" >"$work/results.packed"
	diff -u "$work/results.before" "$work/results.packed" >&2 ||
		fail "$old -> $current: packing the samples changed stored rows or query results"
	catalog "$db" >"$work/catalog.updated"
	diff -u "$work/catalog.fresh" "$work/catalog.updated" >&2 ||
		fail "$old -> $current: the updated extension differs from a fresh install of $current"

	# The updated database's dump restores, with the same results.
	dump_restore "$db" "${db}_restored_new"
	results "${db}_restored_new" >"$work/results.restored_new"
	diff -u "$work/results.before" "$work/results.restored_new" >&2 ||
		fail "$old -> $current: the dump of the updated database restores other rows or results"
	# Imports still work after the update.
	ct_psql "$db" -At -v shared="$shared" >"$work/after.txt" <<-'SQL'
		SELECT calltree.import_collapsed(E'upgraded;now 3\n', 'after update') AS id \gset
		SELECT calltree.stack_agg(stack_id, weight)::text FROM calltree.sample WHERE profile_id = :id;
	SQL
	grep -qE '^\{[0-9]+:3/0 \{[0-9]+:3/3\}\}$' "$work/after.txt" ||
		fail "$old -> $current: an import after the update gave $(cat "$work/after.txt")"
done
[ "$versions" -gt 0 ] || fail "no released version older than $current in src/releases/"

# The row-level-security recipe of 0.2 (policies on sample) holds after the
# update and the packing: each tenant still sees only its own samples.
ct_createdb calltree_upgrade_rls
ct_psql calltree_upgrade_rls -q >/dev/null <<'SQL'
SET client_min_messages = warning;
CREATE EXTENSION calltree VERSION '0.2';
DROP ROLE IF EXISTS upgrade_tenant_a;
DROP ROLE IF EXISTS upgrade_tenant_b;
CREATE ROLE upgrade_tenant_a;
CREATE ROLE upgrade_tenant_b;
GRANT USAGE ON SCHEMA calltree TO upgrade_tenant_a, upgrade_tenant_b;
GRANT SELECT ON ALL TABLES IN SCHEMA calltree TO upgrade_tenant_a, upgrade_tenant_b;
ALTER TABLE calltree.profile ENABLE ROW LEVEL SECURITY;
ALTER TABLE calltree.sample ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_profiles ON calltree.profile USING (meta->>'tenant' = current_user);
CREATE POLICY tenant_samples ON calltree.sample USING (profile_id IN (SELECT id FROM calltree.profile));
SELECT calltree.import_collapsed(E'main;a 3\n', 'a', '{"tenant": "upgrade_tenant_a"}');
SELECT calltree.import_collapsed(E'main;b 5\nmain;c 1\n', 'b', '{"tenant": "upgrade_tenant_b"}');
-- a function the update changes in place keeps the privileges given to it
REVOKE EXECUTE ON FUNCTION calltree.rolled_up(calltree.profile) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION calltree.rolled_up(calltree.profile) TO upgrade_tenant_a;
ALTER EXTENSION calltree UPDATE;
CALL calltree.pack_samples();
GRANT SELECT ON ALL TABLES IN SCHEMA calltree TO upgrade_tenant_a, upgrade_tenant_b;
SQL
seen=$(ct_psql calltree_upgrade_rls -At <<'SQL'
SET ROLE upgrade_tenant_a;
SELECT 'a ' || count(*) || ' ' || sum(weight) FROM calltree.sample;
SELECT 'a sets ' || count(*) FROM calltree.sample_set;
SET ROLE upgrade_tenant_b;
SELECT 'b ' || count(*) || ' ' || sum(weight) FROM calltree.sample;
RESET ROLE;
SELECT 'owner ' || count(*) || ' ' || sum(weight) FROM calltree.sample;
SELECT 'rolled_up executed by ' || string_agg(CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END, ',')
  FROM pg_proc p, aclexplode(p.proacl) a
 WHERE p.oid = 'calltree.rolled_up(calltree.profile)'::regprocedure AND a.grantee <> p.proowner;
SQL
)
[ "$seen" = "$(printf 'a 1 3\na sets 1\nb 2 6\nowner 3 9\nrolled_up executed by upgrade_tenant_a')" ] ||
	fail "after the update and pack_samples(), tenants see: $seen"
ct_psql calltree_upgrade_rls -q -c 'DROP OWNED BY upgrade_tenant_a, upgrade_tenant_b' -c 'DROP ROLE upgrade_tenant_a, upgrade_tenant_b' >/dev/null
echo "t_upgrade: ok ($versions released version(s) updated to $current: rows, results, catalog and dumps agree)"
