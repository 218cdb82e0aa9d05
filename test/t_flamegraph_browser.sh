#!/usr/bin/env bash
# flamegraph() and flamegraph_diff() in a real browser: Debian's chromium,
# driven by playwright-core (test/js/).  Draws a small tree of three stacks,
# in which F has two callers (as a flame graph and as an icicle graph), and
# examples/perf-vertx.collapsed; and, as differential flame graphs, the small
# tree against a changed copy and perf-vertx against a reweighted copy.  Then,
# per SVG: no console or page error, one box per visible node, the root at
# the bottom (at the top for the icicle), a click zooms, the search
# highlights and sums; in the differential graphs, each box's color and
# tooltip.  The expected numbers come from SQL (nodes(), func names), not
# from the SVG: the colors from the shares of nodes(base) and nodes(test),
# matched by path, with the formula of docs/formats.md.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
# Needs Debian's chromium and Node.js >= 20 with npm (playwright-core's
# minimum); runs `npm ci` in test/js/ when playwright-core is not installed
# there yet.
#
#   test/t_flamegraph_browser.sh [SCREENSHOT.png]    also save a screenshot
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

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


ct_createdb "$db"
ct_psql "$db" -c 'CREATE EXTENSION calltree'

# The two trees, each with a box to zoom on and search terms.
ct_psql "$db" -v vertx_file="$repo/examples/perf-vertx.collapsed" <<'SQL'
SET search_path = calltree, public;
\set vertx `cat :'vertx_file'`
-- tree is what the widths come from; base, for a differential graph, the
-- tree it is compared with.
CREATE TABLE graph (name text PRIMARY KEY, tree calltree, zoom_path text[], terms text[],
                    icicle boolean NOT NULL DEFAULT false, base calltree);

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

-- Differential: the small tree against a copy in which C;F;G grew from 1
-- to 4 and H;F is gone (K is new); perf-vertx against a copy with every
-- third stack's weight doubled and another's tripled.
CREATE TEMP TABLE changed_stacks AS
SELECT intern_stack(v.names) AS stack_id, v.weight
  FROM (VALUES (ARRAY['A','B','C','D','E'], 1), (ARRAY['A','B','C','F','G'], 4),
               (ARRAY['A','B','K'], 2)) AS v(names, weight);
INSERT INTO graph
SELECT 'seed-diff', (SELECT stack_agg(stack_id, weight) FROM changed_stacks),
       ARRAY['A','B','C'], ARRAY['^F$', '^[CK]$'], false, tree
  FROM graph WHERE name = 'seed';
INSERT INTO graph
SELECT 'perf-vertx-diff', stack_agg(stack_id, weight * (1 + stack_id % 3)), NULL,
       ARRAY['flush', '^sys_write', 'Interpreter'], false, stack_agg(stack_id, weight)
  FROM sample WHERE profile_id = :vertx_id;

-- The boxes the SVG must hold: nodes at least 0.1 px wide of 1180 px.  A
-- differential graph's boxes are the union of both trees' nodes, in the
-- order of nodes(base + tree), as wide as in tree; the nodes that tree
-- lacks have no width.
CREATE TABLE box AS
SELECT g.name AS graph, n.node, n.depth, n.path, t.running,
       coalesce(f.name, '#' || n.func) AS func_name,
       (row_number() OVER (PARTITION BY g.name ORDER BY n.node) - 1)::int AS index,
       t.running * 1180.0 / total(g.tree) AS width,
       coalesce(b.running, 0) AS base_running
  FROM graph AS g
 CROSS JOIN nodes(coalesce(g.base + g.tree, g.tree)) AS n
  JOIN nodes(g.tree) AS t ON t.path = n.path
  LEFT JOIN nodes(g.base) AS b ON b.path = n.path
  LEFT JOIN func AS f ON f.id = n.func
 WHERE t.running > 0 AND t.running * 1180.0 / total(g.tree) >= 0.1;

