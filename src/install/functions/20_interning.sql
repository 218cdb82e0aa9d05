--------------------------------------------------------------------------
-- Interning: the functions that give a func, frame, stack or label set
-- its id, making the row when it is new, and stack_path, which reads a
-- stack back as its func path.
--
-- Look first (the common case, no write), then insert with ON CONFLICT DO
-- NOTHING.  Every statement that writes interned rows first takes the
-- intern lock (src/store/intern_lock.c), held until its transaction ends:
-- a concurrent session that is inserting the same key makes us wait for
-- its commit, and the next look (a new snapshot under READ COMMITTED)
-- finds its row.  Under REPEATABLE READ the insert raises a serialization
-- failure instead, which the caller retries.
--------------------------------------------------------------------------

-- One writer of new interned rows at a time, so that two never wait for
-- each other's rows (a deadlock).  Not an advisory lock: no role without
-- INSERT on an interned table can take it.
CREATE OR REPLACE FUNCTION intern_lock() RETURNS void
AS 'MODULE_PATHNAME', 'calltree_intern_lock'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION intern_lock() IS 'takes the lock that writers of interned rows hold until their transaction ends; needs INSERT on func, frame, stack or labels';

CREATE OR REPLACE FUNCTION intern_lock_trigger() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_intern_lock_trigger' LANGUAGE C;

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

CREATE OR REPLACE FUNCTION intern_stack(names text[])
RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    stack_id bigint := NULL;
    i int;
BEGIN
    IF array_ndims(names) > 1 THEN
        RAISE EXCEPTION 'stack names must be a one-dimensional array'
            USING ERRCODE = 'array_subscript_error';
    END IF;
    -- The first lock on the tables, which may wait for a DROP EXTENSION
    -- open in another session, taken before the loop's expression calls
    -- the functions it found when planned: once the wait ends, they could
    -- be dropped (cache lookup failed for function), and the expression is
    -- planned again on the new ones.
    PERFORM FROM @extschema@.stack s WHERE false;
    FOR i IN 1 .. coalesce(array_length(names, 1), 0) LOOP
        IF names[i] IS NULL THEN
            RAISE EXCEPTION 'stack names must not contain nulls'
                USING ERRCODE = 'null_value_not_allowed',
                      DETAIL = format('Element %s of %s is null.', i, array_length(names, 1));
        END IF;
        stack_id := @extschema@.intern_stack(
            stack_id, @extschema@.intern_frame(@extschema@.intern_func(names[i])));
    END LOOP;
    RETURN stack_id;
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

COMMENT ON FUNCTION intern_stack(text[]) IS 'interns a stack of func names, root first; NULL for an empty array';

CREATE OR REPLACE FUNCTION stack_path(stack bigint)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'calltree_stack_path'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION stack_path(bigint) IS 'the func path of a stack, root first';
