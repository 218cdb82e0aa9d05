#!/usr/bin/env bash
# calltree in an EUC_JP database: CREATE EXTENSION reads the install
# script in the database's encoding, so the script must be bytes that
# EUC_JP accepts (a UTF-8 arrow in a comment made it fail).  Then pprof
# there, whose UTF-8 strings change length once converted the other way
# than in LATIN1 (t_pprof_latin1.sh): "関数" is 6 bytes in the file and 4
# here, the half-width "ｸﾞﾘｰﾝ" 15 and 10.  The importer passes each
# string's converted length to the writer's look-ups: names, files and
# resources must read back as written, and the repeat imports of a session
# (a warm cache) must find the same funcs and frames and give the same tree.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init
db=calltree_pprof_euc_jp
"$PG_BIN/dropdb" --if-exists "$db" >/dev/null
"$PG_BIN/createdb" -E EUC_JP --locale=C -T template0 "$db"
CT_DATABASES+=("$db")
ct_query "$db" 'CREATE EXTENSION calltree' >"$work/create.txt" 2>&1 ||
	fail "CREATE EXTENSION calltree failed in an EUC_JP database" "$work/create.txt"
[ "$(ct_query "$db" 'SHOW server_encoding')" = EUC_JP ] || fail "the database is not EUC_JP"

# A pprof profile of three functions with Japanese names and files, one
# mapping with such a file and a build id, and two samples (leaf first):
# 関数 > ｸﾞﾘｰﾝ of weight 3, 関数 > main of 5.
python3 - "$work/euc_jp.pb" <<-'PY'
	import sys

	def varint(n):
	    out = bytearray()
	    while n >= 0x80:
	        out.append((n & 0x7f) | 0x80)
	        n >>= 7
	    out.append(n)
	    return bytes(out)

	def vint(field, n):
	    return varint(field << 3) + varint(n) if n else b''

	def ld(field, payload):
	    return varint(field << 3 | 2) + varint(len(payload)) + payload

	strings = ['', 'samples', 'count', '関数', 'ファイル.go', 'ｸﾞﾘｰﾝ', 'ｶﾀｶﾅ.go', 'main',
	           '/opt/ﾋﾞﾝ/サーバ', 'ビルド-1']
	s = {v: i for i, v in enumerate(strings)}
	out = ld(1, vint(1, s['samples']) + vint(2, s['count']))
	out += ld(2, ld(1, varint(2) + varint(1)) + ld(2, varint(3)))
	out += ld(2, ld(1, varint(3) + varint(1)) + ld(2, varint(5)))
	out += ld(3, vint(1, 1) + vint(5, s['/opt/ﾋﾞﾝ/サーバ']) + vint(6, s['ビルド-1']))
	for loc, fn, line in ((1, 1, 10), (2, 2, 20), (3, 3, 30)):
	    out += ld(4, vint(1, loc) + vint(2, 1) + vint(3, 0x1000 + loc) + ld(4, vint(1, fn) + vint(2, line)))
	for fn, name, file in ((1, '関数', 'ファイル.go'), (2, 'ｸﾞﾘｰﾝ', 'ｶﾀｶﾅ.go'), (3, 'main', 'ファイル.go')):
	    out += ld(5, vint(1, fn) + vint(2, s[name]) + vint(4, s[file]))
	for v in strings:
	    out += ld(6, v.encode('utf-8'))
	open(sys.argv[1], 'wb').write(out)
PY
b64=$(base64 -w0 "$work/euc_jp.pb")

# three imports in one session: the second and third meet a warm cache
ct_psql "$db" -At -v b64="$b64" >"$work/out.txt" <<-'SQL'
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

expect() {
	grep -qxF "$1" "$work/out.txt" || fail "expected the line: $1" "$work/out.txt"
}
expect 'names|main ファイル.go /opt/ﾋﾞﾝ/サーバ (ビルド-1), ｸﾞﾘｰﾝ ｶﾀｶﾅ.go /opt/ﾋﾞﾝ/サーバ (ビルド-1), 関数 ファイル.go /opt/ﾋﾞﾝ/サーバ (ビルド-1)'
expect 'bytes|4 10 4'
expect 'funcs|t'
expect 'frames|t'
expect 'trees|1|関数;main 5 / 関数;ｸﾞﾘｰﾝ 3'
echo "t_pprof_euc_jp: ok"
