-- The calltree type: text form, binary form, canonical order.
SET search_path = calltree, public;

-- text round trip; sibling order, spacing and duplicate siblings are normalized
SELECT '{1:3/0 {2:3/0 {3:2/0 {4:1/0 {5:1/1}, 6:1/0 {7:1/1}}, 8:1/0 {6:1/1}}}}'::calltree;
SELECT '{ 1:3/0{8:1/0{6:1/1},2:2/0{3:2/0{6:1/0{7:1/1},4:1/0{5:1/1}}}} }'::calltree;
SELECT '{1:1/1, 1:3/2 {2:1/1}}'::calltree AS merged_duplicates;
SELECT '{}'::calltree AS empty, total('{}'::calltree), (SELECT count(*) FROM nodes('{}'));
SELECT '{5:4/1 {6:3/3}, -2:7/7}'::calltree AS forest_with_negative_func;
SELECT '{1:10/4#2 {2:6/6#3}}'::calltree AS with_calls;
SELECT * FROM nodes('{1:10/4#2 {2:6/6#3}}');
SELECT '{1:9223372036854775807/9223372036854775807}'::calltree AS max_weight;

-- the value's size: a 16-byte header and 16 bytes per node
SELECT pg_column_size('{1:3/0 {2:3/0 {3:2/0 {4:1/0 {5:1/1}, 6:1/0 {7:1/1}}, 8:1/0 {6:1/1}}}}'::calltree) AS bytes;

-- binary round trip through COPY ... (FORMAT binary)
CREATE TEMP TABLE trees (id int, tree calltree);
INSERT INTO trees VALUES
  (1, '{1:3/0 {2:3/0 {3:2/0 {4:1/0 {5:1/1}, 6:1/0 {7:1/1}}, 8:1/0 {6:1/1}}}}'),
  (2, '{}'), (3, '{1:10/4#2 {2:6/6#3}}'), (4, '{-7:-3/-3}');
COPY trees TO '/tmp/calltree_regress_binary.copy' WITH (FORMAT binary);
CREATE TEMP TABLE trees_back (id int, tree calltree);
COPY trees_back FROM '/tmp/calltree_regress_binary.copy' WITH (FORMAT binary);
SELECT t.id, t.tree = b.tree AS same, b.tree FROM trees t JOIN trees_back b USING (id) ORDER BY id;

-- malformed text: each error says what and where
SELECT ''::calltree;
SELECT '{'::calltree;
SELECT '{1:1/1'::calltree;
SELECT '{1:1/1}}'::calltree;
SELECT '{1:1/1,}'::calltree;
SELECT '{a:1/1}'::calltree;
SELECT '{1:1}'::calltree;
SELECT '{1:2/1}'::calltree;
SELECT '{1:3/1 {2:1/1}}'::calltree;
SELECT '{99999999999:1/1}'::calltree;
SELECT '{1:99999999999999999999/1}'::calltree;
SELECT '{1:1/1#-2}'::calltree;
SELECT '{1:1/1} x'::calltree;
-- a running weight that does not fit in bigint
SELECT '{1:0/9223372036854775807 {2:1/1}}'::calltree;
