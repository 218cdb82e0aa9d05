#!/bin/sh
# assemble.sh FROM TO INSTALL-DIR: print the upgrade script of calltree from
# version FROM to version TO.  It is the hand-written deltas of the versions
# between them (FROM--A.sql, A--B.sql, ... --TO.sql in this folder), in
# order, then every piece of INSTALL-DIR/functions/ (CREATE OR REPLACE, so
# replaying them brings each function to its current definition), then the
# optional FROM--A.post.sql, ... of the deltas, for what must come after
# the functions.  make runs it; see docs/hacking.md.
set -eu
from=$1 to=$2 install=$3
here=$(dirname "$0")

chain=""
v=$from
while [ "$v" != "$to" ]; do
	next=""
	for d in "$here/$v--"*.sql; do
		case "$d" in *.post.sql | *"*"*) continue ;; esac
		next=$(basename "$d" .sql)
		next=${next#"$v--"}
	done
	[ -n "$next" ] || { echo "assemble.sh: no delta from $v in $here (wanted a path $from -> $to)" >&2; exit 1; }
	chain="$chain $v--$next"
	v=$next
done

printf -- '-- calltree %s -> %s, built by make from src/updates/ and src/install/functions/.\n' "$from" "$to"
printf -- '\\echo Use "ALTER EXTENSION calltree UPDATE TO '"'"'%s'"'"'" to load this file. \\quit\n' "$to"
for step in $chain; do
	printf -- '\n-- ==== %s.sql ====\n' "src/updates/$step"
	cat "$here/$step.sql"
done
for piece in "$install"/functions/*.sql; do
	printf -- '\n-- ==== %s ====\n' "src/install/functions/$(basename "$piece")"
	cat "$piece"
done
for step in $chain; do
	[ -f "$here/$step.post.sql" ] || continue
	printf -- '\n-- ==== %s.post.sql ====\n' "src/updates/$step"
	cat "$here/$step.post.sql"
done
