-- grafana_flamegraph: the data frame of Grafana's flame graph panel (fields
-- level, value, self, label), depth-first from a root named total.
SET search_path = calltree, public;

-- main;a;b 3  main;a 2  main;c 4  other 1:
--   total 10 = main 9 (a 5 (self 2, b 3), c 4) + other 1
SELECT import_collapsed(E'main;a;b 3\nmain;a 2\nmain;c 4\nother 1\n', 'grafana') AS id \gset
SELECT * FROM grafana_flamegraph((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id));

-- siblings by value, largest first (as nodes() orders them); a deeper
-- subtree comes whole before its next sibling
SELECT import_collapsed(E'm;x;y;z 1\nm;w 4\nm;x 2\n', 'grafana-order') AS id2 \gset
SELECT * FROM grafana_flamegraph((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id2));

-- the empty tree is the root alone; NULL gives no row
SELECT * FROM grafana_flamegraph('{}');
SELECT count(*) AS no_rows FROM grafana_flamegraph(NULL);
