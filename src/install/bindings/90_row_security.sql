-- The record of row-level security: a row inserted into it is applied (a
-- restore), and every DDL command brings it up to date with the catalog.
-- Last of the install script, after every table is made; the record of a
-- fresh install is written here.
CREATE TRIGGER row_security_flags_apply BEFORE INSERT ON row_security_flags
    FOR EACH ROW EXECUTE FUNCTION row_security_apply();
CREATE TRIGGER row_security_policy_apply BEFORE INSERT ON row_security_policy
    FOR EACH ROW EXECUTE FUNCTION row_security_apply();
CREATE EVENT TRIGGER calltree_row_security ON ddl_command_end
    EXECUTE FUNCTION row_security_ddl_end();
SELECT record_row_security();
