-- calltree 0.1 -> 0.2.  Every change of an SQL object between the two
-- versions, in the order of the install fragments (src/install/); a fresh
-- 0.2 install and an updated 0.1 must have the same catalog, which
-- test/t_upgrade.sh checks.
\echo Use "ALTER EXTENSION calltree UPDATE TO '0.2'" to load this file. \quit

-- Ingest: the backends' caches of interned ids (src/intern_cache.c), told
-- when interned rows change.

CREATE FUNCTION intern_cache_invalidate() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_intern_cache_invalidate' LANGUAGE C;

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
