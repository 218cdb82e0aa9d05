#!/usr/bin/env bash
# pprof stacks against a reference: profiles made here at random (fixed
# seeds), whose call trees are computed here too, are imported twice in one
# session (the second import meets a warm cache) and must give exactly the
# tree of the reference.  They reach what the importer's fast paths take
# for granted: location lists packed in fields longer than 4 kB (their
# room made per 4 kB), locations of 0, 1, several and 300 lines (a
# location's first frame kept aside), one location list repeated (the memo
# of stacks), lists not packed, and location ids 1..n (looked up by index),
# sparse (a hashed index) or of varints too long for the backward reader.
# The parsers' fuzz harness does not run the importer: this does.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init
db=calltree_pprof_stacks
"$PG_BIN/dropdb" --if-exists "$db" >/dev/null
"$PG_BIN/createdb" "$db"
CT_DATABASES+=("$db")
ct_query "$db" 'CREATE EXTENSION calltree' >/dev/null

# make SEED IDS PB TREE: a profile of IDS (dense, small, mid, long) into PB
# and its collapsed stacks, sorted, into TREE
make_profile() {
	PYTHONPATH="$CT_REPO/test" python3 - "$@" <<-'PY'
		import random
		import sys
		from collections import defaultdict

		from protobuf_write import field_bytes as ld, field_varint as vint, varint

		seed, ids_kind, pb_path, tree_path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
		rnd = random.Random(seed)

		strings = ['', 'samples', 'count']

		def string(s):
		    strings.append(s)
		    return len(strings) - 1

		funcs = {i: string('fn%d_%s' % (i, 'x' * rnd.choice([0, 1, 5, 70]))) for i in range(1, 51)}
		nloc = 120
		ids = {'dense': lambda: list(range(1, nloc + 1)),          # by index
		       'small': lambda: rnd.sample(range(1, 300), nloc),   # hashed, varints of 1 or 2 bytes
		       'mid': lambda: rnd.sample(range(1, 1 << 27), nloc),  # hashed, of 4 bytes at most
		       'long': lambda: rnd.sample(range(1 << 35, 1 << 40), nloc)}[ids_kind]()
		locations = {}
		for k, lid in enumerate(ids):
		    r = rnd.random()
		    nlines = 300 if k == 0 else 0 if r < 0.1 else 1 if r < 0.7 else rnd.randint(2, 4)
		    locations[lid] = (0x1000 + 16 * k, [(rnd.randint(1, 50), rnd.randint(1, 500)) for _ in range(nlines)])

		def frames(lid):
		    """a location's frames, root first: its last line is the caller"""
		    address, lines = locations[lid]
		    return [strings[funcs[f]] for f, _ in reversed(lines)] if lines else ['0x%x' % address]

		tree = defaultdict(int)
		body = ld(1, vint(1, 1) + vint(2, 2))
		lists = []
		for s in range(80):
		    if s % 5 == 0 and lists:
		        ids_of = rnd.choice(lists)
		    else:
		        # (4,200 ids: more than 4 kB of varints of one byte)
		        ids_of = [rnd.choice(ids) for _ in range(4200 if s % 20 == 1 else rnd.choice([1, 2, 3, 10, 50]))]
		        lists.append(ids_of)
		    weight = rnd.randint(1, 9)
		    tree[';'.join(f for lid in reversed(ids_of) for f in frames(lid))] += weight
		    if s % 11 == 3:
		        locs = b''.join(vint(1, lid) for lid in ids_of)
		    else:
		        locs = ld(1, b''.join(varint(lid) for lid in ids_of))
		    body += ld(2, locs + ld(2, varint(weight)))
		for lid, (address, lines) in locations.items():
		    body += ld(4, vint(1, lid) + vint(3, address) +
		               b''.join(ld(4, vint(1, f) + vint(2, line)) for f, line in lines))
		for i, s in funcs.items():
		    body += ld(5, vint(1, i) + vint(2, s))
		for s in strings:
		    body += ld(6, s.encode())
		open(pb_path, 'wb').write(body)
		open(tree_path, 'w').write(''.join('%s %d\n' % kv for kv in sorted(tree.items())))
	PY
}

seed=1
for ids in dense small mid long; do
	make_profile "$seed" "$ids" "$work/p.pb" "$work/want.txt"
	base64 -w0 "$work/p.pb" >"$work/p.b64"
	ct_psql "$db" -At -v b64file="$work/p.b64" >"$work/out.txt" <<-'SQL'
		\set b64 `cat :b64file`
		SELECT calltree.import_pprof(pg_catalog.decode(:'b64', 'base64')) AS first \gset
		SELECT calltree.import_pprof(pg_catalog.decode(:'b64', 'base64')) AS second \gset
		SELECT 'first', calltree.to_collapsed(calltree.stack_agg(stack_id, weight))
		  FROM calltree.sample WHERE profile_id = :first;
		SELECT 'second', calltree.to_collapsed(calltree.stack_agg(stack_id, weight))
		  FROM calltree.sample WHERE profile_id = :second;
	SQL
	awk '/^first\|/ { on = 1; sub(/^first\|/, "") } /^second\|/ { on = 2; sub(/^second\|/, "") }
		on && NF { print > (on == 1 ? w "/got1.txt" : w "/got2.txt") }' w="$work" "$work/out.txt"
	for n in 1 2; do
		sort "$work/got$n.txt" | cmp -s - "$work/want.txt" ||
			fail "seed $seed, ids $ids: import $n's tree is not the reference's" "$work/out.txt"
	done
	rm -f "$work/got1.txt" "$work/got2.txt"
done
echo "t_pprof_stacks: ok"
