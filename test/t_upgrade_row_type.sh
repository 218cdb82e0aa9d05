#!/usr/bin/env bash
# ALTER EXTENSION calltree UPDATE from 0.2 in a database whose own objects
# use calltree.profile's row type: a table of the DBA's with a column of
# that type (rows of profile kept aside), and a function of BEGIN ATOMIC
# that takes a profile.  0.3 adds profile.content_sha256, of the domain
# sha256_digest, whose constraint PostgreSQL will not check against
# profile's rows while other objects use the row type.  The update must
# still succeed, leave those objects working, and the constraint must hold
# for every digest written afterwards.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init
db=calltree_upgrade_row_type
"$PG_BIN/dropdb" --if-exists "$db" >/dev/null
"$PG_BIN/createdb" "$db"
CT_DATABASES+=("$db")

ct_psql "$db" -At >"$work/out.txt" 2>&1 <<-'SQL' || fail "the update failed" "$work/out.txt"
	\set ON_ERROR_STOP on
	SET client_min_messages = warning;
	CREATE EXTENSION calltree VERSION '0.2';
	SELECT calltree.import_collapsed(E'main;work 3\n', 'before') > 0 AS imported \gset
	CREATE TABLE public.kept_profiles (p calltree.profile);
	INSERT INTO public.kept_profiles SELECT p FROM calltree.profile p;
	CREATE FUNCTION public.profile_label(p calltree.profile) RETURNS text
	LANGUAGE sql BEGIN ATOMIC SELECT p.name || ' #' || p.id; END;
	ALTER EXTENSION calltree UPDATE;
	SELECT 'version', extversion FROM pg_extension WHERE extname = 'calltree';
	SELECT 'kept', (p).name FROM public.kept_profiles;
	SELECT 'label', public.profile_label(p) FROM calltree.profile p;
	SELECT 'first', calltree.import_collapsed(E'main;work 3\n', 'after') > 0;
	SELECT 'again', calltree.import_profile(convert_to(E'main;work 3\n', 'UTF8'), 'again',
	                                        on_duplicate => 'skip')
	                = (SELECT id FROM calltree.profile WHERE name = 'after');
	\set ON_ERROR_STOP off
	INSERT INTO calltree.profile (name, content_sha256) VALUES ('short', '\x0102');
	UPDATE calltree.profile SET content_sha256 = '\x01' WHERE name = 'after';
	SELECT 'digests', count(*), count(*) FILTER (WHERE octet_length(content_sha256) = 32)
	  FROM calltree.profile WHERE content_sha256 IS NOT NULL;
SQL

expect() {
	grep -qxF "$1" "$work/out.txt" || fail "expected the line: $1" "$work/out.txt"
}
expect 'version|0.3'
expect 'kept|before'
expect 'label|before #1'
expect 'first|t'
expect 'again|t'
[ "$(grep -c 'violates check constraint "sha256_digest_length"' "$work/out.txt")" = 2 ] ||
	fail "a digest not of 32 bytes was not refused twice" "$work/out.txt"
expect 'digests|1|1'
echo "t_upgrade_row_type: ok"
