-- calltree 0.1: tables, interning, the calltree type and its aggregates.
\echo Use "CREATE EXTENSION calltree" to load this file. \quit

--------------------------------------------------------------------------
-- Tables.  Funcs, frames and stacks are interned and shared by every
-- profile.  Ids come from plain sequences (CACHE 1, so that an id handed out
-- later is always larger: `prefix_id < id` relies on it).  Every table and
-- sequence is marked for pg_dump, which then dumps their rows and values.
--------------------------------------------------------------------------

CREATE SEQUENCE profile_id_seq;
CREATE TABLE profile (
    id          bigint PRIMARY KEY DEFAULT nextval('@extschema@.profile_id_seq'),
    name        text,
    format      text,
    started_at  timestamptz,
    weight_unit text NOT NULL DEFAULT 'samples',
    meta        jsonb NOT NULL DEFAULT '{}',
    imported_at timestamptz NOT NULL DEFAULT now()
);
ALTER SEQUENCE profile_id_seq OWNED BY profile.id;
COMMENT ON TABLE profile IS 'one row per imported profile; meta holds build id, host, service, commit';

CREATE SEQUENCE func_id_seq AS int4;
CREATE TABLE func (
    id       int4 PRIMARY KEY DEFAULT nextval('@extschema@.func_id_seq'),
    name     text NOT NULL,
    file     text,
    resource text,
    CONSTRAINT func_key UNIQUE NULLS NOT DISTINCT (name, file, resource)
);
ALTER SEQUENCE func_id_seq OWNED BY func.id;
COMMENT ON TABLE func IS 'interned functions: the nodes of call trees are funcs';

CREATE SEQUENCE frame_id_seq;
CREATE TABLE frame (
    id             bigint PRIMARY KEY DEFAULT nextval('@extschema@.frame_id_seq'),
    func_id        int4 NOT NULL REFERENCES func (id),
    address        bigint,
    line           int4,
    col            int4,
    implementation text,
    CONSTRAINT frame_key UNIQUE NULLS NOT DISTINCT (func_id, address, line, col, implementation)
);
ALTER SEQUENCE frame_id_seq OWNED BY frame.id;
COMMENT ON TABLE frame IS 'interned frames: many frames (addresses, lines, JIT tiers) share a func';

CREATE SEQUENCE stack_id_seq;
CREATE TABLE stack (
    id        bigint PRIMARY KEY DEFAULT nextval('@extschema@.stack_id_seq'),
    prefix_id bigint,           -- a stack; checked by stack_insert_check
    frame_id  bigint NOT NULL,  -- a frame; likewise
    -- INCLUDE (id): imports find known stacks by index-only reads
    CONSTRAINT stack_key UNIQUE NULLS NOT DISTINCT (prefix_id, frame_id) INCLUDE (id),
    CONSTRAINT stack_prefix_before CHECK (prefix_id < id)
);
ALTER SEQUENCE stack_id_seq OWNED BY stack.id;
COMMENT ON TABLE stack IS 'interned stacks, prefix-linked: a stack is its leaf frame on top of its prefix stack';

CREATE SEQUENCE labels_id_seq;
CREATE TABLE labels (
    id     bigint PRIMARY KEY DEFAULT nextval('@extschema@.labels_id_seq'),
    labels jsonb NOT NULL,
    CONSTRAINT labels_key UNIQUE (labels)
);
ALTER SEQUENCE labels_id_seq OWNED BY labels.id;
COMMENT ON TABLE labels IS 'interned label sets (pprof tags, Pyroscope labels)';

CREATE TABLE sample (
    profile_id bigint NOT NULL, -- a profile; checked by sample_refs_check, deleted with it
    thread     text,
    ts         bigint,
    stack_id   bigint NOT NULL REFERENCES stack (id), -- checked by sample_refs_check (see 15_integrity.sql)
    weight     bigint NOT NULL DEFAULT 1,
    labels_id  bigint           -- a label set; checked by sample_refs_check
);
CREATE INDEX sample_profile_idx ON sample (profile_id, thread, ts);
COMMENT ON TABLE sample IS 'samples: a stack and a weight (1, nanoseconds, bytes); ts in ns from profile start';

