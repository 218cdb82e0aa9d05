-- Triggers of one's own on calltree.sample, the view whose INSERT, UPDATE
-- and DELETE gather a statement's rows and write them as packed sets
-- (src/store/sample_face.c).  A statement-level AFTER trigger sees the
-- rows of its statement whatever its name: the rows are written when the
-- statement's executor finishes, before any AFTER trigger fires.  COPY
-- writes them in the view's own statement trigger, _sample_write_sets,
-- and refuses to have run a trigger whose name sorts before that one.
SET search_path = calltree, public;
SELECT import_collapsed(E'main;a 1\n', 'face triggers') AS p \gset
SELECT intern_stack('{main,audited}') AS z \gset

-- what each trigger saw of the rows of thread 'audited', in firing order
CREATE TABLE audit_log (n serial, seen text, samples bigint, weight numeric);
CREATE FUNCTION audit_samples() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_log (seen, samples, weight)
    SELECT TG_NAME || ' after ' || TG_OP, count(*), sum(s.weight)
      FROM calltree.sample s WHERE s.thread = 'audited';
    RETURN NULL;
END
$$;
-- "audit" sorts after "_sample_write_sets" and before "sample_write";
-- "zz_audit" after both: they see the same
CREATE TRIGGER audit AFTER INSERT OR UPDATE OR DELETE ON sample
    FOR EACH STATEMENT EXECUTE FUNCTION audit_samples();
CREATE TRIGGER zz_audit AFTER INSERT OR UPDATE OR DELETE ON sample
    FOR EACH STATEMENT EXECUTE FUNCTION audit_samples();

INSERT INTO sample (profile_id, thread, stack_id, weight) VALUES (:p, 'audited', :z, 2), (:p, 'audited', :z, 3);
UPDATE sample SET weight = weight * 10 WHERE profile_id = :p AND thread = 'audited' AND weight = 2;
DELETE FROM sample WHERE profile_id = :p AND thread = 'audited' AND weight = 3;
-- a statement in WITH that the query does not read runs to its end when
-- the query finishes, still before the triggers
WITH w AS (INSERT INTO sample (profile_id, thread, stack_id, weight) VALUES (:p, 'audited', :z, 4) RETURNING 1)
SELECT 'query' AS done;
SELECT format('printf ''%s\taudited\t%s\t5\n''', :p, :z) AS copy_program \gset
COPY sample (profile_id, thread, stack_id, weight) FROM PROGRAM :'copy_program';
SELECT seen, samples, weight FROM audit_log ORDER BY n;
TRUNCATE audit_log;

-- a trigger whose name sorts before "_sample_write_sets" ("Audit": capitals
-- come before the underscore) sees the rows of INSERT, UPDATE and DELETE
-- as well; a COPY that would fire it before its rows are written is
-- refused, and nothing of it is kept
DROP TRIGGER zz_audit ON sample;
CREATE TRIGGER "Audit" AFTER INSERT OR UPDATE OR DELETE ON sample
    FOR EACH STATEMENT EXECUTE FUNCTION audit_samples();
INSERT INTO sample (profile_id, thread, stack_id, weight) VALUES (:p, 'audited', :z, 6);
DELETE FROM sample WHERE profile_id = :p AND thread = 'audited' AND weight = 6;
COPY sample (profile_id, thread, stack_id, weight) FROM PROGRAM :'copy_program';
SELECT seen, samples, weight FROM audit_log ORDER BY n;
SELECT count(*) AS samples, sum(weight) AS weight FROM sample WHERE profile_id = :p AND thread = 'audited';
-- without it, the COPY runs
DROP TRIGGER "Audit" ON sample;
COPY sample (profile_id, thread, stack_id, weight) FROM PROGRAM :'copy_program';
SELECT seen, samples, weight FROM audit_log ORDER BY n;

-- a query that a function runs for each row of the statement (a look-up
-- here) leaves the rows gathered: the statement's rows are one set still
CREATE FUNCTION looked_up(stack bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
    RETURN (SELECT s.id FROM calltree.stack s WHERE s.id = stack);
END
$$;
INSERT INTO sample (profile_id, thread, stack_id, weight)
SELECT :p, 'looked up', looked_up(:z), w FROM generate_series(1, 3) AS w;
SELECT count(*) AS sets, sum(sample_count(samples)) AS samples FROM sample_set WHERE profile_id = :p AND thread = 'looked up';
DROP FUNCTION looked_up(bigint);

DROP TRIGGER audit ON sample;
DROP FUNCTION audit_samples();
DROP TABLE audit_log;
DELETE FROM profile WHERE id = :p;
