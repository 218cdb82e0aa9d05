-- The backend's cache of interned ids (src/store/intern_cache.c): a repeat import
-- finds its funcs, frames and stacks there, and the cache forgets every row
-- that changes or goes away before an import could use it again.
SET search_path = calltree, public;

-- a profile's samples as func paths, root first
CREATE FUNCTION pg_temp.paths(p bigint) RETURNS TABLE (path text, weight numeric)
LANGUAGE sql AS $$
    SELECT (SELECT string_agg(f.name, ';' ORDER BY u.o)
              FROM unnest(calltree.stack_path(s.stack_id)) WITH ORDINALITY AS u(func, o)
              JOIN calltree.func f ON f.id = u.func), sum(s.weight)
      FROM calltree.sample s WHERE s.profile_id = p GROUP BY 1 ORDER BY 1
$$;
-- references to rows that do not exist (the imports vouch for theirs)
CREATE FUNCTION pg_temp.dangling() RETURNS TABLE (what text, n bigint)
LANGUAGE sql AS $$
    SELECT 'sample -> stack', count(*) FROM calltree.sample s
     WHERE NOT EXISTS (SELECT FROM calltree.stack t WHERE t.id = s.stack_id)
    UNION ALL
    SELECT 'stack -> prefix', count(*) FROM calltree.stack s
     WHERE s.prefix_id IS NOT NULL AND NOT EXISTS (SELECT FROM calltree.stack t WHERE t.id = s.prefix_id)
    UNION ALL
    SELECT 'stack -> frame', count(*) FROM calltree.stack s
     WHERE NOT EXISTS (SELECT FROM calltree.frame f WHERE f.id = s.frame_id)
    ORDER BY 1
$$;
-- the interned rows of funcs named ic_*
CREATE FUNCTION pg_temp.ic_rows() RETURNS TABLE (funcs bigint, frames bigint, stacks bigint)
LANGUAGE sql AS $$
    SELECT (SELECT count(*) FROM calltree.func f WHERE f.name LIKE 'ic\_%'),
           (SELECT count(*) FROM calltree.frame fr JOIN calltree.func f ON f.id = fr.func_id
             WHERE f.name LIKE 'ic\_%'),
           (SELECT count(*) FROM calltree.stack s JOIN calltree.frame fr ON fr.id = s.frame_id
              JOIN calltree.func f ON f.id = fr.func_id WHERE f.name LIKE 'ic\_%')
$$;
CREATE FUNCTION pg_temp.forget_ic() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM calltree.profile WHERE name LIKE 'ic %';
    DELETE FROM calltree.stack s USING calltree.frame fr, calltree.func f
     WHERE fr.id = s.frame_id AND f.id = fr.func_id AND f.name LIKE 'ic\_%';
    DELETE FROM calltree.frame fr USING calltree.func f WHERE f.id = fr.func_id AND f.name LIKE 'ic\_%';
    DELETE FROM calltree.func f WHERE f.name LIKE 'ic\_%';
END
$$;

-- 1. Deleted rows are made again.  The second import finds everything in
-- the cache; then the profiles and every stack, frame and func they used
-- are deleted, and a third import must write them anew (a cache that kept
-- their ids would leave its samples pointing at deleted stacks).
SELECT import_collapsed(E'ic_main;ic_work 3\nic_main;ic_work;ic_leaf 2\n', 'ic first') > 0 AS imported;
SELECT import_collapsed(E'ic_main;ic_work 3\nic_main;ic_work;ic_leaf 2\n', 'ic second') AS p \gset
SELECT * FROM pg_temp.paths(:p);
SELECT * FROM pg_temp.ic_rows();
SELECT pg_temp.forget_ic();
SELECT * FROM pg_temp.ic_rows();
SELECT import_collapsed(E'ic_main;ic_work 3\nic_main;ic_work;ic_leaf 2\n', 'ic third') AS p \gset
SELECT * FROM pg_temp.paths(:p);
SELECT * FROM pg_temp.ic_rows();
SELECT * FROM pg_temp.dangling();

-- 2. A renamed func: the same line imported again names a func ic_old,
-- which no longer exists under that name, so it is made again; the renamed
-- one keeps the first profile.
SELECT import_collapsed(E'ic_main;ic_old 1\n', 'ic rename 1') AS r1 \gset
UPDATE func SET name = 'ic_new' WHERE name = 'ic_old';
SELECT import_collapsed(E'ic_main;ic_old 1\n', 'ic rename 2') AS r2 \gset
SELECT * FROM pg_temp.paths(:r1);
SELECT * FROM pg_temp.paths(:r2);

