-- Writes through the view calltree.sample under row-level security
-- policies of calltree.sample_set that differ by command.  A sample is
-- removed by reading its set FOR UPDATE (which applies the policies for
-- UPDATE) and rewriting the set, or deleting it when it held no other
-- sample (the policies for DELETE).  A role that may update the sets but
-- not delete them used to leave the set in place, silently: its DELETE on
-- the view removed nothing, and its UPDATE on the view added the new
-- sample beside the old one, counted twice.  Both are refused now, and
-- nothing changes.  Rewriting a set that keeps other samples is an UPDATE
-- of it, which the role may do, unless a policy for UPDATE lets the role
-- lock the set but not update it a moment later: refused too.
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

-- A policy for UPDATE whose answer changes between the read FOR UPDATE
-- and the UPDATE of the set: here a volatile function that lets a profile
-- through once; in use, one that reads a table another session changes
-- meanwhile (each statement of the removal has its own snapshot).  The
-- UPDATE then rewrites no set, which would leave the sample in place:
-- refused as well, and the set kept whole.
SELECT import_collapsed(E'sfp_main;sfp_a 1\nsfp_main;sfp_b 2\n', 'sfp three') AS three \gset
CREATE FUNCTION public.sfp_first_look(id bigint) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF current_setting('regress.sfp_looked_' || id, true) = 'yes' THEN
        RETURN false;
    END IF;
    PERFORM set_config('regress.sfp_looked_' || id, 'yes', true);
    RETURN true;
END
$$;
GRANT EXECUTE ON FUNCTION public.sfp_first_look(bigint) TO regress_calltree_face;
DROP POLICY sfp_update ON sample_set;
CREATE POLICY sfp_update ON sample_set FOR UPDATE USING (public.sfp_first_look(profile_id));
SET ROLE regress_calltree_face;
-- the error names the profile, whose id depends on the tests before
DO $$
BEGIN
    DELETE FROM calltree.sample
     WHERE profile_id = (SELECT id FROM calltree.profile WHERE name = 'sfp three') AND weight = 1;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE NOTICE '%', regexp_replace(SQLERRM, 'profile [0-9]+', 'profile N');
END
$$;
RESET ROLE;
SELECT array_agg(u.weight ORDER BY u.weight) AS three_weights
  FROM sample_set s, unnest(s.samples) AS u WHERE s.profile_id = :three;
DELETE FROM profile WHERE id = :three;

DROP POLICY sfp_read ON sample_set;
DROP POLICY sfp_insert ON sample_set;
DROP POLICY sfp_update ON sample_set;
DROP FUNCTION public.sfp_first_look(bigint);
DROP POLICY sfp_delete ON sample_set;
ALTER TABLE sample_set DISABLE ROW LEVEL SECURITY;
DELETE FROM profile WHERE id IN (:one, :two);
DROP OWNED BY regress_calltree_face;
DROP ROLE regress_calltree_face;
