-- How an import writes its new stacks, by COPY FROM's code (copy_rows.c),
-- and its samples, by an INSERT of packed sets into sample_set, with what
-- an INSERT would do kept: text exactly as given whatever the client
-- encoding, the user's privileges, triggers, the stack table's sequence
-- and CHECK, and the policies of row security.
SET search_path = calltree, public;

-- A speedscope file of three sampled profiles, one thread each, whose
-- names hold what COPY's text format escapes (tab, newline, carriage
-- return, backslash) and a non-ASCII letter.  Samples: copy_a;copy_b
-- weight 2 and copy_a weight 1 in each profile.
CREATE TEMP TABLE files AS SELECT $json$
{"$schema": "https://www.speedscope.app/file-format-schema.json",
 "shared": {"frames": [{"name": "copy_a"}, {"name": "copy_b"}]},
 "profiles": [
  {"type": "sampled", "name": "tab\there\\N", "unit": "none", "startValue": 0, "endValue": 3,
   "samples": [[0, 1], [0]], "weights": [2, 1]},
  {"type": "sampled", "name": "line\nbreak\r\\", "unit": "none", "startValue": 0, "endValue": 3,
   "samples": [[0, 1], [0]], "weights": [2, 1]},
  {"type": "sampled", "name": "Z\u00fcrich", "unit": "none", "startValue": 0, "endValue": 3,
   "samples": [[0, 1], [0]], "weights": [2, 1]}]}
$json$::text AS threads;

SELECT import_speedscope(threads, 'threads') AS id FROM files \gset
-- each name is stored as given: six samples, two per thread, weight 3 each
SELECT thread = E'tab\there\\N' AS tab, thread = E'line\nbreak\r\\' AS line_break,
       thread = U&'Z\00FCrich' AS non_ascii, count(*), sum(weight)
  FROM sample WHERE profile_id = :id GROUP BY thread ORDER BY 1, 2, 3;
SELECT label, running, self FROM report((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id));

-- A client in another encoding: the rows are still in the database's own.
SET client_encoding = 'LATIN1';
SELECT import_speedscope(threads, 'latin1 client') AS id FROM files \gset
SELECT count(*) FILTER (WHERE thread = U&'Z\00FCrich') AS zurich, count(*) AS samples
  FROM sample WHERE profile_id = :id;
RESET client_encoding;

-- A bigger import, 800 samples a thread, 2,400 in all: the same names.
SELECT import_speedscope(replace(threads, '"samples": [[0, 1], [0]], "weights": [2, 1]',
                                 '"samples": [' || repeat('[0, 1], [0], ', 399) || '[0, 1], [0]], "weights": ['
                                 || repeat('2, 1, ', 399) || '2, 1]'), 'threads by copy') AS id FROM files \gset
SELECT thread = E'tab\there\\N' AS tab, thread = E'line\nbreak\r\\' AS line_break,
       thread = U&'Z\00FCrich' AS non_ascii, count(*), sum(weight)
  FROM sample WHERE profile_id = :id GROUP BY thread ORDER BY 1, 2, 3;

-- The two new stacks took consecutive ids from the stack table's sequence,
-- the root's first; the sequence stays ahead of them.
SELECT count(*) AS stacks,
       min(s.id) FILTER (WHERE s.prefix_id IS NULL) + 1 = max(s.id) FILTER (WHERE s.prefix_id IS NOT NULL) AS root_then_child,
       max(s.id) < nextval('stack_id_seq') AS sequence_ahead
  FROM stack s JOIN frame fr ON fr.id = s.frame_id JOIN func f ON f.id = fr.func_id
 WHERE f.name IN ('copy_a', 'copy_b');

-- Triggers fire as for an INSERT: a BEFORE ROW trigger on sample_set sees
-- (and here changes) every set, a statement trigger counts statements.
CREATE TABLE sample_seen (statements int);
INSERT INTO sample_seen VALUES (0);
CREATE FUNCTION pg_temp.double_weight() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN
    NEW.samples := (SELECT calltree.samples_agg(u.stack_id, u.weight * 2, u.ts, u.labels_id)
                      FROM calltree.unnest(NEW.samples) u);
    RETURN NEW;
END$$;
CREATE FUNCTION pg_temp.count_statement() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN UPDATE sample_seen SET statements = statements + 1; RETURN NULL; END$$;
CREATE TRIGGER double_weight BEFORE INSERT ON sample_set FOR EACH ROW EXECUTE FUNCTION pg_temp.double_weight();
CREATE TRIGGER count_statement AFTER INSERT ON sample_set FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.count_statement();
SELECT import_collapsed(E'a;b 5\na 7\n', 'triggers') AS id \gset
-- weights doubled: 10 and 14; one set of samples, one statement
SELECT sum(weight) AS weight, (SELECT statements FROM sample_seen) AS statements
  FROM sample WHERE profile_id = :id;
