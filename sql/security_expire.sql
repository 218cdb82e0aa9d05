-- expire() under row-level security.  It empties a partition of
-- calltree.sample_set with TRUNCATE once every profile of the partition is
-- expirable; a role whose policies hide profiles sees only some of them,
-- and TRUNCATE ignores policies: it would empty the partition with the
-- hidden profiles' samples.  So expire() refuses to run for such a role.
-- Tenant b's profile is recent (never expirable), in a window of its own;
-- the role sees tenant a's profiles only, none of them in that window.
SET search_path = calltree, public;
\set SHOW_CONTEXT never
SELECT last_value AS seq_before FROM profile_id_seq \gset
SELECT new_sample_partition() AS window \gset
SELECT import_collapsed(E'sx_main;sx_work 3\n', 'sx tenant b', '{"tenant": "b"}') AS b \gset
UPDATE profile SET started_at = now() WHERE id = :b;

CREATE ROLE regress_calltree_expirer;
GRANT USAGE ON SCHEMA calltree TO regress_calltree_expirer;
GRANT ALL ON ALL TABLES IN SCHEMA calltree TO regress_calltree_expirer;
GRANT ALL ON ALL SEQUENCES IN SCHEMA calltree TO regress_calltree_expirer;
ALTER TABLE profile ENABLE ROW LEVEL SECURITY;
ALTER TABLE sample_set ENABLE ROW LEVEL SECURITY;
CREATE POLICY sx_tenant_a ON profile TO regress_calltree_expirer USING (meta->>'tenant' = 'a');
CREATE POLICY sx_tenant_a ON sample_set TO regress_calltree_expirer
    USING (EXISTS (SELECT FROM profile p WHERE p.id = profile_id));

SET ROLE regress_calltree_expirer;
SELECT count(*) AS profiles_seen FROM profile WHERE id = :b;
-- no rollup level may exist: its notice depends on the tests before
SET client_min_messages = warning;
SELECT * FROM expire('1 day');
RESET client_min_messages;
RESET ROLE;
-- tenant b's samples are all there (one line of collapsed text, one sample)
SELECT count(*) AS samples, sum(weight) AS weight FROM sample WHERE profile_id = :b;


-- clean up
DROP POLICY sx_tenant_a ON profile;
DROP POLICY sx_tenant_a ON sample_set;
ALTER TABLE profile DISABLE ROW LEVEL SECURITY;
ALTER TABLE sample_set DISABLE ROW LEVEL SECURITY;
DELETE FROM profile WHERE id = :b;
DROP TABLE :window;
SELECT setval('profile_id_seq', :seq_before) > 0 AS ids_back;
REVOKE ALL ON ALL TABLES IN SCHEMA calltree FROM regress_calltree_expirer;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA calltree FROM regress_calltree_expirer;
REVOKE USAGE ON SCHEMA calltree FROM regress_calltree_expirer;
DROP ROLE regress_calltree_expirer;
