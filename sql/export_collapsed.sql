-- to_collapsed(): trees to collapsed stacks, and back through import_collapsed.
SET search_path = calltree, public;

SELECT intern_func('A') AS a, intern_func('B') AS b, intern_func('C') AS c, intern_func('D') AS d,
       intern_func('E') AS e, intern_func('F') AS f, intern_func('G') AS g, intern_func('H') AS h \gset

-- Seed 000_25419976a2593f45.txt: A:3,0 → B:3,0 → { C:2,0 → { D:1,0 → E:1,1 ;
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
-- an empty name is written '#<id>'.  Spaces and other characters stay.
SELECT intern_func('semi;colon') AS semi, intern_func(E'two\nlines\r') AS lines,
       intern_func('') AS empty, intern_func('with spaces (and <xml> & ünïcödé)') AS spaces \gset
SELECT to_collapsed(calltree_agg(path))
  FROM (VALUES (ARRAY[:semi, :lines]), (ARRAY[:spaces, :semi])) AS v(path);
SELECT to_collapsed(calltree_agg(ARRAY[:a, :empty])) = 'A;#' || :empty || E' 1\n' AS empty_name_as_id;

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
