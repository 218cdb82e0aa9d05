#!/usr/bin/env bash
# Anonymous JavaScript functions kept apart, on a real Node profile:
# test/js/anonymous_functions.js (a module whose unnamed functions are its
# top level, a function expression and two arrow functions on one line,
# beside named ones) is profiled with `node --cpu-prof`; import_cpuprofile
# of the file must give, for every function, the same name, file, self and
# running time as test/reference/cpuprofile_functions.py, an independent
# reading of the same .cpuprofile in Python (each sample lasts until the
# next in time order, the last until endTime; an unnamed function is
# "(anonymous) BASENAME:LINE:COL").  And the fixture's unnamed functions
# must be four funcs, the two arrows apart by their columns, while its named
# functions keep their plain names.  Before unnamed functions were named by
# location, all four were one func "(anonymous)".
#
# Needs node (Debian package nodejs).  Runs against the cluster of
# test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_anon_js
command -v node >/dev/null || fail "node is missing (Debian package nodejs)"

# The profile: a sample every 250 µs for about half a second.  The server
# reads the file, as the clusters' owner.
mkdir -p "$work/prof"
(cd "$work/prof" && node --cpu-prof --cpu-prof-dir="$work/prof" --cpu-prof-interval 250 \
	"$repo/test/js/anonymous_functions.js" >/dev/null) || fail "node --cpu-prof failed"
profile=$(find "$work/prof" -name '*.cpuprofile' | head -n 1)
[ -n "$profile" ] || fail "node --cpu-prof wrote no .cpuprofile"
chmod a+r "$profile"

ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'
id=$(ct_query "$db" "SELECT calltree.import_cpuprofile(pg_read_file('$profile'), 'anonymous')")

ct_query "$db" "
SELECT f.name, coalesce(f.file, ''), fn.self, fn.running
  FROM calltree.functions((SELECT calltree.stack_agg(stack_id, weight)
                             FROM calltree.sample WHERE profile_id = $id)) AS fn
  JOIN calltree.func AS f ON f.id = fn.func" -F $'\t' | LC_ALL=C sort >"$work/calltree.txt"
python3 "$repo/test/reference/cpuprofile_functions.py" "$profile" | LC_ALL=C sort >"$work/reference.txt"
if ! diff -u "$work/reference.txt" "$work/calltree.txt"; then
	fail "per-function self and running differ from the Python reading of the .cpuprofile (- Python, + calltree)"
fi

# The fixture's own functions, as calltree names them: name, self > 0,
# running > 0 (1 or 0)
fixture=$(awk -F '\t' '$2 ~ /\/test\/js\/anonymous_functions\.js$/ { print $1 "\t" ($3 > 0) "\t" ($4 > 0) }' \
	"$work/calltree.txt")
# expect REGEX WHAT: one line of the fixture's functions matches REGEX
expect() {
	[ "$(grep -cxE "$1" <<<"$fixture" || true)" -eq 1 ] || fail "$2; the fixture's functions (name, self > 0, running > 0):
$fixture"
}
base='anonymous_functions\.js'
expect "named	1	1" "the named function 'named' is not one func with self time"
expect "run	[01]	1" "the named function 'run' is not one func"
expect "\(anonymous\) $base:1:1	[01]	1" "the module's top level is not (anonymous) anonymous_functions.js:1:1"
expect "\(anonymous\) $base:22:[0-9]+	1	1" "the function expression of line 22 is not one func with self time"
# the two arrow functions of line 30, apart by their columns
[ "$(grep -cxE "\(anonymous\) $base:30:[0-9]+	1	1" <<<"$fixture" || true)" -eq 2 ] ||
	fail "the two arrow functions of line 30 are not two funcs with self time:
$fixture"
anonymous=$(grep -c '^(anonymous) ' <<<"$fixture" || true)
[ "$anonymous" -eq 4 ] || fail "the fixture has 4 unnamed functions, calltree shows $anonymous:
$fixture"

echo "t_anon_js: ok ($(wc -l <"$work/calltree.txt") functions agree with the Python reading; $anonymous unnamed functions of the fixture kept apart)"
