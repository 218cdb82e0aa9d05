--------------------------------------------------------------------------
-- Integrity: the triggers that check the references between the tables.
-- The references of stack rows (to their prefix stack and their frame)
-- and of samples (to their profile and label set, and to their stack) are
-- checked a statement at a time by triggers rather than row by row by
-- foreign keys: src/store/integrity.c says why and how.  interned_refuse
-- refuses what such checks could not follow: an update of a stack or of
-- the id of a frame, profile or label set, and TRUNCATE of frame, profile
-- or labels.  frame.func_id stays a foreign key.  On Citus, which refuses
-- such triggers, distribute() (95_citus.sql) replaces those that read
-- other tables with the foreign keys they stand for.
--------------------------------------------------------------------------

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

CREATE FUNCTION sample_refs_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_sample_refs_check' LANGUAGE C;

CREATE FUNCTION profile_delete_cascade() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_profile_delete_cascade' LANGUAGE C;

CREATE FUNCTION labels_delete_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_labels_delete_check' LANGUAGE C;

CREATE TRIGGER sample_insert_check AFTER INSERT ON sample
    REFERENCING NEW TABLE AS new_samples
    FOR EACH STATEMENT EXECUTE FUNCTION sample_refs_check();
CREATE TRIGGER sample_update_check AFTER UPDATE ON sample
    REFERENCING NEW TABLE AS new_samples
    FOR EACH STATEMENT EXECUTE FUNCTION sample_refs_check();
CREATE TRIGGER profile_delete_cascade AFTER DELETE ON profile
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION profile_delete_cascade();
CREATE TRIGGER labels_delete_check AFTER DELETE ON labels
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION labels_delete_check();
CREATE TRIGGER profile_id_update_refused BEFORE UPDATE OF id ON profile
    FOR EACH STATEMENT EXECUTE FUNCTION interned_refuse();
CREATE TRIGGER labels_id_update_refused BEFORE UPDATE OF id ON labels
    FOR EACH STATEMENT EXECUTE FUNCTION interned_refuse();
CREATE TRIGGER profile_truncate_check BEFORE TRUNCATE ON profile
    FOR EACH STATEMENT EXECUTE FUNCTION interned_refuse();
CREATE TRIGGER labels_truncate_check BEFORE TRUNCATE ON labels
    FOR EACH STATEMENT EXECUTE FUNCTION interned_refuse();
