#!/usr/bin/env bash
# pprof into a LATIN1 database: the strings of the file (UTF-8) are converted
# to the server's encoding, and a converted string is shorter than its
# bytes in the file ("Überfunc" is 9 bytes there, 8 here).  The importer
# passes each string's length to the writer's look-ups (the length of the
# converted string, not of the file's bytes): the names, files and
# resources must read back as they were written, and the repeat imports of
# a session, whose funcs and frames the backend's cache has met, must find
# the same funcs and frames, not make new ones, and give the same tree.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init
db=calltree_pprof_latin1
"$PG_BIN/dropdb" --if-exists "$db" >/dev/null
"$PG_BIN/createdb" -E LATIN1 --locale=C -T template0 "$db"
CT_DATABASES+=("$db")
ct_query "$db" 'CREATE EXTENSION calltree'
[ "$(ct_query "$db" 'SHOW server_encoding')" = LATIN1 ] || fail "the database is not LATIN1"

# A pprof profile (profile.proto) of three functions with Latin-1 letters in
# their names and files, one mapping with such a file and a build id, and
# two samples (leaf first): Überfunc > grüßen of weight 3, Überfunc > main of 5.
python3 - "$work/latin1.pb" <<-'PY'
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

	strings = ['', 'samples', 'count', 'Überfunc', 'straße.go', 'grüßen', 'naïve.go', 'main',
	           '/opt/bïn/sérver', 'bûild-1']
	s = {v: i for i, v in enumerate(strings)}
	out = ld(1, vint(1, s['samples']) + vint(2, s['count']))
	# samples: location ids leaf first, packed; one value
	out += ld(2, ld(1, varint(2) + varint(1)) + ld(2, varint(3)))
	out += ld(2, ld(1, varint(3) + varint(1)) + ld(2, varint(5)))
	out += ld(3, vint(1, 1) + vint(5, s['/opt/bïn/sérver']) + vint(6, s['bûild-1']))
	for loc, fn, line in ((1, 1, 10), (2, 2, 20), (3, 3, 30)):
	    out += ld(4, vint(1, loc) + vint(2, 1) + vint(3, 0x1000 + loc) + ld(4, vint(1, fn) + vint(2, line)))
	for fn, name, file in ((1, 'Überfunc', 'straße.go'), (2, 'grüßen', 'naïve.go'), (3, 'main', 'straße.go')):
	    out += ld(5, vint(1, fn) + vint(2, s[name]) + vint(4, s[file]))
	for v in strings:
	    out += ld(6, v.encode('utf-8'))
	open(sys.argv[1], 'wb').write(out)
PY
b64=$(base64 -w0 "$work/latin1.pb")

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
expect 'names|grüßen naïve.go /opt/bïn/sérver (bûild-1), main straße.go /opt/bïn/sérver (bûild-1), Überfunc straße.go /opt/bïn/sérver (bûild-1)'
expect 'funcs|t'
expect 'frames|t'
expect 'trees|1|Überfunc;main 5 / Überfunc;grüßen 3'
echo "t_pprof_latin1: ok"
