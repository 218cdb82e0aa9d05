-- calltree 0.1 -> 0.2.  Every change of an SQL object between the two
-- versions, in the order of the install fragments (src/install/); a fresh
-- 0.2 install and an updated 0.1 must have the same catalog, which
-- test/t_upgrade.sh checks.
\echo Use "ALTER EXTENSION calltree UPDATE TO '0.2'" to load this file. \quit

-- Interned names of any length: func_key, frame_key and labels_key become
-- exclusion constraints over hash indexes (see src/install/10_tables.sql),
-- rebuilt here on the existing rows; the look-ups of the interning
-- functions are spelled as the new keys.
CREATE TYPE func_identity AS (name text, file text, resource text);
CREATE TYPE frame_identity AS (func_id int4, address bigint, line int4, col int4, implementation text);
ALTER TABLE func DROP CONSTRAINT func_key;
ALTER TABLE func ADD CONSTRAINT func_key
    EXCLUDE USING hash ((ROW(name, file, resource)::@extschema@.func_identity) WITH OPERATOR(pg_catalog.=));
CREATE INDEX func_name_idx ON func USING hash (name);
ALTER TABLE frame DROP CONSTRAINT frame_key;
ALTER TABLE frame ADD CONSTRAINT frame_key EXCLUDE USING hash
    ((ROW(func_id, address, line, col, implementation)::@extschema@.frame_identity) WITH OPERATOR(pg_catalog.=));
CREATE INDEX frame_func_idx ON frame (func_id);
ALTER TABLE labels DROP CONSTRAINT labels_key;
ALTER TABLE labels ADD CONSTRAINT labels_key EXCLUDE USING hash (labels WITH OPERATOR(pg_catalog.=));

CREATE OR REPLACE FUNCTION intern_func(name text, file text DEFAULT NULL, resource text DEFAULT NULL)
RETURNS int4
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found_id int4;
BEGIN
    IF intern_func.name IS NULL THEN
        RAISE EXCEPTION 'func name must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    FOR attempt IN 1 .. 3 LOOP
        -- spelled as func_key's expression, so that its index serves
        SELECT f.id INTO found_id FROM @extschema@.func f
         WHERE ROW(f.name, f.file, f.resource)::@extschema@.func_identity
               OPERATOR(pg_catalog.=)
               ROW(intern_func.name, intern_func.file, intern_func.resource)::@extschema@.func_identity;
        IF FOUND THEN
            RETURN found_id;
        END IF;
        INSERT INTO @extschema@.func AS f (name, file, resource)
        VALUES (intern_func.name, intern_func.file, intern_func.resource)
        ON CONFLICT ON CONSTRAINT func_key DO NOTHING
        RETURNING f.id INTO found_id;
        IF FOUND THEN
            RETURN found_id;
        END IF;
    END LOOP;
    -- A conflict with a row that the next look-up still cannot find, three
    -- times over: a row-level security policy hides that row from this role.
    RAISE EXCEPTION 'cannot intern func %: a row of calltree.func with this key exists, hidden from this role',
        intern_func.name
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Interning must see every row of calltree.func: exempt this role from its policies.';
END
$$;