-- The colors of a differential graph: the change of share, test's minus
-- base's, over the largest change among the boxes; red for growth, blue
-- for a loss, the other channels 210 * (1 - change / largest), white for
-- no change.
ALTER TABLE box ADD COLUMN delta numeric, ADD COLUMN fill text;
UPDATE box SET delta = box.running::numeric / total(g.tree)
                       - CASE WHEN total(g.base) = 0 THEN 0 ELSE box.base_running::numeric / total(g.base) END
  FROM graph AS g WHERE g.name = box.graph AND g.base IS NOT NULL;
UPDATE box
   SET fill = CASE WHEN delta = 0 THEN 'rgb(255, 255, 255)'
                   WHEN delta > 0 THEN format('rgb(255, %s, %s)', l.light, l.light)
                   ELSE format('rgb(%s, %s, 255)', l.light, l.light) END
  FROM (SELECT b.graph, b.node, round(210 * (1 - abs(b.delta) / nullif(m.largest, 0)))::int AS light
          FROM box AS b
          JOIN (SELECT graph, max(abs(delta)) AS largest FROM box GROUP BY graph) AS m USING (graph)) AS l
 WHERE l.graph = box.graph AND l.node = box.node AND box.delta IS NOT NULL;

-- perf-vertx and its differential graph: zoom on the widest box at depth 3 under half the total.
UPDATE graph AS g
   SET zoom_path = (SELECT array_agg(f.name ORDER BY o)
                      FROM (SELECT b.path FROM box AS b
                             WHERE b.graph = g.name AND b.depth = 3 AND b.width < 590
                             ORDER BY b.running DESC, b.node LIMIT 1) AS t,
                           unnest(t.path) WITH ORDINALITY AS u(func, o)
                      JOIN func AS f ON f.id = u.func)
 WHERE g.zoom_path IS NULL;
SQL

# The zoom target's path as func ids, for the prefix tests below.
ct_psql "$db" -At -o "$work/spec.json" <<'SQL'
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
           'diff', g.base IS NOT NULL,
           'colors', (SELECT json_agg(json_build_object('index', b.index, 'fill', b.fill,
                                                        'base', b.base_running, 'test', b.running)
                                      ORDER BY b.index)
                        FROM box AS b WHERE b.graph = g.name AND g.base IS NOT NULL),
           'zoom', (SELECT json_build_object('index', z.index, 'visible', z.visible, 'width', z.width)
                      FROM zoom AS z WHERE z.graph = g.name),
           'searches', (SELECT json_agg(json_build_object('term', s.term, 'matches', s.matches,
                                                          'percent', round(s.percent, 4))
                                        ORDER BY s.term)
                          FROM search AS s WHERE s.graph = g.name))
       ORDER BY g.name DESC)
  FROM graph AS g;
SQL

for name in seed seed-icicle perf-vertx seed-diff perf-vertx-diff; do
	ct_psql "$db" -At -o "$work/$name.svg" -v name="$name" <<-'SQL'
		SELECT CASE WHEN base IS NULL THEN calltree.flamegraph(tree, 'calltree: ' || name, icicle)
		            ELSE calltree.flamegraph_diff(base, tree, 'calltree: ' || name, icicle) END
		  FROM calltree.graph WHERE name = :'name'
	SQL
done

# Sanity of the spec itself: a zoom target and search terms per graph.
node -e '
	const spec = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
	for (const g of spec)
		if (!g.zoom || !g.searches || g.boxes < 5 || (g.diff && g.colors.length !== g.boxes)) {
			console.error("bad spec", g); process.exit(1);
		}
' "$work/spec.json" || fail "the expected numbers from SQL are incomplete: $(cat "$work/spec.json")"

(cd "$work" && node "$js/flamegraph_browser.js" spec.json ${1:+"$(realpath -m "$1")"}) ||
	fail "browser checks failed"
echo "t_flamegraph_browser: ok"