SELECT pg_catalog.pg_extension_config_dump('profile', '');
SELECT pg_catalog.pg_extension_config_dump('profile_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('func', '');
SELECT pg_catalog.pg_extension_config_dump('func_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('frame', '');
SELECT pg_catalog.pg_extension_config_dump('frame_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('stack', '');
SELECT pg_catalog.pg_extension_config_dump('stack_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('labels', '');
SELECT pg_catalog.pg_extension_config_dump('labels_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('sample', '');
-- The references of stack rows (to their prefix stack and their frame) and
-- of samples (to their profile and label set), checked a statement at a
-- time by triggers rather than row by row by foreign keys: see
-- src/integrity.c for why and how, also of the samples' stacks.
-- frame.func_id stays a foreign key.

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

-- sample.stack_id stays declared a foreign key, because pg_dump restores the
-- data of extension tables in the order of their foreign keys (stacks before
-- samples), but its row-level triggers are off: sample_insert_check,
-- sample_update_check and stack_delete_check check it a statement at a time.
DO $$
DECLARE
    trigger record;
BEGIN
    FOR trigger IN
        SELECT t.tgname, t.tgrelid::regclass AS rel
        FROM pg_catalog.pg_trigger t
        JOIN pg_catalog.pg_constraint c ON c.oid = t.tgconstraint
        WHERE c.conrelid = '@extschema@.sample'::regclass AND c.contype = 'f'
          AND c.confrelid = '@extschema@.stack'::regclass
    LOOP
        EXECUTE format('ALTER TABLE %s DISABLE TRIGGER %I', trigger.rel, trigger.tgname);
    END LOOP;
END
$$;
--------------------------------------------------------------------------
-- Interning.  Look first (the common case, no write), then insert with
-- ON CONFLICT DO NOTHING; a concurrent session that inserted the same key
-- makes us wait for its commit, and the next look (a new snapshot under
-- READ COMMITTED) finds its row.  Under REPEATABLE READ the insert raises a
-- serialization failure instead, which the caller retries.
--------------------------------------------------------------------------

CREATE FUNCTION intern_func(name text, file text DEFAULT NULL, resource text DEFAULT NULL)
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
    LOOP
        SELECT f.id INTO found_id FROM @extschema@.func f
         WHERE f.name = intern_func.name
           AND f.file IS NOT DISTINCT FROM intern_func.file
           AND f.resource IS NOT DISTINCT FROM intern_func.resource;
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
END
$$;

CREATE FUNCTION intern_frame(func int4, address bigint DEFAULT NULL, line int4 DEFAULT NULL,
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
    LOOP
        SELECT f.id INTO found_id FROM @extschema@.frame f
         WHERE f.func_id = intern_frame.func
           AND f.address IS NOT DISTINCT FROM intern_frame.address
           AND f.line IS NOT DISTINCT FROM intern_frame.line
           AND f.col IS NOT DISTINCT FROM intern_frame.col
           AND f.implementation IS NOT DISTINCT FROM intern_frame.implementation;
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
END
$$;

CREATE FUNCTION intern_stack(prefix bigint, frame bigint)
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
    LOOP
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
END
$$;

CREATE FUNCTION intern_stack(names text[])
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

CREATE FUNCTION intern_labels(labels jsonb)
RETURNS bigint
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found_id bigint;
BEGIN
    LOOP
        SELECT l.id INTO found_id FROM @extschema@.labels l WHERE l.labels = intern_labels.labels;
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
END
$$;

COMMENT ON FUNCTION intern_stack(text[]) IS 'interns a stack of func names, root first; NULL for an empty array';

CREATE FUNCTION stack_path(stack bigint)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'calltree_stack_path'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION stack_path(bigint) IS 'the func path of a stack, root first';
--------------------------------------------------------------------------
-- The calltree type
--------------------------------------------------------------------------

CREATE TYPE calltree;

CREATE FUNCTION calltree_in(cstring) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_out(calltree) RETURNS cstring
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_recv(internal) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_send(calltree) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE calltree (
    INPUT          = calltree_in,
    OUTPUT         = calltree_out,
    RECEIVE        = calltree_recv,
    SEND           = calltree_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT      = double,
    STORAGE        = extended
);

COMMENT ON TYPE calltree IS 'an aggregated call tree: func paths with running and self weights';

CREATE FUNCTION calltree_eq(calltree, calltree) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION calltree_ne(calltree, calltree) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION calltree_hash(calltree) RETURNS int4
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_add(calltree, calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR = (
    LEFTARG = calltree, RIGHTARG = calltree, PROCEDURE = calltree_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR <> (
    LEFTARG = calltree, RIGHTARG = calltree, PROCEDURE = calltree_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR + (
    LEFTARG = calltree, RIGHTARG = calltree, PROCEDURE = calltree_add,
    COMMUTATOR = +
);

CREATE OPERATOR CLASS calltree_hash_ops
DEFAULT FOR TYPE calltree USING hash AS
    OPERATOR 1 = (calltree, calltree),
    FUNCTION 1 calltree_hash(calltree);
--------------------------------------------------------------------------
-- Aggregates.  All share one shape: an internal state in the aggregate's
-- memory context, a combine function for partial aggregation, and
-- (de)serialization to bytea so parallel workers can hand states over.
--------------------------------------------------------------------------

-- calltree_agg and calltree_merge build the same state: a tree under
-- construction.
CREATE FUNCTION calltree_agg_transfn(internal, int4[], bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_agg_transfn(internal, int4[]) RETURNS internal
AS 'MODULE_PATHNAME', 'calltree_agg_transfn_unit' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_merge_transfn(internal, calltree) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_agg_combinefn(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_agg_serialfn(internal) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_agg_deserialfn(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_agg_finalfn(internal) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE calltree_agg(path int4[], weight bigint) (
    SFUNC = calltree_agg_transfn, STYPE = internal,
    FINALFUNC = calltree_agg_finalfn,
    COMBINEFUNC = calltree_agg_combinefn,
    SERIALFUNC = calltree_agg_serialfn, DESERIALFUNC = calltree_agg_deserialfn,
    PARALLEL = SAFE
);
CREATE AGGREGATE calltree_agg(path int4[]) (
    SFUNC = calltree_agg_transfn, STYPE = internal,
    FINALFUNC = calltree_agg_finalfn,
    COMBINEFUNC = calltree_agg_combinefn,
    SERIALFUNC = calltree_agg_serialfn, DESERIALFUNC = calltree_agg_deserialfn,
    PARALLEL = SAFE
);
CREATE AGGREGATE calltree_merge(calltree) (
    SFUNC = calltree_merge_transfn, STYPE = internal,
    FINALFUNC = calltree_agg_finalfn,
    COMBINEFUNC = calltree_agg_combinefn,
    SERIALFUNC = calltree_agg_serialfn, DESERIALFUNC = calltree_agg_deserialfn,
    PARALLEL = SAFE
);

-- stack_agg sums weights per stack id; the final function resolves each
-- distinct stack to its func path once, through the stack table.
CREATE FUNCTION stack_agg_transfn(internal, bigint, bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION stack_agg_transfn(internal, bigint) RETURNS internal
AS 'MODULE_PATHNAME', 'stack_agg_transfn_unit' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION stack_agg_combinefn(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION stack_agg_serialfn(internal) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_agg_deserialfn(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_agg_finalfn(internal) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;

CREATE AGGREGATE stack_agg(stack_id bigint, weight bigint) (
    SFUNC = stack_agg_transfn, STYPE = internal,
    FINALFUNC = stack_agg_finalfn,
    COMBINEFUNC = stack_agg_combinefn,
    SERIALFUNC = stack_agg_serialfn, DESERIALFUNC = stack_agg_deserialfn,
    PARALLEL = SAFE
);
CREATE AGGREGATE stack_agg(stack_id bigint) (
    SFUNC = stack_agg_transfn, STYPE = internal,
    FINALFUNC = stack_agg_finalfn,
    COMBINEFUNC = stack_agg_combinefn,
    SERIALFUNC = stack_agg_serialfn, DESERIALFUNC = stack_agg_deserialfn,
    PARALLEL = SAFE
);
--------------------------------------------------------------------------
-- Reading trees
--------------------------------------------------------------------------

CREATE FUNCTION nodes(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT calls bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_nodes'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION nodes(calltree) IS 'the CallNodes of a tree in depth-first preorder, siblings by running desc then func';

CREATE FUNCTION functions(tree calltree,
    OUT func int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_functions'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION functions(calltree) IS 'per func: running (each sample once, even under recursion) and self';

CREATE FUNCTION total(tree calltree) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_total'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION report(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT calls bigint,
    OUT name text, OUT running_pct numeric, OUT self_pct numeric, OUT label text)
RETURNS SETOF record
LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 1000
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT n.node, n.parent, n.depth, n.func, n.path, n.running, n.self, n.calls,
           coalesce(f.name, '#' || n.func) AS name,
           round(100.0 * n.running / nullif(t.total, 0), 2) AS running_pct,
           round(100.0 * n.self / nullif(t.total, 0), 2) AS self_pct,
           repeat('  ', n.depth) || coalesce(f.name, '#' || n.func) AS label
      FROM @extschema@.nodes(tree) AS n
      CROSS JOIN (SELECT @extschema@.total(tree) AS total) AS t
      LEFT JOIN @extschema@.func AS f ON f.id = n.func
     ORDER BY n.node
$$;

COMMENT ON FUNCTION report(calltree) IS 'nodes() with func names, percentages of the total and an indented label';
--------------------------------------------------------------------------
-- Transforms.  Each exists twice with one meaning: on a func path
-- (int4[] → int4[], NULL when the sample is dropped, so that
-- calltree_agg(transform(path), weight) applies it sample by sample) and on
-- a tree (calltree → calltree, applied to the aggregated tree).
--------------------------------------------------------------------------

CREATE FUNCTION merge_call_node(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_call_node_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_call_node(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_call_node_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_call_node(calltree, int4[]) IS 'removes one CallNode: its self weight and its children go to its parent';

CREATE FUNCTION merge_function(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_function_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_function(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_function_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_function(calltree, int4) IS 'removes every CallNode of the function: self weight and children go to the parent';

CREATE FUNCTION merge_functions(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_functions_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_functions(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_functions_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_functions(calltree, int4[]) IS 'merge_function for several functions at once';

CREATE FUNCTION merge_subtree(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_subtree_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_subtree(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_subtree_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_subtree(calltree, int4[]) IS 'prunes a CallNode: its whole running weight becomes self weight of its parent';

CREATE FUNCTION collapse_function_subtree(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_function_subtree_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_function_subtree(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_function_subtree_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_function_subtree(calltree, int4) IS 'everything below the function is charged to it as self weight';

CREATE FUNCTION hide_call_node(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'hide_call_node_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hide_call_node(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'hide_call_node_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hide_call_node(calltree, int4[]) IS 'drops the samples that pass through the CallNode';

CREATE FUNCTION drop_function(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'drop_function_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION drop_function(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'drop_function_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION drop_function(calltree, int4) IS 'drops every sample that contains the function';

CREATE FUNCTION focus_subtree(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_subtree_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION focus_subtree(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_subtree_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_subtree(calltree, int4[]) IS 'keeps the samples through the CallNode, which becomes the root';

CREATE FUNCTION focus_function(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_function_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION focus_function(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_function_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_function(calltree, int4) IS 'keeps the samples that contain the function, cut to start at its outermost call';

CREATE FUNCTION collapse_direct_recursion(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_direct_recursion(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_direct_recursion(calltree, int4) IS 'the function calling itself directly becomes one call';

CREATE FUNCTION collapse_recursion(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_recursion_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_recursion(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_recursion_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_recursion(calltree, int4) IS 'removes everything between the outermost and the innermost call of the function';

CREATE FUNCTION remap_functions(path int4[], "from" int4[], "to" int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'remap_functions_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION remap_functions(tree calltree, "from" int4[], "to" int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'remap_functions_tree' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION remap_functions(calltree, int4[], int4[]) IS 'renames funcs, then merges a renamed func into an equal caller or callee';

CREATE FUNCTION invert(path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'invert_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION invert(tree calltree) RETURNS calltree
AS 'MODULE_PATHNAME', 'invert_tree_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION invert(calltree) IS 'the bottom-up tree: roots are the functions that hold self weight';

-- Operators, each the twin of one call-node transform:
--   path %> node   focus_subtree      (keep what is under the node, rooted at it)
--   path %! node   hide_call_node     (drop what passes through the node)
--   path %- node   merge_call_node    (remove the node, keep what is under it)
-- The % family clashes neither with the array operators nor with intarray's.
CREATE OPERATOR %> (LEFTARG = int4[], RIGHTARG = int4[], FUNCTION = focus_subtree);
CREATE OPERATOR %! (LEFTARG = int4[], RIGHTARG = int4[], FUNCTION = hide_call_node);
CREATE OPERATOR %- (LEFTARG = int4[], RIGHTARG = int4[], FUNCTION = merge_call_node);
CREATE OPERATOR %> (LEFTARG = calltree, RIGHTARG = int4[], FUNCTION = focus_subtree);
CREATE OPERATOR %! (LEFTARG = calltree, RIGHTARG = int4[], FUNCTION = hide_call_node);
CREATE OPERATOR %- (LEFTARG = calltree, RIGHTARG = int4[], FUNCTION = merge_call_node);
--------------------------------------------------------------------------
-- Analyses (JProfiler's call tree analyses, the butterfly)
--------------------------------------------------------------------------

CREATE FUNCTION callers(tree calltree, func int4,
    OUT caller int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callers'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callers(calltree, int4) IS 'direct callers of a function (NULL: called as a root), each sample counted once per caller';

CREATE FUNCTION callees(tree calltree, func int4,
    OUT callee int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callees'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callees(calltree, int4) IS 'direct callees of a function, each sample counted once per callee';

CREATE FUNCTION outgoing_calls(tree calltree, func int4,
    OUT call_sites bigint, OUT outgoing calltree)
RETURNS record
AS 'MODULE_PATHNAME', 'calltree_outgoing_calls'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION outgoing_calls(calltree, int4) IS 'all top-level calls of a function summed into one tree rooted at it, and how many call sites were summed';

CREATE FUNCTION backtraces(tree calltree, func int4, mode text DEFAULT 'total')
RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_backtraces'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION backtraces(calltree, int4, text) IS 'the call paths into a function, read upwards from it; mode total (cut at its outermost call) or self (samples where it is the leaf)';

CREATE FUNCTION collapse_recursions(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT recursions bigint, OUT merged_stacks bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_collapse_recursions'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION collapse_recursions(calltree) IS 'the tree with every recursion stitched back to the first call of its function, with per node the recursions stitched to it and the original nodes merged into it';
--------------------------------------------------------------------------
-- Formats.  Each importer returns the new profile's id; the import commits
-- whole with the caller's transaction or leaves nothing behind.
--------------------------------------------------------------------------

CREATE FUNCTION import_collapsed(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                                 strict boolean DEFAULT true)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_collapsed'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_collapsed(text, text, jsonb, boolean) IS 'imports collapsed stacks ("a;b;c 42" lines); returns the profile id';

CREATE FUNCTION import_pprof(data bytea, sample_type text DEFAULT NULL, name text DEFAULT NULL,
                             meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_pprof'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_pprof(bytea, text, text, jsonb) IS 'imports a pprof profile (gzip-compressed or raw protobuf), one sample type (default: the profile''s default, else the last); returns the profile id';
--------------------------------------------------------------------------
-- JSON formats: V8/Chrome .cpuprofile and speedscope files, parsed with
-- PostgreSQL's own JSON parser; speedscope files out.
--------------------------------------------------------------------------

CREATE FUNCTION import_cpuprofile(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_cpuprofile'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_cpuprofile(text, text, jsonb) IS 'imports a V8/Chrome/Node .cpuprofile (weights in ns, samples keep their ts); returns the profile id';

CREATE FUNCTION import_speedscope(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_speedscope'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_speedscope(text, text, jsonb) IS 'imports a speedscope file (sampled and evented profiles, one thread each); returns the profile id';

CREATE FUNCTION to_speedscope(tree calltree, name text DEFAULT NULL)
RETURNS json
AS 'MODULE_PATHNAME', 'calltree_to_speedscope'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION to_speedscope(calltree, text) IS 'a speedscope file with one sampled profile: one sample per node with self weight';

CREATE FUNCTION import_firefox(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_firefox'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_firefox(text, text, jsonb) IS 'imports a Firefox Profiler profile (Gecko or processed format); returns the profile id';
--------------------------------------------------------------------------
-- Symbolication (seed 002).  A frame known only by its address in a
-- resource (a library, ideally named with its build id) gets a func of its
-- own, named by the address in hex ('0x7f3a12'), until symbols arrive;
-- symbolicate() then moves such frames to the funcs of their symbols.
--
-- Address frames are the frames whose implementation is 'address'.  The
-- mark keeps them apart from frames an importer created with the symbol
-- already known: after symbolication both may have the same func and
-- address, and as distinct rows (a frame is unique on func, address, line,
-- col and implementation) neither the frame rows nor the stacks that point
-- at them ever need merging.  Both kinds resolve to the same func, so call
-- trees are the same.
--
-- Symbols are kept per resource, so that a symbol table may arrive in
-- several parts in any order, and so that an address interned after
-- symbolication gets its symbol's func at once.  Addresses are unsigned
-- 64-bit values stored in bigint (kernel addresses are negative numbers);
-- they are compared as unsigned: the non-negative bigints come first, then
-- the negative ones.
--------------------------------------------------------------------------

CREATE TABLE symbol (
    resource text NOT NULL,
    start    bigint NOT NULL,
    name     text NOT NULL,
    CONSTRAINT symbol_key PRIMARY KEY (resource, start)
);
COMMENT ON TABLE symbol IS 'symbol tables received by symbolicate(), per resource: start address and name';
SELECT pg_catalog.pg_extension_config_dump('symbol', '');

CREATE INDEX frame_address_idx ON frame (address) WHERE implementation = 'address';

-- The lock that intern_address() takes shared and symbolicate() exclusive.
CREATE FUNCTION symbol_lock_key(resource text) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.hashtextextended('calltree.symbols ' || resource, 0);

-- The name of the func an address frame gets: the symbol with the highest
-- start not above the address, in unsigned order (two ranges of the
-- primary key, so no sort), else the address in hex.  PL/pgSQL, so that
-- its plans are kept from call to call (an SQL function with SET is
-- planned again at every call).
CREATE FUNCTION address_name(resource text, address bigint)
RETURNS text
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    symbol_name text;
BEGIN
    SELECT s.name INTO symbol_name FROM @extschema@.symbol s
     WHERE s.resource = address_name.resource AND s.start <= address_name.address
       AND (s.start >= 0 OR address_name.address < 0)
     ORDER BY s.start DESC LIMIT 1;
    IF NOT FOUND AND address_name.address < 0 THEN
        SELECT s.name INTO symbol_name FROM @extschema@.symbol s
         WHERE s.resource = address_name.resource AND s.start >= 0
         ORDER BY s.start DESC LIMIT 1;
    END IF;
    RETURN coalesce(symbol_name, '0x' || to_hex(address_name.address));
END
$$;
COMMENT ON FUNCTION address_name(text, bigint) IS 'the func name of an address frame: its symbol''s name, else the address in hex';

CREATE FUNCTION intern_address(resource text, address bigint)
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
    -- symbolicate() of this resource waits for us, and we for it: frames
    -- never move between our look-up and our insert.
    PERFORM pg_advisory_xact_lock_shared(@extschema@.symbol_lock_key(intern_address.resource));
    SELECT fr.id INTO found_id
      FROM @extschema@.frame fr JOIN @extschema@.func f ON f.id = fr.func_id
     WHERE fr.address = intern_address.address AND fr.implementation = 'address'
       AND fr.line IS NULL AND fr.col IS NULL
       AND f.resource = intern_address.resource;
    IF FOUND THEN
        RETURN found_id;
    END IF;
    RETURN @extschema@.intern_frame(
        @extschema@.intern_func(@extschema@.address_name(intern_address.resource, intern_address.address),
                                NULL, intern_address.resource),
        intern_address.address, NULL, NULL, 'address');
END
$$;
COMMENT ON FUNCTION intern_address(text, bigint) IS 'interns a frame known by its address in a resource; its func is named by the address until symbolicate() assigns one';

CREATE FUNCTION symbolicate(resource text, starts bigint[], names text[])
RETURNS TABLE (old_func int4, new_func int4)
AS 'MODULE_PATHNAME', 'calltree_symbolicate'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION symbolicate(text, bigint[], text[]) IS 'moves the address frames of a resource to the funcs of their symbols; returns the old to new func map for remap_functions';

CREATE FUNCTION import_perf_script(data text, event text DEFAULT NULL, name text DEFAULT NULL,
                                   meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_perf_script'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_perf_script(text, text, text, jsonb) IS 'imports the text output of perf script; returns the profile id';

CREATE FUNCTION to_collapsed(tree calltree) RETURNS text
AS 'MODULE_PATHNAME', 'calltree_to_collapsed'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION to_collapsed(calltree) IS 'collapsed stacks ("a;b;c 42" lines), one per node with self weight or without children; the inverse of import_collapsed';

CREATE FUNCTION flamegraph(tree calltree, title text DEFAULT NULL, icicle boolean DEFAULT false,
                           min_width float8 DEFAULT 0.1)
RETURNS text
AS 'MODULE_PATHNAME', 'calltree_flamegraph'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION flamegraph(calltree, text, boolean, float8) IS 'an interactive flame graph (icicle graph with icicle => true) as a self-contained SVG document';

CREATE FUNCTION to_pprof(tree calltree, sample_type text DEFAULT 'samples', unit text DEFAULT 'count')
RETURNS bytea
AS 'MODULE_PATHNAME', 'calltree_to_pprof'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION to_pprof(calltree, text, text) IS 'the tree as a gzip-compressed pprof profile: one sample per node with self weight';

--------------------------------------------------------------------------
-- Instrumented traces: enter/exit events and the function call trie
--------------------------------------------------------------------------

CREATE TABLE event (
    profile_id bigint NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
    thread     text,
    ts         bigint NOT NULL,
    func_id    int4 NOT NULL REFERENCES func (id),
    enter      boolean NOT NULL,
    seq        bigint NOT NULL    -- order of events with equal timestamps
);
CREATE INDEX event_profile_idx ON event (profile_id, thread, ts, seq);
COMMENT ON TABLE event IS 'enter/exit events of instrumented traces; ts in ns from profile start';
SELECT pg_catalog.pg_extension_config_dump('event', '');

CREATE FUNCTION trace_agg_transfn(internal, int4, boolean, bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION trace_agg_finalfn(internal) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The events of one thread, in time order (the ORDER BY is the caller's):
--   trace_agg(func_id, enter, ts ORDER BY ts, seq)
-- No combine function: the trie is built by replaying events in order.
-- Trees of several threads merge with calltree_merge.
CREATE AGGREGATE trace_agg(func int4, enter boolean, ts bigint) (
    SFUNC = trace_agg_transfn, STYPE = internal,
    FINALFUNC = trace_agg_finalfn, FINALFUNC_MODIFY = READ_WRITE,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE trace_agg(int4, boolean, bigint) IS 'the XRay function call trie of one thread''s enter/exit events: calls, self (local time) and running (tree time) per CallNode';

CREATE FUNCTION latency(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT calls bigint, OUT min bigint, OUT max bigint, OUT mean float8,
    OUT p50 bigint, OUT p90 bigint, OUT p99 bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_latency'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION latency(calltree) IS 'per CallNode of a traced tree: calls and the distribution of their running time (quantiles within 1%)';

--------------------------------------------------------------------------
-- Time order and lines
--------------------------------------------------------------------------

CREATE FUNCTION estimated_calls(profile bigint, thread text DEFAULT NULL,
    OUT thread_name text, OUT func int4, OUT depth int4, OUT path int4[],
    OUT start_ts bigint, OUT end_ts bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_estimated_calls'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION estimated_calls(bigint, text) IS 'calls estimated from time-ordered samples (Chrome''s ProfileCalls): the data of a flame chart';

CREATE FUNCTION lines(profile bigint, node_path int4[],
    OUT frame bigint, OUT address bigint, OUT line int4, OUT col int4,
    OUT self bigint, OUT running bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_lines'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION lines(bigint, int4[]) IS 'per frame (address, line) of a CallNode''s function: self weight, and running weight of the samples through the CallNode';

-- source: 'samples' (the CPU samples: Profile/ProfileChunk events, Hermes
-- samples/stackFrames) into calltree.sample, 'events' (B/E/X events) into
-- calltree.event, or NULL: the samples when the file has any.
CREATE FUNCTION import_trace_events(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
    source text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_trace_events'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_trace_events(text, text, jsonb, text) IS 'imports Chrome trace-event JSON: its CPU samples (Profile/ProfileChunk events, Hermes samples) into calltree.sample, or its B/E and X events into calltree.event (source => ''samples'' or ''events''; NULL: the samples when there are any); returns the profile id';

CREATE FUNCTION import_profile(data bytea, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                               strict boolean DEFAULT NULL, event text DEFAULT NULL,
                               sample_type text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_profile'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_profile(bytea, text, jsonb, boolean, text, text) IS 'imports a profile of any supported format, recognized from its content (gzip and UTF-16 unwrapped), passing strict (collapsed), event (perf script) or sample_type (pprof) to its importer; returns the profile id';

CREATE FUNCTION import_stream(chunks regclass, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                              format text DEFAULT NULL, strict boolean DEFAULT NULL,
                              event text DEFAULT NULL, sample_type text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_stream'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_stream(regclass, text, jsonb, text, boolean, text, text) IS 'imports a profile file sent as base64 chunks in a table (seq, chunk), as bin/calltree-load does: collapsed stacks and perf script as a stream, other formats whole, with the options of import_profile; returns the profile id';
