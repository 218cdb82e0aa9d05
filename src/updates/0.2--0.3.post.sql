-- calltree 0.2 -> 0.3: what comes after the functions are replayed.

-- ---- partitions (issue 29, items 5 and 6): sample_default refuses the
-- samples of profile ids past the last window (bindings/77_retention.sql).
-- Those that 0.2 let in are moved by the next new_sample_partition().
CREATE TRIGGER sample_window_check BEFORE INSERT OR UPDATE OF profile_id ON sample_default
    FOR EACH ROW EXECUTE FUNCTION sample_window_check();

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
