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

-- 6. Whole paths.  An import remembers each sample's path (its frame ids,
-- root first) with its stack once every row of it existed before: the
-- third import of a file finds each stack by its path alone.  Whatever
-- removes those stacks must make the next import write them again; each
-- import below is checked against the lines it was given, read back from
-- the tables, and no sample or stack may refer to a row that is gone.
-- A profile of the same frames in another order (ic keeper ...) keeps
-- the frames, so that the imports after the deletion meet the same paths.
CREATE FUNCTION pg_temp.collapsed(p bigint) RETURNS text
LANGUAGE sql AS $$ SELECT string_agg(path || ' ' || weight, E'\n' ORDER BY path) FROM pg_temp.paths(p) $$;
CREATE FUNCTION pg_temp.gone() RETURNS bigint
LANGUAGE sql AS $$ SELECT sum(n)::bigint FROM pg_temp.dangling() $$;
-- a. pprof: the same file imported three times, its profiles deleted and
-- their rows collected, then imported twice more.
SELECT import_collapsed(E'ic_p_main;ic_p_run;ic_p_a 3\nic_p_main;ic_p_run;ic_p_b 2\nic_p_main;ic_p_c 1\n',
                        'ic pprof source') AS src \gset
SELECT import_collapsed(E'ic_p_a;ic_p_b;ic_p_c;ic_p_run;ic_p_main 1\n', 'ic pprof keeper source') AS keep \gset
CREATE TEMP TABLE ic_pprof AS
SELECT to_pprof(stack_agg(stack_id, weight)) AS data FROM sample WHERE profile_id = :src;
SELECT import_pprof(to_pprof(stack_agg(stack_id, weight)), name => 'ic keeper pprof') > 0 AS imported
  FROM sample WHERE profile_id = :keep;
SELECT import_pprof(data, name => 'ic pprof ' || i) > 0 AS imported FROM ic_pprof, generate_series(1, 3) i;
DELETE FROM profile WHERE name LIKE 'ic pprof%';
SELECT stacks >= 5 AS collected FROM collect_garbage();
-- the keeper's 5 stacks are left
SELECT count(*) AS stacks_left FROM stack s JOIN frame fr ON fr.id = s.frame_id JOIN func f ON f.id = fr.func_id
 WHERE f.name LIKE 'ic\_p\_%';
SELECT import_pprof(data, name => 'ic pprof 4') AS p FROM ic_pprof \gset
SELECT pg_temp.collapsed(:p), pg_temp.gone();
SELECT import_pprof(data, name => 'ic pprof 5') AS p FROM ic_pprof \gset
SELECT pg_temp.collapsed(:p), pg_temp.gone();
-- b. perf script, with an address frame, the same way; then the deletion,
-- collection and import in one transaction.
CREATE TEMP TABLE ic_perf AS
SELECT E'ic 1/1 1.000000: 1 cpu-clock:\n\t30 ic_s_leaf (/ic/prog)\n\t20 ic_s_mid (/ic/prog)\n\t10 ic_s_main (/ic/prog)\n\n'
       'ic 1/1 1.000001: 1 cpu-clock:\n\t99 [unknown] (/ic/libperf.so)\n\t20 ic_s_mid (/ic/prog)\n\t10 ic_s_main (/ic/prog)\n\n'
       'ic 1/1 1.000002: 1 cpu-clock:\n\t20 ic_s_mid (/ic/prog)\n\t10 ic_s_main (/ic/prog)\n\n' AS data;
SELECT import_perf_script(E'ic 1/1 1.000000: 1 cpu-clock:\n\t10 ic_s_main (/ic/prog)\n\t20 ic_s_mid (/ic/prog)\n'
                          '\t30 ic_s_leaf (/ic/prog)\n\t99 [unknown] (/ic/libperf.so)\n\n', name => 'ic keeper perf') > 0 AS imported;
SELECT import_perf_script(data, name => 'ic perf ' || i) > 0 AS imported FROM ic_perf, generate_series(1, 3) i;
DELETE FROM profile WHERE name LIKE 'ic perf%';
SELECT stacks >= 4 AS collected FROM collect_garbage();
SELECT import_perf_script(data, name => 'ic perf 4') AS p FROM ic_perf \gset
SELECT pg_temp.collapsed(:p), pg_temp.gone();
BEGIN;
DELETE FROM profile WHERE name LIKE 'ic perf%';
SELECT stacks >= 4 AS collected FROM collect_garbage();
SELECT import_perf_script(data, name => 'ic perf 5') AS p FROM ic_perf \gset
SELECT pg_temp.collapsed(:p), pg_temp.gone();
COMMIT;
SELECT pg_temp.collapsed(:p), pg_temp.gone();
-- c. The leaf stacks alone deleted (their prefixes kept): the next import
-- writes the leaves again on top of the prefixes.
SELECT import_collapsed(E'ic_l_main;ic_l_a 1\nic_l_main;ic_l_b 2\n', 'ic leaf ' || i) > 0 AS imported
  FROM generate_series(1, 3) i;
