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

-- The table read whole: once an import has looked up past its cache an
-- eighth as many stacks as calltree.stack holds, it reads the table in one
-- sequential scan instead of more index reads.  Here a profile of n new
-- stacks of depth 2, n a quarter of the table (at least 1200, whatever the
-- earlier tests left), so that a re-import looks up half as many stacks as
-- the table holds.  calltree.stack_read = scan reads it at the first
-- look-up, index never.  Every way finds the same stacks and writes
-- exactly the new ones.
SELECT greatest(1200, count(*) / 4) AS n FROM stack \gset
SELECT string_agg(format('read whole %s;leaf %s', n, n), E'\n') AS many
  FROM generate_series(1, :n) AS n \gset
SELECT count(*) AS stacks_before FROM stack \gset
SELECT pg_temp.import('many', :'many');
SELECT count(*) - :stacks_before = 2 * :n AS all_new FROM stack;
CREATE FUNCTION pg_temp.import_counting_scans(label text, data text,
                                              OUT new_stack_rows bigint, OUT stack_scans bigint)
LANGUAGE plpgsql AS $$
DECLARE
  stacks bigint := (SELECT count(*) FROM calltree.stack);
  scans bigint := pg_stat_get_xact_numscans('calltree.stack'::regclass);
BEGIN
  PERFORM pg_temp.import(label, data);
  stack_scans := pg_stat_get_xact_numscans('calltree.stack'::regclass) - scans;
  new_stack_rows := (SELECT count(*) FROM calltree.stack) - stacks;
END $$;
CREATE FUNCTION pg_temp.same_as(label text, other text,
                                OUT same_tree boolean, OUT same_stack_ids boolean)
LANGUAGE sql AS $$
  SELECT pg_temp.tree($1) = pg_temp.tree($2),
         (SELECT array_agg(DISTINCT s.stack_id ORDER BY s.stack_id) FROM calltree.sample s
            JOIN imports i ON i.id = s.profile_id WHERE i.label = $1)
       = (SELECT array_agg(DISTINCT s.stack_id ORDER BY s.stack_id) FROM calltree.sample s
            JOIN imports i ON i.id = s.profile_id WHERE i.label = $2)
$$;
-- the 1200 again, with three new stack rows: a new leaf under a known
-- stack, a new root with its leaf; read whole (one scan), then probed
-- (stack_read = index, no scan) for comparison: the same stacks
SELECT * FROM pg_temp.import_counting_scans('auto', :'many' || E'\nread whole 7;other 1\nread whole new;leaf 1');
SET calltree.stack_read = index;
SELECT * FROM pg_temp.import_counting_scans('auto, probed', :'many' || E'\nread whole 7;other 1\nread whole new;leaf 1');
SELECT * FROM pg_temp.same_as('auto', 'auto, probed');
-- index never reads it whole, even for three new rows
SELECT * FROM pg_temp.import_counting_scans('index', :'many' || E'\nread whole 8;other 1\nread whole newer;leaf 1');
-- scan reads it whole at once, even for a small profile: a new leaf under
-- a known stack, and a known stack
SET calltree.stack_read = scan;
SELECT * FROM pg_temp.import_counting_scans('scan', E'read whole 9;other 1\nread whole 10;leaf 1');
RESET calltree.stack_read;
SELECT * FROM pg_temp.import_counting_scans('scan, probed', E'read whole 9;other 1\nread whole 10;leaf 1');
SELECT * FROM pg_temp.same_as('scan', 'scan, probed');
