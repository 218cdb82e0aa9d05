#!/usr/bin/env bash
# bin/calltree-load's errors say what to do (issue 32): the cases a new user
# meets, each with its message and hint in the loader's terms.  A file that
# is no profile (a README, a script) says its format was guessed and from
# what, and names --format; --format on a file that plainly is another kind
# (pprof given JSON, collapsed given protobuf) says what the file looks
# like; invalid UTF-8 names the format, line and byte; a truncated gzip
# says truncated; JSON of no profile names the JSON formats for --format;
# the server's "line N of the profile" becomes the file's name.  Nothing is
# left behind by any.  Then duplicates: a file loaded again gets a NOTICE
# naming the earlier profile, its .gz too, and --skip-duplicates prints the
# earlier id without importing.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

loader=$repo/bin/calltree-load
db=calltree_errors
export PGDATABASE=$db
ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree' >/dev/null

profiles() { ct_query "$db" 'SELECT count(*) FROM calltree.profile'; }

# fails FILE-LABEL LOADER-ARGS...: the load must fail; its stderr in $work/err
fails() {
	local label=$1 rc=0
	shift
	"$loader" "$@" >"$work/out" 2>"$work/err" || rc=$?
	[ "$rc" -eq 1 ] || fail "$label: the loader should exit 1, not $rc: $(cat "$work/err")"
	[ ! -s "$work/out" ] || fail "$label: no id should be printed: $(cat "$work/out")"
}

# says LABEL TEXT...: each TEXT is a fixed string of the loader's stderr
says() {
	local label=$1 text
	shift
	for text in "$@"; do
		grep -qF -- "$text" "$work/err" || fail "$label: expected \"$text\" in: $(cat "$work/err")"
	done
}

before=$(profiles)

# ---------------------------------------------------------------- guessed formats
# a README: taken for collapsed stacks, and said so
printf '# shop\n\nA toy web shop.\n\n## Running it\n\nmake run; then open the page.\n' >"$work/README.md"
fails "a README" "$work/README.md"
says "a README" 'ERROR:  malformed collapsed stack at line 1' \
	'The format was not given: the file was read as collapsed, as it looks like text: it is neither JSON nor perf script output' \
	'HINT:  Pass --option strict=false to skip malformed lines. If the file is not of format collapsed, give its format with --format (collapsed, perf_script, pprof,' \
	"CONTEXT:  line 1 of $work/README.md" \
	"calltree-load: $work/README.md: import failed; nothing was loaded from it"
# a script whose indented line looks like a perf script address ("add ")
printf '// a script\nfunction main() {\n    let total = 0;\n    add (total, 1);\n}\n' >"$work/app.js"
fails "a .js file" "$work/app.js"
says "a .js file" 'ERROR:  malformed perf script sample header at line 1' \
	'the file was read as perf_script, as it looks like text: line 4 starts with white space and a hexadecimal word, as perf script'"'"'s stack lines do: "    add (total, 1);"' \
	'as perf script prints it. If the file is not of format perf_script, give its format with --format'
# JSON of no profile format: --format and the JSON formats
printf '{"name": "app", "version": "1.0.0"}\n' >"$work/package.json"
fails "JSON of no profile" "$work/package.json"
says "JSON of no profile" 'ERROR:  unrecognized JSON profile' \
	'it starts with "{" and has none of the members that tell the JSON profile formats apart' \
	'HINT:  If it is a profile of one of these formats, give its format: --format cpuprofile, speedscope, firefox or trace_events.'
grep -q 'import_' "$work/err" && fail "JSON of no profile: the loader's user calls no importer: $(cat "$work/err")"

# ---------------------------------------------------------------- --format the file is not
# --format collapsed on pprof (gunzipped by the loader): binary data, not PostgreSQL's bare encoding error
fails "--format collapsed on pprof" --format collapsed "$repo/examples/web-1.pprof"
says "--format collapsed on pprof" 'ERROR:  collapsed profile is not valid UTF-8 at line 1' \
	'--format collapsed reads text, but the file looks like binary data: byte ' \
	'HINT:  Give --format pprof, or leave --format out to have the format recognized.'