DELETE FROM profile WHERE name LIKE 'ic leaf%';
DELETE FROM stack s USING frame fr, func f
 WHERE fr.id = s.frame_id AND f.id = fr.func_id AND f.name IN ('ic_l_a', 'ic_l_b');
SELECT import_collapsed(E'ic_l_main;ic_l_a 1\nic_l_main;ic_l_b 2\n', 'ic leaf 4') AS p \gset
SELECT pg_temp.collapsed(:p), pg_temp.gone();
-- d. Paths learnt from rows a savepoint wrote, then rolled back: the
-- import after it writes them again.
BEGIN;
SAVEPOINT s;
SELECT import_collapsed(E'ic_v_main;ic_v_a 1\nic_v_main;ic_v_a;ic_v_b 2\n', 'ic save ' || i) > 0 AS imported
  FROM generate_series(1, 3) i;
ROLLBACK TO SAVEPOINT s;
SELECT import_collapsed(E'ic_v_main;ic_v_a 1\nic_v_main;ic_v_a;ic_v_b 2\n', 'ic save 4') AS p \gset
COMMIT;
SELECT pg_temp.collapsed(:p), pg_temp.gone();
-- e. Paths of 1,024 frames (the deepest remembered) and 1,025 (not),
-- imported three times, their leaves collected (the keeper keeps the
-- rest), and imported again.
CREATE TEMP TABLE ic_deep AS
SELECT (SELECT string_agg('ic_d' || d, ';') FROM generate_series(1, 1023) d) || E';ic_d_x 1\n'
    || (SELECT string_agg('ic_d' || d, ';') FROM generate_series(1, 1024) d) || E';ic_d_y 2\n' AS data;
SELECT import_collapsed((SELECT string_agg('ic_d' || d, ';') FROM generate_series(1, 1024) d) || E';ic_d_y;ic_d_x 1\n',
                        'ic keeper deep') > 0 AS imported;
SELECT import_collapsed(data, 'ic deep ' || i) > 0 AS imported FROM ic_deep, generate_series(1, 3) i;
DELETE FROM profile WHERE name LIKE 'ic deep%';
SELECT stacks >= 1 AS collected FROM collect_garbage();
-- the keeper's 1,026 stacks are left: ic_d_x's leaf is gone
SELECT count(*) AS stacks_left FROM stack s JOIN frame fr ON fr.id = s.frame_id JOIN func f ON f.id = fr.func_id
 WHERE f.name LIKE 'ic\_d%';
SELECT import_collapsed(data, 'ic deep 4') AS p FROM ic_deep \gset
SELECT pg_temp.collapsed(:p) = (SELECT string_agg(l, E'\n' ORDER BY l) FROM ic_deep, regexp_split_to_table(rtrim(data, E'\n'), E'\n') l)
       AS same, pg_temp.gone();
SELECT import_collapsed(data, 'ic deep 5') AS p FROM ic_deep \gset
SELECT pg_temp.collapsed(:p) = (SELECT string_agg(l, E'\n' ORDER BY l) FROM ic_deep, regexp_split_to_table(rtrim(data, E'\n'), E'\n') l)
       AS same, pg_temp.gone();

-- f. perf script within 1 MB of calltree.import_work_mem: the writer
-- writes its rows and empties its caches every 1,024 samples, between
-- which its frames get their real ids; three imports, the stacks deleted
-- (the frames kept), and a fourth, each against the lines it was given.
SET calltree.import_work_mem = '1MB';
CREATE TEMP TABLE ic_lines AS
SELECT i, (SELECT string_agg('ic_f' || ((i * 7 + k * k * 13 + (i % 17) * k) % 211), ';' ORDER BY k)
             FROM generate_series(1, 3 + i % 40) k) AS path
  FROM generate_series(1, 1300) i;
CREATE TEMP TABLE ic_bounded AS
SELECT string_agg(E'ic 1/1 1.' || lpad(i::text, 6, '0') || E': 1 cpu-clock:\n'
                  || (SELECT string_agg(E'\t' || to_hex(o) || ' ' || f || E' (/ic/prog)\n', '' ORDER BY o DESC)
                        FROM regexp_split_to_table(path, ';') WITH ORDINALITY AS u(f, o)) || E'\n', '' ORDER BY i) AS data
  FROM ic_lines;
CREATE FUNCTION pg_temp.bounded_wrong(p bigint) RETURNS TABLE (samples bigint, unexpected bigint, missing bigint)
LANGUAGE sql AS $$
    WITH got AS (SELECT path, weight FROM pg_temp.paths(p)),
    want AS (SELECT path, count(*)::numeric AS weight FROM ic_lines GROUP BY path)
    SELECT (SELECT sum(weight)::bigint FROM got),
           (SELECT count(*) FROM (SELECT * FROM got EXCEPT SELECT * FROM want) d),
           (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT * FROM got) d)
