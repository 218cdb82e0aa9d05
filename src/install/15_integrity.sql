-- The references of stack rows (to their prefix stack and their frame),
-- checked a statement at a time by triggers rather than row by row by
-- foreign keys: see src/integrity.c for why and how.

CREATE FUNCTION stack_insert_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_stack_insert_check' LANGUAGE C
-- index probes for the new rows, never a scan of the whole table
SET enable_hashjoin = off SET enable_mergejoin = off;

CREATE FUNCTION interned_delete_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_interned_delete_check' LANGUAGE C;

CREATE FUNCTION interned_refuse() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_interned_refuse' LANGUAGE C;

CREATE TRIGGER stack_insert_check AFTER INSERT ON stack
    REFERENCING NEW TABLE AS new_stacks
    FOR EACH STATEMENT EXECUTE FUNCTION stack_insert_check();
CREATE TRIGGER stack_delete_check AFTER DELETE ON stack
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION interned_delete_check();
CREATE TRIGGER frame_delete_check AFTER DELETE ON frame
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION interned_delete_check();
CREATE TRIGGER stack_update_refused BEFORE UPDATE ON stack
    FOR EACH STATEMENT EXECUTE FUNCTION interned_refuse();
CREATE TRIGGER frame_id_update_refused BEFORE UPDATE OF id ON frame
    FOR EACH STATEMENT EXECUTE FUNCTION interned_refuse();
CREATE TRIGGER frame_truncate_check BEFORE TRUNCATE ON frame
    FOR EACH STATEMENT EXECUTE FUNCTION interned_refuse();
