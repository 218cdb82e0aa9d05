-- calltree 0.2 -> 0.3, after the functions are replayed: the objects made
-- once that name new functions.

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
