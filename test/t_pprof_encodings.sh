#!/usr/bin/env bash
# pprof into databases of other encodings than UTF-8.  The strings of a
# pprof file are UTF-8, converted to the server's encoding, where they may
# be shorter than their bytes in the file: in LATIN1 "Überfunc" is 9 bytes
# there and 8 here; in EUC_JP "関数" is 6 and 4, the half-width "ｸﾞﾘｰﾝ"
# 15 and 10.  The importer passes each string's converted length to the
# writer's look-ups: the names, files and resources must read back as they
# were written, and the repeat imports of a session, whose funcs and frames
# the backend's cache has met, must find the same funcs and frames, not
# make new ones, and give the same tree.  In EUC_JP, CREATE EXTENSION
# itself is checked: it reads the install script in the database's
# encoding, so the script must be bytes that EUC_JP accepts (a UTF-8 arrow
# in a comment made it fail).
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

# write_profile PB CALLER CALLER_FILE CALLEE CALLEE_FILE MAPPING BUILD_ID: a
# pprof profile (profile.proto) of three functions, CALLER, CALLEE and main,
# one mapping with its file and build id, and two samples (leaf first):
# CALLER > CALLEE of weight 3, CALLER > main of 5
write_profile() {
	PYTHONPATH="$CT_REPO/test" python3 - "$@" <<-'PY'
		import sys
		from protobuf_write import field_bytes as ld, field_varint as vint, varint

		path, caller, caller_file, callee, callee_file, mapping, build_id = sys.argv[1:]
		strings = ['', 'samples', 'count', caller, caller_file, callee, callee_file, 'main', mapping, build_id]
		s = {v: i for i, v in enumerate(strings)}
		out = ld(1, vint(1, s['samples']) + vint(2, s['count']))
		# samples: location ids leaf first, packed; one value
		out += ld(2, ld(1, varint(2) + varint(1)) + ld(2, varint(3)))
		out += ld(2, ld(1, varint(3) + varint(1)) + ld(2, varint(5)))
		out += ld(3, vint(1, 1) + vint(5, s[mapping]) + vint(6, s[build_id]))
		for loc, fn, line in ((1, 1, 10), (2, 2, 20), (3, 3, 30)):
		    out += ld(4, vint(1, loc) + vint(2, 1) + vint(3, 0x1000 + loc) + ld(4, vint(1, fn) + vint(2, line)))
		for fn, name, file in ((1, caller, caller_file), (2, callee, callee_file), (3, 'main', caller_file)):
		    out += ld(5, vint(1, fn) + vint(2, s[name]) + vint(4, s[file]))
		for v in strings:
		    out += ld(6, v.encode('utf-8'))
		open(path, 'wb').write(out)
	PY
}

# check ENCODING NAMES BYTES TREE, the profile's strings after them: the
# functions read back (name, file, resource; ordered by name), the bytes of
# their names, and the one tree of three imports in one session
check() {
	local encoding=$1 names=$2 bytes=$3 tree=$4
	shift 4
	local db=calltree_pprof_${encoding,,}
	"$PG_BIN/dropdb" --if-exists "$db" >/dev/null
	"$PG_BIN/createdb" -E "$encoding" --locale=C -T template0 "$db"
	CT_DATABASES+=("$db")
	ct_query "$db" 'CREATE EXTENSION calltree' >"$work/create.txt" 2>&1 ||
		fail "CREATE EXTENSION calltree failed in an $encoding database" "$work/create.txt"
	[ "$(ct_query "$db" 'SHOW server_encoding')" = "$encoding" ] || fail "the database is not $encoding"
	write_profile "$work/profile.pb" "$@"

	# three imports in one session: the second and third meet a warm cache
	ct_psql "$db" -At -v b64="$(base64 -w0 "$work/profile.pb")" >"$work/out.txt" <<-'SQL'
		SET client_encoding = 'UTF8';
		SELECT calltree.import_pprof(pg_catalog.decode(:'b64', 'base64'), name => 'first') AS first \gset
		SELECT pg_catalog.count(*) AS funcs FROM calltree.func \gset
		SELECT pg_catalog.count(*) AS frames FROM calltree.frame \gset
		SELECT calltree.import_pprof(pg_catalog.decode(:'b64', 'base64'), name => 'second') AS second \gset
		SELECT calltree.import_pprof(pg_catalog.decode(:'b64', 'base64'), name => 'third') AS third \gset
		SELECT 'names', pg_catalog.string_agg(name || ' ' || coalesce(file, '-') || ' ' || coalesce(resource, '-'), ', ' ORDER BY name)
		  FROM calltree.func;
		SELECT 'bytes', pg_catalog.string_agg(pg_catalog.octet_length(name)::text, ' ' ORDER BY name) FROM calltree.func;
		SELECT 'funcs', pg_catalog.count(*) = :funcs FROM calltree.func;
		SELECT 'frames', pg_catalog.count(*) = :frames FROM calltree.frame;
		SELECT 'trees', pg_catalog.count(DISTINCT calltree.to_collapsed(t)),
		       pg_catalog.replace(pg_catalog.rtrim(pg_catalog.min(calltree.to_collapsed(t)), E'\n'), E'\n', ' / ')
		  FROM (SELECT calltree.stack_agg(stack_id, weight) AS t FROM calltree.sample
		         WHERE profile_id IN (:first, :second, :third) GROUP BY profile_id) AS trees;
	SQL
	local line
	for line in "names|$names" "bytes|$bytes" 'funcs|t' 'frames|t' "trees|1|$tree"; do
		grep -qxF "$line" "$work/out.txt" || fail "$encoding: expected the line: $line" "$work/out.txt"
	done
}

check LATIN1 \
	'grüßen naïve.go /opt/bïn/sérver (bûild-1), main straße.go /opt/bïn/sérver (bûild-1), Überfunc straße.go /opt/bïn/sérver (bûild-1)' \
	'6 4 8' 'Überfunc;main 5 / Überfunc;grüßen 3' \
	'Überfunc' 'straße.go' 'grüßen' 'naïve.go' '/opt/bïn/sérver' 'bûild-1'
check EUC_JP \
	'main ファイル.go /opt/ﾋﾞﾝ/サーバ (ビルド-1), ｸﾞﾘｰﾝ ｶﾀｶﾅ.go /opt/ﾋﾞﾝ/サーバ (ビルド-1), 関数 ファイル.go /opt/ﾋﾞﾝ/サーバ (ビルド-1)' \
	'4 10 4' '関数;main 5 / 関数;ｸﾞﾘｰﾝ 3' \
	'関数' 'ファイル.go' 'ｸﾞﾘｰﾝ' 'ｶﾀｶﾅ.go' '/opt/ﾋﾞﾝ/サーバ' 'ビルド-1'
echo "t_pprof_encodings: ok"
