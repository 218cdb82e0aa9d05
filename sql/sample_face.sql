-- calltree.sample, the view that shows the packed sets of sample_set a row
-- each (src/store/sample_face.c): reads give every sample once; INSERT
-- packs a statement's rows into a set per profile and thread; DELETE and
-- UPDATE remove one sample per row from the sets that hold them (the rows
-- are a multiset), or from sample_row, where 0.2's rows wait to be packed.
SET search_path = calltree, public;

-- an import writes one set per thread
SELECT import_collapsed(E'main;a;b 3\nmain;a 2\nmain;c 1\n', 'face') AS p \gset
SELECT count(*) AS sets, sum(sample_count(samples)) AS samples FROM sample_set WHERE profile_id = :p;
SELECT (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :p)
     = (SELECT stack_agg(samples) FROM sample_set WHERE profile_id = :p) AS same_tree;

-- one INSERT statement: one set per profile and thread, duplicates kept,
-- the weight 1 by default, RETURNING what was given
SELECT intern_stack('{main,z}') AS z, intern_stack('{main,y}') AS y \gset
INSERT INTO sample (profile_id, thread, ts, stack_id, weight)
VALUES (:p, 'w1', 20, :z, 7), (:p, 'w1', 10, :z, 7), (:p, 'w2', NULL, :y, 1)
RETURNING thread, ts, weight;
INSERT INTO sample (profile_id, thread, stack_id) VALUES (:p, 'w2', :z);
SELECT thread, samples::text = format('{%s:7@10,%s:7@20}', :z, :z) AS w1_packed_in_time_order,
       sample_count(samples) AS samples
  FROM sample_set WHERE profile_id = :p AND thread IS NOT NULL ORDER BY thread, samples::text;

-- reads: every sample once, filters and joins as on a table
SELECT thread, ts, weight FROM sample WHERE profile_id = :p AND thread IS NOT NULL ORDER BY thread, ts, weight;
SELECT p.name, count(*), sum(s.weight) FROM profile p JOIN sample s ON s.profile_id = p.id
 WHERE p.id = :p GROUP BY p.name;

-- DELETE: each row deleted removes one sample; both equal rows match
DELETE FROM sample WHERE profile_id = :p AND thread = 'w1' AND ts = 10;
SELECT samples::text = format('{%s:7@20}', :z) AS one_left FROM sample_set WHERE profile_id = :p AND thread = 'w1';
DELETE FROM sample WHERE profile_id = :p AND thread = 'w2';
SELECT count(*) AS w2_sets FROM sample_set WHERE profile_id = :p AND thread = 'w2';
-- UPDATE: the old sample removed, the new one added
UPDATE sample SET weight = 9, ts = 30 WHERE profile_id = :p AND thread = 'w1' RETURNING ts, weight;
SELECT thread, ts, weight FROM sample WHERE profile_id = :p AND thread = 'w1';

-- what a sample must have, as sample's NOT NULL columns said
INSERT INTO sample (profile_id, stack_id, weight) VALUES (:p, NULL, 1);
INSERT INTO sample (profile_id, stack_id, weight) VALUES (:p, :z, NULL);
-- references are checked when the set is written
INSERT INTO sample (profile_id, stack_id) VALUES (-5, :z);
INSERT INTO sample (profile_id, stack_id) VALUES (:p, -7);
INSERT INTO sample (profile_id, stack_id, labels_id) VALUES (:p, :z, -9);

-- rows gathered in a subtransaction that rolls back go with it
BEGIN;
INSERT INTO sample (profile_id, thread, stack_id) VALUES (:p, 'tx', :z);
SAVEPOINT s;
INSERT INTO sample (profile_id, thread, stack_id) VALUES (:p, 'tx', -7);
ROLLBACK TO s;
INSERT INTO sample (profile_id, thread, stack_id, weight) VALUES (:p, 'tx', :y, 4);
COMMIT;
SELECT stack_id = :z AS z, weight FROM sample WHERE profile_id = :p AND thread = 'tx' ORDER BY weight;

-- COPY into the view packs its rows as INSERT does (its data made by a
-- program, which can name the profile and stack ids of this run)
SELECT format('printf ''%s\tcopied\t%s\t5\n%s\tcopied\t%s\t6\n''', :p, :z, :p, :z) AS copy_program \gset
COPY sample (profile_id, thread, stack_id, weight) FROM PROGRAM :'copy_program';
SELECT sample_count(samples) FROM sample_set WHERE profile_id = :p AND thread = 'copied';

-- 0.2's rows, in sample_row until pack_samples(): read and deleted through
-- the view alike
INSERT INTO sample_row (profile_id, thread, ts, stack_id, weight) VALUES (:p, 'old', 1, :z, 2), (:p, 'old', 2, :z, 2);
SELECT ts, weight FROM sample WHERE profile_id = :p AND thread = 'old' ORDER BY ts;
DELETE FROM sample WHERE profile_id = :p AND thread = 'old' AND ts = 1;
SELECT count(*) AS old_rows FROM sample_row WHERE profile_id = :p;
-- packing moves them into a set: the view shows the same
SELECT pack_samples_batch(10) AS packed;
SELECT count(*) AS old_rows FROM sample_row;
SELECT ts, weight FROM sample WHERE profile_id = :p AND thread = 'old';
SELECT pack_samples_batch(10) AS none_left;
SELECT pack_samples_batch(0);

