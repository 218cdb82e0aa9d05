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

-- Exports keep the unit: to_speedscope takes the unit of the tree's
-- weights, to_pprof says where its sample type and unit come from (the
-- same objects as src/install/90_exports.sql).
DROP FUNCTION to_speedscope(calltree, text);
CREATE FUNCTION to_speedscope(tree calltree, name text DEFAULT NULL, unit text DEFAULT NULL)
RETURNS json
AS 'MODULE_PATHNAME', 'calltree_to_speedscope'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION to_speedscope(calltree, text, text) IS 'a speedscope file with one sampled profile: one sample per node with self weight, in the unit given (profile.weight_unit; NULL or a count: none)';
COMMENT ON FUNCTION to_pprof(calltree, text, text) IS 'the tree as a gzip-compressed pprof profile: one sample per node with self weight, of the sample type and unit given (meta.sample_type and weight_unit of the profiles it came from; default samples/count)';

-- import_stream takes source, as import_trace_events does, so that
-- bin/calltree-load can pass --option source=events (the same object as
-- src/install/80_imports.sql).
DROP FUNCTION import_stream(regclass, text, jsonb, text, boolean, text, text);
CREATE FUNCTION import_stream(chunks regclass, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                              format text DEFAULT NULL, strict boolean DEFAULT NULL,
                              event text DEFAULT NULL, sample_type text DEFAULT NULL,
                              source text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_stream'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_stream(regclass, text, jsonb, text, boolean, text, text, text) IS 'imports a profile file sent as base64 chunks in a table (seq, chunk), as bin/calltree-load does: collapsed stacks and perf script as a stream, other formats whole, with the options of import_profile and source (trace events); returns the profile id';

-- import_trace_events reads every Chrome version's CPU profiles (the same
-- comment as src/install/80_imports.sql).
COMMENT ON FUNCTION import_trace_events(text, text, jsonb, text) IS 'imports Chrome trace-event JSON: its CPU samples (Profile/ProfileChunk or CpuProfile events, Hermes samples), a thread per profile, into calltree.sample, or its B/E and X events into calltree.event (source => ''samples'' or ''events''; NULL: the samples when there are any); returns the profile id';
-- Retention: calltree.sample partitioned by ranges of profile ids (the
-- table of 0.1 becomes its partition sample_0, rows and all), the
-- partition sample_default, new_sample_partition(), expire() and
-- collect_garbage()
DROP TRIGGER sample_insert_check ON sample;
DROP TRIGGER sample_update_check ON sample;
ALTER TABLE sample DROP CONSTRAINT sample_stack_id_fkey;
ALTER TABLE sample RENAME TO sample_0;
ALTER INDEX sample_profile_idx RENAME TO sample_0_profile_idx;
CREATE TABLE sample (
    profile_id bigint NOT NULL, -- a profile; checked by sample_refs_check, deleted with it
    thread     text,
    ts         bigint,
    stack_id   bigint NOT NULL, -- a stack; checked by sample_refs_check and stack_delete_check
    weight     bigint NOT NULL DEFAULT 1,
    labels_id  bigint           -- a label set; checked by sample_refs_check
) PARTITION BY RANGE (profile_id);
COMMENT ON TABLE sample IS 'samples: a stack and a weight (1, nanoseconds, bytes); ts in ns from profile start';
-- ATTACH reads the rows once, to check their ids
ALTER TABLE sample ATTACH PARTITION sample_0 FOR VALUES FROM (MINVALUE) TO (10000000000);
COMMENT ON TABLE sample_0 IS 'the samples of the profiles imported before the first window of new_sample_partition()';
CREATE TABLE sample_default PARTITION OF sample DEFAULT;
CREATE INDEX sample_default_profile_idx ON sample_default (profile_id, thread, ts);
COMMENT ON TABLE sample_default IS 'the samples of profile ids that no partition of a window holds';
SELECT pg_catalog.pg_extension_config_dump('sample_default', '');
CREATE TRIGGER sample_insert_check AFTER INSERT ON sample
    REFERENCING NEW TABLE AS new_samples
    FOR EACH STATEMENT EXECUTE FUNCTION sample_refs_check();
CREATE TRIGGER sample_update_check AFTER UPDATE ON sample
    REFERENCING NEW TABLE AS new_samples
    FOR EACH STATEMENT EXECUTE FUNCTION sample_refs_check();