-- 3. symbolicate() between two imports of the same [unknown] addresses of
-- a library: the second import's frames are the moved ones, of the new
-- func (0x1010's func renamed to ic_sym, 0x1020's frame moved to it).
SELECT import_perf_script(E'ic 1/1 1.000000: 1 cpu-clock:\n\t1010 [unknown] (/ic/libic.so)\n\t2000 ic_main (/ic/prog)\n\n'
                          'ic 1/1 1.000001: 1 cpu-clock:\n\t1020 [unknown] (/ic/libic.so)\n\t2000 ic_main (/ic/prog)\n\n',
                          name => 'ic symbols 1') AS s1 \gset
SELECT * FROM pg_temp.paths(:s1);
SELECT count(*) AS moved FROM symbolicate('/ic/libic.so', ARRAY[x'1000'::int]::bigint[], '{ic_sym}');
SELECT import_perf_script(E'ic 1/1 1.000000: 1 cpu-clock:\n\t1010 [unknown] (/ic/libic.so)\n\t2000 ic_main (/ic/prog)\n\n'
                          'ic 1/1 1.000001: 1 cpu-clock:\n\t1020 [unknown] (/ic/libic.so)\n\t2000 ic_main (/ic/prog)\n\n',
                          name => 'ic symbols 2') AS s2 \gset
SELECT * FROM pg_temp.paths(:s2);
SELECT count(DISTINCT fr.func_id) AS funcs, min(f.name) AS name
  FROM calltree.sample s JOIN calltree.stack st ON st.id = s.stack_id
  JOIN calltree.frame fr ON fr.id = st.frame_id JOIN calltree.func f ON f.id = fr.func_id
 WHERE s.profile_id = :s2;

-- 4. Rows written by a transaction that rolls back: the ids the cache
-- learnt there are forgotten, and the next import writes the rows again.
BEGIN;
SELECT import_collapsed(E'ic_rolled;ic_back 1\n', 'ic rolled back') > 0 AS imported;
SELECT import_collapsed(E'ic_rolled;ic_back 1\n', 'ic rolled back too') > 0 AS imported;
ROLLBACK;
SELECT import_collapsed(E'ic_rolled;ic_back 1\n', 'ic after rollback') AS p \gset
SELECT * FROM pg_temp.paths(:p);
-- the same with a savepoint rolled back
BEGIN;
SAVEPOINT s;
SELECT import_collapsed(E'ic_saved;ic_point 1\n', 'ic savepoint') > 0 AS imported;
ROLLBACK TO SAVEPOINT s;
SELECT import_collapsed(E'ic_saved;ic_point 1\n', 'ic after savepoint') AS p \gset
COMMIT;
SELECT * FROM pg_temp.paths(:p);
SELECT * FROM pg_temp.dangling();

-- 5. TRUNCATE empties the tables behind the cache (in a transaction rolled
-- back, to keep the other tests' rows).
SELECT import_collapsed(E'ic_main;ic_truncated 1\n', 'ic truncate') > 0 AS imported;
SELECT count(*) AS stacks FROM calltree.stack \gset
BEGIN;
TRUNCATE calltree.sample_set, calltree.sample_row;
TRUNCATE calltree.sample_set, calltree.sample_row, calltree.stack;
TRUNCATE calltree.func CASCADE;
SELECT import_collapsed(E'ic_main;ic_truncated 1\n', 'ic after truncate') AS p \gset
SELECT * FROM pg_temp.paths(:p);
SELECT * FROM pg_temp.dangling();
ROLLBACK;
SELECT count(*) = :stacks AS stacks_back FROM calltree.stack;

-- 6. The extension dropped and made again in this backend: new tables.
CREATE DATABASE calltree_intern_cache;
\c calltree_intern_cache
CREATE EXTENSION calltree;
SELECT calltree.import_collapsed(E'ic_main;ic_again 1\n', 'ic before drop') > 0 AS imported;
DROP EXTENSION calltree;
CREATE EXTENSION calltree;
SELECT calltree.import_collapsed(E'ic_main;ic_again 1\n', 'ic after drop') AS p \gset
SELECT count(*) AS stacks, (SELECT count(*) FROM calltree.sample WHERE profile_id = :p) AS samples
  FROM calltree.stack;
SELECT count(*) AS dangling FROM calltree.sample s
 WHERE NOT EXISTS (SELECT FROM calltree.stack t WHERE t.id = s.stack_id);
\c contrib_regression
DROP DATABASE calltree_intern_cache;

SET search_path = calltree, public;
DELETE FROM profile WHERE name LIKE 'ic %';
DELETE FROM stack s USING frame fr, func f WHERE fr.id = s.frame_id AND f.id = fr.func_id
   AND (f.name LIKE 'ic\_%' OR f.resource LIKE '/ic/%');
DELETE FROM frame fr USING func f WHERE f.id = fr.func_id AND (f.name LIKE 'ic\_%' OR f.resource LIKE '/ic/%');
DELETE FROM func f WHERE f.name LIKE 'ic\_%' OR f.resource LIKE '/ic/%';
