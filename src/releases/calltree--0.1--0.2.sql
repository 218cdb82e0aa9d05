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

-- Reports: rollups (tables rollup_level and rollup, rollup()), tree_between
-- and grafana_flamegraph; the same objects as src/install/75_reports.sql.

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
        -- a key that no profile has: a typo more likely than a plan
        IF NOT EXISTS (SELECT FROM @extschema@.profile p WHERE p.meta ? k)
           AND EXISTS (SELECT FROM @extschema@.profile) THEN
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

-- Comparing trees: calltree - calltree, diff() and regressions()

CREATE FUNCTION calltree_subtract(calltree, calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION calltree_subtract(calltree, calltree) IS 'the first tree''s samples minus the second''s: a signed tree with every node of both, without call counts';

CREATE OPERATOR - (
    LEFTARG = calltree, RIGHTARG = calltree, PROCEDURE = calltree_subtract
);
COMMENT ON OPERATOR - (calltree, calltree) IS 'the first tree''s samples minus the second''s: test - base is what changed';

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
-- flamegraph_diff and grafana_flamegraph_diff: differential flame graphs
-- of two trees, as an SVG document and as Grafana's data frame; the same
-- objects as in src/install/90_exports.sql.
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
