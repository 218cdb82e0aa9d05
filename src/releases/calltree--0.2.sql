-- calltree 0.2: the script that CREATE EXTENSION calltree runs.  make joins
-- the files of src/install/ into it in the order of their names, one
-- concern each: tables, integrity triggers, the intern cache, interning,
-- the calltree type, aggregates, reading, transforms, analyses, importers,
-- symbolication, exporters.  A file comes after every file whose objects
-- it names.
\echo Use "CREATE EXTENSION calltree" to load this file. \quit

--------------------------------------------------------------------------
-- Tables: every table and index of the extension.  Funcs, frames, stacks
-- and label sets are interned and shared by every profile; samples, trace
-- events and symbols belong to a profile or a resource.  Ids come from
-- plain sequences (CACHE 1, so that an id handed out later is always
-- larger: `prefix_id < id` relies on it).  Every table and sequence is
-- marked for pg_dump, which then dumps their rows and values.
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

-- The keys of interned funcs and frames, as one value each.  A btree
-- entry holds the whole key and fails past about 2.7kB (C++ and Rust
-- symbols can be longer), so func_key and frame_key are exclusion
-- constraints over a hash index of these values instead: the index holds
-- hash codes, and every candidate is compared in full with the row, so
-- two keys that differ are two rows even when their hashes are equal.
-- Record equality takes two NULL fields as equal: NULLS NOT DISTINCT.
CREATE TYPE func_identity AS (name text, file text, resource text);
CREATE TYPE frame_identity AS (func_id int4, address bigint, line int4, col int4, implementation text);

CREATE SEQUENCE func_id_seq AS int4;
CREATE TABLE func (
    id       int4 PRIMARY KEY DEFAULT nextval('@extschema@.func_id_seq'),
    name     text NOT NULL,
    file     text,
    resource text,
    CONSTRAINT func_key EXCLUDE USING hash ((ROW(name, file, resource)::@extschema@.func_identity) WITH OPERATOR(pg_catalog.=))
);
ALTER SEQUENCE func_id_seq OWNED BY func.id;
-- funcs looked up by name alone (symbolicate, users' queries)
CREATE INDEX func_name_idx ON func USING hash (name);
COMMENT ON TABLE func IS 'interned functions: the nodes of call trees are funcs';

CREATE SEQUENCE frame_id_seq;
CREATE TABLE frame (
    id             bigint PRIMARY KEY DEFAULT nextval('@extschema@.frame_id_seq'),
    func_id        int4 NOT NULL REFERENCES func (id),
    address        bigint,
    line           int4,
    col            int4,
    implementation text,
    CONSTRAINT frame_key EXCLUDE USING hash
        ((ROW(func_id, address, line, col, implementation)::@extschema@.frame_identity) WITH OPERATOR(pg_catalog.=))
);
ALTER SEQUENCE frame_id_seq OWNED BY frame.id;
-- the frames of a func (its foreign key, symbolicate)
CREATE INDEX frame_func_idx ON frame (func_id);
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
    -- a hash index, as func_key: label values can be long
    CONSTRAINT labels_key EXCLUDE USING hash (labels WITH OPERATOR(pg_catalog.=))
);
ALTER SEQUENCE labels_id_seq OWNED BY labels.id;
COMMENT ON TABLE labels IS 'interned label sets (pprof tags, Pyroscope labels)';

-- Samples are partitioned by ranges of profile ids, so that expire()
-- (77_retention.sql) removes old samples by emptying and dropping whole
-- partitions instead of deleting rows.  sample_0 holds the ids below
-- 10,000,000,000, the profiles imported before the first time window;
-- new_sample_partition() adds the partition of each later window.  The
-- partitioned table has no index and no foreign key of its own: each
-- partition gets its index, and the references are checked by triggers
-- (15_integrity.sql), so that pg_dump restores the partitions that
-- new_sample_partition() made (they are not members of the extension) as
-- they were.
CREATE TABLE sample (
    profile_id bigint NOT NULL, -- a profile; checked by sample_refs_check, deleted with it
    thread     text,
    ts         bigint,
    stack_id   bigint NOT NULL, -- a stack; checked by sample_refs_check and stack_delete_check
    weight     bigint NOT NULL DEFAULT 1,
    labels_id  bigint           -- a label set; checked by sample_refs_check
) PARTITION BY RANGE (profile_id);
COMMENT ON TABLE sample IS 'samples: a stack and a weight (1, nanoseconds, bytes); ts in ns from profile start';