$$;
SELECT i, w.* FROM ic_bounded, generate_series(1, 3) i,
       pg_temp.bounded_wrong(import_perf_script(data, name => 'ic bounded ' || i)) w;
DELETE FROM profile WHERE name LIKE 'ic bounded%';
DELETE FROM stack s USING frame fr, func f
 WHERE fr.id = s.frame_id AND f.id = fr.func_id AND f.name LIKE 'ic\_f%';
SELECT w.* FROM ic_bounded, pg_temp.bounded_wrong(import_perf_script(data, name => 'ic bounded 4')) w;
SELECT pg_temp.gone();
RESET calltree.import_work_mem;

-- 7. The extension dropped and made again in this backend: new tables.
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
-- The backend also remembers that pg_catalog has no pg_dist_partition (no
-- Citus): Citus's tables, faked here in a transaction rolled back, made
-- after imports, are read by the next one, which finds func distributed.
BEGIN;
SET LOCAL allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass, partmethod "char");
CREATE TABLE pg_catalog.pg_dist_shard (logicalrelid regclass, shardid bigint);
INSERT INTO pg_catalog.pg_dist_partition VALUES ('calltree.func', 'h');
INSERT INTO pg_catalog.pg_dist_shard VALUES ('calltree.func', 102008);
SELECT calltree.import_collapsed(E'ic_main;ic_citus 1\n', 'ic citus') > 0 AS imported;
ROLLBACK;
SELECT calltree.import_collapsed(E'ic_main;ic_citus 1\n', 'ic citus gone') > 0 AS imported;
\c contrib_regression
DROP DATABASE calltree_intern_cache;

SET search_path = calltree, public;

-- 8. Many deep stacks, whose paths do not fit in the cache (1,000 stacks
-- of 120 frames: 250 kB of paths, their keys 247 bytes each; the cache is
-- bounded by a quarter of calltree.import_work_mem, 512 kB here, and its
-- funcs, frames and stacks take about half of that): the paths that do
-- not fit are not remembered, and the funcs, frames and stacks stay, so
-- that a repeat import probes no index.  In this backend, new since the \c
-- above, the cache holds nothing else; the VACUUM after the first import
-- leaves autovacuum nothing to do on the interned tables, whose ANALYZE
-- would empty the cache at a time of its own.
SET calltree.import_work_mem = '2MB';
CREATE TEMP TABLE ic_many AS
SELECT string_agg((SELECT string_agg('ic_m' || d, ';') FROM generate_series(1, 119) d) || ';ic_m_leaf' || l || ' 1',
                  E'\n') AS data
  FROM generate_series(1, 1000) l;
SELECT import_collapsed(data, 'ic many 1') > 0 AS imported FROM ic_many;
VACUUM ANALYZE calltree.func, calltree.frame, calltree.stack;
SELECT import_collapsed(data, 'ic many ' || i) > 0 AS imported FROM ic_many, generate_series(2, 3) i;
-- some paths were remembered (an empty table takes about 1.5 kB), and
-- not all: those kept take less than all would
SELECT used_bytes > 100 * 247 AS paths_kept, used_bytes < 1000 * 247 AS paths_left_out
  FROM pg_backend_memory_contexts WHERE name = 'calltree intern cache paths';
SELECT pg_stat_force_next_flush();
BEGIN;
SELECT import_collapsed(data, 'ic many 4') AS p FROM ic_many \gset
SELECT pg_stat_get_xact_numscans('calltree.func_key'::regclass) AS func_probes,
       pg_stat_get_xact_numscans('calltree.frame_key'::regclass) AS frame_probes,
       pg_stat_get_xact_numscans('calltree.stack_key'::regclass) AS stack_probes;
COMMIT;
-- its samples are the lines given
WITH got AS (
    SELECT (SELECT string_agg(f.name, ';' ORDER BY u.o)
              FROM unnest(stack_path(s.stack_id)) WITH ORDINALITY AS u(func, o)
              JOIN func f ON f.id = u.func) || ' ' || s.weight AS line
      FROM sample s WHERE s.profile_id = :p),
want AS (SELECT regexp_split_to_table(data, E'\n') AS line FROM ic_many)
SELECT (SELECT count(*) FROM got) AS samples,
       (SELECT count(*) FROM (SELECT line FROM got EXCEPT ALL SELECT line FROM want) d) AS unexpected,
       (SELECT count(*) FROM (SELECT line FROM want EXCEPT ALL SELECT line FROM got) d) AS missing;