grep -q 'invalid byte sequence' "$work/err" && fail "--format collapsed on pprof: PostgreSQL's own message: $(cat "$work/err")"
# --format pprof on a .cpuprofile: the file is JSON, and which
cpuprofile=$shared/data/firefox-profiler/hello.cjs-20231120T211435.cpuprofile
[ -r "$cpuprofile" ] || fail "cannot read $cpuprofile (set CALLTREE_SHARED)"
fails "--format pprof on a .cpuprofile" --format pprof "$cpuprofile"
says "--format pprof on a .cpuprofile" 'ERROR:  invalid pprof data at byte 0' \
	'--format pprof reads binary data, but the file looks like JSON: its JSON has "nodes" with "callFrame" members.' \
	'HINT:  Give --format cpuprofile, or leave --format out to have the format recognized.'

# ---------------------------------------------------------------- damaged files
# invalid UTF-8: the format, the line and the byte, and a hint
printf 'main;a 1\nmain;b\xff 2\n' >"$work/latin.collapsed"
fails "invalid UTF-8" "$work/latin.collapsed"
says "invalid UTF-8" 'ERROR:  collapsed profile is not valid UTF-8 at line 2' \
	'DETAIL:  Byte 15 of the text, 0xff, is not part of a UTF-8 character.' \
	'Text profiles are read as UTF-8, or as UTF-16 with a byte-order mark.' \
	"CONTEXT:  line 2 of $work/latin.collapsed"
# a truncated gzip: truncated, in the loader's words
gzip -c "$repo/examples/perf-vertx.collapsed" | head -c 1500 >"$work/cut.collapsed.gz"
fails "a truncated gzip" "$work/cut.collapsed.gz"
says "a truncated gzip" "calltree-load: $work/cut.collapsed.gz: the gzip data is truncated: it ends before gzip's end-of-stream marker (1500 compressed bytes read); 'gzip -t' checks a file; nothing was loaded from it"
grep -q 'end-of-stream marker was reached' "$work/err" && fail "a truncated gzip: Python's message: $(cat "$work/err")"

[ "$(profiles)" = "$before" ] || fail "the failed loads left profiles behind"

# ---------------------------------------------------------------- duplicates
# the NOTICEs are shown (ct_script_init hides them)
cp "$repo/examples/perf-vertx.collapsed" "$work/vertx.collapsed"
gzip -c "$work/vertx.collapsed" >"$work/vertx.collapsed.gz"
first=$(PGOPTIONS= "$loader" "$work/vertx.collapsed" 2>"$work/err")
[ ! -s "$work/err" ] || fail "a first load should print no NOTICE: $(cat "$work/err")"
again=$(PGOPTIONS= "$loader" "$work/vertx.collapsed.gz" 2>"$work/err")
[ "$again" -gt "$first" ] || fail "a file loaded again is a new profile ($again after $first)"
says "a file loaded again" "NOTICE:  this file was imported before, as profile $first" \
	'HINT:  --skip-duplicates returns the earlier profile'"'"'s id instead.'
count=$(profiles)
skipped=$(PGOPTIONS= "$loader" --skip-duplicates "$work/vertx.collapsed" 2>"$work/err")
[ "$skipped" = "$first" ] || fail "--skip-duplicates should print the earlier id $first, not $skipped"
says "--skip-duplicates" "NOTICE:  this file was imported before, as profile $first" \
	"DETAIL:  Nothing was imported: every profile that import made is returned, profile $first first."
[ "$(profiles)" = "$count" ] || fail "--skip-duplicates imported the file again"
# a JSON file (read whole) too; the digest is the file's SHA-256
json=$("$loader" "$cpuprofile")
[ "$("$loader" --skip-duplicates "$cpuprofile")" = "$json" ] || fail "--skip-duplicates of a .cpuprofile"
digest=$(ct_query "$db" "SELECT encode(content_sha256, 'hex') FROM calltree.profile WHERE id = $json")
[ "$digest" = "$(sha256sum <"$cpuprofile" | cut -d' ' -f1)" ] || fail "the digest should be the file's SHA-256: $digest"
echo "ok"