CREATE TABLE sample_0 PARTITION OF sample FOR VALUES FROM (MINVALUE) TO (10000000000);
CREATE INDEX sample_0_profile_idx ON sample_0 (profile_id, thread, ts);
COMMENT ON TABLE sample_0 IS 'the samples of the profiles imported before the first window of new_sample_partition()';
-- the samples of ids no window holds: imports that took their id before
-- their window was dropped, and ids given by hand
CREATE TABLE sample_default PARTITION OF sample DEFAULT;
CREATE INDEX sample_default_profile_idx ON sample_default (profile_id, thread, ts);
COMMENT ON TABLE sample_default IS 'the samples of profile ids that no partition of a window holds';
-- Rows are read and written through sample, whose triggers check their
-- references and whose policies (a user's) keep tenants apart; neither
-- applies to a query of a partition itself.  Row-level security with no
-- policy keeps every role but the owner (and BYPASSRLS) out of the
-- partitions, also one that GRANT ... ON ALL TABLES IN SCHEMA reached:
-- queries through sample do not apply the partitions' row security.
ALTER TABLE sample_0 ENABLE ROW LEVEL SECURITY;
ALTER TABLE sample_default ENABLE ROW LEVEL SECURITY;

-- Symbol tables received by symbolicate() (85_symbols.sql), kept per
-- resource so that one may arrive in several parts, in any order.
CREATE TABLE symbol (
    resource text NOT NULL,
    start    bigint NOT NULL,
    name     text NOT NULL,
    CONSTRAINT symbol_key PRIMARY KEY (resource, start)
);
COMMENT ON TABLE symbol IS 'symbol tables received by symbolicate(), per resource: start address and name';
-- the address frames waiting for their symbols, found by address
CREATE INDEX frame_address_idx ON frame (address) WHERE implementation = 'address';

-- Instrumented traces: the enter and exit events of each call, from
-- which trace_agg builds a call tree.
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

-- pg_dump dumps the rows of these tables and the values of these
-- sequences.  The list keeps the order in which version 0.1 made them, so
-- that a fresh install and an updated one have the same catalog.
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
SELECT pg_catalog.pg_extension_config_dump('sample_0', '');
SELECT pg_catalog.pg_extension_config_dump('sample_default', '');
SELECT pg_catalog.pg_extension_config_dump('symbol', '');
SELECT pg_catalog.pg_extension_config_dump('event', '');
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
--------------------------------------------------------------------------
-- The intern cache's triggers.  Each backend remembers the ids of interned
-- rows from one import to the next (src/store/intern_cache.c).  A
-- statement that changes or removes such rows tells every backend to
-- forget them.
--------------------------------------------------------------------------

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

CREATE FUNCTION stack_path(stack bigint)
RETURNS int4[]
AS 'MODULE_PATHNAME', 'calltree_stack_path'
LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION stack_path(bigint) IS 'the func path of a stack, root first';
--------------------------------------------------------------------------
-- The calltree type: an aggregated call tree as one value, with its text
-- and binary input and output, equality and hashing (so that trees can be
-- grouped and compared), and + to add two trees.
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
-- The state of stack_agg as a type of its own: weights summed per stack
-- id.  calltree_agg and calltree_merge need no such type, their state is a
-- calltree.  States of real types (not internal) can travel as values:
-- Citus ships a worker's partial state to the coordinator in its text
-- form, which is why the aggregates need them.
--------------------------------------------------------------------------

CREATE TYPE stack_weights;

CREATE FUNCTION stack_weights_in(cstring) RETURNS stack_weights
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_weights_out(stack_weights) RETURNS cstring
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_weights_recv(internal) RETURNS stack_weights
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_weights_send(stack_weights) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE stack_weights (
    INPUT          = stack_weights_in,
    OUTPUT         = stack_weights_out,
    RECEIVE        = stack_weights_recv,
    SEND           = stack_weights_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT      = double,
    STORAGE        = extended
);

COMMENT ON TYPE stack_weights IS 'the state of stack_agg: a weight summed per stack id, written {stack_id:weight,...} in ascending id order';
COMMENT ON FUNCTION stack_weights_in(cstring) IS 'text input of stack_weights: {stack_id:weight,...}, ids ascending';
COMMENT ON FUNCTION stack_weights_out(stack_weights) IS 'text output of stack_weights: {stack_id:weight,...}, ids ascending';
COMMENT ON FUNCTION stack_weights_recv(internal) IS 'binary input of stack_weights';
COMMENT ON FUNCTION stack_weights_send(stack_weights) IS 'binary output of stack_weights';
--------------------------------------------------------------------------
-- Aggregates: the ways to build a call tree from rows.  calltree_agg
-- builds it from func paths, calltree_merge from trees, stack_agg from
-- stack ids, trace_agg from the enter and exit events of a trace.  All
-- but trace_agg share one shape: a state of a real type (calltree, or
-- stack_weights for stack_agg), kept expanded in the aggregate's memory
-- context and updated in place, and a combine function for partial
-- aggregation.  Parallel workers hand their states to the leader as
-- values, and Citus workers theirs to the coordinator as text.  The final
-- functions only read the state (FINALFUNC_MODIFY = READ_ONLY).
--------------------------------------------------------------------------

-- calltree_agg and calltree_merge build the same state: a calltree under
-- construction.
CREATE FUNCTION calltree_agg_transfn(calltree, int4[], bigint) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_agg_transfn(calltree, int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_agg_transfn_unit' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_merge_transfn(calltree, calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_agg_combinefn(calltree, calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_agg_finalfn(calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION calltree_agg_transfn(calltree, int4[], bigint) IS 'transition function of calltree_agg(int4[], bigint): adds a path with its weight to the state';
COMMENT ON FUNCTION calltree_agg_transfn(calltree, int4[]) IS 'transition function of calltree_agg(int4[]): adds a path with weight 1 to the state';
COMMENT ON FUNCTION calltree_merge_transfn(calltree, calltree) IS 'transition function of calltree_merge: adds a tree to the state';
COMMENT ON FUNCTION calltree_agg_combinefn(calltree, calltree) IS 'combine function of calltree_agg and calltree_merge: adds a partial state to the state';
COMMENT ON FUNCTION calltree_agg_finalfn(calltree) IS 'final function of calltree_agg and calltree_merge: the finished tree';

CREATE AGGREGATE calltree_agg(path int4[], weight bigint) (
    SFUNC = calltree_agg_transfn, STYPE = calltree,
    FINALFUNC = calltree_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = calltree_agg_combinefn,
    PARALLEL = SAFE
);
CREATE AGGREGATE calltree_agg(path int4[]) (
    SFUNC = calltree_agg_transfn, STYPE = calltree,
    FINALFUNC = calltree_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = calltree_agg_combinefn,
    PARALLEL = SAFE
);
CREATE AGGREGATE calltree_merge(calltree) (
    SFUNC = calltree_merge_transfn, STYPE = calltree,
    FINALFUNC = calltree_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = calltree_agg_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE calltree_agg(int4[], bigint) IS 'the call tree of func paths (root first) with their weights; NULL paths and weights and empty paths are skipped';
COMMENT ON AGGREGATE calltree_agg(int4[]) IS 'the call tree of func paths (root first), each with weight 1';
COMMENT ON AGGREGATE calltree_merge(calltree) IS 'the sum of call trees';

-- stack_agg sums weights per stack id; the final function resolves each
-- distinct stack to its func path once, through the stack table.
CREATE FUNCTION stack_agg_transfn(stack_weights, bigint, bigint) RETURNS stack_weights
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION stack_agg_transfn(stack_weights, bigint) RETURNS stack_weights
AS 'MODULE_PATHNAME', 'stack_agg_transfn_unit' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION stack_agg_combinefn(stack_weights, stack_weights) RETURNS stack_weights
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION stack_agg_finalfn(stack_weights) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION stack_agg_transfn(stack_weights, bigint, bigint) IS 'transition function of stack_agg(bigint, bigint): adds a weight to its stack''s sum';
COMMENT ON FUNCTION stack_agg_transfn(stack_weights, bigint) IS 'transition function of stack_agg(bigint): adds 1 to its stack''s sum';
COMMENT ON FUNCTION stack_agg_combinefn(stack_weights, stack_weights) IS 'combine function of stack_agg: adds a partial state''s sums to the state';
COMMENT ON FUNCTION stack_agg_finalfn(stack_weights) IS 'final function of stack_agg: the call tree of the summed stacks, each resolved through calltree.stack once';

CREATE AGGREGATE stack_agg(stack_id bigint, weight bigint) (
    SFUNC = stack_agg_transfn, STYPE = stack_weights,
    FINALFUNC = stack_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = stack_agg_combinefn,
    PARALLEL = SAFE
);
CREATE AGGREGATE stack_agg(stack_id bigint) (
    SFUNC = stack_agg_transfn, STYPE = stack_weights,
    FINALFUNC = stack_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = stack_agg_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE stack_agg(bigint, bigint) IS 'the call tree of stored stacks with their weights: weights summed per stack id, each distinct stack resolved once at the end; NULL stacks and weights are skipped';
COMMENT ON AGGREGATE stack_agg(bigint) IS 'the call tree of stored stacks, each sample with weight 1';

-- trace_agg replays the enter and exit events of a trace (the event table)
-- into a call tree that also counts the calls of each node and keeps the
-- distribution of their durations, which latency() reads.
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
--------------------------------------------------------------------------
-- Reading trees: a tree's nodes as rows (nodes, report, and latency for
-- the trees of traces), its functions, and its total weight.
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
AS 'MODULE_PATHNAME', 'calltree_report'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION report(calltree) IS 'nodes() with func names, percentages of the total and an indented label';

-- The nodes of a tree built by trace_agg, with how often each was called
-- and how long the calls took.
CREATE FUNCTION latency(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT calls bigint, OUT min bigint, OUT max bigint, OUT mean float8,
    OUT p50 bigint, OUT p90 bigint, OUT p99 bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_latency'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION latency(calltree) IS 'per CallNode of a traced tree: calls and the distribution of their running time (quantiles within 1%)';
--------------------------------------------------------------------------
-- Transforms.  Each exists twice with one meaning: on a func path
-- (int4[] → int4[], NULL when the sample is dropped, so that
-- calltree_agg(transform(path), weight) applies it sample by sample) and on
-- a tree (calltree → calltree, applied to the aggregated tree).
--
-- A function transform takes the function as a func id (int4), as a name
-- (text: every func of that exact name, one function in several builds)
-- or as an array of funcs (int4[]), a set counted as one function.  A func
-- id must be held by the tree (or path) or by calltree.func, a name by
-- calltree.func: the transforms that take funcs read calltree.func, so
-- they are STABLE.
--------------------------------------------------------------------------

CREATE FUNCTION merge_call_node(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_call_node_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_call_node(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_call_node_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_call_node(calltree, int4[]) IS 'removes one CallNode: its self weight and its children go to its parent';

CREATE FUNCTION merge_function(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_function(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_function(calltree, int4) IS 'removes every CallNode of the function: self weight and children go to the parent';
CREATE FUNCTION merge_function(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_function(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_function(calltree, text) IS 'merge_function() of every func of that name, as one function';
CREATE FUNCTION merge_function(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_function(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_function(calltree, int4[]) IS 'merge_function() of a set of funcs, as one function';

CREATE FUNCTION merge_functions(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_functions_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_functions(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_functions_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_functions(calltree, int4[]) IS 'merge_function for several functions at once';

CREATE FUNCTION merge_subtree(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION merge_subtree(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_subtree(calltree, int4[]) IS 'prunes a CallNode: its whole running weight becomes self weight of its parent';

CREATE FUNCTION collapse_function_subtree(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_function_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_function_subtree(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_function_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_function_subtree(calltree, int4) IS 'everything below the function is charged to it as self weight';
CREATE FUNCTION collapse_function_subtree(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_function_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_function_subtree(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_function_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_function_subtree(calltree, text) IS 'collapse_function_subtree() of every func of that name, as one function';
CREATE FUNCTION collapse_function_subtree(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_function_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_function_subtree(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_function_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_function_subtree(calltree, int4[]) IS 'collapse_function_subtree() of a set of funcs, as one function';

CREATE FUNCTION hide_call_node(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'hide_call_node_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION hide_call_node(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'hide_call_node_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hide_call_node(calltree, int4[]) IS 'drops the samples that pass through the CallNode';

CREATE FUNCTION drop_function(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'drop_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION drop_function(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'drop_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION drop_function(calltree, int4) IS 'drops every sample that contains the function';
CREATE FUNCTION drop_function(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'drop_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION drop_function(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'drop_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION drop_function(calltree, text) IS 'drop_function() of every func of that name, as one function';
CREATE FUNCTION drop_function(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'drop_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION drop_function(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'drop_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION drop_function(calltree, int4[]) IS 'drop_function() of a set of funcs, as one function';

CREATE FUNCTION focus_subtree(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION focus_subtree(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_subtree(calltree, int4[]) IS 'keeps the samples through the CallNode, which becomes the root';

CREATE FUNCTION focus_function(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION focus_function(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_function(calltree, int4) IS 'keeps the samples that contain the function, cut to start at its outermost call';
CREATE FUNCTION focus_function(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION focus_function(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_function(calltree, text) IS 'focus_function() of every func of that name, as one function';
CREATE FUNCTION focus_function(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION focus_function(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_function(calltree, int4[]) IS 'focus_function() of a set of funcs, as one function';

CREATE FUNCTION collapse_direct_recursion(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_direct_recursion(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_direct_recursion(calltree, int4) IS 'the function calling itself directly becomes one call';
CREATE FUNCTION collapse_direct_recursion(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_direct_recursion(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_direct_recursion(calltree, text) IS 'collapse_direct_recursion() of every func of that name, as one function';
CREATE FUNCTION collapse_direct_recursion(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_direct_recursion(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_direct_recursion(calltree, int4[]) IS 'collapse_direct_recursion() of a set of funcs, as one function';

CREATE FUNCTION collapse_recursion(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_recursion(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_recursion(calltree, int4) IS 'removes everything between the outermost and the innermost call of the function';
CREATE FUNCTION collapse_recursion(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_recursion(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_recursion(calltree, text) IS 'collapse_recursion() of every func of that name, as one function';
CREATE FUNCTION collapse_recursion(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION collapse_recursion(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_recursion(calltree, int4[]) IS 'collapse_recursion() of a set of funcs, as one function';

CREATE FUNCTION remap_functions(path int4[], "from" int4[], "to" int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'remap_functions_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION remap_functions(tree calltree, "from" int4[], "to" int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'remap_functions_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
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
-- Functions by name.  Users know function names, and one function can be
-- several funcs: a func is keyed by name, file and resource, and a native
-- func's resource carries its build id.  funcs() finds the funcs of a
-- pattern, for any argument that takes a func array; unify_funcs() makes
-- a tree's funcs one per name, so that trees of several builds compare
-- node by node and functions() counts a function once.
--------------------------------------------------------------------------

CREATE FUNCTION funcs(pattern text) RETURNS int4[]
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT COALESCE(pg_catalog.array_agg(f.id ORDER BY f.id), '{}'::int4[])
      FROM @extschema@.func f
     WHERE f.name OPERATOR(pg_catalog.~) pattern;
END;
COMMENT ON FUNCTION funcs(text) IS 'the ids of the funcs whose names match a POSIX regular expression, sorted (like pprof''s -focus=regex)';

CREATE FUNCTION unify_funcs(tree calltree, by text DEFAULT 'name') RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_unify_funcs'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION unify_funcs(calltree, text) IS 'each func replaced by the smallest id of its name (by ''name'') or of its name and file (by ''file''), equal CallNodes merged; by ''func'' leaves the tree as it is';
--------------------------------------------------------------------------
-- Comparing trees: the difference of two trees as a signed tree, their
-- CallNodes side by side, and their functions side by side as shares.
-- A signed tree is an ordinary tree: every function that reads a tree
-- reads it.
--------------------------------------------------------------------------

CREATE FUNCTION calltree_subtract(calltree, calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION calltree_subtract(calltree, calltree) IS 'the first tree''s samples minus the second''s: a signed tree with every node of both, without call counts';

CREATE OPERATOR - (
    LEFTARG = calltree, RIGHTARG = calltree, PROCEDURE = calltree_subtract
);
COMMENT ON OPERATOR - (calltree, calltree) IS 'the first tree''s samples minus the second''s: test - base is what changed';

-- normalize is a keyword of SQL (the normalize() function), so the
-- parameter's name is quoted; a call by name writes "normalize" => true.
CREATE FUNCTION diff(base calltree, test calltree, "normalize" boolean DEFAULT false,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT base_running bigint, OUT base_self bigint, OUT test_running bigint, OUT test_self bigint,
    OUT delta_running bigint, OUT delta_self bigint, OUT base_share float8, OUT test_share float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_diff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION diff(calltree, calltree, boolean) IS 'one row per CallNode of either tree, in the order of nodes(base + test): both sides'' weights (0 where a side lacks the node), test minus base, running over each side''s total; normalize scales base to test''s total first';

CREATE FUNCTION regressions(base calltree, test calltree, min_share float8 DEFAULT 0.005,
    OUT func int4, OUT name text,
    OUT base_self_share float8, OUT test_self_share float8, OUT delta_self_share float8,
    OUT base_running_share float8, OUT test_running_share float8, OUT delta_running_share float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_regressions'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION regressions(calltree, calltree, float8) IS 'per function of either tree (functions() weights): self and running shares of each side''s total and their change, the largest growth of self share first; functions under min_share on every share are left out';
--------------------------------------------------------------------------
-- Analyses: questions about one function or one node of a tree.  The
-- butterfly (callers and callees of a function), the calls out of it and
-- the paths into it, recursions stitched back together; from a profile's
-- samples, its calls over time (the data of a flame chart) and the lines
-- of a node's function that cost the most.
--
-- As the transforms, the analyses of one function take it as a func id,
-- a name (every func of that name) or an array of funcs counted as one
-- function; they read calltree.func to check them, so they are STABLE.
--------------------------------------------------------------------------

CREATE FUNCTION callers(tree calltree, func int4,
    OUT caller int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callers'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callers(calltree, int4) IS 'direct callers of a function (NULL: called as a root), each sample counted once per caller';
CREATE FUNCTION callers(tree calltree, name text,
    OUT caller int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callers'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callers(calltree, text) IS 'callers() of every func of that name, as one function';
CREATE FUNCTION callers(tree calltree, funcs int4[],
    OUT caller int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callers'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callers(calltree, int4[]) IS 'callers() of a set of funcs, as one function';

CREATE FUNCTION callees(tree calltree, func int4,
    OUT callee int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callees'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callees(calltree, int4) IS 'direct callees of a function, each sample counted once per callee';
CREATE FUNCTION callees(tree calltree, name text,
    OUT callee int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callees'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callees(calltree, text) IS 'callees() of every func of that name, as one function';
CREATE FUNCTION callees(tree calltree, funcs int4[],
    OUT callee int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callees'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callees(calltree, int4[]) IS 'callees() of a set of funcs, as one function';

CREATE FUNCTION outgoing_calls(tree calltree, func int4,
    OUT call_sites bigint, OUT outgoing calltree)
RETURNS record
AS 'MODULE_PATHNAME', 'calltree_outgoing_calls'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION outgoing_calls(calltree, int4) IS 'all top-level calls of a function summed into one tree rooted at it, and how many call sites were summed';
CREATE FUNCTION outgoing_calls(tree calltree, name text,
    OUT call_sites bigint, OUT outgoing calltree)
RETURNS record
AS 'MODULE_PATHNAME', 'calltree_outgoing_calls'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION outgoing_calls(calltree, text) IS 'outgoing_calls() of every func of that name, as one function';
CREATE FUNCTION outgoing_calls(tree calltree, funcs int4[],
    OUT call_sites bigint, OUT outgoing calltree)
RETURNS record
AS 'MODULE_PATHNAME', 'calltree_outgoing_calls'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION outgoing_calls(calltree, int4[]) IS 'outgoing_calls() of a set of funcs, as one function';

CREATE FUNCTION backtraces(tree calltree, func int4, mode text DEFAULT 'total')
RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_backtraces'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION backtraces(calltree, int4, text) IS 'the call paths into a function, read upwards from it; mode total (cut at its outermost call) or self (samples where it is the leaf)';
CREATE FUNCTION backtraces(tree calltree, name text, mode text DEFAULT 'total')
RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_backtraces'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION backtraces(calltree, text, text) IS 'backtraces() of every func of that name, as one function';
CREATE FUNCTION backtraces(tree calltree, funcs int4[], mode text DEFAULT 'total')
RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_backtraces'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION backtraces(calltree, int4[], text) IS 'backtraces() of a set of funcs, as one function';

CREATE FUNCTION collapse_recursions(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT recursions bigint, OUT merged_stacks bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_collapse_recursions'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION collapse_recursions(calltree) IS 'the tree with every recursion stitched back to the first call of its function, with per node the recursions stitched to it and the original nodes merged into it';

-- One function's weights as scalars, with functions()'s meaning: running
-- counts a sample once however often the function recurs; 0 when the
-- tree does not hold the function.  For a time series of one function,
-- one row per tree.
CREATE FUNCTION running_of(tree calltree, func int4) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_running_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION running_of(calltree, int4) IS 'running weight of a function, as functions() reports it; 0 when the tree does not hold it';
CREATE FUNCTION running_of(tree calltree, name text) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_running_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION running_of(calltree, text) IS 'running weight of every func of that name, as one function';
CREATE FUNCTION running_of(tree calltree, funcs int4[]) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_running_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION running_of(calltree, int4[]) IS 'running weight of a set of funcs, as one function: a sample is counted once';

CREATE FUNCTION self_of(tree calltree, func int4) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_self_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION self_of(calltree, int4) IS 'self weight of a function, as functions() reports it; 0 when the tree does not hold it';
CREATE FUNCTION self_of(tree calltree, name text) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_self_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION self_of(calltree, text) IS 'self weight of every func of that name, as one function';
CREATE FUNCTION self_of(tree calltree, funcs int4[]) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_self_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION self_of(calltree, int4[]) IS 'self weight of a set of funcs, as one function';

-- The two below read a profile's samples rather than a tree: their order
-- in time, and the frame (address or line) that each holds.
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
--------------------------------------------------------------------------
-- Reports: rollups of call trees per time bucket and group, read back by
-- tree_between, and the data frame of Grafana's flame graph panel.
--
-- A rollup level is a bucket width and the meta keys that group profiles
-- (rollup_level).  Each row of rollup holds, for one bucket of one level,
-- one group and one weight unit, the merged call tree of its profiles and
-- the ids of those profiles (an int8multirange: ids of profiles imported
-- together are mostly consecutive, so the ranges stay few).  The ids are
-- how a run knows what it has already counted: a profile is rolled up once
-- per level, whenever its transaction committed.  The finest level reads
-- raw samples; a coarser level whose width is a multiple of an existing
-- level's is built from that level's rows with calltree_merge.
--------------------------------------------------------------------------

CREATE TABLE rollup_level (
    width        interval NOT NULL,
    group_by     text[]   NOT NULL,  -- sorted meta keys
    source_width interval,           -- the finer level it is built from; NULL: raw samples
    CONSTRAINT rollup_level_key PRIMARY KEY (width, group_by)
);
COMMENT ON TABLE rollup_level IS 'rollup levels: a bucket width, the meta keys that group profiles, and the level each is built from';

CREATE TABLE rollup (
    bucket      timestamptz NOT NULL,
    width       interval    NOT NULL,
    group_key   jsonb       NOT NULL,
    weight_unit text        NOT NULL,
    tree        calltree    NOT NULL,
    samples     bigint      NOT NULL,
    profiles    int8multirange NOT NULL,
    -- group_key first: tree_between reads one group's buckets in a range
    CONSTRAINT rollup_key PRIMARY KEY (group_key, width, bucket, weight_unit)
);
COMMENT ON TABLE rollup IS 'per bucket, group and weight unit: the merged call tree of the profiles whose ids are in profiles';

-- A rollup's tree is read whole, and tree_between merges many of them: lz4
-- gives them back several times faster than the default pglz, at about the
-- same size.  A server built without lz4 keeps its default.
DO $lz4$
BEGIN
    ALTER TABLE @extschema@.rollup ALTER COLUMN tree SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END
$lz4$;

-- Profiles by start time: rollup(since => ...) and the raw part of tree_between
CREATE INDEX profile_started_at_idx ON profile (started_at);

SELECT pg_catalog.pg_extension_config_dump('rollup_level', '');
SELECT pg_catalog.pg_extension_config_dump('rollup', '');

-- The bucket of a time: buckets are aligned on a Monday at midnight UTC, so
-- that hours, days and weeks nest.  date_bin counts a day as 24 hours.
CREATE FUNCTION rollup_bucket(ts timestamptz, width interval) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.date_bin(width, ts, '2000-01-03 00:00:00+00'::timestamptz);
COMMENT ON FUNCTION rollup_bucket(timestamptz, interval) IS 'the start of the bucket of the given width that holds ts (buckets aligned on Monday 2000-01-03 00:00 UTC)';

-- The group of a profile: the given keys of its meta, a missing key as JSON null.
CREATE FUNCTION group_key(meta jsonb, keys text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT COALESCE(pg_catalog.jsonb_object_agg(k, COALESCE(meta OPERATOR(pg_catalog.->) k, 'null'::jsonb)), '{}'::jsonb)
      FROM pg_catalog.unnest(keys) AS k;
END;
COMMENT ON FUNCTION group_key(jsonb, text[]) IS 'the object of the given keys of meta, a missing key as null: the group of a profile';

-- Checks the arguments of rollup; returns the width as hours, minutes and
-- seconds (24:00:00 for '1 day', so that bucket + width is always the
-- width later, across daylight saving changes too).
CREATE FUNCTION rollup_check_width(width interval) RETURNS interval
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF width IS NULL THEN
        RAISE EXCEPTION 'rollup width must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF extract(month FROM width) <> 0 OR extract(year FROM width) <> 0 THEN
        RAISE EXCEPTION 'rollup width % has months or years', width
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'A width is a fixed length of time: days, hours, minutes or seconds, such as ''1 hour'' or ''7 days''.';
    END IF;
    IF width <= interval '0' THEN
        RAISE EXCEPTION 'rollup width % is not positive', width
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'A width is a positive length of time, such as ''1 hour''.';
    END IF;
    RETURN make_interval(secs => extract(epoch FROM width));
END
$$;

-- Checks group_by against the meta keys of profiles; returns its keys sorted.
CREATE FUNCTION rollup_check_group_by(group_by text[]) RETURNS text[]
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k text;
BEGIN
    IF group_by IS NULL OR array_position(group_by, NULL) IS NOT NULL THEN
        RAISE EXCEPTION 'rollup group_by must not be null or hold null'
            USING ERRCODE = 'null_value_not_allowed',
                  HINT = 'group_by lists keys of calltree.profile.meta, such as ''{service}''; ''{}'' puts all profiles in one group.';
    END IF;
    IF cardinality(group_by) <> (SELECT count(DISTINCT g) FROM unnest(group_by) AS g) THEN
        RAISE EXCEPTION 'rollup group_by % names a key twice', group_by
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name each meta key once.';
    END IF;
    FOREACH k IN ARRAY group_by LOOP
        -- a key that no profile has: a typo more likely than a plan (SELECT
        -- 1: Citus cannot plan a subquery of no columns on its tables)
        IF NOT EXISTS (SELECT 1 FROM @extschema@.profile p WHERE p.meta ? k)
           AND EXISTS (SELECT 1 FROM @extschema@.profile) THEN
            RAISE EXCEPTION 'unknown group key "%": no profile has it in its meta', k
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'group_by names keys of calltree.profile.meta; SELECT DISTINCT jsonb_object_keys(meta) FROM calltree.profile lists them.';
        END IF;
    END LOOP;
    RETURN ARRAY(SELECT g FROM unnest(group_by) AS g ORDER BY g COLLATE "C");
END
$$;

-- Creates the level of (width, keys) if it is new, with the level it is
-- built from, fixed then: the coarsest existing level of the same keys
-- whose buckets nest in this one's, or raw samples when there is none.
CREATE FUNCTION rollup_create_level(width interval, keys text[]) RETURNS void
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    INSERT INTO @extschema@.rollup_level (width, group_by, source_width)
    SELECT rollup_create_level.width, keys,
           (SELECT max(l.width) FROM @extschema@.rollup_level l
             WHERE l.group_by = keys AND l.width < rollup_create_level.width
               AND (extract(epoch FROM rollup_create_level.width) * 1000000)
                   % (extract(epoch FROM l.width) * 1000000) = 0)
    ON CONFLICT ON CONSTRAINT rollup_level_key DO NOTHING;
END;

-- One run of a level read from raw samples: the profiles of the level's
-- buckets that no row of the level includes yet are aggregated per
-- bucket, group and unit, and added to the rows (one statement, so one
-- snapshot: the profiles read are exactly those whose samples are read).
CREATE FUNCTION rollup_from_samples(width interval, keys text[], since timestamptz) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    written bigint;
BEGIN
    WITH candidate AS MATERIALIZED (
        SELECT p.id, p.weight_unit,
               @extschema@.rollup_bucket(p.started_at, rollup_from_samples.width) AS bucket,
               @extschema@.group_key(p.meta, keys) AS group_key
          FROM @extschema@.profile p
         WHERE p.started_at IS NOT NULL
           AND (since IS NULL OR p.started_at >= since)
    ), fresh AS MATERIALIZED (
        SELECT c.* FROM candidate c
         WHERE NOT EXISTS (SELECT FROM @extschema@.rollup r
                            WHERE r.group_key = c.group_key AND r.width = rollup_from_samples.width
                              AND r.bucket = c.bucket AND r.weight_unit = c.weight_unit
                              AND r.profiles @> c.id)
    ), ids AS (
        SELECT f.bucket, f.group_key, f.weight_unit,
               range_agg(int8range(f.id, f.id, '[]')) AS profiles
          FROM fresh f GROUP BY f.bucket, f.group_key, f.weight_unit
    ), trees AS (
        SELECT f.bucket, f.group_key, f.weight_unit,
               @extschema@.stack_agg(s.stack_id, s.weight) AS tree, count(*) AS samples
          FROM fresh f JOIN @extschema@.sample s ON s.profile_id = f.id
         GROUP BY f.bucket, f.group_key, f.weight_unit
    ), written AS (
        INSERT INTO @extschema@.rollup AS r (bucket, width, group_key, weight_unit, tree, samples, profiles)
        SELECT i.bucket, rollup_from_samples.width, i.group_key, i.weight_unit,
               COALESCE(t.tree, '{}'::@extschema@.calltree), COALESCE(t.samples, 0), i.profiles
          FROM ids i LEFT JOIN trees t USING (bucket, group_key, weight_unit)
        ON CONFLICT ON CONSTRAINT rollup_key DO UPDATE
           SET tree = r.tree OPERATOR(@extschema@.+) excluded.tree,
               samples = r.samples + excluded.samples,
               profiles = r.profiles + excluded.profiles
        RETURNING 1
    )
    SELECT count(*) INTO written FROM written;
    RETURN written;
END
$$;

-- One run of a level built from a finer one: each bucket whose finer rows
-- include a profile that its row does not is merged again from them.
CREATE FUNCTION rollup_from_level(width interval, keys text[], source interval, since timestamptz) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    written bigint;
BEGIN
    WITH fine AS MATERIALIZED (
        SELECT @extschema@.rollup_bucket(f.bucket, rollup_from_level.width) AS bucket,
               f.group_key, f.weight_unit, f.tree, f.samples, f.profiles
          FROM @extschema@.rollup f
         WHERE f.width = source
           AND ARRAY(SELECT k FROM jsonb_object_keys(f.group_key) AS k ORDER BY k COLLATE "C") = keys
           AND (since IS NULL OR f.bucket >= @extschema@.rollup_bucket(since, rollup_from_level.width))
    ), stale AS (
        SELECT DISTINCT f.bucket, f.group_key, f.weight_unit FROM fine f
         WHERE NOT EXISTS (SELECT FROM @extschema@.rollup r
                            WHERE r.group_key = f.group_key AND r.width = rollup_from_level.width
                              AND r.bucket = f.bucket AND r.weight_unit = f.weight_unit
                              AND r.profiles @> f.profiles)
    ), written AS (
        INSERT INTO @extschema@.rollup AS r (bucket, width, group_key, weight_unit, tree, samples, profiles)
        SELECT f.bucket, rollup_from_level.width, f.group_key, f.weight_unit,
               @extschema@.calltree_merge(f.tree), sum(f.samples), range_agg(f.profiles)
          FROM fine f JOIN stale s USING (bucket, group_key, weight_unit)
         GROUP BY f.bucket, f.group_key, f.weight_unit
        ON CONFLICT ON CONSTRAINT rollup_key DO UPDATE
           SET tree = excluded.tree, samples = excluded.samples, profiles = excluded.profiles
        RETURNING 1
    )
    SELECT count(*) INTO written FROM written;
    RETURN written;
END
$$;

-- One run locks its level's row until its transaction ends.  A second run
-- of the same level meanwhile skips it rather than wait: it returns 0, and
-- the profiles it would have read are taken by the next run.  So a profile
-- is never counted twice.  The only wait is between runs that create new
-- levels, which take turns (a table lock); a creator never waits for
-- anything else, since only the holder of a level writes its rows: so no
-- deadlock, however callers group their calls into transactions.  (Under
-- REPEATABLE READ, a run whose snapshot predates another run's commit fails
-- to serialize when it writes the rows that run wrote.)
CREATE FUNCTION rollup(width interval, group_by text[] DEFAULT '{service}', since timestamptz DEFAULT NULL)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    w interval := @extschema@.rollup_check_width(rollup.width);
    keys text[] := @extschema@.rollup_check_group_by(rollup.group_by);
    source interval;
BEGIN
    SELECT l.source_width INTO source FROM @extschema@.rollup_level l
     WHERE l.width = w AND l.group_by = keys
       FOR UPDATE SKIP LOCKED;
    IF NOT FOUND AND NOT EXISTS (SELECT FROM @extschema@.rollup_level l
                                  WHERE l.width = w AND l.group_by = keys) THEN
        LOCK TABLE @extschema@.rollup_level IN SHARE ROW EXCLUSIVE MODE;
        PERFORM @extschema@.rollup_create_level(w, keys);
        SELECT l.source_width INTO source FROM @extschema@.rollup_level l
         WHERE l.width = w AND l.group_by = keys
           FOR UPDATE SKIP LOCKED;
    END IF;
    IF NOT FOUND THEN
        RAISE NOTICE 'rollup level % % is being run by another transaction: skipped', w, keys;
        RETURN 0;
    END IF;
    IF source IS NULL THEN
        RETURN @extschema@.rollup_from_samples(w, keys, since);
    END IF;
    RETURN @extschema@.rollup_from_level(w, keys, source, since);
END
$$;
COMMENT ON FUNCTION rollup(interval, text[], timestamptz) IS 'adds the profiles not yet rolled up to the level of this width and grouping; returns the number of rollup rows written';

-- a + b, where NULL is the tree of no sample
CREATE FUNCTION rollup_add(a calltree, b calltree) RETURNS calltree
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE a OPERATOR(@extschema@.+) b END;

-- The rows of a level that lie wholly in the uncovered part of [since, until)
CREATE FUNCTION rollup_rows_within(group_key jsonb, width interval, since timestamptz, until timestamptz,
                                   weight_unit text, uncovered tstzmultirange)
RETURNS SETOF rollup
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT r.* FROM @extschema@.rollup r
     WHERE r.group_key = rollup_rows_within.group_key AND r.width = rollup_rows_within.width
       AND r.bucket >= since AND r.bucket + r.width <= until
       AND (rollup_rows_within.weight_unit IS NULL OR r.weight_unit = rollup_rows_within.weight_unit)
       AND uncovered @> tstzrange(r.bucket, r.bucket + r.width, '[)');
END;

CREATE FUNCTION tree_between(group_key jsonb, since timestamptz, until timestamptz, weight_unit text DEFAULT NULL)
RETURNS calltree
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    keys text[];
    -- the part of [since, until) that no chosen rollup row covers yet
    uncovered tstzmultirange;
    -- the profiles of the chosen rows
    covered int8multirange := '{}';
    units text[] := '{}';
    result @extschema@.calltree;
    w interval;
    part @extschema@.calltree;
    part_ids int8multirange;
    part_time tstzmultirange;
    part_units text[];
    part_samples bigint;
    sample_count bigint := 0;  -- sample rows read, from rollup rows or raw
    n bigint;
BEGIN
    IF group_key IS NULL OR jsonb_typeof(group_key) <> 'object' THEN
        RAISE EXCEPTION 'group key % is not a JSON object', coalesce(group_key::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'A group key names meta values, as rollup''s rows do: ''{"service": "checkout"}''.';
    END IF;
    IF since IS NULL OR until IS NULL OR since > until THEN
        RAISE EXCEPTION 'time range [%, %) is not a range', since, until
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'since and until are times, since no later than until.';
    END IF;
    keys := ARRAY(SELECT jsonb_object_keys(group_key));
    uncovered := tstzmultirange(tstzrange(since, until, '[)'));

    -- Coarsest first: each level's rows that lie wholly in what is still
    -- uncovered.  Rows of several levels never overlap in time, so no
    -- profile is in two chosen rows.
    FOR w IN SELECT DISTINCT r.width FROM @extschema@.rollup r
              WHERE r.group_key = tree_between.group_key AND r.bucket >= since AND r.bucket < until
              ORDER BY r.width DESC
    LOOP
        SELECT count(*), sum(r.samples), range_agg(r.profiles), range_agg(tstzrange(r.bucket, r.bucket + r.width, '[)')),
               array_agg(DISTINCT r.weight_unit)
          INTO n, part_samples, part_ids, part_time, part_units
          FROM @extschema@.rollup_rows_within(group_key, w, since, until, weight_unit, uncovered) r;
        CONTINUE WHEN n = 0;
        -- one row (a week read from a weekly row) is its own tree: no merge
        IF n = 1 THEN
            SELECT r.tree INTO part
              FROM @extschema@.rollup_rows_within(group_key, w, since, until, weight_unit, uncovered) r;
        ELSE
            SELECT @extschema@.calltree_merge(r.tree) INTO part
              FROM @extschema@.rollup_rows_within(group_key, w, since, until, weight_unit, uncovered) r;
        END IF;
        result := @extschema@.rollup_add(result, part);
        sample_count := sample_count + part_samples;
        covered := covered + part_ids;
        uncovered := uncovered - part_time;
        units := units || part_units;
    END LOOP;

    -- Raw samples for the rest: the edges, and profiles no chosen row includes.
    SELECT @extschema@.stack_agg(s.stack_id, s.weight), count(*), array_agg(DISTINCT p.weight_unit)
      INTO part, part_samples, part_units
      FROM @extschema@.profile p JOIN @extschema@.sample s ON s.profile_id = p.id
     WHERE p.started_at >= since AND p.started_at < until
       AND @extschema@.group_key(p.meta, keys) = tree_between.group_key
       AND (tree_between.weight_unit IS NULL OR p.weight_unit = tree_between.weight_unit)
       AND NOT covered @> p.id;
    result := @extschema@.rollup_add(result, part);
    sample_count := sample_count + part_samples;
    units := units || part_units;

    IF (SELECT count(DISTINCT u) FROM unnest(units) AS u) > 1 THEN
        RAISE EXCEPTION 'profiles of group % between % and % have several weight units: %',
                        group_key, since, until, (SELECT string_agg(DISTINCT u, ', ') FROM unnest(units) AS u)
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass weight_unit to choose one.';
    END IF;
    -- rows of profiles without samples hold the empty tree; stack_agg of no sample is NULL
    IF sample_count = 0 THEN
        RETURN NULL;
    END IF;
    RETURN result;
END
$$;
COMMENT ON FUNCTION tree_between(jsonb, timestamptz, timestamptz, text) IS 'the call tree of a group''s profiles started in [since, until): rollup rows where they cover whole buckets, raw samples for the rest';

-- The data frame of Grafana's flame graph panel: one row per node in
-- depth-first order, under a root named total at level 0.
CREATE FUNCTION grafana_flamegraph(tree calltree,
    OUT level int4, OUT value bigint, OUT self bigint, OUT label text)
RETURNS SETOF record
LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 1000
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT f.level, f.value, f.self, f.label
      FROM (SELECT 0::bigint AS ord, 0 AS level, @extschema@.total(tree) AS value,
                   @extschema@.total(tree) - (SELECT COALESCE(sum(n.running), 0)::bigint
                                                FROM @extschema@.nodes(tree) n WHERE n.depth = 0) AS self,
                   'total' AS label
            UNION ALL
            SELECT r.ord, r.depth + 1, r.running, r.self, r.name
              FROM @extschema@.report(tree) WITH ORDINALITY AS r (node, parent, depth, func, path, running, self, calls,
                                                                  name, running_pct, self_pct, label, ord)) AS f
     ORDER BY f.ord;
END;
COMMENT ON FUNCTION grafana_flamegraph(calltree) IS 'the rows of Grafana''s flame graph data frame: level, value (running), self, label, in depth-first order under a total root';
--------------------------------------------------------------------------
-- Retention: expire() deletes the raw samples and profiles that are old
-- enough and rolled up, by emptying and dropping whole partitions of
-- sample; collect_garbage() deletes the interned rows nothing uses.
--
-- Why sample is partitioned by ranges of profile ids, not by time.  A
-- time key on every sample row would cost 8 bytes a row, a column for the
-- writer to fill, and moving a profile's samples whenever its started_at
-- changes (imports without a start time get one later; some never do).
-- Profile ids already grow with the time of import, and every sample
-- carries one.  So a partition is a time window of imports:
-- new_sample_partition() opens the window [k * 10^10, (k + 1) * 10^10)
-- and moves the profile id sequence to its first id, so that profiles
-- created from then on fall in it (ids jump once per window; a bigint has
-- room for 9 * 10^8 windows).  sample_0 holds the ids below 10^10: the
-- profiles imported before the first window, those of version 0.1 too.
-- A profile counts by its start time: one whose start lies far from its
-- import sits in the window of its import and goes with it.  Sharded
-- later by profile id, the partitions of a shard stay ranges of the same
-- column.
--
-- A partition goes when every profile in it is expirable: started before
-- the cutoff, and included in every rollup level that reads raw samples
-- (rolled_up).  It is emptied by TRUNCATE, which gives its space back and
-- locks only the partition, then its profile rows are deleted (the
-- cascade of profile_delete_cascade reads only the partitions of their
-- ids, emptied already);
-- the empty partition is dropped when the lock on sample that DROP needs
-- comes within a second (else by a later run).  A partition with a profile
-- that is not expirable is kept whole: its expirable profiles are counted
-- as kept, and go with the rest.  sample_default catches what no window
-- holds (an import that took its id before its window was dropped); its
-- expirable profiles are deleted row by row.
--
-- Concurrency: expire() checks a partition without locks, then takes an
-- ACCESS EXCLUSIVE lock on it (waiting for the imports that write into it
-- and the queries that read it) and checks again in a new snapshot before
-- it empties it, so a profile committed meanwhile is seen.  An import
-- whose profile id lies in a partition being emptied and that has not
-- written yet writes after the TRUNCATE: its rows stay.  Before any of
-- that it takes a SHARE lock on rollup_level: no new rollup level is made
-- meanwhile (its first run would read raw samples that expire deletes),
-- and no level's first run is under way.  Lock order: rollup_level, then
-- the partitions by id, then (for DROP) sample.
--------------------------------------------------------------------------

-- The partitions of sample and the profile ids each holds: [first_id,
-- end_id), first_id NULL for sample_0 (no lower bound), both NULL for
-- sample_default.
CREATE FUNCTION sample_partitions(OUT partition regclass, OUT first_id bigint, OUT end_id bigint)
RETURNS SETOF record
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT b.partition,
           NULLIF(substring(b.bound FROM 'FROM \(''?([0-9A-Z]+)''?\)'), 'MINVALUE')::bigint,
           NULLIF(substring(b.bound FROM 'TO \(''?([0-9A-Z]+)''?\)'), 'MAXVALUE')::bigint
      FROM (SELECT i.inhrelid::regclass AS partition, pg_get_expr(c.relpartbound, c.oid) AS bound
              FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = '@extschema@.sample'::regclass) AS b
     ORDER BY 2 NULLS FIRST, 3 NULLS LAST;
END;
COMMENT ON FUNCTION sample_partitions() IS 'the partitions of calltree.sample and the profile ids [first_id, end_id) each holds';

-- Opens the next time window: a partition for the next 10^10 profile ids,
-- and the profile id sequence moved to its first id.  The sequence moves
-- last (it is not transactional): if the caller's transaction rolls back,
-- imports write into sample_default until the next window opens past the
-- ids they took.
CREATE FUNCTION new_sample_partition() RETURNS regclass
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    block constant bigint := 10000000000;
    next_id bigint;
    first bigint;
    name text;
BEGIN
    -- one at a time (ATTACH PARTITION takes this lock too); imports and
    -- queries go on
    LOCK TABLE ONLY @extschema@.sample IN SHARE UPDATE EXCLUSIVE MODE;
    SELECT CASE WHEN s.is_called THEN s.last_value + 1 ELSE s.last_value END
      INTO next_id FROM @extschema@.profile_id_seq s;
    -- past every window, and past every id taken: those of a window that
    -- was never made are in sample_default
    SELECT greatest(max(p.end_id), (next_id + block - 1) / block * block)
      INTO first FROM @extschema@.sample_partitions() p;
    name := 'sample_' || (first / block);
    EXECUTE format('CREATE TABLE @extschema@.%I (LIKE @extschema@.sample INCLUDING DEFAULTS)', name);
    EXECUTE format('CREATE INDEX %I ON @extschema@.%I (profile_id, thread, ts)', name || '_profile_idx', name);
    -- only the owner reads and writes a partition itself (10_tables.sql)
    EXECUTE format('ALTER TABLE @extschema@.%I ENABLE ROW LEVEL SECURITY', name);
    EXECUTE format('COMMENT ON TABLE @extschema@.%I IS %L', name,
                   format('the samples of profile ids %s to %s, imported from %s', first, first + block - 1, now()));
    EXECUTE format('ALTER TABLE @extschema@.sample ATTACH PARTITION @extschema@.%I FOR VALUES FROM (%s) TO (%s)',
                   name, first, first + block);
    IF next_id < first THEN
        PERFORM setval('@extschema@.profile_id_seq', first, false);
    END IF;
    RETURN format('@extschema@.%I', name)::regclass;
END
$$;
COMMENT ON FUNCTION new_sample_partition() IS 'opens a new time window of calltree.sample: a partition for the next profile ids, which new profiles take from now on';

-- Whether a profile is included in every rollup level that reads raw
-- samples (and one at least exists): a level built from another reads
-- that level's rows, which stay.
CREATE FUNCTION rolled_up(p profile) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT p.started_at IS NOT NULL
       AND EXISTS (SELECT FROM @extschema@.rollup_level l WHERE l.source_width IS NULL)
       AND NOT EXISTS (SELECT FROM @extschema@.rollup_level l
                        WHERE l.source_width IS NULL
                          AND NOT EXISTS (SELECT FROM @extschema@.rollup r
                                           WHERE r.group_key = @extschema@.group_key(p.meta, l.group_by)
                                             AND r.width = l.width
                                             AND r.bucket = @extschema@.rollup_bucket(p.started_at, l.width)
                                             AND r.weight_unit = p.weight_unit
                                             AND r.profiles @> p.id));
END;
COMMENT ON FUNCTION rolled_up(profile) IS 'whether the profile is included in every rollup level that reads raw samples (and one exists)';

-- The checks of expire's arguments.
CREATE FUNCTION expire_check(raw_older_than interval, partition_width interval) RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF raw_older_than IS NULL OR raw_older_than <= interval '0' THEN
        RAISE EXCEPTION 'raw_older_than % is not a positive interval', coalesce(raw_older_than::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass how long raw samples are kept, such as ''7 days''.';
    END IF;
    IF partition_width IS NULL OR partition_width <= interval '0' THEN
        RAISE EXCEPTION 'partition_width % is not a positive interval', coalesce(partition_width::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass how long a partition of calltree.sample receives imports, such as ''1 day''.';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'expire() needs the READ COMMITTED isolation level, not %', current_setting('transaction_isolation')
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'It checks each partition again in a new snapshot after locking it.';
    END IF;
END
$$;
COMMENT ON FUNCTION expire_check(interval, interval) IS 'checks the arguments of expire() and its isolation level';

-- Empties one partition whose profiles are all expirable, and deletes
-- those profiles; false (and nothing done) when one is not expirable, or
-- there is nothing to delete.  The first check runs without a lock; the
-- second after the lock, in a new snapshot.  The check must see every
-- profile of the partition, since TRUNCATE empties it whole: it refuses
-- to run where row-level security would hide some.
CREATE FUNCTION expire_partition(part regclass, first_id bigint, end_id bigint, cutoff timestamptz,
                                 INOUT profiles bigint, INOUT samples bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lo bigint := coalesce(first_id, -9223372036854775808);
    prof @extschema@.profile;
BEGIN
    IF row_security_active('@extschema@.profile') OR row_security_active('@extschema@.sample') THEN
        RAISE EXCEPTION 'expire() cannot apply the row-level security policies of calltree.profile and calltree.sample'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'It empties whole partitions of calltree.sample with TRUNCATE, which would remove the samples of the profiles that the policies hide.',
                  HINT = 'Run expire() as a role that the policies do not apply to: the owner of the tables, or a role with BYPASSRLS.';
    END IF;
    profiles := 0;
    samples := 0;
    FOR pass IN 1 .. 2 LOOP
        IF pass = 2 THEN
            EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', part);
        END IF;
        -- each profile is checked here, where rollup is (on Citus the
        -- profiles are on the workers, the rollups on the coordinator)
        FOR prof IN SELECT p.* FROM @extschema@.profile p WHERE p.id >= lo AND p.id < end_id LOOP
            IF NOT (prof.started_at < cutoff AND @extschema@.rolled_up(prof)) THEN
                RETURN;
            END IF;
        END LOOP;
    END LOOP;
    -- through sample: a partition's own row security hides its rows from
    -- all but its owner
    SELECT count(*) INTO samples FROM @extschema@.sample s WHERE s.profile_id >= lo AND s.profile_id < end_id;
    EXECUTE format('TRUNCATE %s', part);
    DELETE FROM @extschema@.profile p WHERE p.id >= lo AND p.id < end_id;
    GET DIAGNOSTICS profiles = ROW_COUNT;
END
$$;
COMMENT ON FUNCTION expire_partition(regclass, bigint, bigint, timestamptz, bigint, bigint) IS 'empties a partition of calltree.sample whose profiles are all expirable, and deletes them; the profiles and samples deleted';

-- Drops an empty partition of a closed window, if the lock on sample
-- that DROP takes comes within a second: waiting longer would hold up
-- every query of sample queued behind it.  Whether it was dropped.
CREATE FUNCTION expire_drop(part regclass) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
-- below deadlock_timeout's default: an import that waits for a partition
-- this transaction emptied, while it holds sample, makes a cycle; this
-- wait ends it first
SET lock_timeout = '500ms'
AS $$
DECLARE
    empty boolean;
BEGIN
    LOCK TABLE ONLY @extschema@.sample IN ACCESS EXCLUSIVE MODE;
    -- SELECT 1: Citus cannot plan a subquery of no columns on its tables
    EXECUTE format('SELECT NOT EXISTS (SELECT 1 FROM %s)', part) INTO empty;
    IF empty THEN
        EXECUTE format('DROP TABLE %s', part);
    END IF;
    RETURN empty;
EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
    RETURN false;
END
$$;
COMMENT ON FUNCTION expire_drop(regclass) IS 'drops an empty partition of calltree.sample if the lock comes within half a second; whether it did';

CREATE FUNCTION expire(raw_older_than interval, partition_width interval DEFAULT '1 day',
    OUT partitions int4, OUT profiles bigint, OUT samples bigint, OUT kept bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    cutoff timestamptz := now() - raw_older_than;
    part record;
    current record;
    done record;
    oldest timestamptz;
    prof @extschema@.profile;
    gone bigint[] := '{}';
    deleted bigint;
BEGIN
    PERFORM @extschema@.expire_check(raw_older_than, partition_width);
    partitions := 0;
    profiles := 0;
    samples := 0;
    -- no rollup level is made while this runs: its first run reads raw samples
    LOCK TABLE @extschema@.rollup_level IN SHARE MODE;
    IF NOT EXISTS (SELECT FROM @extschema@.rollup_level l WHERE l.source_width IS NULL) THEN
        RAISE NOTICE 'no rollup level reads raw samples: no profile is rolled up, none is expired'
            USING HINT = 'Run rollup() first, such as SELECT calltree.rollup(''1 hour'').';
    END IF;

    SELECT * INTO current FROM @extschema@.sample_partitions() p
     WHERE p.end_id IS NOT NULL ORDER BY p.end_id DESC LIMIT 1;
    FOR part IN SELECT * FROM @extschema@.sample_partitions() p WHERE p.end_id IS NOT NULL ORDER BY p.end_id LOOP
        SELECT * INTO done FROM @extschema@.expire_partition(part.partition, part.first_id, part.end_id, cutoff, 0, 0);
        IF done.profiles > 0 OR done.samples > 0 THEN
            partitions := partitions + 1;
            profiles := profiles + done.profiles;
            samples := samples + done.samples;
        END IF;
    END LOOP;

    -- the profiles of sample_default, row by row: few.  Each profile is
    -- checked here, as in expire_partition.
    FOR prof IN SELECT p.* FROM @extschema@.profile p WHERE p.started_at < cutoff LOOP
        IF NOT EXISTS (SELECT 1 FROM @extschema@.sample_partitions() w
                        WHERE w.end_id IS NOT NULL AND prof.id >= coalesce(w.first_id, prof.id) AND prof.id < w.end_id)
           AND @extschema@.rolled_up(prof) THEN
            gone := gone || prof.id;
        END IF;
    END LOOP;
    SELECT samples + count(*) INTO samples FROM @extschema@.sample s WHERE s.profile_id = ANY (gone);
    DELETE FROM @extschema@.profile p WHERE p.id = ANY (gone);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    profiles := profiles + deleted;

    -- the profiles old enough and rolled up that stay, with their partition
    kept := 0;
    FOR prof IN SELECT p.* FROM @extschema@.profile p WHERE p.started_at < cutoff LOOP
        IF @extschema@.rolled_up(prof) THEN
            kept := kept + 1;
        END IF;
    END LOOP;

    -- a new window when the current one has received imports for long enough
    SELECT p.imported_at INTO oldest FROM @extschema@.profile p
     WHERE p.id >= coalesce(current.first_id, p.id) AND p.id < current.end_id
     ORDER BY p.id LIMIT 1;
    IF oldest < now() - partition_width THEN
        PERFORM @extschema@.new_sample_partition();
    END IF;

    -- the empty partitions of closed windows (sample_0 stays: the extension made it)
    FOR part IN SELECT * FROM @extschema@.sample_partitions() p
                 WHERE p.first_id IS NOT NULL AND p.end_id <= current.first_id
                 ORDER BY p.end_id LOOP
        IF NOT EXISTS (SELECT 1 FROM @extschema@.profile q WHERE q.id >= part.first_id AND q.id < part.end_id) THEN
            PERFORM @extschema@.expire_drop(part.partition);
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION expire(interval, interval) IS 'deletes the profiles started more than raw_older_than ago that every rollup level reading raw samples includes, a whole partition of samples at a time; opens a new partition when the current one is older than partition_width';

-- Deletes the interned rows that nothing uses: the stacks that no sample
-- uses, nor any longer stack as its prefix; then the frames of no stack;
-- the funcs of no frame, no trace event and no node of a rollup tree; the
-- label sets of no sample.  Trees kept in tables of your own are not
-- seen: their funcs may go.
--
-- An import holds the stacks (a ROW EXCLUSIVE lock on stack) from before
-- it looks up its first frame or stack, in the intern cache or in the
-- tables, until it ends (integrity.c).  The SHARE ROW EXCLUSIVE lock taken
-- first waits for the imports under way and holds off new ones until this
-- transaction ends; every query after it sees what they wrote.  An import
-- that waited finds its cache emptied (the DELETE triggers of
-- 16_intern_cache.sql) and writes again the rows it needs.  The intern
-- lock, taken next, holds off the intern_* functions and symbolicate().
CREATE FUNCTION collect_garbage(OUT stacks bigint, OUT frames bigint, OUT funcs bigint, OUT label_sets bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    used_ids bigint[];
    used_funcs int4[];
    garbage bigint[];
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'collect_garbage() needs the READ COMMITTED isolation level, not %', current_setting('transaction_isolation')
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'It must see the rows committed while it waited for its locks.';
    END IF;
    -- On Citus (docs/citus.md): the interned tables are reference tables
    -- that samples and events refer to by foreign keys, and Citus lets a
    -- transaction write those after reading all shards only if it reads
    -- them one connection per node.  What the distributed tables use is
    -- read first, into arrays: Citus deletes from a reference table with
    -- conditions on reference tables and values only.
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    END IF;
    LOCK TABLE @extschema@.stack IN SHARE ROW EXCLUSIVE MODE;
    PERFORM @extschema@.intern_lock();

    -- the stacks of samples and their prefixes, up to the roots
    used_ids := ARRAY(SELECT DISTINCT s.stack_id FROM @extschema@.sample s);
    used_ids := ARRAY(
        WITH RECURSIVE used (id) AS (
            SELECT u.id FROM unnest(used_ids) AS u(id)
            UNION
            SELECT st.prefix_id FROM used u JOIN @extschema@.stack st ON st.id = u.id
             WHERE st.prefix_id IS NOT NULL
        )
        SELECT u.id FROM used u);
    -- the garbage is found by an anti-join (hashed), then deleted by id:
    -- "id <> ALL (array)" would compare each row with the whole array
    garbage := ARRAY(SELECT st.id FROM @extschema@.stack st
                      WHERE NOT EXISTS (SELECT 1 FROM unnest(used_ids) AS u(id) WHERE u.id = st.id));
    DELETE FROM @extschema@.stack st WHERE st.id = ANY (garbage);
    GET DIAGNOSTICS stacks = ROW_COUNT;

    DELETE FROM @extschema@.frame f
     WHERE NOT EXISTS (SELECT 1 FROM @extschema@.stack st WHERE st.frame_id = f.id);
    GET DIAGNOSTICS frames = ROW_COUNT;

    used_funcs := ARRAY(SELECT DISTINCT e.func_id FROM @extschema@.event e
                        UNION
                        SELECT n.func FROM @extschema@.rollup r, @extschema@.functions(r.tree) n);
    garbage := ARRAY(SELECT f.id FROM @extschema@.func f
                      WHERE NOT EXISTS (SELECT 1 FROM @extschema@.frame fr WHERE fr.func_id = f.id)
                        AND NOT EXISTS (SELECT 1 FROM unnest(used_funcs) AS u(id) WHERE u.id = f.id));
    DELETE FROM @extschema@.func f WHERE f.id = ANY (garbage);
    GET DIAGNOSTICS funcs = ROW_COUNT;

    used_ids := ARRAY(SELECT DISTINCT s.labels_id FROM @extschema@.sample s WHERE s.labels_id IS NOT NULL);
    garbage := ARRAY(SELECT l.id FROM @extschema@.labels l
                      WHERE NOT EXISTS (SELECT 1 FROM unnest(used_ids) AS u(id) WHERE u.id = l.id));
    DELETE FROM @extschema@.labels l WHERE l.id = ANY (garbage);
    GET DIAGNOSTICS label_sets = ROW_COUNT;
END
$$;
COMMENT ON FUNCTION collect_garbage() IS 'deletes the stacks, frames, funcs and label sets that no sample, stack, frame, trace event or rollup tree uses; returns how many of each';
--------------------------------------------------------------------------
-- Importers: one function per format, then import_profile, which
-- recognizes the format of a file from its content, and import_stream,
-- which reads a file sent in chunks.  Each returns the new profile's id;
-- the import commits whole with the caller's transaction or leaves nothing
-- behind.  The JSON formats are parsed with PostgreSQL's own JSON parser.
--------------------------------------------------------------------------

CREATE FUNCTION import_collapsed(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                                 strict boolean DEFAULT true)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_collapsed'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_collapsed(text, text, jsonb, boolean) IS 'imports collapsed stacks ("a;b;c 42" lines); returns the profile id';

-- A frame whose symbol perf script could not name ([unknown], or none)
-- becomes an address frame of its library (85_symbols.sql), which
-- symbolicate() can name later.
CREATE FUNCTION import_perf_script(data text, event text DEFAULT NULL, name text DEFAULT NULL,
                                   meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_perf_script'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_perf_script(text, text, text, jsonb) IS 'imports the text output of perf script; returns the profile id';

CREATE FUNCTION import_pprof(data bytea, sample_type text DEFAULT NULL, name text DEFAULT NULL,
                             meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_pprof'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_pprof(bytea, text, text, jsonb) IS 'imports a pprof profile (gzip-compressed or raw protobuf), one sample type (default: the profile''s default, else the last); returns the profile id';

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

CREATE FUNCTION import_firefox(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_firefox'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_firefox(text, text, jsonb) IS 'imports a Firefox Profiler profile (Gecko or processed format); returns the profile id';

-- source: 'samples' (the CPU samples: Profile/ProfileChunk events, Chrome
-- 66's CpuProfile events, Hermes samples/stackFrames) into calltree.sample, 'events' (B/E/X events) into
-- calltree.event, or NULL: the samples when the file has any.
CREATE FUNCTION import_trace_events(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
    source text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_trace_events'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_trace_events(text, text, jsonb, text) IS 'imports Chrome trace-event JSON: its CPU samples (Profile/ProfileChunk or CpuProfile events, Hermes samples), a thread per profile, into calltree.sample, or its B/E and X events into calltree.event (source => ''samples'' or ''events''; NULL: the samples when there are any); returns the profile id';

CREATE FUNCTION import_profile(data bytea, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                               strict boolean DEFAULT NULL, event text DEFAULT NULL,
                               sample_type text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_profile'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_profile(bytea, text, jsonb, boolean, text, text) IS 'imports a profile of any supported format, recognized from its content (gzip and UTF-16 unwrapped), passing strict (collapsed), event (perf script) or sample_type (pprof) to its importer; returns the profile id';

CREATE FUNCTION import_stream(chunks regclass, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                              format text DEFAULT NULL, strict boolean DEFAULT NULL,
                              event text DEFAULT NULL, sample_type text DEFAULT NULL,
                              source text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_stream'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_stream(regclass, text, jsonb, text, boolean, text, text, text) IS 'imports a profile file sent as base64 chunks in a table (seq, chunk), as bin/calltree-load does: collapsed stacks and perf script as a stream, other formats whole, with the options of import_profile and source (trace events); returns the profile id';
--------------------------------------------------------------------------
-- Symbolication: address frames, and the functions that name them.  A
-- profiler does not always know the symbol at an address, and the symbols
-- may arrive long after the samples.  A frame known only by its address
-- in a resource (a library, ideally named with its build id) gets a func
-- of its own, named by the address in hex ('0x7f3a12'), until symbols
-- arrive; symbolicate() then moves such frames to the funcs of their
-- symbols.
--
-- Address frames are the frames whose implementation is 'address'.  The
-- mark keeps them apart from frames an importer created with the symbol
-- already known: after symbolication both may have the same func and
-- address, and as distinct rows (a frame is unique on func, address, line,
-- col and implementation) neither the frame rows nor the stacks that point
-- at them ever need merging.  Both kinds resolve to the same func, so call
-- trees are the same.
--
-- Symbols are kept per resource in the symbol table (10_tables.sql), so
-- that a symbol table may arrive in several parts in any order, and so
-- that an address interned after symbolication gets its symbol's func at
-- once.  Addresses are unsigned
-- 64-bit values stored in bigint (kernel addresses are negative numbers);
-- they are compared as unsigned: the non-negative bigints come first, then
-- the negative ones.
--------------------------------------------------------------------------

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
COMMENT ON FUNCTION intern_address(text, bigint) IS 'interns a frame known by its address in a resource; its func is named by the address until symbolicate() assigns one';

CREATE FUNCTION symbolicate(resource text, starts bigint[], names text[])
RETURNS TABLE (old_func int4, new_func int4)
AS 'MODULE_PATHNAME', 'calltree_symbolicate'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION symbolicate(text, bigint[], text[]) IS 'moves the address frames of a resource to the funcs of their symbols; returns the old to new func map for remap_functions';
--------------------------------------------------------------------------
-- Exporters: a tree written out in the formats of other tools.  Collapsed
-- stacks, a pprof profile and a speedscope file can be read back by the
-- importers; the flame graph is an SVG document to look at.
--------------------------------------------------------------------------

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

CREATE FUNCTION flamegraph_diff(base calltree, test calltree, title text DEFAULT NULL,
                                icicle boolean DEFAULT false, min_width float8 DEFAULT 0.1)
RETURNS text
AS 'MODULE_PATHNAME', 'calltree_flamegraph_diff'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION flamegraph_diff(calltree, calltree, text, boolean, float8) IS 'a differential flame graph as a self-contained SVG document: widths from test, red where a node''s share of the total grew since base, blue where it shrank';

-- The data frame of Grafana's flame graph panel in its diff mode: the rows
-- of grafana_flamegraph() with base's weights in value and self and test's
-- in valueRight and selfRight, one row per CallNode of either tree.
CREATE FUNCTION grafana_flamegraph_diff(base calltree, test calltree,
    OUT level int4, OUT value bigint, OUT self bigint, OUT label text,
    OUT "valueRight" bigint, OUT "selfRight" bigint)
RETURNS SETOF record
LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 1000
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT f.level, f.value, f.self, f.label, f.value_right, f.self_right
      FROM (SELECT 0 AS ord, 0 AS level, @extschema@.total(base) AS value, 0::bigint AS self,
                   'total' AS label, @extschema@.total(test) AS value_right, 0::bigint AS self_right
            UNION ALL
            SELECT d.node, d.depth + 1, d.base_running, d.base_self, COALESCE(fn.name, '#' || d.func),
                   d.test_running, d.test_self
              FROM @extschema@.diff(base, test) AS d
              LEFT JOIN @extschema@.func AS fn ON fn.id = d.func) AS f
     ORDER BY f.ord;
END;
COMMENT ON FUNCTION grafana_flamegraph_diff(calltree, calltree) IS 'the rows of Grafana''s flame graph data frame in diff mode: level, value and self (base), label, valueRight and selfRight (test), in depth-first order over the union of both trees under a total root';

CREATE FUNCTION to_pprof(tree calltree, sample_type text DEFAULT 'samples', unit text DEFAULT 'count')
RETURNS bytea
AS 'MODULE_PATHNAME', 'calltree_to_pprof'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION to_pprof(calltree, text, text) IS 'the tree as a gzip-compressed pprof profile: one sample per node with self weight, of the sample type and unit given (meta.sample_type and weight_unit of the profiles it came from; default samples/count)';

CREATE FUNCTION to_speedscope(tree calltree, name text DEFAULT NULL, unit text DEFAULT NULL)
RETURNS json
AS 'MODULE_PATHNAME', 'calltree_to_speedscope'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION to_speedscope(calltree, text, text) IS 'a speedscope file with one sampled profile: one sample per node with self weight, in the unit given (profile.weight_unit; NULL or a count: none)';
--------------------------------------------------------------------------
-- Citus: distribute() spreads the profiles over a Citus cluster's workers
-- (docs/citus.md).  Profiles, their samples and their trace events are
-- distributed by profile id and co-located, so that a profile's rows are
-- on one worker and a query grouped by profile runs there whole.  The
-- interned tables (func, frame, stack, labels, symbol) become reference
-- tables, a copy on every node, so that a worker resolves the stacks of
-- its samples itself.  rollup and rollup_level stay on the coordinator.
--
-- Citus refuses tables with triggers.  The integrity triggers that read
-- other tables (15_integrity.sql) become the foreign keys they stand for,
-- which Citus checks on each node between the co-located shards and the
-- node's copy of the reference tables.  The triggers that read no table
-- (refusing updates of ids and TRUNCATE, the intern cache's invalidation,
-- the intern lock) are kept: Citus copies them onto every shard, and they
-- fire there.
--
-- The extension does not depend on Citus: CREATE EXTENSION calltree works
-- without it, and distribute() calls Citus's functions by name.
--------------------------------------------------------------------------

CREATE FUNCTION distribute(shard_count int DEFAULT 32) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t text;
    has_rows boolean;
    failed bigint;
    failures text;
BEGIN
    IF NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN
        RAISE EXCEPTION 'calltree.distribute() needs Citus, which is not installed in this database'
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'On every node: shared_preload_libraries = ''citus'' and CREATE EXTENSION citus; on the coordinator: citus_set_coordinator_host() and citus_add_node() for each worker, then CREATE EXTENSION calltree and SELECT calltree.distribute().';
    END IF;
    IF shard_count IS NULL OR shard_count < 1 THEN
        RAISE EXCEPTION 'shard_count % is not a positive number', coalesce(shard_count::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass the number of shards of the profiles, such as 32 (a few per worker core).';
    END IF;
    IF EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = '@extschema@.sample'::regclass) THEN
        RAISE EXCEPTION 'calltree is distributed already'
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    -- stack resolution and imports read the interned tables' copy on the
    -- coordinator: it must be a node of the cluster
    IF NOT EXISTS (SELECT FROM pg_dist_node WHERE groupid = 0) THEN
        RAISE EXCEPTION 'the coordinator is not a node of the Citus cluster'
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'SELECT citus_set_coordinator_host(''its host'', its port); then calltree.distribute() again.';
    END IF;
    FOREACH t IN ARRAY ARRAY['profile', 'sample', 'event', 'func', 'frame', 'stack', 'labels', 'symbol'] LOOP
        EXECUTE format('SELECT EXISTS (SELECT FROM @extschema@.%I)', t) INTO has_rows;
        IF has_rows THEN
            RAISE EXCEPTION 'calltree.distribute() needs empty tables: calltree.% has rows', t
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Distribute right after CREATE EXTENSION calltree, then import.';
        END IF;
    END LOOP;

    -- The checks that read other tables, as foreign keys
    DROP TRIGGER stack_insert_check ON @extschema@.stack;
    DROP TRIGGER stack_delete_check ON @extschema@.stack;
    DROP TRIGGER frame_delete_check ON @extschema@.frame;
    DROP TRIGGER sample_insert_check ON @extschema@.sample;
    DROP TRIGGER sample_update_check ON @extschema@.sample;
    DROP TRIGGER profile_delete_cascade ON @extschema@.profile;
    DROP TRIGGER labels_delete_check ON @extschema@.labels;

    -- Citus would turn a local table referring to a new reference table
    -- into a table of its own, made again on every worker, where the
    -- extension made it already: the foreign keys come back last, under
    -- new names (the workers' copies of the extension's tables, which
    -- Citus keeps as the shells of their shards, have the old ones)
    ALTER TABLE @extschema@.frame DROP CONSTRAINT frame_func_id_fkey;
    ALTER TABLE @extschema@.event DROP CONSTRAINT event_profile_id_fkey;
    ALTER TABLE @extschema@.event DROP CONSTRAINT event_func_id_fkey;

    -- the triggers left read no table (see above)
    SET LOCAL citus.enable_unsafe_triggers = on;
    -- foreign keys to reference tables: one connection per node
    SET LOCAL citus.multi_shard_modify_mode = 'sequential';
    PERFORM create_reference_table('@extschema@.func');
    PERFORM create_reference_table('@extschema@.frame');
    PERFORM create_reference_table('@extschema@.stack');
    PERFORM create_reference_table('@extschema@.labels');
    PERFORM create_reference_table('@extschema@.symbol');
    PERFORM create_distributed_table('@extschema@.profile', 'id', shard_count => shard_count);
    PERFORM create_distributed_table('@extschema@.sample', 'profile_id', colocate_with => '@extschema@.profile');
    PERFORM create_distributed_table('@extschema@.event', 'profile_id', colocate_with => '@extschema@.profile');

    -- one constraint a statement: Citus takes no more
    ALTER TABLE @extschema@.frame ADD CONSTRAINT frame_func_fkey
        FOREIGN KEY (func_id) REFERENCES @extschema@.func (id);
    ALTER TABLE @extschema@.stack ADD CONSTRAINT stack_prefix_fkey
        FOREIGN KEY (prefix_id) REFERENCES @extschema@.stack (id);
    ALTER TABLE @extschema@.stack ADD CONSTRAINT stack_frame_fkey
        FOREIGN KEY (frame_id) REFERENCES @extschema@.frame (id);
    ALTER TABLE @extschema@.event ADD CONSTRAINT event_profile_fkey
        FOREIGN KEY (profile_id) REFERENCES @extschema@.profile (id) ON DELETE CASCADE;
    ALTER TABLE @extschema@.event ADD CONSTRAINT event_func_fkey
        FOREIGN KEY (func_id) REFERENCES @extschema@.func (id);
    ALTER TABLE @extschema@.sample ADD CONSTRAINT sample_profile_fkey
        FOREIGN KEY (profile_id) REFERENCES @extschema@.profile (id) ON DELETE CASCADE;
    ALTER TABLE @extschema@.sample ADD CONSTRAINT sample_stack_fkey
        FOREIGN KEY (stack_id) REFERENCES @extschema@.stack (id);
    ALTER TABLE @extschema@.sample ADD CONSTRAINT sample_labels_fkey
        FOREIGN KEY (labels_id) REFERENCES @extschema@.labels (id);

    -- A query on one profile runs whole on its worker, report() and the
    -- other readers of names with it, and their queries of the interned
    -- tables are then queries within a query on a shard, which Citus
    -- refuses unless this is on.  They read only reference tables, whose
    -- placements never move.
    SELECT count(*) FILTER (WHERE NOT r.success), string_agg(r.result, '; ') FILTER (WHERE NOT r.success)
      INTO failed, failures
      FROM run_command_on_all_nodes(format(
               'SET citus.enable_ddl_propagation TO off; ALTER DATABASE %I SET citus.allow_nested_distributed_execution = on',
               current_database())) AS r;
    IF failed > 0 THEN
        RAISE EXCEPTION 'could not set citus.allow_nested_distributed_execution on % nodes: %', failed, failures
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
END
$$;
COMMENT ON FUNCTION distribute(int) IS 'on Citus: distributes profiles, samples and events by profile id over shard_count shards, and makes the interned tables reference tables';