SELECT count(*) AS dangling FROM sample s WHERE NOT EXISTS (SELECT FROM stack t WHERE t.id = s.stack_id);
RESET calltree.import_work_mem;

-- 9. Keys that differ only in which fields are present: a frame with a
-- line and no column and one with that number as its column and no line
-- are two frames, in a first import and in a repeat one (found in the
-- cache by a key that says which fields it holds, not by the numbers alone).
CREATE TEMP TABLE ic_fields AS SELECT '{"nodes": [
    {"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": [2, 3]},
    {"id": 2, "callFrame": {"functionName": "ic_fields", "url": "file:///ic/fields.js", "lineNumber": 4, "columnNumber": -1}},
    {"id": 3, "callFrame": {"functionName": "ic_fields", "url": "file:///ic/fields.js", "lineNumber": -1, "columnNumber": 4}}],
  "samples": [2, 3, 3], "timeDeltas": [1, 1, 1], "startTime": 0, "endTime": 3}'::text AS data;
SET client_min_messages = warning;  -- not the notice of a file imported before
SELECT import_cpuprofile(data, 'ic fields ' || i) > 0 AS imported FROM ic_fields, generate_series(1, 2) i;
RESET client_min_messages;
SELECT p.name, fr.line, fr.col, sum(s.weight) AS weight, count(DISTINCT fr.id) AS frames
  FROM profile p JOIN sample s ON s.profile_id = p.id JOIN stack t ON t.id = s.stack_id
  JOIN frame fr ON fr.id = t.frame_id
 WHERE p.name LIKE 'ic fields %' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- 10. Paths found in the order a first import put them, or out of it:
-- paths of one length that differ inside, a path and its prefix, the same
-- frames in another order.  Each import's samples are its lines, whether
-- the cache tries the path it expects next or looks it up.
CREATE TEMP TABLE ic_order (n int, data text);
INSERT INTO ic_order VALUES
  (1, E'ic_o_a;ic_o_b;ic_o_c 1\nic_o_a;ic_o_b 2\nic_o_a;ic_o_c;ic_o_b 3\nic_o_a;ic_o_b;ic_o_d 4\nic_o_b;ic_o_a 5\n'),
  (2, E'ic_o_a;ic_o_b;ic_o_c 1\nic_o_a;ic_o_b 2\nic_o_a;ic_o_c;ic_o_b 3\nic_o_a;ic_o_b;ic_o_d 4\nic_o_b;ic_o_a 5\n'),
  (3, E'ic_o_b;ic_o_a 5\nic_o_a;ic_o_b;ic_o_d 4\nic_o_a;ic_o_c;ic_o_b 3\nic_o_a;ic_o_b 2\nic_o_a;ic_o_b;ic_o_c 1\n'),
  (4, E'ic_o_a;ic_o_b 2\nic_o_a;ic_o_c;ic_o_b 3\nic_o_b;ic_o_a 5\nic_o_a;ic_o_b;ic_o_c 1\nic_o_a;ic_o_b;ic_o_d 4\n'),
  -- after a;b, the path tried first is a;c;b: a;b;d differs from it inside
  (5, E'ic_o_a;ic_o_b 2\nic_o_a;ic_o_b;ic_o_d 4\nic_o_a;ic_o_b;ic_o_c 1\nic_o_b;ic_o_a 5\nic_o_a;ic_o_c;ic_o_b 3\n');
SELECT n, import_collapsed(data, 'ic order ' || n) > 0 AS imported FROM ic_order ORDER BY n;
SELECT p.name, string_agg(x.path || ' ' || x.weight, ', ' ORDER BY x.path) AS samples
  FROM profile p,
       LATERAL (SELECT (SELECT string_agg(f.name, ';' ORDER BY u.o)
                          FROM unnest(stack_path(s.stack_id)) WITH ORDINALITY AS u(func, o)
                          JOIN func f ON f.id = u.func) AS path, sum(s.weight) AS weight
                  FROM sample s WHERE s.profile_id = p.id GROUP BY 1) x
 WHERE p.name LIKE 'ic order %' GROUP BY p.name ORDER BY p.name;

DELETE FROM profile WHERE name LIKE 'ic %';
DELETE FROM stack s USING frame fr, func f WHERE fr.id = s.frame_id AND f.id = fr.func_id
   AND (f.name LIKE 'ic\_%' OR f.resource LIKE '/ic/%');
DELETE FROM frame fr USING func f WHERE f.id = fr.func_id AND (f.name LIKE 'ic\_%' OR f.resource LIKE '/ic/%');
DELETE FROM func f WHERE f.name LIKE 'ic\_%' OR f.resource LIKE '/ic/%';
-- the tests after this one find the interned tables as they were before it:
-- without the dead rows of its deep stacks, and with statistics of what is left
VACUUM ANALYZE calltree.func, calltree.frame, calltree.stack;
