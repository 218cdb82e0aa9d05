-- calltree 0.2 -> 0.3: what comes after the functions are replayed.

-- ---- partitions (issue 29, items 5 and 6): sample_set_default refuses
-- the sample sets of profile ids past the last window
-- (bindings/77_retention.sql).
CREATE TRIGGER sample_window_check BEFORE INSERT OR UPDATE OF profile_id ON sample_set_default
    FOR EACH ROW EXECUTE FUNCTION sample_window_check();

-- ==== Storage (issue 30): the checks of sample_set (as
-- bindings/15_integrity.sql), and the view calltree.sample with its
-- triggers (as bindings/37_sample_face.sql)
CREATE TRIGGER sample_set_insert_check AFTER INSERT ON sample_set
    REFERENCING NEW TABLE AS new_sets
    FOR EACH STATEMENT EXECUTE FUNCTION sample_set_refs_check();
CREATE TRIGGER sample_set_update_check AFTER UPDATE ON sample_set
    REFERENCING NEW TABLE AS new_sets
    FOR EACH STATEMENT EXECUTE FUNCTION sample_set_refs_check();

CREATE VIEW sample WITH (security_invoker = true) AS
SELECT s.profile_id, s.thread, u.ts, u.stack_id, u.weight, u.labels_id
  FROM (SELECT t.profile_id, t.thread, t.samples FROM @extschema@.sample_set t
        UNION ALL
        SELECT r.profile_id, r.thread, @extschema@.sample_of(r.stack_id, r.weight, r.ts, r.labels_id)
          FROM @extschema@.sample_row r) AS s
 CROSS JOIN LATERAL @extschema@.unnest(s.samples) AS u;
ALTER VIEW sample ALTER COLUMN weight SET DEFAULT 1;
COMMENT ON VIEW sample IS 'samples a row each: a stack and a weight (1, nanoseconds, bytes); ts in ns from profile start; read from sample_set, written into it';
CREATE TRIGGER sample_write INSTEAD OF INSERT OR UPDATE OR DELETE ON sample
    FOR EACH ROW EXECUTE FUNCTION sample_face_row();
CREATE TRIGGER _sample_write_sets AFTER INSERT OR UPDATE OR DELETE ON sample
    FOR EACH STATEMENT EXECUTE FUNCTION sample_face_write();

-- The row-level security a DBA put on the sample table of 0.2 (now
-- sample_row) holds on sample_set too: its flags, and each policy whose
-- expressions name only the columns both tables have.  A policy that
-- cannot be copied leaves sample_set closed to the roles it was for (row
-- security on, no policy of theirs), with a warning.
DO $$
DECLARE
    r record;
BEGIN
    IF (SELECT relrowsecurity FROM pg_class WHERE oid = '@extschema@.sample_row'::regclass) THEN
        ALTER TABLE @extschema@.sample_set ENABLE ROW LEVEL SECURITY;
    END IF;
    IF (SELECT relforcerowsecurity FROM pg_class WHERE oid = '@extschema@.sample_row'::regclass) THEN
        ALTER TABLE @extschema@.sample_set FORCE ROW LEVEL SECURITY;
    END IF;
    FOR r IN SELECT p.policyname, p.permissive, p.roles, p.cmd, p.qual, p.with_check
               FROM pg_policies p WHERE p.schemaname = '@extschema@' AND p.tablename = 'sample_row'
    LOOP
        BEGIN
            EXECUTE format('CREATE POLICY %I ON @extschema@.sample_set AS %s FOR %s TO %s%s%s',
                           r.policyname, r.permissive, r.cmd,
                           (SELECT string_agg(CASE WHEN x = 'public' THEN 'PUBLIC' ELSE quote_ident(x) END, ', ')
                              FROM unnest(r.roles) AS x),
                           CASE WHEN r.qual IS NULL THEN '' ELSE ' USING (' || r.qual || ')' END,
                           CASE WHEN r.with_check IS NULL THEN '' ELSE ' WITH CHECK (' || r.with_check || ')' END);
        EXCEPTION WHEN undefined_column OR undefined_function OR datatype_mismatch THEN
            ALTER TABLE @extschema@.sample_set ENABLE ROW LEVEL SECURITY;
            RAISE WARNING 'policy % of calltree.sample_row could not be copied to calltree.sample_set: %', r.policyname, SQLERRM
                USING HINT = 'Write it on calltree.sample_set by hand; until then the roles it was for see no sample set.';
        END;
    END LOOP;
END
$$;

-- ==== Backups: the record of row-level security (issue 29, item 7) ====
-- As bindings/90_row_security.sql; the record then holds the row-level
-- security and policies that a DBA put on the tables under 0.2.
CREATE TRIGGER row_security_flags_apply BEFORE INSERT ON row_security_flags
    FOR EACH ROW EXECUTE FUNCTION row_security_apply();
CREATE TRIGGER row_security_policy_apply BEFORE INSERT ON row_security_policy
    FOR EACH ROW EXECUTE FUNCTION row_security_apply();
CREATE EVENT TRIGGER calltree_row_security ON ddl_command_end
    EXECUTE FUNCTION row_security_ddl_end();
SELECT record_row_security();

-- ==== Storage (issue 30): privileges.  The view calltree.sample reads
-- sample_set and sample_row with its reader's privileges.  Roles that 0.2
-- granted privileges on its sample table (now sample_row) need them on
-- sample_set and on the view too; granted here, they would count as the
-- extension's own and be lost by a dump (pg_init_privs), so the update
-- says which to grant instead.
DO $$
DECLARE
    grants text;
BEGIN
    SELECT string_agg(DISTINCT format('GRANT %s ON calltree.sample_set, calltree.sample TO %s;', a.privilege_type,
                                      CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_get_userbyid(a.grantee)) END),
                      ' ')
      INTO grants
      FROM pg_class c, aclexplode(c.relacl) AS a
     WHERE c.oid = '@extschema@.sample_row'::regclass AND a.grantee <> c.relowner;
    IF grants IS NOT NULL THEN
        RAISE WARNING 'roles hold privileges on calltree.sample_row (0.2''s calltree.sample) but not on calltree.sample_set and the view calltree.sample'
            USING HINT = 'Grant them the same there: ' || grants;
    END IF;
END
$$;

-- ---- ingest (issue 30): a DELETE from labels waits for the imports under
-- way before it deletes a row, so they need not lock their label sets row
-- by row (as bindings/15_integrity.sql)
CREATE TRIGGER labels_delete_hold BEFORE DELETE ON labels
    FOR EACH STATEMENT EXECUTE FUNCTION labels_delete_hold();
