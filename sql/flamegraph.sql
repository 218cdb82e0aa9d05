-- flamegraph(): interactive SVG flame graphs.  The SVG is read back with
-- PostgreSQL's own XML support (XMLTABLE), so every number below comes from
-- the document as a browser would parse it.  test/t_flamegraph_browser.sh
-- checks the same documents in chromium.
SET search_path = calltree, public;

-- The boxes of a flame graph, in document order: the name and the numbers
-- of the tooltip, the rectangle, the label and the data the script reads.
CREATE FUNCTION pg_temp.boxes(svg text)
RETURNS TABLE (i int, name text, stats text, x numeric, y int, width numeric, fill text,
               label text, data_x bigint, data_w bigint, depth int)
LANGUAGE sql AS $$
    SELECT b.i, regexp_replace(b.tip, '\n[^\n]*$', ''), substring(b.tip FROM '\n([^\n]*)$'),
           b.x, b.y, b.width, b.fill, coalesce(b.label, ''), b.data_x, b.data_w, b.depth
      FROM XMLTABLE(XMLNAMESPACES('http://www.w3.org/2000/svg' AS s),
                    '/s:svg/s:g[@id="frames"]/s:g[@class="frame"]'
                    PASSING xmlparse(DOCUMENT svg)
                    COLUMNS i FOR ORDINALITY,
                            tip text PATH 's:title',
                            x numeric PATH 's:rect/@x',
                            y int PATH 's:rect/@y',
                            width numeric PATH 's:rect/@width',
                            fill text PATH 's:rect/@fill',
                            label text PATH 's:text',
                            data_x bigint PATH '@data-x',
                            data_w bigint PATH '@data-w',
                            depth int PATH '@data-depth') AS b
$$;

-- the attributes of the document's root and its title
CREATE FUNCTION pg_temp.header(svg text)
RETURNS TABLE (width int, height int, title text, total bigint)
LANGUAGE sql AS $$
    SELECT h.width, h.height, h.title, h.total
      FROM XMLTABLE(XMLNAMESPACES('http://www.w3.org/2000/svg' AS s),
                    '/s:svg' PASSING xmlparse(DOCUMENT svg)
                    COLUMNS width int PATH '@width', height int PATH '@height',
                            title text PATH 's:text[@id="title"]',
                            total bigint PATH 's:g[@id="frames"]/@data-total') AS h
$$;

SELECT intern_func('A') AS a, intern_func('B') AS b, intern_func('C') AS c, intern_func('D') AS d,
       intern_func('E') AS e, intern_func('F') AS f, intern_func('G') AS g, intern_func('H') AS h \gset

-- The Firefox Profiler's call tree example: A:3,0 → B:3,0 → { C:2,0 → { D:1,0 → E:1,1 ;
-- F:1,0 → G:1,1 } ; H:1,0 → F:1,1 }.
CREATE TEMP TABLE seed AS
SELECT calltree_agg(path) AS tree
  FROM (VALUES (ARRAY[:a, :b, :c, :d, :e]), (ARRAY[:a, :b, :c, :f, :g]), (ARRAY[:a, :b, :h, :f])) AS v(path);
CREATE TEMP TABLE seed_svg AS SELECT flamegraph(tree) AS svg FROM seed;

-- A well-formed document, 1200 px wide, 5 rows of 16 px between a 36 px
-- header and a 34 px footer.
SELECT xml_is_well_formed_document(svg) AS well_formed, h.*
  FROM seed_svg, pg_temp.header(svg) AS h;

-- One box per node.  The plot is 1180 px wide from x = 10, the total is 3:
-- a weight of 1 is 393.33 px.  x accumulates in preorder (E and G start at
-- D's and F's left edge, H after C); roots at the bottom (y = 150 - 34 - 16),
-- each level 16 px higher.
SELECT i, name, x, y, width, data_x, data_w, depth, label, stats
  FROM seed_svg, pg_temp.boxes(svg) ORDER BY i;

