-- flamegraph_diff(): differential flame graphs.  The SVG is read back with
-- PostgreSQL's own XML support, as in flamegraph.sql; test/t_flamegraph_browser.sh
-- checks the same kind of document in chromium.  Every expected number
-- below was worked out by hand from the two trees (see the comments).
SET search_path = calltree, public;

-- The boxes in document order: name, tooltip's second line, rectangle, color.
CREATE FUNCTION pg_temp.boxes(svg text)
RETURNS TABLE (i int, name text, stats text, x numeric, y int, width numeric, fill text, data_w bigint)
LANGUAGE sql AS $$
    SELECT b.i, regexp_replace(b.tip, '\n[^\n]*$', ''), substring(b.tip FROM '\n([^\n]*)$'),
           b.x, b.y, b.width, b.fill, b.data_w
      FROM XMLTABLE(XMLNAMESPACES('http://www.w3.org/2000/svg' AS s),
                    '/s:svg/s:g[@id="frames"]/s:g[@class="frame"]'
                    PASSING xmlparse(DOCUMENT svg)
                    COLUMNS i FOR ORDINALITY, tip text PATH 's:title',
                            x numeric PATH 's:rect/@x', y int PATH 's:rect/@y',
                            width numeric PATH 's:rect/@width', fill text PATH 's:rect/@fill',
                            data_w bigint PATH '@data-w') AS b
$$;
-- the document's height, title, legend lines and total
CREATE FUNCTION pg_temp.header(svg text)
RETURNS TABLE (height int, title text, legend text[], total bigint)
LANGUAGE sql AS $$
    SELECT h.height, h.title,
           (SELECT array_agg(l.line ORDER BY l.i)
              FROM XMLTABLE(XMLNAMESPACES('http://www.w3.org/2000/svg' AS s),
                            '/s:svg/s:g[@id="legend"]/s:text' PASSING xmlparse(DOCUMENT svg)
                            COLUMNS i FOR ORDINALITY, line text PATH '.') AS l),
           h.total
      FROM XMLTABLE(XMLNAMESPACES('http://www.w3.org/2000/svg' AS s),
                    '/s:svg' PASSING xmlparse(DOCUMENT svg)
                    COLUMNS height int PATH '@height', title text PATH 's:text[@id="title"]',
                            total bigint PATH 's:g[@id="frames"]/@data-total') AS h
$$;

SELECT intern_func('A') AS a, intern_func('B') AS b, intern_func('C') AS c, intern_func('D') AS d,
       intern_func('E') AS e, intern_func('F') AS f, intern_func('G') AS g, intern_func('H') AS h,
       intern_func('K') AS k \gset

-- base (total 4):  A;B;C;D;E 2   A;B;C;F;G 1   A;B;H;F 1
-- test (total 10): A;B;C;D;E 2   A;B;C;F;G 5   A;B;K 3
-- Shares of the total, base -> test, and their change:
--   A, B      100% -> 100%    0         white
--   C          75% ->  70%   -5 points  (its weight grew, 3 -> 7, its share did not)
--   C;F, C;F;G 25% ->  50%  +25 points
--   C;D, C;D;E 50% ->  20%  -30 points  (the largest change, with K)
--   K           0% ->  30%  +30 points
--   H, H;F     25% ->   0%  not drawn: no width in test
-- The largest change is 30 points: K is rgb(255,0,0), D and E rgb(0,0,255);
-- F and G are 25/30 of the way: 210 * (1 - 25/30) = 35, rgb(255,35,35);
-- C 5/30 of the way: 210 * (1 - 5/30) = 175, rgb(175,175,255).
CREATE TEMP TABLE pair AS
SELECT (SELECT calltree_agg(path, weight)
          FROM (VALUES (ARRAY[:a, :b, :c, :d, :e], 2), (ARRAY[:a, :b, :c, :f, :g], 1),
                       (ARRAY[:a, :b, :h, :f], 1)) AS v(path, weight)) AS base,
       (SELECT calltree_agg(path, weight)
          FROM (VALUES (ARRAY[:a, :b, :c, :d, :e], 2), (ARRAY[:a, :b, :c, :f, :g], 5),
                       (ARRAY[:a, :b, :k], 3)) AS v(path, weight)) AS test;
CREATE TEMP TABLE diff_svg AS SELECT flamegraph_diff(base, test) AS svg FROM pair;

-- A well-formed document; two legend lines under the title make the
-- header 36 + 2 * 16 px; 5 rows of 16 px; a 34 px footer: 182 px.  The
-- total is test's.
SELECT xml_is_well_formed_document(svg) AS well_formed, h.height, h.title, h.total, l.line
  FROM diff_svg, pg_temp.header(svg) AS h, unnest(h.legend) WITH ORDINALITY AS l(line, n)
 ORDER BY l.n;

