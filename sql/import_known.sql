-- Imports of stacks the tables know already: found, not written again.  A
-- known stack's children are read at once when there are at most 64 of
-- them (then a child not read is new, without a probe), and probed one by
-- one when there are more.  Both paths must find every known stack and
-- write exactly the new ones.
SET search_path = calltree, public;

CREATE TEMP TABLE imports (label text, id bigint);
CREATE FUNCTION pg_temp.import(label text, data text) RETURNS void
LANGUAGE sql AS $$
  INSERT INTO imports SELECT label, calltree.import_collapsed(data, 'import_known ' || label)
$$;
CREATE FUNCTION pg_temp.tree(label text) RETURNS calltree
LANGUAGE sql AS $$
  SELECT stack_agg(s.stack_id, s.weight) FROM calltree.sample s
    JOIN imports i ON i.id = s.profile_id WHERE i.label = $1
$$;

-- 'wide' has 100 children, 'narrow' 3; each child has one child of its own
SELECT string_agg(format('known wide;w%s;leaf %s', n, n), E'\n') AS wide,
       'known narrow;n1;leaf 1' || E'\n' || 'known narrow;n2;leaf 2' || E'\n' ||
       'known narrow;n3;leaf 3' AS narrow
  FROM generate_series(1, 100) AS n \gset

SELECT count(*) AS stacks_before FROM stack \gset
SELECT pg_temp.import('first', :'wide' || E'\n' || :'narrow');
SELECT count(*) - :stacks_before AS new_stack_rows FROM stack;

-- the same again: nothing new, the same tree
SELECT count(*) AS stacks_before FROM stack \gset
SELECT pg_temp.import('again', :'narrow' || E'\n' || :'wide');
SELECT count(*) - :stacks_before AS new_stack_rows FROM stack;
SELECT pg_temp.tree('first') = pg_temp.tree('again') AS same_tree;

-- new children next to known ones, under both kinds of parent, and a new
-- grandchild under a known child
SELECT count(*) AS stacks_before FROM stack \gset
SELECT pg_temp.import('more', E'known wide;w7;leaf 1\nknown wide;w101;leaf 1\nknown narrow;n2;leaf 1\n'
                             'known narrow;n4;leaf 1\nknown narrow;n1;leaf;deeper 1\nknown wide;w1;leaf;deeper 1');
SELECT count(*) - :stacks_before AS new_stack_rows FROM stack;
SELECT * FROM (
  SELECT (SELECT string_agg(f.name, ';' ORDER BY u.n) FROM unnest(t.path) WITH ORDINALITY AS u(id, n)
            JOIN func f ON f.id = u.id) AS stack, t.running, t.self
    FROM nodes(pg_temp.tree('more')) AS t) AS named
ORDER BY stack COLLATE "C";

-- once VACUUM has marked the pages all-visible, known stacks are read from
-- stack_key alone (it includes the id), without the heap: the same stacks
VACUUM calltree.stack;
SELECT count(*) AS stacks_before FROM stack \gset
SELECT pg_temp.import('vacuumed', :'wide' || E'\n' || :'narrow');
SELECT count(*) - :stacks_before AS new_stack_rows FROM stack;
SELECT pg_temp.tree('first') = pg_temp.tree('vacuumed') AS same_tree,
       (SELECT array_agg(DISTINCT s.stack_id ORDER BY s.stack_id) FROM sample s JOIN imports i ON i.id = s.profile_id
         WHERE i.label = 'first')
     = (SELECT array_agg(DISTINCT s.stack_id ORDER BY s.stack_id) FROM sample s JOIN imports i ON i.id = s.profile_id
         WHERE i.label = 'vacuumed') AS same_stack_ids;
