#!/usr/bin/env bash
# flamegraph() in a real browser: Debian's chromium, driven by playwright-core
# (test/js/).  Draws a small tree of three stacks, in which F has two callers
# (as a flame graph and as an icicle graph), and examples/perf-vertx.collapsed,
# then, per SVG: no
# console or page error, one box per visible node, the root at the bottom
# (at the top for the icicle), a click zooms, the search highlights and sums.  The
# expected numbers come from SQL (nodes(), func names), not from the SVG.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
# Needs Debian's chromium and Node.js >= 20 with npm (playwright-core's
# minimum); runs `npm ci` in test/js/ when playwright-core is not installed
# there yet.
#
#   test/t_flamegraph_browser.sh [SCREENSHOT.png]    also save a screenshot
set -euo pipefail
# shellcheck source=test/script_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/script_lib.sh"

js="$repo/test/js"
db=calltree_flamegraph_browser

command -v node >/dev/null || fail "node is missing: Node.js >= 20 with npm is needed"
[ "$(node -p 'process.versions.node.split(".")[0]')" -ge 20 ] ||
	fail "node $(node --version) is too old: playwright-core needs Node.js >= 20"
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || fail "chromium is missing (apt-get install chromium)"
if [ ! -d "$js/node_modules/playwright-core" ]; then
	(cd "$js" && npm ci --no-audit --no-fund --loglevel=error) >"$work/npm.log" 2>&1 ||
		fail "npm ci in test/js failed: $(tail -n 20 "$work/npm.log")"
fi

psql_db() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }

t_createdb "$db"
psql_db -c 'CREATE EXTENSION calltree'

# The two trees, each with a box to zoom on and search terms.
psql_db -v vertx_file="$repo/examples/perf-vertx.collapsed" <<'SQL'
SET search_path = calltree, public;
\set vertx `cat :'vertx_file'`
CREATE TABLE graph (name text PRIMARY KEY, tree calltree, zoom_path text[], terms text[],
                    icicle boolean NOT NULL DEFAULT false);

-- three stacks, F under C and under H: A:3,0 → B:3,0 → { C:2,0 → { D:1,0 → E:1,1 ; F:1,0 → G:1,1 } ; H:1,0 → F:1,1 }
CREATE TEMP TABLE seed_stacks AS
SELECT intern_stack(names) AS stack_id
  FROM (VALUES (ARRAY['A','B','C','D','E']), (ARRAY['A','B','C','F','G']),
               (ARRAY['A','B','H','F'])) AS v(names);
INSERT INTO graph
SELECT 'seed', stack_agg(stack_id), ARRAY['A','B','C'], ARRAY['^F$', '^[CF]$']
  FROM seed_stacks;
INSERT INTO graph SELECT 'seed-icicle', tree, zoom_path, terms, true FROM graph WHERE name = 'seed';

-- strict => false: a few lines of the file end in an empty func name
SELECT import_collapsed(:'vertx', 'perf-vertx', strict => false) AS vertx_id \gset
INSERT INTO graph
SELECT 'perf-vertx', stack_agg(stack_id, weight), NULL, ARRAY['flush', '^sys_write', 'Interpreter']
  FROM sample WHERE profile_id = :vertx_id;

-- The boxes the SVG must hold: nodes at least 0.1 px wide of 1180 px.
CREATE TABLE box AS
SELECT g.name AS graph, n.node, n.depth, n.path, n.running,
       coalesce(f.name, '#' || n.func) AS func_name,
       (row_number() OVER (PARTITION BY g.name ORDER BY n.node) - 1)::int AS index,
       n.running * 1180.0 / total(g.tree) AS width
  FROM graph AS g
 CROSS JOIN nodes(g.tree) AS n
  LEFT JOIN func AS f ON f.id = n.func
 WHERE n.running > 0 AND n.running * 1180.0 / total(g.tree) >= 0.1;

-- perf-vertx: zoom on the widest box at depth 3 under half the total.
UPDATE graph AS g
   SET zoom_path = (SELECT array_agg(f.name ORDER BY o)
                      FROM (SELECT b.path FROM box AS b
                             WHERE b.graph = g.name AND b.depth = 3 AND b.width < 590
                             ORDER BY b.running DESC, b.node LIMIT 1) AS t,
                           unnest(t.path) WITH ORDINALITY AS u(func, o)
                      JOIN func AS f ON f.id = u.func)
 WHERE g.name = 'perf-vertx';
SQL

# The zoom target's path as func ids, for the prefix tests below.
psql_db -At -o "$work/spec.json" <<'SQL'
SET search_path = calltree, public;
WITH target AS (
    SELECT b.* FROM graph AS g JOIN box AS b ON b.graph = g.name
     WHERE (SELECT array_agg(coalesce(f.name, '#' || p) ORDER BY o)
              FROM unnest(b.path) WITH ORDINALITY AS u(p, o)
              LEFT JOIN func AS f ON f.id = u.p) = g.zoom_path
), zoom AS (
    SELECT t.graph, t.index, to_char(t.width, 'FM99990.00') AS width,
           (SELECT count(*) FROM box AS b
             WHERE b.graph = t.graph
               AND (b.path[1:cardinality(t.path)] = t.path
                    OR t.path[1:cardinality(b.path)] = b.path)) AS visible
      FROM target AS t
), search AS (
    -- matches, and the weight of those with no matching ancestor
    SELECT g.name AS graph, term,
           (SELECT count(*) FROM box AS b WHERE b.graph = g.name AND b.func_name ~ term) AS matches,
           (SELECT coalesce(sum(b.running), 0) FROM box AS b
             WHERE b.graph = g.name AND b.func_name ~ term
               AND NOT EXISTS (SELECT 1 FROM box AS a
                                WHERE a.graph = g.name AND a.func_name ~ term
                                  AND a.depth < b.depth
                                  AND b.path[1:cardinality(a.path)] = a.path))
             * 100.0 / total(g.tree) AS percent
      FROM graph AS g CROSS JOIN unnest(g.terms) AS term
)
SELECT json_agg(json_build_object(
           'name', g.name,
           'file', g.name || '.svg',
           'boxes', (SELECT count(*) FROM box AS b WHERE b.graph = g.name),
           'icicle', g.icicle,
           'zoom', (SELECT json_build_object('index', z.index, 'visible', z.visible, 'width', z.width)
                      FROM zoom AS z WHERE z.graph = g.name),
           'searches', (SELECT json_agg(json_build_object('term', s.term, 'matches', s.matches,
                                                          'percent', round(s.percent, 4))
                                        ORDER BY s.term)
                          FROM search AS s WHERE s.graph = g.name))
       ORDER BY g.name DESC)
  FROM graph AS g;
SQL

for name in seed seed-icicle perf-vertx; do
	psql_db -At -o "$work/$name.svg" -v name="$name" <<-'SQL'
		SELECT calltree.flamegraph(tree, 'calltree: ' || name, icicle) FROM calltree.graph WHERE name = :'name'
	SQL
done

# Sanity of the spec itself: a zoom target and search terms per graph.
node -e '
	const spec = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	for (const g of spec)
		if (!g.zoom || !g.searches || g.boxes < 5) { console.error("bad spec", g); process.exit(1); }
' "$work/spec.json" || fail "the expected numbers from SQL are incomplete: $(cat "$work/spec.json")"

(cd "$work" && node "$js/flamegraph_browser.js" spec.json ${1:+"$(realpath -m "$1")"}) ||
	fail "browser checks failed"
echo "t_flamegraph_browser: ok"
