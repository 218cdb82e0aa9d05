-- The integrity triggers on the interned tables, on the sample tables
-- (sample_set, and sample_row) and on profile
-- (their functions: functions/15_integrity.sql).
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

CREATE TRIGGER sample_insert_check AFTER INSERT ON sample_row
    REFERENCING NEW TABLE AS new_samples
    FOR EACH STATEMENT EXECUTE FUNCTION sample_refs_check();
CREATE TRIGGER sample_update_check AFTER UPDATE ON sample_row
    REFERENCING NEW TABLE AS new_samples
    FOR EACH STATEMENT EXECUTE FUNCTION sample_refs_check();
CREATE TRIGGER sample_set_insert_check AFTER INSERT ON sample_set
    REFERENCING NEW TABLE AS new_sets
    FOR EACH STATEMENT EXECUTE FUNCTION sample_set_refs_check();
CREATE TRIGGER sample_set_update_check AFTER UPDATE ON sample_set
    REFERENCING NEW TABLE AS new_sets
    FOR EACH STATEMENT EXECUTE FUNCTION sample_set_refs_check();
CREATE TRIGGER profile_delete_cascade AFTER DELETE ON profile
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION profile_delete_cascade();
-- before any row goes: waits for the imports under way, which then
-- need not lock their label sets row by row (src/store/integrity.c)
CREATE TRIGGER labels_delete_hold BEFORE DELETE ON labels
    FOR EACH STATEMENT EXECUTE FUNCTION labels_delete_hold();
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
