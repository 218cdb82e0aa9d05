#!/usr/bin/env bash
# Every exporter's output parses in a strict parser whatever the func names:
# a tree of random names (test/export_names.py, seeded: controls, U+FFFE,
# U+FFFF, noncharacters, astral planes, XML and JSON specials) goes through
# flamegraph(), to_speedscope(), to_pprof() and to_collapsed(), and Python
# reads each result strictly: the SVG with expat, the JSON with json in
# strict mode (and the exact names back), pprof's string table as UTF-8,
# and the collapsed stacks line by line.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
#   test/t_export_names.sh [SEED [COUNT]]
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

seed=${1:-20260319}
count=${2:-400}
db=calltree_export_names


ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'
[ "$(ct_query "$db" 'SHOW server_encoding')" = UTF8 ] || fail "the database is not UTF8"
python3 "$repo/test/export_names.py" paths "$seed" "$count" >"$work/paths.sql"
ct_psql "$db" -At -f "$work/paths.sql"
# interned first: stack_agg reads the stacks that exist when its statement starts
ct_query "$db" "ALTER TABLE export_paths ADD COLUMN stack_id bigint"
ct_query "$db" "UPDATE export_paths SET stack_id = calltree.intern_stack(names)"
ct_query "$db" "CREATE TABLE export_tree AS SELECT calltree.stack_agg(stack_id, weight) AS tree FROM export_paths"

# every output as base64 of its UTF-8 bytes: psql may alter what it prints
# (it drops some noncharacters)
out() { ct_query "$db" "SELECT pg_catalog.encode(pg_catalog.convert_to(($2)::text, 'UTF8'), 'base64')" | base64 -d >"$work/$1"; }
out flamegraph.svg "SELECT calltree.flamegraph(tree, title => (SELECT names[1] FROM export_paths LIMIT 1), min_width => 0) FROM export_tree"
out speedscope.json "SELECT calltree.to_speedscope(tree, (SELECT names[1] FROM export_paths LIMIT 1)) FROM export_tree"
ct_query "$db" "SELECT encode(calltree.to_pprof(tree), 'base64') FROM export_tree" | base64 -d >"$work/pprof.gz"
out collapsed.txt "SELECT calltree.to_collapsed(tree) FROM export_tree"
out names.json "SELECT json_agg(name) FROM calltree.func"
out lines.json "SELECT json_agg(json_build_array(n.depth + 1, n.self) ORDER BY n.node)
                  FROM export_tree, calltree.nodes(tree) AS n
                 WHERE n.self <> 0 OR NOT EXISTS (SELECT FROM calltree.nodes(tree) AS c WHERE c.parent = n.node)"

[ -z "${T_KEEP:-}" ] || cp -r "$work" "$T_KEEP"
result=$(python3 "$repo/test/export_names.py" check "$work") || fail "seed $seed: an export does not parse"
echo "t_export_names: ok (seed $seed: $result)"