DROP TRIGGER double_weight ON sample_set;
DROP TRIGGER count_statement ON sample_set;
DROP TABLE sample_seen;

-- An import's sets keep the constraints and indexes of sample_set: a
-- CHECK refuses a set (the import leaves nothing behind), an index gets
-- every row (found here with sequential scans off: without its entries,
-- the count would be 0).  Both see the packed value, here as text (the
-- index a hash: a btree entry could not hold the text of a large set).
ALTER TABLE sample_set ADD CONSTRAINT sample_no_31337 CHECK (samples::text !~ ':31337[@#,}]');
\set VERBOSITY terse
SELECT import_collapsed(E'check;a 5\ncheck;b 31337\n', 'refused by check');
\set VERBOSITY default
SELECT count(*) AS left_behind FROM profile WHERE name = 'refused by check';
ALTER TABLE sample_set DROP CONSTRAINT sample_no_31337;
CREATE INDEX sample_set_text_idx ON sample_set USING hash ((samples::text));
SELECT import_collapsed(E'index;a 777001\nindex;b 777002\n', 'own index') IS NOT NULL AS imported;
SET enable_seqscan = off;
SELECT sum(sample_count(samples)) AS found_by_index FROM sample_set
 WHERE samples::text = (SELECT samples_agg(v.stack_id, v.weight)::text
                          FROM (VALUES (intern_stack('{index,a}'), 777001), (intern_stack('{index,b}'), 777002)) v(stack_id, weight));
RESET enable_seqscan;
DROP INDEX sample_set_text_idx;

-- Privileges: a user who may not insert into sample_set gets INSERT's
-- error, and the import leaves nothing behind.
CREATE ROLE regress_calltree_importer;
GRANT USAGE ON SCHEMA calltree TO regress_calltree_importer;
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA calltree TO regress_calltree_importer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA calltree TO regress_calltree_importer;
REVOKE INSERT ON sample_set FROM regress_calltree_importer;
SELECT count(*) AS profiles_before FROM profile \gset
SET ROLE regress_calltree_importer;
SELECT import_collapsed(E'a;b 5\n', 'no insert on sample_set');
RESET ROLE;
GRANT INSERT (profile_id, thread) ON sample_set TO regress_calltree_importer;
SET ROLE regress_calltree_importer;
-- INSERT on every column but samples is not enough either
SELECT import_collapsed(E'a;b 5\n', 'no insert on samples');
RESET ROLE;
SELECT count(*) - :profiles_before AS profiles_added FROM profile;
GRANT INSERT ON sample_set TO regress_calltree_importer;
REVOKE INSERT ON stack FROM regress_calltree_importer;
SET ROLE regress_calltree_importer;
SELECT import_collapsed(E'brand;new;stack 5\n', 'no insert on stack');
RESET ROLE;
GRANT INSERT ON stack TO regress_calltree_importer;

-- Row security: the import INSERTs its sets, and the policies of
-- sample_set hold.  This one lets the importer write only weights under
-- 100, looking inside the packed value.
ALTER TABLE sample_set ENABLE ROW LEVEL SECURITY;
CREATE POLICY light_samples ON sample_set FOR ALL TO regress_calltree_importer
  USING (true) WITH CHECK ((SELECT bool_and(u.weight < 100) FROM calltree.unnest(samples) u));
SET ROLE regress_calltree_importer;
SELECT import_collapsed(E'rls;a 5\nrls;b 7\n', 'light') IS NOT NULL AS imported;
SELECT import_collapsed(E'rls;a 5\nrls;c 700\n', 'heavy');
RESET ROLE;
-- light: 2 samples, weight 12; heavy: no profile left
SELECT p.name, count(s.*), sum(s.weight) FROM profile p LEFT JOIN sample s ON s.profile_id = p.id
 WHERE p.name IN ('light', 'heavy') GROUP BY p.name;
-- An import finds known stacks in calltree.stack's index directly, which
-- cannot apply policies: where they apply to stack, the import is refused.
ALTER TABLE stack ENABLE ROW LEVEL SECURITY;
CREATE POLICY any_stack ON stack FOR ALL TO regress_calltree_importer USING (true);
SET ROLE regress_calltree_importer;
SELECT import_collapsed(E'rls;a 5\n', 'policy on stack');
RESET ROLE;
SELECT count(*) FROM profile WHERE name = 'policy on stack';
DROP POLICY light_samples ON sample_set;
DROP POLICY any_stack ON stack;
ALTER TABLE sample_set DISABLE ROW LEVEL SECURITY;
ALTER TABLE stack DISABLE ROW LEVEL SECURITY;

REVOKE ALL ON ALL TABLES IN SCHEMA calltree FROM regress_calltree_importer;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA calltree FROM regress_calltree_importer;
REVOKE ALL ON SCHEMA calltree FROM regress_calltree_importer;
DROP ROLE regress_calltree_importer;
