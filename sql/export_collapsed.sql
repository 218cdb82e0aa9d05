-- to_collapsed(): trees to collapsed stacks, and back through import_collapsed.
SET search_path = calltree, public;

SELECT intern_func('A') AS a, intern_func('B') AS b, intern_func('C') AS c, intern_func('D') AS d,
       intern_func('E') AS e, intern_func('F') AS f, intern_func('G') AS g, intern_func('H') AS h \gset

-- The Firefox Profiler's call tree example: A:3,0 → B:3,0 → { C:2,0 → { D:1,0 → E:1,1 ;
-- F:1,0 → G:1,1 } ; H:1,0 → F:1,1 }.  One line per node with self weight,
-- in preorder.
CREATE TEMP TABLE seed AS
SELECT calltree_agg(path) AS tree
  FROM (VALUES (ARRAY[:a, :b, :c, :d, :e]), (ARRAY[:a, :b, :c, :f, :g]), (ARRAY[:a, :b, :h, :f])) AS v(path);
SELECT to_collapsed(tree) FROM seed;

-- the round trip gives back the same tree
SELECT import_collapsed(to_collapsed(tree), 'seed round trip') AS seed_back FROM seed \gset
SELECT stack_agg(stack_id, weight) = (SELECT tree FROM seed) AS same_tree
  FROM sample WHERE profile_id = :seed_back;

-- Self weight on inner nodes, a leaf of weight 0, several roots, big weights.
-- The leaf of weight 0 gets its line, so it survives the round trip.
CREATE TEMP TABLE mixed AS
SELECT calltree_agg(path, weight) AS tree
  FROM (VALUES (ARRAY[:a], 5), (ARRAY[:a, :b], 2), (ARRAY[:a, :b, :c], 0), (ARRAY[:a, :d], 7),
               (ARRAY[:h, :g], 9000000000000000000), (ARRAY[:h], 1)) AS v(path, weight);
SELECT to_collapsed(tree) FROM mixed;
SELECT import_collapsed(to_collapsed(tree), 'mixed round trip') AS mixed_back FROM mixed \gset
SELECT stack_agg(stack_id, weight) = (SELECT tree FROM mixed) AS same_tree
  FROM sample WHERE profile_id = :mixed_back;

-- Names the format cannot hold: ';' becomes ':', CR and LF become spaces,
-- an empty name at the root is written '#<id>' (a root alone would be a
-- line without a stack); below the root it is written empty, as
-- import_collapsed reads it.  Spaces and other characters stay.
SELECT intern_func('semi;colon') AS semi, intern_func(E'two\nlines\r') AS lines,
       intern_func('') AS empty, intern_func('with spaces (and <xml> & ünïcödé)') AS spaces \gset
SELECT to_collapsed(calltree_agg(path))
  FROM (VALUES (ARRAY[:semi, :lines]), (ARRAY[:spaces, :semi])) AS v(path);
SELECT to_collapsed(calltree_agg(ARRAY[:a, :empty, :b])) = E'A;;B 1\n' AS empty_name_inside,
       to_collapsed(calltree_agg(ARRAY[:a, :empty])) = E'A; 1\n' AS empty_leaf_name,
       to_collapsed(calltree_agg(ARRAY[:empty, :a])) = '#' || :empty || E';A 1\n' AS empty_root_name;
-- and the empty names below the root come back
SELECT import_collapsed(E'A; 1\nA;;B 2\n', 'empty names') AS empty_back \gset
SELECT stack_agg(stack_id, weight) = (SELECT calltree_agg(path, w) FROM (VALUES (ARRAY[:a, :empty], 1), (ARRAY[:a, :empty, :b], 2)) AS v(path, w))
       AS same_tree
  FROM sample WHERE profile_id = :empty_back;

-- Func ids that calltree.func does not hold are written '#<id>', as report() does.
SELECT to_collapsed('{-7:4/1 {-8:3/3}}');

-- Negative weights (differential trees) are written as they are;
-- import_collapsed does not take them back.
SELECT to_collapsed(calltree_agg(path, weight))
  FROM (VALUES (ARRAY[:a, :b], -3), (ARRAY[:a, :c], 2)) AS v(path, weight);

-- the empty tree, NULL
SELECT to_collapsed('{}') = '' AS empty_text, to_collapsed(NULL) IS NULL AS null_is_null;

-- Round trip of a larger tree: 2,000 paths over 30 funcs, with repeats
-- (merged by the aggregate), recursion, and every depth from 1 to 12.
SELECT array_agg(intern_func('rt' || i) ORDER BY i) AS rt FROM generate_series(0, 29) AS i \gset
CREATE TEMP TABLE big AS
SELECT calltree_agg(path, weight) AS tree
  FROM (SELECT array_agg((:'rt'::int4[])[1 + (s * 7 + k * k * 3 + s / 5) % 30] ORDER BY k) AS path,
               1 + s % 13 AS weight
          FROM generate_series(1, 2000) AS s
         CROSS JOIN LATERAL generate_series(1, 1 + s % 12) AS k
         GROUP BY s) AS p;
-- one line per node with self weight or without children
SELECT (SELECT count(*) FROM nodes(tree)) AS nodes,
       (SELECT count(*) FROM nodes(tree) AS n
         WHERE n.self <> 0 OR NOT EXISTS (SELECT 1 FROM nodes(tree) AS c WHERE c.parent = n.node)) AS lines_expected,
       cardinality(string_to_array(rtrim(to_collapsed(tree), E'\n'), E'\n')) AS lines
  FROM big;
SELECT import_collapsed(to_collapsed(tree), 'big round trip') AS big_back FROM big \gset
SELECT stack_agg(stack_id, weight) = (SELECT tree FROM big) AS same_tree
  FROM sample WHERE profile_id = :big_back;

-- Round trip of real trees: perf-vertx-stacks-01-collapsed-all.txt (199
-- lines of deep Java and kernel stacks, total 285) and recursion.txt (a and
-- b calling each other, total 10).  Both come back equal, and to_collapsed
-- writes one line per distinct stack (nodes with self weight): 199 and 7,
-- of 360 and 11 nodes.
\getenv shared_dir CALLTREE_SHARED
\set dir :shared_dir '/data/speedscope-samples/stackcollapse/'
CREATE TEMP TABLE real_trees (file text, tree calltree, back bigint);
SELECT import_collapsed(pg_read_file(:'dir' || 'perf-vertx-stacks-01-collapsed-all.txt'), 'vertx') AS vertx,
       import_collapsed(pg_read_file(:'dir' || 'recursion.txt'), 'recursion') AS recursion \gset
INSERT INTO real_trees (file, tree)
SELECT 'vertx', stack_agg(stack_id, weight) FROM sample WHERE profile_id = :vertx
UNION ALL
SELECT 'recursion', stack_agg(stack_id, weight) FROM sample WHERE profile_id = :recursion;
UPDATE real_trees SET back = import_collapsed(to_collapsed(tree), file || ' round trip');
SELECT file, total(tree), (SELECT count(*) FROM nodes(tree)) AS nodes,
       cardinality(string_to_array(rtrim(to_collapsed(tree), E'\n'), E'\n')) AS lines,
       (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = back) = tree AS same_tree
  FROM real_trees ORDER BY file;
SELECT to_collapsed(tree) FROM real_trees WHERE file = 'recursion';