-- the boxes are the nodes, in preorder, with their running weights
SELECT count(*) AS boxes,
       count(*) FILTER (WHERE b.depth = n.depth AND b.data_w = n.running AND b.name = f.name) AS matching_nodes
  FROM seed_svg, pg_temp.boxes(svg) AS b
  JOIN nodes((SELECT tree FROM seed)) AS n ON n.node = b.i
  JOIN func AS f ON f.id = n.func;

-- Colors: warm (red 205-255, green 0-230, blue 0-55), the same for both
-- CallNodes of F, and the same for F in another tree.
SELECT bool_and(rgb[1]::int BETWEEN 205 AND 255 AND rgb[2]::int <= 230 AND rgb[3]::int <= 55) AS warm,
       count(DISTINCT fill) FILTER (WHERE name = 'F') AS colors_of_f,
       count(DISTINCT fill) AS colors
  FROM seed_svg, pg_temp.boxes(svg),
       regexp_match(fill, '^rgb\((\d+),(\d+),(\d+)\)$') AS rgb;
SELECT (SELECT fill FROM seed_svg, pg_temp.boxes(svg) WHERE name = 'F' LIMIT 1) =
       (SELECT b.fill FROM (SELECT flamegraph(calltree_agg(ARRAY[:h, :f])) AS svg) AS s,
                           pg_temp.boxes(s.svg) AS b WHERE b.name = 'F')
       AS f_same_color_elsewhere;

-- Self-contained: one style, one script, no link, no reference outside the
-- document (the only URL is the SVG namespace, the only url() the gradient).
SELECT (SELECT count(*) FROM regexp_matches(svg, '<style', 'g')) AS styles,
       (SELECT count(*) FROM regexp_matches(svg, '<script', 'g')) AS scripts,
       (SELECT count(*) FROM regexp_matches(svg, 'href', 'g')) AS hrefs,
       (SELECT array_agg(m[1]) FROM regexp_matches(svg, '(https?://[^"]*)', 'g') AS m) AS urls,
       (SELECT array_agg(DISTINCT m[1]) FROM regexp_matches(svg, '(url\([^)]*\))', 'g') AS m) AS css_urls,
       svg ~ '[^\x01-\x7e]' AS non_ascii
  FROM seed_svg;

-- Deterministic: the same tree gives the same bytes, however it was built.
SELECT flamegraph(tree) = (SELECT svg FROM seed_svg) AS same_bytes,
       flamegraph(tree) = flamegraph(calltree_agg(path)) AS same_from_other_order
  FROM seed,
       (VALUES (ARRAY[:a, :b, :h, :f]), (ARRAY[:a, :b, :c, :f, :g]), (ARRAY[:a, :b, :c, :d, :e])) AS v(path)
 GROUP BY tree;

-- Icicle: roots at the top (y = 36), each level 16 px lower; the default
-- title says so.  A title of one's own is escaped.
SELECT h.title, array_agg(b.name || '@' || b.y ORDER BY b.i) AS boxes
  FROM seed, flamegraph(tree, icicle => true) AS svg, pg_temp.header(svg) AS h, pg_temp.boxes(svg) AS b
 GROUP BY h.title;
SELECT h.title, position('<text id="title" x="600" y="24">&lt;b&gt;Q&amp;A&lt;/b&gt; &quot;caf&#xE9;&quot;</text>' IN svg) > 0 AS escaped
  FROM seed, flamegraph(tree, E'<b>Q&A</b> "caf\u00e9"') AS svg, pg_temp.header(svg) AS h;

-- Names are escaped for XML: the markup characters as entities, anything
-- beyond ASCII as character references, control characters as spaces.
SELECT intern_func('<&">''') AS markup, intern_func('café ☕') AS cafe, intern_func(E'tab\there') AS tab \gset
CREATE TEMP TABLE odd_svg AS
SELECT flamegraph(calltree_agg(path)) AS svg
  FROM (VALUES (ARRAY[:markup, :cafe]), (ARRAY[:markup, :tab])) AS v(path);
SELECT xml_is_well_formed_document(svg) AS well_formed,
       position('&lt;&amp;&quot;&gt;&apos;' IN svg) > 0 AS markup_escaped,
       position('<&">' IN svg) = 0 AS no_raw_markup,
       position('caf&#xE9; &#x2615;' IN svg) > 0 AS unicode_as_references
  FROM odd_svg;