CREATE OR REPLACE FUNCTION intern_frame(func int4, address bigint DEFAULT NULL, line int4 DEFAULT NULL,
                             col int4 DEFAULT NULL, implementation text DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found_id bigint;
BEGIN
    IF intern_frame.func IS NULL THEN
        RAISE EXCEPTION 'frame func must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    FOR attempt IN 1 .. 3 LOOP
        -- spelled as frame_key's expression, so that its index serves
        SELECT f.id INTO found_id FROM @extschema@.frame f
         WHERE ROW(f.func_id, f.address, f.line, f.col, f.implementation)::@extschema@.frame_identity
               OPERATOR(pg_catalog.=)
               ROW(intern_frame.func, intern_frame.address, intern_frame.line, intern_frame.col,
                   intern_frame.implementation)::@extschema@.frame_identity;
        IF FOUND THEN
            RETURN found_id;
        END IF;
        INSERT INTO @extschema@.frame AS f (func_id, address, line, col, implementation)
        VALUES (intern_frame.func, intern_frame.address, intern_frame.line,
                intern_frame.col, intern_frame.implementation)
        ON CONFLICT ON CONSTRAINT frame_key DO NOTHING
        RETURNING f.id INTO found_id;
        IF FOUND THEN
            RETURN found_id;
        END IF;
    END LOOP;
    -- A conflict with a row that the next look-up still cannot find, three
    -- times over: a row-level security policy hides that row from this role.
    RAISE EXCEPTION 'cannot intern frame %: a row of calltree.frame with this key exists, hidden from this role',
        pg_catalog.concat_ws(' ', intern_frame.func, intern_frame.address, intern_frame.line, intern_frame.col, intern_frame.implementation)
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Interning must see every row of calltree.frame: exempt this role from its policies.';
END
$$;

CREATE OR REPLACE FUNCTION intern_labels(labels jsonb)
RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found_id bigint;
BEGIN
    FOR attempt IN 1 .. 3 LOOP
        SELECT l.id INTO found_id FROM @extschema@.labels l
         WHERE l.labels OPERATOR(pg_catalog.=) intern_labels.labels;
        IF FOUND THEN
            RETURN found_id;
        END IF;
        INSERT INTO @extschema@.labels AS l (labels) VALUES (intern_labels.labels)
        ON CONFLICT ON CONSTRAINT labels_key DO NOTHING
        RETURNING l.id INTO found_id;
        IF FOUND THEN
            RETURN found_id;
        END IF;
    END LOOP;
    -- A conflict with a row that the next look-up still cannot find, three
    -- times over: a row-level security policy hides that row from this role.
    RAISE EXCEPTION 'cannot intern label set %: a row of calltree.labels with this key exists, hidden from this role',
        intern_labels.labels
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Interning must see every row of calltree.labels: exempt this role from its policies.';
END
$$;


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


-- Reading cost bounded: report() walks the tree in C, in one pass (the SQL
-- version evaluated total() once per row, which made it quadratic).
CREATE OR REPLACE FUNCTION report(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT calls bigint,
    OUT name text, OUT running_pct numeric, OUT self_pct numeric, OUT label text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_report'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;

-- The interning functions retry a conflict at most three times, then say
-- that a policy hides the conflicting row, instead of retrying forever.
CREATE OR REPLACE FUNCTION intern_stack(prefix bigint, frame bigint)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found_id bigint;
BEGIN
    IF intern_stack.frame IS NULL THEN
        RAISE EXCEPTION 'stack frame must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    FOR attempt IN 1 .. 3 LOOP
        -- Two spellings so that both use the (prefix_id, frame_id) index.
        IF intern_stack.prefix IS NULL THEN
            SELECT s.id INTO found_id FROM @extschema@.stack s
             WHERE s.prefix_id IS NULL AND s.frame_id = intern_stack.frame;
        ELSE
            SELECT s.id INTO found_id FROM @extschema@.stack s
             WHERE s.prefix_id = intern_stack.prefix AND s.frame_id = intern_stack.frame;
        END IF;
        IF FOUND THEN
            RETURN found_id;
        END IF;
        INSERT INTO @extschema@.stack AS s (prefix_id, frame_id)
        VALUES (intern_stack.prefix, intern_stack.frame)
        ON CONFLICT ON CONSTRAINT stack_key DO NOTHING
        RETURNING s.id INTO found_id;
        IF FOUND THEN
            RETURN found_id;
        END IF;
    END LOOP;
    -- A conflict with a row that the next look-up still cannot find, three
    -- times over: a row-level security policy hides that row from this role.
    RAISE EXCEPTION 'cannot intern stack %: a row of calltree.stack with this key exists, hidden from this role',
        pg_catalog.concat_ws(' ', intern_stack.prefix, intern_stack.frame)
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'Interning must see every row of calltree.stack: exempt this role from its policies.';
END
$$;
