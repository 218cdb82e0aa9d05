#!/usr/bin/env bash
# bench/imports.sh: import speed of collapsed stacks (a first step of the
# import benchmark; perf script and pprof are still to come).
#
# Generates, deterministically, a collapsed-stacks file of BENCH_IMPORT_MB
# megabytes (default 200) over 100,000 distinct stacks, then times with the
# usual PG* variables:
#   - the floor: COPY of the same sample rows (profile, stack id, weight)
#     into a plain table;
#   - a first import (every stack new) and a repeat import (all known),
#     sending the file from the client as one text value.
# Prints MB/s for each and the repeat import's ratio to the floor.
set -euo pipefail

MB=${BENCH_IMPORT_MB:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
psql_() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

python3 - "$work/profile.collapsed" "$MB" <<'PY'
import random, sys
path, mb = sys.argv[1], int(sys.argv[2])
rng = random.Random(20261123)
funcs = ['pkg%d.mod%d.func_%d' % (i % 97, i % 13, i) for i in range(20000)]
# 100,000 distinct stacks grown as a tree: each extends a random earlier one
stacks = []
for i in range(100000):
    if stacks and rng.random() < 0.9:
        base = stacks[rng.randrange(len(stacks))]
        base = base[:rng.randint(1, len(base))]
    else:
        base = [funcs[rng.randrange(100)]]
    depth = rng.randint(5, 60)
    while len(base) < depth:
        base = base + [funcs[int(rng.paretovariate(1.2)) % len(funcs)]]
    stacks.append(base)
lines = [';'.join(s) for s in stacks]
size, out = 0, open(path, 'w')
while size < mb * 1000000:
    line = '%s %d\n' % (lines[rng.randrange(len(lines))], rng.randint(1, 1000))
    out.write(line)
    size += len(line)
out.close()
PY
bytes=$(stat -c %s "$work/profile.collapsed")
mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
echo "imports: collapsed file of $mb MB, $(wc -l <"$work/profile.collapsed") lines"

seconds() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.3f", (e - s) / 1e9 }'; }
import_once() {
	local start end
	start=$(date +%s%N)
	psql_ -At -v file="$work/profile.collapsed" >/dev/null <<-'SQL'
		\set data `cat :'file'`
		SELECT calltree.import_collapsed(:'data', name => 'import bench');
	SQL
	end=$(date +%s%N)
	seconds "$start" "$end"
}

psql_ -c 'CREATE EXTENSION IF NOT EXISTS calltree'
psql_ -c "DELETE FROM calltree.profile WHERE name = 'import bench'"
first=$(import_once)
repeat=$(import_once)

# the floor: COPY of the final sample rows of one import
psql_ -At -c "COPY (SELECT s.profile_id, s.stack_id, s.weight FROM calltree.sample s
                     WHERE s.profile_id = (SELECT max(id) FROM calltree.profile WHERE name = 'import bench'))
              TO STDOUT" >"$work/rows.copy"
psql_ -c 'DROP TABLE IF EXISTS import_floor' -c 'CREATE UNLOGGED TABLE import_floor (profile_id bigint, stack_id bigint, weight bigint)'
start=$(date +%s%N)
psql_ -c "\\copy import_floor FROM '$work/rows.copy'"
end=$(date +%s%N)
floor=$(seconds "$start" "$end")
psql_ -c 'DROP TABLE import_floor'
psql_ -c "DELETE FROM calltree.profile WHERE name = 'import bench'"

awk -v mb="$mb" -v f="$first" -v r="$repeat" -v c="$floor" 'BEGIN {
	printf "first import:  %.2f s, %.1f MB/s (target >= 50 MB/s)\n", f, mb / f
	printf "repeat import: %.2f s, %.1f MB/s (target >= 50 MB/s)\n", r, mb / r
	printf "floor (COPY of the sample rows): %.2f s\n", c
	printf "repeat import / floor: %.2fx (target <= 2x)\n", r / c
}'
