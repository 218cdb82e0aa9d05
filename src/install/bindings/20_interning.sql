-- The intern lock's triggers (their function: functions/20_interning.sql).
CREATE TRIGGER func_intern_lock BEFORE INSERT OR UPDATE ON func
    FOR EACH STATEMENT EXECUTE FUNCTION intern_lock_trigger();
CREATE TRIGGER frame_intern_lock BEFORE INSERT OR UPDATE ON frame
    FOR EACH STATEMENT EXECUTE FUNCTION intern_lock_trigger();
CREATE TRIGGER stack_intern_lock BEFORE INSERT ON stack
    FOR EACH STATEMENT EXECUTE FUNCTION intern_lock_trigger();
CREATE TRIGGER labels_intern_lock BEFORE INSERT OR UPDATE ON labels
    FOR EACH STATEMENT EXECUTE FUNCTION intern_lock_trigger();
