-- collect_garbage() under row-level security.  It deletes the funcs that no
-- frame, trace event or rollup row uses: a role to which a policy on
-- calltree.rollup applies saw only some rollup rows, and deleted the funcs
-- of the others (nothing checks those references), which then showed as
-- #id.  Policies on the samples, events, stacks or frames made it fail on a
-- reference check, naming a stack that hidden samples use.  It now refuses
-- to run where such policies apply, as expire() and pack_samples() do,
-- and deletes nothing.  In a database of its own: a collection here must
-- not take the garbage of the tests after this one.
SELECT current_database() AS regression_db \gset
CREATE DATABASE calltree_security_garbage;
\c calltree_security_garbage
CREATE EXTENSION calltree;
SET search_path = calltree, public;
\set SHOW_CONTEXT never
CREATE ROLE regress_calltree_gc;
GRANT USAGE ON SCHEMA calltree TO regress_calltree_gc;
GRANT SELECT ON ALL TABLES IN SCHEMA calltree TO regress_calltree_gc;
GRANT INSERT, DELETE ON func, frame, stack, labels TO regress_calltree_gc;
GRANT UPDATE ON rollup TO regress_calltree_gc;

-- a profile of tenant a, rolled up, then deleted: its stack and frame are
-- garbage, its func sg_gone is used by its rollup row only
SELECT import_collapsed(E'sg_main;sg_gone 5\n', 'gone', '{"tenant": "a"}') AS gone \gset
UPDATE profile SET started_at = '2031-03-10 10:00' WHERE id = :gone;
SELECT rollup('1 hour', '{tenant}') AS hourly_rows;
DELETE FROM profile WHERE id = :gone;
-- the rollup rows of tenant a are hidden from the collecting role
ALTER TABLE rollup ENABLE ROW LEVEL SECURITY;
CREATE POLICY rollup_not_a ON rollup USING (group_key->>'tenant' IS DISTINCT FROM 'a');
CREATE POLICY rollup_all ON rollup TO CURRENT_USER USING (true);

SET ROLE regress_calltree_gc;
SELECT * FROM collect_garbage();
RESET ROLE;
SELECT rtrim(to_collapsed(tree), E'\n') AS tree FROM rollup;
SELECT count(*) AS sg_gone FROM func WHERE name = 'sg_gone';

DROP POLICY rollup_not_a ON rollup;
DROP POLICY rollup_all ON rollup;
ALTER TABLE rollup DISABLE ROW LEVEL SECURITY;
-- a role that may not change calltree.rollup cannot take the SHARE lock
-- that holds off rollup runs: refused, saying which privilege and why,
-- not a bare "permission denied for table rollup"
REVOKE UPDATE ON rollup FROM regress_calltree_gc;
SET ROLE regress_calltree_gc;
SELECT * FROM collect_garbage();
RESET ROLE;
GRANT UPDATE ON rollup TO regress_calltree_gc;

-- without the policy, the collection runs as that role, keeps the func of
-- the rollup row and deletes the stack and frame
SET ROLE regress_calltree_gc;
SELECT * FROM collect_garbage();
RESET ROLE;
SELECT rtrim(to_collapsed(tree), E'\n') AS tree FROM rollup;

-- a policy on the samples: refused too, rather than failing on the check
-- of the first stack it would delete
SELECT import_collapsed(E'sg_main;sg_kept 1\n', 'kept', '{"tenant": "b"}') AS kept \gset
ALTER TABLE sample_set ENABLE ROW LEVEL SECURITY;
CREATE POLICY samples_of_none ON sample_set USING (false);
SET ROLE regress_calltree_gc;
SELECT * FROM collect_garbage();
RESET ROLE;
SELECT count(*) AS samples_kept FROM sample WHERE profile_id = :kept;

\c :regression_db
DROP DATABASE calltree_security_garbage;
DROP OWNED BY regress_calltree_gc;
DROP ROLE regress_calltree_gc;