-- What users gave the table of 0.1 (privileges, row security, policies)
-- goes to the partitioned table, through which queries read it.  Views on
-- it now read sample_0: they must be made again.
DO $$
DECLARE
    old constant regclass := '@extschema@.sample_0';
    grant_ record;
    policy record;
BEGIN
    FOR grant_ IN
        SELECT a.privilege_type, a.is_grantable,
               CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(pg_catalog.pg_get_userbyid(a.grantee)) END AS grantee
          FROM pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
         WHERE c.oid = old AND a.grantee <> c.relowner
    LOOP
        EXECUTE format('GRANT %s ON @extschema@.sample TO %s%s', grant_.privilege_type, grant_.grantee,
                       CASE WHEN grant_.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
        EXECUTE format('REVOKE %s ON %s FROM %s', grant_.privilege_type, old, grant_.grantee);
    END LOOP;
    IF (SELECT c.relrowsecurity FROM pg_catalog.pg_class c WHERE c.oid = old) THEN
        ALTER TABLE @extschema@.sample ENABLE ROW LEVEL SECURITY;
    END IF;
    IF (SELECT c.relforcerowsecurity FROM pg_catalog.pg_class c WHERE c.oid = old) THEN
        ALTER TABLE @extschema@.sample FORCE ROW LEVEL SECURITY;
    END IF;
    FOR policy IN SELECT * FROM pg_catalog.pg_policies p WHERE p.schemaname = '@extschema@' AND p.tablename = 'sample_0' LOOP
        EXECUTE format('CREATE POLICY %I ON @extschema@.sample AS %s FOR %s TO %s%s%s', policy.policyname,
                       policy.permissive, policy.cmd,
                       (SELECT string_agg(CASE WHEN r = 'public' THEN 'PUBLIC' ELSE quote_ident(r) END, ', ') FROM unnest(policy.roles) AS r),
                       CASE WHEN policy.qual IS NOT NULL THEN format(' USING (%s)', policy.qual) ELSE '' END,
                       CASE WHEN policy.with_check IS NOT NULL THEN format(' WITH CHECK (%s)', policy.with_check) ELSE '' END);
        EXECUTE format('DROP POLICY %I ON %s', policy.policyname, old);
    END LOOP;
    ALTER TABLE @extschema@.sample_0 NO FORCE ROW LEVEL SECURITY;
    ALTER TABLE @extschema@.sample_0 DISABLE ROW LEVEL SECURITY;
END
$$;

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
-- second after the lock, in a new snapshot.
CREATE FUNCTION expire_partition(part regclass, first_id bigint, end_id bigint, cutoff timestamptz,
                                 INOUT profiles bigint, INOUT samples bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lo bigint := coalesce(first_id, -9223372036854775808);
BEGIN
    profiles := 0;
    samples := 0;
    FOR pass IN 1 .. 2 LOOP
        IF pass = 2 THEN
            EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', part);
        END IF;
        IF EXISTS (SELECT FROM @extschema@.profile p
                    WHERE p.id >= lo AND p.id < end_id
                      AND NOT (p.started_at < cutoff AND @extschema@.rolled_up(p))) THEN
            RETURN;
        END IF;
    END LOOP;
    EXECUTE format('SELECT count(*) FROM %s', part) INTO samples;
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
    EXECUTE format('SELECT NOT EXISTS (SELECT FROM %s)', part) INTO empty;
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

    -- the profiles of sample_default, row by row: few
    WITH gone AS (
        DELETE FROM @extschema@.profile p
         WHERE NOT EXISTS (SELECT FROM @extschema@.sample_partitions() w
                            WHERE w.end_id IS NOT NULL AND p.id >= coalesce(w.first_id, p.id) AND p.id < w.end_id)
           AND p.started_at < cutoff AND @extschema@.rolled_up(p)
        RETURNING p.id)
    SELECT profiles + count(*), samples + (SELECT count(*) FROM @extschema@.sample_default s WHERE s.profile_id IN (SELECT id FROM gone))
      INTO profiles, samples FROM gone;

    -- the profiles old enough and rolled up that stay, with their partition
    SELECT count(*) INTO kept FROM @extschema@.profile p
     WHERE p.started_at < cutoff AND @extschema@.rolled_up(p);

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
                   AND NOT EXISTS (SELECT FROM @extschema@.profile q WHERE q.id >= p.first_id AND q.id < p.end_id)
                 ORDER BY p.end_id LOOP
        PERFORM @extschema@.expire_drop(part.partition);
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
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'collect_garbage() needs the READ COMMITTED isolation level, not %', current_setting('transaction_isolation')
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'It must see the rows committed while it waited for its locks.';
    END IF;
    LOCK TABLE @extschema@.stack IN SHARE ROW EXCLUSIVE MODE;
    PERFORM @extschema@.intern_lock();

    -- the stacks of samples and their prefixes, up to the roots
    WITH RECURSIVE used (id) AS (
        SELECT DISTINCT s.stack_id FROM @extschema@.sample s
        UNION
        SELECT st.prefix_id FROM used u JOIN @extschema@.stack st ON st.id = u.id
         WHERE st.prefix_id IS NOT NULL
    )
    DELETE FROM @extschema@.stack st WHERE NOT EXISTS (SELECT FROM used u WHERE u.id = st.id);
    GET DIAGNOSTICS stacks = ROW_COUNT;

    DELETE FROM @extschema@.frame f
     WHERE NOT EXISTS (SELECT FROM @extschema@.stack st WHERE st.frame_id = f.id);
    GET DIAGNOSTICS frames = ROW_COUNT;

    WITH in_trees AS MATERIALIZED (
        SELECT DISTINCT n.func FROM @extschema@.rollup r, @extschema@.functions(r.tree) n
    )
    DELETE FROM @extschema@.func f
     WHERE NOT EXISTS (SELECT FROM @extschema@.frame fr WHERE fr.func_id = f.id)
       AND NOT EXISTS (SELECT FROM @extschema@.event e WHERE e.func_id = f.id)
       AND NOT EXISTS (SELECT FROM in_trees t WHERE t.func = f.id);
    GET DIAGNOSTICS funcs = ROW_COUNT;

    WITH used AS MATERIALIZED (
        SELECT DISTINCT s.labels_id FROM @extschema@.sample s WHERE s.labels_id IS NOT NULL
    )
    DELETE FROM @extschema@.labels l WHERE NOT EXISTS (SELECT FROM used u WHERE u.labels_id = l.id);
    GET DIAGNOSTICS label_sets = ROW_COUNT;
END
$$;
COMMENT ON FUNCTION collect_garbage() IS 'deletes the stacks, frames, funcs and label sets that no sample, stack, frame, trace event or rollup tree uses; returns how many of each';
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
-- Functions by name: funcs(), unify_funcs(), the name (text) and func-array
-- (int4[]) forms of every transform and analysis of one function,
-- running_of() and self_of().  The transforms and analyses that take funcs
-- check them against calltree.func, so they become STABLE.
ALTER FUNCTION merge_call_node(int4[], int4[]) STABLE;
ALTER FUNCTION merge_call_node(calltree, int4[]) STABLE;
ALTER FUNCTION merge_function(int4[], int4) STABLE;
ALTER FUNCTION merge_function(calltree, int4) STABLE;
ALTER FUNCTION merge_functions(int4[], int4[]) STABLE;
ALTER FUNCTION merge_functions(calltree, int4[]) STABLE;
ALTER FUNCTION merge_subtree(int4[], int4[]) STABLE;
ALTER FUNCTION merge_subtree(calltree, int4[]) STABLE;
ALTER FUNCTION collapse_function_subtree(int4[], int4) STABLE;
ALTER FUNCTION collapse_function_subtree(calltree, int4) STABLE;
ALTER FUNCTION hide_call_node(int4[], int4[]) STABLE;
ALTER FUNCTION hide_call_node(calltree, int4[]) STABLE;
ALTER FUNCTION drop_function(int4[], int4) STABLE;
ALTER FUNCTION drop_function(calltree, int4) STABLE;
ALTER FUNCTION focus_subtree(int4[], int4[]) STABLE;
ALTER FUNCTION focus_subtree(calltree, int4[]) STABLE;
ALTER FUNCTION focus_function(int4[], int4) STABLE;
ALTER FUNCTION focus_function(calltree, int4) STABLE;
ALTER FUNCTION collapse_direct_recursion(int4[], int4) STABLE;
ALTER FUNCTION collapse_direct_recursion(calltree, int4) STABLE;
ALTER FUNCTION collapse_recursion(int4[], int4) STABLE;
ALTER FUNCTION collapse_recursion(calltree, int4) STABLE;
ALTER FUNCTION remap_functions(int4[], int4[], int4[]) STABLE;
ALTER FUNCTION remap_functions(calltree, int4[], int4[]) STABLE;
ALTER FUNCTION callers(calltree, int4) STABLE;
ALTER FUNCTION callees(calltree, int4) STABLE;
ALTER FUNCTION outgoing_calls(calltree, int4) STABLE;
ALTER FUNCTION backtraces(calltree, int4, text) STABLE;

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

-- Rollup trees are stored with lz4 (src/install/75_reports.sql).
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

-- The states of calltree_agg, calltree_merge and stack_agg become values of
-- real types (a calltree; stack_weights, new, for stack_agg) with combine
-- functions, so that Citus runs them as partial aggregates on its workers
-- (src/install/35_agg_state.sql, src/install/40_aggregates.sql).  A state
-- type cannot be altered: the aggregates are made again, with the same
-- names and arguments.  The serialize and deserialize functions go: a
-- state of a real type needs none.
DROP AGGREGATE calltree_agg(int4[], bigint);
DROP AGGREGATE calltree_agg(int4[]);
DROP AGGREGATE calltree_merge(calltree);
DROP AGGREGATE stack_agg(bigint, bigint);
DROP AGGREGATE stack_agg(bigint);
DROP FUNCTION calltree_agg_transfn(internal, int4[], bigint);
DROP FUNCTION calltree_agg_transfn(internal, int4[]);
DROP FUNCTION calltree_merge_transfn(internal, calltree);
DROP FUNCTION calltree_agg_combinefn(internal, internal);
DROP FUNCTION calltree_agg_serialfn(internal);
DROP FUNCTION calltree_agg_deserialfn(bytea, internal);
DROP FUNCTION calltree_agg_finalfn(internal);
DROP FUNCTION stack_agg_transfn(internal, bigint, bigint);
DROP FUNCTION stack_agg_transfn(internal, bigint);
DROP FUNCTION stack_agg_combinefn(internal, internal);
DROP FUNCTION stack_agg_serialfn(internal);
DROP FUNCTION stack_agg_deserialfn(bytea, internal);
DROP FUNCTION stack_agg_finalfn(internal);

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

-- Citus: calltree.distribute() (src/install/95_citus.sql)
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

-- Queries of no columns (SELECT FROM) on tables that Citus may distribute
-- are SELECT 1: Citus cannot plan them.
CREATE OR REPLACE FUNCTION rollup_check_group_by(group_by text[]) RETURNS text[]
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
CREATE OR REPLACE FUNCTION expire_partition(part regclass, first_id bigint, end_id bigint, cutoff timestamptz,
                                 INOUT profiles bigint, INOUT samples bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lo bigint := coalesce(first_id, -9223372036854775808);
    prof @extschema@.profile;
BEGIN
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
    EXECUTE format('SELECT count(*) FROM %s', part) INTO samples;
    EXECUTE format('TRUNCATE %s', part);
    DELETE FROM @extschema@.profile p WHERE p.id >= lo AND p.id < end_id;
    GET DIAGNOSTICS profiles = ROW_COUNT;
END
$$;
CREATE OR REPLACE FUNCTION expire_drop(part regclass) RETURNS boolean
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
CREATE OR REPLACE FUNCTION expire(raw_older_than interval, partition_width interval DEFAULT '1 day',
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
    SELECT samples + count(*) INTO samples FROM @extschema@.sample_default s WHERE s.profile_id = ANY (gone);
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
CREATE OR REPLACE FUNCTION collect_garbage(OUT stacks bigint, OUT frames bigint, OUT funcs bigint, OUT label_sets bigint)
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

-- expire_partition refuses to run where row-level security hides profiles
-- or samples from its caller (TRUNCATE would empty their partition)
CREATE OR REPLACE FUNCTION expire_partition(part regclass, first_id bigint, end_id bigint, cutoff timestamptz,
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

-- Only the owner reads and writes the partitions of sample themselves:
-- row-level security with no policy on each (10_tables.sql), set by
-- new_sample_partition on the new ones; expire counts samples through sample
ALTER TABLE sample_0 ENABLE ROW LEVEL SECURITY;
ALTER TABLE sample_default ENABLE ROW LEVEL SECURITY;
CREATE OR REPLACE FUNCTION new_sample_partition() RETURNS regclass
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
CREATE OR REPLACE FUNCTION expire(raw_older_than interval, partition_width interval DEFAULT '1 day',
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
