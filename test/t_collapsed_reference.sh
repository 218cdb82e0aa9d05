#!/usr/bin/env bash
# Collapsed stacks agree with an independent reading of the same files: every
# file of speedscope-samples/stackcollapse/, through each way in (import_collapsed
# for the UTF-8 files, import_profile and bin/calltree-load for all, UTF-16 and
# CRLF included).  test/reference/collapsed_stacks.py (Python, the rules of
# docs/formats.md, no code shared with src/import/import_collapsed.c) prints per file:
#   strict:  ok, or the error naming the first malformed line
#   lenient: the NOTICE of the import with strict => false (--option strict=false)
#   samples, total, the top functions' self and running, the top CallNodes
# and the database prints the same through pg_temp.collapsed_summary() of
# test/reference/helpers.sql, from the lenient import; the two must be identical.
#
# Starts nothing: uses the runner's cluster (PGHOST, PGPORT, PGUSER) and a
# scratch database.  Needs python3.  CALLTREE_SHARED defaults to ../shared.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_collapsed_reference
dir=speedscope-samples/stackcollapse
files=(
	simple.txt
	simple-crlf.txt
	simple-utf16-le.txt
	simple-utf16-be.txt
	simple-with-invalids.txt
	recursion.txt
	alternating.txt
	tall.txt
	perf-vertx-stacks-01-collapsed-all.txt
)
ct_createdb "$db"
ct_psql "$db" -c 'CREATE EXTENSION calltree'
[ "$(ls "$shared/data/$dir" | wc -l)" = "${#files[@]}" ] ||
	fail "$dir holds files this test does not list: $(ls "$shared/data/$dir" | tr '\n' ' ')"

# import IMPORTER FILE STRICTNESS: the import's output (the profile id) on
# stdout, its messages in $work/messages, its exit status.  Each file is
# imported several times: the NOTICE of a file seen before is turned off.
import() {
	local path="$shared/data/$dir/$2" strict=${3/lenient/false}
	strict=${strict/strict/true}
	case "$1" in
		import_collapsed | import_profile)
			local read=pg_read_file
			[ "$1" = import_collapsed ] || read=pg_read_binary_file
			ct_psql "$db" -At -c 'SET client_min_messages = notice' -c 'SET calltree.duplicate_notice = off' \
				-c "SELECT calltree.$1($read('$path'), name => '$2', strict => $strict)"
			;;
		calltree-load)
			PGOPTIONS="-c client_min_messages=notice -c calltree.duplicate_notice=off" \
				"$repo/bin/calltree-load" --no-progress -d "$db" --option "strict=$strict" "$path"
			;;
	esac 2>"$work/messages"
}

# message LEVEL: the first message of that level in $work/messages, or $2
message() {
	local m
	m=$(sed -n "s/^.*$1:  //p" "$work/messages" | head -n 1)
	echo "${m:-$2}"
}

for importer in import_collapsed import_profile calltree-load; do
	for f in "${files[@]}"; do
		[ "$importer" != import_collapsed ] || [[ $f != *utf16* ]] || continue
		(cd "$shared/data/$dir" && python3 "$repo/test/reference/collapsed_stacks.py" "$f") |
			sed "1s/\$/ ($importer)/" >>"$work/reference.txt"

		echo "$f ($importer)" >>"$work/database.txt"
		if import "$importer" "$f" strict >/dev/null; then
			echo "  strict: ok"
		else
			echo "  strict: $(message ERROR '(no error message)')"
		fi >>"$work/database.txt"
		id=$(import "$importer" "$f" lenient) || fail "$f ($importer): the lenient import failed: $(cat "$work/messages")"
		echo "  lenient: $(message NOTICE none)" >>"$work/database.txt"
		ct_psql "$db" -At -f "$repo/test/reference/helpers.sql" \
			-c "SELECT * FROM pg_temp.collapsed_summary($id)" >>"$work/database.txt"
	done
done

if ! diff -u "$work/reference.txt" "$work/database.txt"; then
	echo "t_collapsed_reference: the database disagrees with test/reference/collapsed_stacks.py" >&2
	exit 1
fi
echo "t_collapsed_reference: ok ($(grep -c '^[^ ]' "$work/reference.txt") imports of ${#files[@]} files, $(wc -l <"$work/reference.txt") lines agree)"
