-- Writes through the view calltree.sample under row-level security
-- policies of calltree.sample_set that differ by command.  A sample is
-- removed by reading its set FOR UPDATE (which applies the policies for
-- UPDATE) and rewriting the set, or deleting it when it held no other
-- sample (the policies for DELETE).  A role that may update the sets but
-- not delete them used to leave the set in place, silently: its DELETE on
-- the view removed nothing, and its UPDATE on the view added the new
-- sample beside the old one, counted twice.  Both are refused now, and
-- nothing changes.  Rewriting a set that keeps other samples is an UPDATE
-- of it, which the role may do.
SET search_path = calltree, public;
CREATE ROLE regress_calltree_face;
GRANT USAGE ON SCHEMA calltree TO regress_calltree_face;
GRANT SELECT ON ALL TABLES IN SCHEMA calltree TO regress_calltree_face;
GRANT INSERT, UPDATE, DELETE ON sample, sample_set, sample_row TO regress_calltree_face;
SELECT import_collapsed(E'sfp_main;sfp_one 1\n', 'sfp one') AS one \gset
SELECT import_collapsed(E'sfp_main;sfp_a 1\nsfp_main;sfp_b 2\n', 'sfp two') AS two \gset
ALTER TABLE sample_set ENABLE ROW LEVEL SECURITY;
CREATE POLICY sfp_read ON sample_set FOR SELECT USING (true);
CREATE POLICY sfp_insert ON sample_set FOR INSERT WITH CHECK (true);
CREATE POLICY sfp_update ON sample_set FOR UPDATE USING (true);
CREATE POLICY sfp_delete ON sample_set FOR DELETE USING (false);

SET ROLE regress_calltree_face;
-- the only sample of its set: the set would be deleted (insufficient_privilege;
-- the message names the profile, whose id depends on the tests before)
\set VERBOSITY sqlstate
UPDATE sample SET weight = 10 WHERE profile_id = :one;
DELETE FROM sample WHERE profile_id = :one;
\set VERBOSITY default
-- one of two: the set is rewritten, an UPDATE of it
DELETE FROM sample WHERE profile_id = :two AND weight = 1;
RESET ROLE;
-- 'sfp one' as it was (before: a second set, of weight 10, after the
-- UPDATE), 'sfp two' without its sample of weight 1
SELECT p.name, array_agg(u.weight ORDER BY u.weight) AS weights
  FROM sample_set s JOIN profile p ON p.id = s.profile_id, unnest(s.samples) AS u
 WHERE p.id IN (:one, :two) GROUP BY p.name, s.ctid ORDER BY p.name, 2;

-- with a policy for DELETE, the same statements work
DROP POLICY sfp_delete ON sample_set;
CREATE POLICY sfp_delete ON sample_set FOR DELETE USING (true);
SET ROLE regress_calltree_face;
UPDATE sample SET weight = 10 WHERE profile_id = :one;
SELECT weight FROM sample WHERE profile_id = :one;
DELETE FROM sample WHERE profile_id = :one;
RESET ROLE;
SELECT count(*) AS sets_of_one FROM sample_set WHERE profile_id = :one;

DROP POLICY sfp_read ON sample_set;
DROP POLICY sfp_insert ON sample_set;
DROP POLICY sfp_update ON sample_set;
DROP POLICY sfp_delete ON sample_set;
ALTER TABLE sample_set DISABLE ROW LEVEL SECURITY;
DELETE FROM profile WHERE id IN (:one, :two);
DROP OWNED BY regress_calltree_face;
DROP ROLE regress_calltree_face;