SELECT i, name, label FROM odd_svg, pg_temp.boxes(svg) ORDER BY i;

-- Labels are cut to fit their box: about 7 px a character, 3 px of padding
-- on each side; a box with room for fewer than 3 characters has none.
SELECT intern_func('a_function_with_a_rather_long_name') AS long \gset
SELECT b.i, b.name, b.width, b.label
  FROM (SELECT flamegraph(calltree_agg(path, weight)) AS svg
          FROM (VALUES (ARRAY[:a, :long], 2), (ARRAY[:a, :b, :long], 1), (ARRAY[:c, :long], 1),
                       (ARRAY[:d, :long], 56)) AS v(path, weight)) AS s,
       pg_temp.boxes(s.svg) AS b
 ORDER BY b.i;

-- Elision: boxes narrower than min_width px (default 0.1) are left out with
-- their subtrees.  One node of weight 1 among 1,000,000 is 0.00118 px wide.
CREATE TEMP TABLE skewed AS
SELECT calltree_agg(path, weight) AS tree
  FROM (VALUES (ARRAY[:a, :b], 999999), (ARRAY[:a, :c, :d], 1)) AS v(path, weight);
SELECT min_width, array_agg(b.name || ':' || b.width ORDER BY b.i) AS boxes
  FROM skewed, (VALUES (0.1), (0.002), (0.001), (0)) AS m(min_width),
       pg_temp.boxes(flamegraph(tree, min_width => m.min_width)) AS b
 GROUP BY min_width ORDER BY min_width DESC;
-- the box count is the count of nodes at least min_width wide
SELECT (SELECT count(*) FROM pg_temp.boxes(flamegraph(tree))) AS boxes,
       (SELECT count(*) FROM nodes(tree) AS n WHERE n.running * 1180.0 / total(tree) >= 0.1) AS wide_nodes
  FROM skewed;
-- the image is as high as the deepest box drawn
SELECT (SELECT height FROM pg_temp.header(flamegraph(tree))) AS elided_height,
       (SELECT height FROM pg_temp.header(flamegraph(tree, min_width => 0))) AS full_height
  FROM skewed;

-- Unknown funcs are drawn as '#<id>'; zero-weight nodes have no box.
SELECT i, name, width, stats FROM pg_temp.boxes(flamegraph('{-7:4/1 {-8:3/3, 5:0/0}}')) ORDER BY i;

-- In a unit (the profiles' weight_unit), the tooltips print weights as
-- format_weight() does, each in its largest unit of at least 1: 1.80s of
-- 2.25s is 80%; a unit in any case, a count or a unit pprof does not know
-- as numbers, and a NULL unit (the default) as they are.
SELECT u.unit, b.i, b.name, b.stats
  FROM (VALUES ('nanoseconds'), ('Bytes'), ('samples'), ('objects'), (NULL)) AS u(unit),
       pg_temp.boxes(flamegraph('{-7:2250000000/1500 {-8:1800000000/1800000000, -9:449998500/449998500}}',
                                unit => u.unit)) AS b
 ORDER BY u.unit NULLS LAST, b.i;
SELECT flamegraph(tree, NULL, NULL, NULL, NULL) = flamegraph(tree) AS null_unit FROM seed;

-- The empty tree: a valid document with no box; a NULL tree: NULL.  NULL
-- for icicle or min_width means their defaults.
SELECT xml_is_well_formed_document(svg) AS well_formed, h.height,
       (SELECT count(*) FROM pg_temp.boxes(svg)) AS boxes
  FROM flamegraph('{}') AS svg, pg_temp.header(svg) AS h;
SELECT flamegraph(NULL) IS NULL AS null_tree,
       flamegraph(tree, NULL, NULL, NULL) = flamegraph(tree) AS null_options
  FROM seed;

-- errors
SELECT flamegraph('{5:2/3 {6:-1/-1}}');
SELECT flamegraph(tree, min_width => -1) FROM seed;
SELECT flamegraph(tree, min_width => 'NaN') FROM seed;
SELECT flamegraph(tree, min_width => 'Infinity') FROM seed;