-- The boxes, in the union's order (siblings by base + test running: F
-- (1 + 5) before D (2 + 2), C (10) before K (3)).  Widths from test's
-- total of 10 over 1180 px: 118 px a unit.  Children start at their
-- parent's left edge: D after F's 590 px, K after C's 826 px.
SELECT i, name, x, y, width, data_w, fill
  FROM diff_svg, pg_temp.boxes(svg) ORDER BY i;
-- the tooltips: both weights and shares, the change of weight and of share, both self weights
SELECT i, name, stats FROM diff_svg, pg_temp.boxes(svg) ORDER BY i;
-- in a unit: each weight as format_weight() prints it, a gain with its +
SELECT i, name, stats FROM pair, pg_temp.boxes(flamegraph_diff(base, test, unit => 'ms')) ORDER BY i;
SELECT flamegraph_diff(base, test, NULL, NULL, NULL, NULL) = flamegraph_diff(base, test) AS null_unit FROM pair;

-- The other way round, base's picture: H and its F are drawn, K is not;
-- the colors are reversed (C grew from 70% to 75%).
SELECT h.legend, array_agg(b.name || ' ' || b.fill ORDER BY b.i) AS boxes
  FROM pair, flamegraph_diff(test, base) AS svg, pg_temp.header(svg) AS h, pg_temp.boxes(svg) AS b
 GROUP BY h.legend;

-- A tree against itself: every box white, one legend line; the boxes are
-- those of flamegraph(), at the same places.
SELECT h.legend, h.height = (SELECT height FROM pg_temp.header(flamegraph(test))) + 16 AS one_line_taller,
       (SELECT array_agg(DISTINCT fill) FROM pg_temp.boxes(svg)) AS fills,
       (SELECT array_agg(name || ':' || x || ':' || width || ':' || y ORDER BY i) FROM pg_temp.boxes(svg)) =
       (SELECT array_agg(name || ':' || x || ':' || width || ':' || (y + 16) ORDER BY i)
          FROM pg_temp.boxes(flamegraph(test))) AS same_boxes
  FROM pair, flamegraph_diff(test, test) AS svg, pg_temp.header(svg) AS h;

-- Scaling a side changes no share, hence no color: only the tooltips' weights.
SELECT (SELECT array_agg(fill ORDER BY i) FROM pg_temp.boxes(flamegraph_diff(base, test))) =
       (SELECT array_agg(fill ORDER BY i) FROM pg_temp.boxes(flamegraph_diff(base + base + base, test + test)))
       AS same_colors
  FROM pair;

-- An empty base: every share grew from nothing, all red, K and C alike.
SELECT array_agg(b.name || ' ' || b.fill ORDER BY b.i) AS boxes
  FROM pair, pg_temp.boxes(flamegraph_diff('{}', test)) AS b;
-- An empty test: nothing to draw; base's whole weight is not drawn.
SELECT h.legend, (SELECT count(*) FROM pg_temp.boxes(svg)) AS boxes
  FROM pair, flamegraph_diff(base, '{}') AS svg, pg_temp.header(svg) AS h;

-- The options of flamegraph(): title, icicle (roots at the top, under the
-- legend), min_width; the same tree gives the same bytes.
SELECT h.title, array_agg(b.name || '@' || b.y ORDER BY b.i) AS boxes
  FROM pair, flamegraph_diff(base, test, 'deploy <42>', icicle => true) AS svg,
       pg_temp.header(svg) AS h, pg_temp.boxes(svg) AS b
 GROUP BY h.title;
SELECT array_agg(b.name ORDER BY b.i) AS wide_boxes
  FROM pair, pg_temp.boxes(flamegraph_diff(base, test, min_width => 300)) AS b;
SELECT flamegraph_diff(base, test) = (SELECT svg FROM diff_svg) AS same_bytes,
       flamegraph_diff(NULL, test) IS NULL AS null_base, flamegraph_diff(base, NULL) IS NULL AS null_test,
       flamegraph_diff(base, test, NULL, NULL, NULL) = flamegraph_diff(base, test) AS null_options
  FROM pair;

-- grafana_flamegraph_diff(): the same pair as Grafana's diff data frame, in
-- the union's order under a total root: base's weights in value and self,
-- test's in valueRight and selfRight, 0 where a side lacks the node (K in
-- base; H and its F in test).
SELECT g.* FROM pair, grafana_flamegraph_diff(base, test) AS g;
-- a side of no sample: its weights are all 0
SELECT count(*) AS nodes, sum(value) FILTER (WHERE level > 0) AS base_weights,
       max("valueRight") AS test_total
  FROM pair, grafana_flamegraph_diff('{}', test);

-- errors: a signed tree (a difference) on either side, a bad min_width
SELECT flamegraph_diff(base, '{5:2/3 {6:-1/-1}}') FROM pair;
SELECT flamegraph_diff('{5:-2/-2}', test) FROM pair;
SELECT flamegraph_diff(base, test, min_width => 'NaN') FROM pair;