-- a statement of many rows is written in parts, within a quarter of
-- calltree.import_work_mem (1 MB: some 6,000 rows at a time)
SET calltree.import_work_mem = '1MB';
INSERT INTO sample (profile_id, thread, stack_id, weight) SELECT :p, 'many', :z, 1 FROM generate_series(1, 20000);
SELECT count(*) AS sets, sum(sample_count(samples)) AS samples FROM sample_set WHERE profile_id = :p AND thread = 'many';
DELETE FROM sample WHERE profile_id = :p AND thread = 'many';
SELECT count(*) AS sets_left FROM sample_set WHERE profile_id = :p AND thread = 'many';
RESET calltree.import_work_mem;

-- an UPDATE whose join matches a row twice updates it once, as on a
-- table: the second match finds the old sample gone and adds no other
INSERT INTO sample (profile_id, thread, stack_id, weight) VALUES (:p, 'joined', :z, 1), (:p, 'joined', :y, 1);
UPDATE sample s SET weight = s.weight + 10 FROM (VALUES (1), (2)) AS v(x)
 WHERE s.profile_id = :p AND s.thread = 'joined' AND s.stack_id = :z;
SELECT stack_id = :z AS z, weight FROM sample WHERE profile_id = :p AND thread = 'joined' ORDER BY weight;

-- a statement on sample inside an exception block that rolls back takes
-- its own rows only, not those the outer statement gathered before it
CREATE FUNCTION pg_temp.insert_undone(p bigint, stack bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
    BEGIN
        INSERT INTO calltree.sample (profile_id, thread, stack_id, weight) VALUES (p, 'undone', stack, 99);
        RAISE EXCEPTION 'undo';
    EXCEPTION WHEN raise_exception THEN NULL;
    END;
    RETURN stack;
END
$$;
INSERT INTO sample (profile_id, thread, stack_id, weight)
SELECT :p, 'outer', pg_temp.insert_undone(:p, :z), w FROM generate_series(1, 3) AS w;
SELECT thread, weight FROM sample WHERE profile_id = :p AND thread IN ('outer', 'undone') ORDER BY thread, weight;

-- the statements the view's triggers run resolve "=" in pg_catalog, not
-- through the caller's search_path: operators of a schema before it (that
-- would fail here) are not used, on sets and on sample_row alike
CREATE SCHEMA face_trojan;
CREATE FUNCTION face_trojan.text_eq(a text, b text) RETURNS boolean LANGUAGE plpgsql
AS $$BEGIN RAISE EXCEPTION 'face_trojan = (text, text) ran'; END$$;
CREATE FUNCTION face_trojan.int8_eq(a bigint, b bigint) RETURNS boolean LANGUAGE plpgsql
AS $$BEGIN RAISE EXCEPTION 'face_trojan = (bigint, bigint) ran'; END$$;
CREATE OPERATOR face_trojan.= (FUNCTION = face_trojan.text_eq, LEFTARG = text, RIGHTARG = text);
CREATE OPERATOR face_trojan.= (FUNCTION = face_trojan.int8_eq, LEFTARG = bigint, RIGHTARG = bigint);
INSERT INTO sample_row (profile_id, thread, ts, stack_id, weight) VALUES (:p, 'trojan', 5, :z, 3);
SET search_path = face_trojan, pg_catalog, calltree;
INSERT INTO sample (profile_id, thread, stack_id, weight) VALUES (:p, 'trojan', :z, 1);
DELETE FROM sample WHERE profile_id OPERATOR(pg_catalog.=) :p AND thread OPERATOR(pg_catalog.=) 'trojan';
SET search_path = calltree, public;
SELECT count(*) AS trojan_left FROM sample WHERE profile_id = :p AND thread = 'trojan';
DROP SCHEMA face_trojan CASCADE;

-- a statement removing many rows of sample_row reads their group once,
-- not once per row (2,000 rows: a scan each when each removal looked its
-- row up, the rows it deleted before read again every time)
INSERT INTO sample_row (profile_id, thread, ts, stack_id, weight)
SELECT :p, 'many rows', t / 2, :z, 1 FROM generate_series(1, 2000) AS t;
BEGIN;
DELETE FROM sample WHERE profile_id = :p AND thread = 'many rows' AND ts < 1000;
SELECT sum(seq_scan + coalesce(idx_scan, 0)) < 100 AS read_once
  FROM pg_stat_xact_user_tables
 WHERE relid IN (SELECT i.inhrelid FROM pg_inherits i WHERE i.inhparent = 'sample_row'::regclass);
COMMIT;
SELECT count(*) AS rows_left, min(ts) FROM sample_row WHERE profile_id = :p AND thread = 'many rows';
DELETE FROM sample_row WHERE profile_id = :p;

-- the row trigger reads the view's columns by position: on a view of
-- other columns it refuses to run (it read a bigint as a text's address)
CREATE TEMP VIEW not_sample AS SELECT a, a AS b, a AS c, a AS d, a AS e, a AS f FROM (VALUES (1::bigint)) AS v(a);
CREATE TRIGGER w INSTEAD OF INSERT ON not_sample FOR EACH ROW EXECUTE FUNCTION sample_face_row();
INSERT INTO not_sample VALUES (1, 12345678, 3, 4, 5, 6);
DROP VIEW not_sample;

-- what only a table takes is sample_set's
TRUNCATE sample;
CREATE INDEX ON sample (stack_id);

-- deleting the profile deletes its sets
DELETE FROM profile WHERE id = :p;
SELECT count(*) AS sets_left FROM sample_set WHERE profile_id = :p;
