-- The intern cache's triggers (their function: functions/16_intern_cache.sql).
CREATE TRIGGER func_changed BEFORE UPDATE OR DELETE OR TRUNCATE ON func
    FOR EACH STATEMENT EXECUTE FUNCTION intern_cache_invalidate();
CREATE TRIGGER frame_changed BEFORE UPDATE OR DELETE OR TRUNCATE ON frame
    FOR EACH STATEMENT EXECUTE FUNCTION intern_cache_invalidate();
CREATE TRIGGER stack_changed BEFORE UPDATE OR DELETE OR TRUNCATE ON stack
    FOR EACH STATEMENT EXECUTE FUNCTION intern_cache_invalidate();
CREATE TRIGGER labels_changed BEFORE UPDATE OR DELETE OR TRUNCATE ON labels
    FOR EACH STATEMENT EXECUTE FUNCTION intern_cache_invalidate();
-- also under session_replication_role = replica, where integrity checks do not run
ALTER TABLE func ENABLE ALWAYS TRIGGER func_changed;
ALTER TABLE frame ENABLE ALWAYS TRIGGER frame_changed;
ALTER TABLE stack ENABLE ALWAYS TRIGGER stack_changed;
ALTER TABLE labels ENABLE ALWAYS TRIGGER labels_changed;
