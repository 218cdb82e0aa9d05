-- calltree 0.1 -> 0.2.  Every change of an SQL object between the two
-- versions, in the order of the install fragments (src/install/); a fresh
-- 0.2 install and an updated 0.1 must have the same catalog, which
-- test/t_upgrade.sh checks.
\echo Use "ALTER EXTENSION calltree UPDATE TO '0.2'" to load this file. \quit

-- Concurrent writers of interned rows: one intern lock instead of advisory
-- locks that any role could take (src/intern_lock.c).
-- One writer of new interned rows at a time, so that two never wait for
-- each other's rows (a deadlock).  Not an advisory lock: no role without
-- INSERT on an interned table can take it.
CREATE FUNCTION intern_lock() RETURNS void
AS 'MODULE_PATHNAME', 'calltree_intern_lock'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION intern_lock() IS 'takes the lock that writers of interned rows hold until their transaction ends; needs INSERT on func, frame, stack or labels';

CREATE FUNCTION intern_lock_trigger() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_intern_lock_trigger' LANGUAGE C;

CREATE TRIGGER func_intern_lock BEFORE INSERT OR UPDATE ON func
    FOR EACH STATEMENT EXECUTE FUNCTION intern_lock_trigger();
CREATE TRIGGER frame_intern_lock BEFORE INSERT OR UPDATE ON frame
    FOR EACH STATEMENT EXECUTE FUNCTION intern_lock_trigger();
CREATE TRIGGER stack_intern_lock BEFORE INSERT ON stack
    FOR EACH STATEMENT EXECUTE FUNCTION intern_lock_trigger();
CREATE TRIGGER labels_intern_lock BEFORE INSERT OR UPDATE ON labels
    FOR EACH STATEMENT EXECUTE FUNCTION intern_lock_trigger();

CREATE OR REPLACE FUNCTION intern_address(resource text, address bigint)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found_id bigint;
BEGIN
    IF intern_address.resource IS NULL OR intern_address.address IS NULL THEN
        RAISE EXCEPTION 'address frame resource and address must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- A frame found keeps its id when symbolicate() moves it.  A new one is
    -- named under the intern lock, which symbolicate() takes too: either
    -- symbolicate() committed before, and the name comes from its symbols,
    -- or it runs after our commit and sees the frame.  Look again under
    -- the lock (a new snapshot): another session may have made the frame
    -- while we waited.
    FOR attempt IN 1 .. 2 LOOP
        SELECT fr.id INTO found_id
          FROM @extschema@.frame fr JOIN @extschema@.func f ON f.id = fr.func_id
         WHERE fr.address = intern_address.address AND fr.implementation = 'address'
           AND fr.line IS NULL AND fr.col IS NULL
           AND f.resource = intern_address.resource;
        IF FOUND THEN
            RETURN found_id;
        END IF;
        IF attempt = 1 THEN
            PERFORM @extschema@.intern_lock();
        END IF;
    END LOOP;
    RETURN @extschema@.intern_frame(
        @extschema@.intern_func(@extschema@.address_name(intern_address.resource, intern_address.address),
                                NULL, intern_address.resource),
        intern_address.address, NULL, NULL, 'address');
END
$$;

DROP FUNCTION symbol_lock_key(text);
