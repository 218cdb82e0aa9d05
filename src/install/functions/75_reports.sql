-- The functions of reports: rollup levels, rollup runs, tree_between and
-- Grafana's data frame (their tables: schema/75_reports.sql).

-- The bucket of a time: buckets are aligned on a Monday at midnight UTC, so
-- that hours, days and weeks nest.  date_bin counts a day as 24 hours.
CREATE OR REPLACE FUNCTION rollup_bucket(ts timestamptz, width interval) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.date_bin(width, ts, '2000-01-03 00:00:00+00'::timestamptz);
COMMENT ON FUNCTION rollup_bucket(timestamptz, interval) IS 'the start of the bucket of the given width that holds ts (buckets aligned on Monday 2000-01-03 00:00 UTC)';

-- Whether the bucket of ts, start and end, lies within the range of
-- timestamps (4714-11-24 BC to 294276-12-31 AD): not for an infinite ts,
-- nor within a width of either end of the range, where rollup_bucket
-- fails or the bucket's end (bucket + width, which tree_between and the
-- coarser levels compute) would.  A profile there has no row: a level
-- skips it.  In exact numerics (seconds from the origin of the buckets),
-- which cannot overflow.
CREATE OR REPLACE FUNCTION rollup_bucket_fits(ts timestamptz, width interval) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE WHEN NOT pg_catalog.isfinite(ts) THEN false
            ELSE (SELECT b.start OPERATOR(pg_catalog.>=) pg_catalog.extract('epoch',
                           '4714-11-24 00:00:00+00 BC'::timestamptz OPERATOR(pg_catalog.-) '2000-01-03 00:00:00+00'::timestamptz)
                     AND b.start OPERATOR(pg_catalog.+) b.w OPERATOR(pg_catalog.<=) pg_catalog.extract('epoch',
                           '294276-12-31 23:59:59.999999+00'::timestamptz OPERATOR(pg_catalog.-) '2000-01-03 00:00:00+00'::timestamptz)
                    FROM (SELECT t.since OPERATOR(pg_catalog.-) pg_catalog.mod(t.since, t.w)
                                 OPERATOR(pg_catalog.-) CASE WHEN pg_catalog.mod(t.since, t.w) OPERATOR(pg_catalog.<) 0 THEN t.w ELSE 0 END AS start,
                                 t.w
                            FROM (SELECT pg_catalog.extract('epoch', ts OPERATOR(pg_catalog.-) '2000-01-03 00:00:00+00'::timestamptz) AS since,
                                         pg_catalog.extract('epoch', width) AS w) AS t) AS b)
       END;
COMMENT ON FUNCTION rollup_bucket_fits(timestamptz, interval) IS 'whether the bucket of the given width that holds ts starts and ends within the range of timestamps (false for an infinite ts)';

-- The group of a profile: the given keys of its meta, a missing key as JSON null.
CREATE OR REPLACE FUNCTION group_key(meta jsonb, keys text[]) RETURNS jsonb
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT COALESCE(pg_catalog.jsonb_object_agg(k, COALESCE(meta OPERATOR(pg_catalog.->) k, 'null'::jsonb)), '{}'::jsonb)
      FROM pg_catalog.unnest(keys) AS k;
END;
COMMENT ON FUNCTION group_key(jsonb, text[]) IS 'the object of the given keys of meta, a missing key as null: the group of a profile';

-- Checks the arguments of rollup; returns the width as hours, minutes and
-- seconds (24:00:00 for '1 day', so that bucket + width is always the
-- width later, across daylight saving changes too).
CREATE OR REPLACE FUNCTION rollup_check_width(width interval) RETURNS interval
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

-- Checks group_by; returns its keys sorted.
CREATE OR REPLACE FUNCTION rollup_check_group_by(group_by text[]) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
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
    RETURN ARRAY(SELECT g FROM unnest(group_by) AS g ORDER BY g COLLATE "C");
END
$$;

-- Checks the keys of a new level against the meta keys of profiles: a key
-- that no profile has is a typo more likely than a plan.  Only when the
-- level is created: once the last profile with a key has expired, the
-- level's runs go on.
CREATE OR REPLACE FUNCTION rollup_check_keys_known(keys text[]) RETURNS void
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    k text;
BEGIN
    FOREACH k IN ARRAY keys LOOP
        -- SELECT 1: Citus cannot plan a subquery of no columns on its tables
        IF NOT EXISTS (SELECT 1 FROM @extschema@.profile p WHERE p.meta ? k)
           AND EXISTS (SELECT 1 FROM @extschema@.profile) THEN
            RAISE EXCEPTION 'unknown group key "%": no profile has it in its meta', k
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = 'group_by names keys of calltree.profile.meta; SELECT DISTINCT jsonb_object_keys(meta) FROM calltree.profile lists them.';
        END IF;
    END LOOP;
END
$$;

-- Creates the level of (width, keys) if it is new, with the level it is
-- built from, fixed then: the coarsest existing level of the same keys
-- whose buckets nest in this one's, or raw samples when there is none.
CREATE OR REPLACE FUNCTION rollup_create_level(width interval, keys text[]) RETURNS void
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

-- The errors that one profile (or one row of a finer level) can cause in a
-- run, and that skip it rather than stop the level: data_exception (22:
-- "call tree weight out of range" when its weights overflow a row) and
-- program_limit_exceeded (54: "index row size exceeds btree maximum" for a
-- group key or weight unit too long for rollup_key).  Every other error
-- (locks, serialization, rights) stops the run, and skips nothing.

-- Lists a profile as skipped by a level, with a warning, once.
CREATE OR REPLACE FUNCTION rollup_skip(width interval, keys text[], profile_id bigint, bucket timestamptz,
                                       group_key jsonb, weight_unit text, state text, reason text) RETURNS void
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO @extschema@.rollup_skipped (width, group_by, profile_id, bucket, group_key, weight_unit, sqlstate, reason)
    VALUES (rollup_skip.width, keys, rollup_skip.profile_id, rollup_skip.bucket, rollup_skip.group_key,
            rollup_skip.weight_unit, state, reason)
    ON CONFLICT ON CONSTRAINT rollup_skipped_key DO NOTHING;
    IF FOUND THEN
        RAISE WARNING 'rollup level % % skipped profile %: %', width, keys, profile_id, reason
            USING DETAIL = format('Its row: bucket %s, group %s, weight unit %s.', bucket,
                                  left(group_key::text, 100), left(weight_unit, 100)),
                  HINT = 'calltree.rollup_skipped lists the skipped profiles; expire() deletes them when old. '
                         'To roll one up, correct it and delete its row there.';
    END IF;
END
$$;

-- Adds the given profiles to the rows of a level read from raw samples,
-- per bucket, group and unit, and to the level's profiles (one statement,
-- so one snapshot: the profiles read are exactly those whose samples are
-- read).  The number of rows written.
CREATE OR REPLACE FUNCTION rollup_add_profiles(width interval, keys text[], ids bigint[]) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    written bigint;
BEGIN
    WITH taken AS MATERIALIZED (
        SELECT p.id, p.weight_unit,
               @extschema@.rollup_bucket(p.started_at, rollup_add_profiles.width) AS bucket,
               @extschema@.group_key(p.meta, keys) AS group_key
          FROM @extschema@.profile p
         WHERE p.id = ANY (ids) AND p.started_at IS NOT NULL
           AND @extschema@.rollup_bucket_fits(p.started_at, rollup_add_profiles.width)
    ), grouped AS (
        SELECT t.bucket, t.group_key, t.weight_unit,
               range_agg(int8range(t.id, t.id, '[]')) AS profiles
          FROM taken t GROUP BY t.bucket, t.group_key, t.weight_unit
    ), trees AS (
        SELECT t.bucket, t.group_key, t.weight_unit,
               @extschema@.stack_agg(s) AS tree, sum(@extschema@.sample_count(s))::bigint AS samples
          FROM taken t, @extschema@.profile_sample_sets(t.id) AS s
         GROUP BY t.bucket, t.group_key, t.weight_unit
    ), written AS (
        INSERT INTO @extschema@.rollup AS r (bucket, width, group_key, weight_unit, tree, samples, profiles)
        SELECT g.bucket, rollup_add_profiles.width, g.group_key, g.weight_unit,
               COALESCE(t.tree, '{}'::@extschema@.calltree), COALESCE(t.samples, 0), g.profiles
          FROM grouped g LEFT JOIN trees t USING (bucket, group_key, weight_unit)
        ON CONFLICT ON CONSTRAINT rollup_key DO UPDATE
           SET tree = r.tree OPERATOR(@extschema@.+) excluded.tree,
               samples = r.samples + excluded.samples,
               profiles = r.profiles + excluded.profiles
        RETURNING 1
    ), level AS (
        INSERT INTO @extschema@.rollup_taken AS l (width, group_by, profiles)
        SELECT rollup_add_profiles.width, keys, range_agg(int8range(t.id, t.id, '[]')) FROM taken t
        HAVING count(*) > 0
        ON CONFLICT ON CONSTRAINT rollup_taken_key DO UPDATE SET profiles = l.profiles + excluded.profiles
    )
    SELECT count(*) INTO written FROM written;
    RETURN written;
END
$$;

-- rollup_add_profiles after it failed on some of the profiles: row by
-- row, and in a row that fails, profile by profile, the smallest weight
-- first (so that a huge weight, not its neighbours, is the one that
-- overflows); a profile that fails alone is skipped.
CREATE OR REPLACE FUNCTION rollup_add_profiles_apart(width interval, keys text[], ids bigint[]) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    grp record;
    id bigint;
    wrote boolean;
    written bigint := 0;
    state text;
    reason text;
BEGIN
    FOR grp IN
        SELECT @extschema@.rollup_bucket(p.started_at, rollup_add_profiles_apart.width) AS bucket,
               @extschema@.group_key(p.meta, keys) AS group_key, p.weight_unit,
               array_agg(p.id ORDER BY (SELECT sum(abs(u.weight::numeric))
                                          FROM @extschema@.profile_sample_sets(p.id) AS s, @extschema@.unnest(s) AS u)
                         NULLS FIRST, p.id) AS ids
          FROM @extschema@.profile p
         WHERE p.id = ANY (ids) AND p.started_at IS NOT NULL
           AND @extschema@.rollup_bucket_fits(p.started_at, rollup_add_profiles_apart.width)
         GROUP BY 1, 2, 3
    LOOP
        BEGIN
            written := written + @extschema@.rollup_add_profiles(width, keys, grp.ids);
            CONTINUE;
        EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
            NULL;
        END;
        wrote := false;
        FOREACH id IN ARRAY grp.ids LOOP
            BEGIN
                PERFORM @extschema@.rollup_add_profiles(width, keys, ARRAY[id]);
                wrote := true;
            EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
                GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, reason = MESSAGE_TEXT;
                PERFORM @extschema@.rollup_skip(width, keys, id, grp.bucket, grp.group_key, grp.weight_unit, state, reason);
            END;
        END LOOP;
        written := written + wrote::int;
    END LOOP;
    RETURN written;
END
$$;

-- One run of a level read from raw samples: the profiles that the level
-- has neither taken (rollup_taken) nor skipped.  A profile whose start
-- time, meta or unit changed after the level took it is not taken again.
-- A profile whose bucket lies outside the range of timestamps (a start
-- time of infinity, or within a width of either end of the range) is
-- skipped: its row could be neither made nor read.  (A profile moved there
-- between these statements is neither taken nor skipped: rollup_add_profiles
-- passes over it, and the next run skips it.)  (The ids of both are read
-- first: Citus joins no local table with the distributed profile.)
CREATE OR REPLACE FUNCTION rollup_from_samples(width interval, keys text[], since timestamptz)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    done int8multirange;
    fresh bigint[];
    misfits bigint[];
BEGIN
    SELECT COALESCE((SELECT t.profiles FROM @extschema@.rollup_taken t
                      WHERE t.width = rollup_from_samples.width AND t.group_by = keys), '{}')
           + COALESCE((SELECT range_agg(int8range(k.profile_id, k.profile_id, '[]')) FROM @extschema@.rollup_skipped k
                        WHERE k.width = rollup_from_samples.width AND k.group_by = keys), '{}')
      INTO done;
    fresh := ARRAY(SELECT p.id FROM @extschema@.profile p
                    WHERE p.started_at IS NOT NULL
                      AND (since IS NULL OR p.started_at >= since)
                      AND NOT done @> p.id
                    ORDER BY p.id);
    IF cardinality(fresh) = 0 THEN
        RETURN 0;
    END IF;
    misfits := ARRAY(SELECT p.id FROM @extschema@.profile p
                      WHERE p.id = ANY (fresh)
                        AND NOT @extschema@.rollup_bucket_fits(p.started_at, rollup_from_samples.width));
    IF cardinality(misfits) > 0 THEN
        PERFORM @extschema@.rollup_skip(rollup_from_samples.width, keys, p.id, p.started_at,
                                        @extschema@.group_key(p.meta, keys), p.weight_unit, '22008',
                                        format('its start time %s has no bucket of width %s within the range of timestamps',
                                               p.started_at, rollup_from_samples.width))
           FROM @extschema@.profile p
          WHERE p.id = ANY (misfits);
        fresh := ARRAY(SELECT f FROM unnest(fresh) AS f EXCEPT SELECT m FROM unnest(misfits) AS m);
    END IF;
    BEGIN
        RETURN @extschema@.rollup_add_profiles(width, keys, fresh);
    EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
        RETURN @extschema@.rollup_add_profiles_apart(width, keys, fresh);
    END;
END
$$;

-- The buckets of a level built from a finer one whose finer rows include
-- a profile that its row does not, nor lists as skipped.  A finer row
-- whose bucket of this width lies outside the range of timestamps has
-- none (rollup_from_level skips its profiles).
CREATE OR REPLACE FUNCTION rollup_stale_buckets(width interval, keys text[], source interval, since timestamptz,
                                                skipped int8multirange,
                                                OUT bucket timestamptz, OUT group_key jsonb, OUT weight_unit text)
RETURNS SETOF record
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT DISTINCT b.bucket, f.group_key, f.weight_unit
      FROM @extschema@.rollup f,
           LATERAL (SELECT CASE WHEN @extschema@.rollup_bucket_fits(f.bucket, rollup_stale_buckets.width)
                                THEN @extschema@.rollup_bucket(f.bucket, rollup_stale_buckets.width) END AS bucket) b
     WHERE f.width = source AND b.bucket IS NOT NULL
       AND ARRAY(SELECT k FROM pg_catalog.jsonb_object_keys(f.group_key) AS k ORDER BY k COLLATE "C") = keys
       AND (since IS NULL OR f.bucket >= @extschema@.rollup_bucket(since, rollup_stale_buckets.width))
       AND NOT EXISTS (SELECT FROM @extschema@.rollup r
                        WHERE r.group_key = f.group_key AND r.width = rollup_stale_buckets.width
                          AND r.bucket = b.bucket AND r.weight_unit = f.weight_unit
                          AND (r.profiles OPERATOR(pg_catalog.+) skipped) OPERATOR(pg_catalog.@>) f.profiles);
END;

-- One run of a level built from a finer one: each stale bucket is merged
-- again from the finer rows.  The profiles of a finer row whose bucket of
-- this width lies outside the range of timestamps are skipped (once: the
-- warning of rollup_skip is for new rows only); tree_between reads the
-- finer row for them.
CREATE OR REPLACE FUNCTION rollup_from_level(width interval, keys text[], source interval, since timestamptz) RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    skipped int8multirange;
    written bigint;
BEGIN
    SELECT COALESCE(range_agg(int8range(k.profile_id, k.profile_id, '[]')), '{}') INTO skipped
      FROM @extschema@.rollup_skipped k WHERE k.width = rollup_from_level.width AND k.group_by = keys;
    PERFORM @extschema@.rollup_skip(rollup_from_level.width, keys, g.id, f.bucket, f.group_key, f.weight_unit, '22008',
                                    format('its row of width %s at %s has no bucket of width %s within the range of timestamps',
                                           source, f.bucket, rollup_from_level.width))
       FROM @extschema@.rollup f, unnest(f.profiles OPERATOR(pg_catalog.-) skipped) AS r,
            generate_series(lower(r), upper(r) - 1) AS g(id)
      WHERE f.width = source
        AND ARRAY(SELECT k FROM jsonb_object_keys(f.group_key) AS k ORDER BY k COLLATE "C") = keys
        AND (since IS NULL OR f.bucket >= @extschema@.rollup_bucket(since, rollup_from_level.width))
        AND NOT @extschema@.rollup_bucket_fits(f.bucket, rollup_from_level.width);
    BEGIN
        WITH written AS (
            INSERT INTO @extschema@.rollup AS r (bucket, width, group_key, weight_unit, tree, samples, profiles)
            SELECT s.bucket, rollup_from_level.width, s.group_key, s.weight_unit,
                   @extschema@.calltree_merge(f.tree), sum(f.samples), range_agg(f.profiles)
              FROM @extschema@.rollup_stale_buckets(rollup_from_level.width, keys, source, since, skipped) s
              JOIN @extschema@.rollup f
                ON f.group_key = s.group_key AND f.width = source AND f.weight_unit = s.weight_unit
               AND f.bucket >= s.bucket AND f.bucket < s.bucket + rollup_from_level.width
             GROUP BY s.bucket, s.group_key, s.weight_unit
            ON CONFLICT ON CONSTRAINT rollup_key DO UPDATE
               SET tree = excluded.tree, samples = excluded.samples, profiles = excluded.profiles
            RETURNING 1
        )
        SELECT count(*) INTO written FROM written;
        RETURN written;
    EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
        RETURN @extschema@.rollup_from_level_apart(width, keys, source, since, skipped);
    END;
END
$$;

-- rollup_from_level after it failed: bucket by bucket, and in a bucket that
-- fails, the finer rows one at a time, the smallest total first; a finer
-- row that overflows the sum is left out, its profiles skipped.  The
-- bucket's row then lacks them, and tree_between reads the finer rows
-- for it instead.
CREATE OR REPLACE FUNCTION rollup_from_level_apart(width interval, keys text[], source interval, since timestamptz,
                                                   skipped int8multirange)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    b record;
    f record;
    id bigint;
    tree @extschema@.calltree;
    samples bigint;
    profiles int8multirange;
    written bigint := 0;
    state text;
    reason text;
BEGIN
    FOR b IN SELECT * FROM @extschema@.rollup_stale_buckets(width, keys, source, since, skipped) LOOP
        tree := NULL;
        samples := 0;
        profiles := '{}';
        FOR f IN SELECT r.tree, r.samples, r.profiles FROM @extschema@.rollup r
                  WHERE r.group_key = b.group_key AND r.width = source AND r.weight_unit = b.weight_unit
                    AND r.bucket >= b.bucket AND r.bucket < b.bucket + rollup_from_level_apart.width
                  ORDER BY abs(@extschema@.total(r.tree)::numeric), r.bucket LOOP
            BEGIN
                tree := @extschema@.rollup_add(tree, f.tree);
                samples := samples + f.samples;
                profiles := profiles + f.profiles;
            EXCEPTION WHEN data_exception OR program_limit_exceeded THEN
                GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, reason = MESSAGE_TEXT;
                FOR id IN SELECT generate_series(lower(g), upper(g) - 1) FROM unnest(f.profiles - skipped) AS g LOOP
                    PERFORM @extschema@.rollup_skip(width, keys, id, b.bucket, b.group_key, b.weight_unit, state, reason);
                END LOOP;
            END;
        END LOOP;
        INSERT INTO @extschema@.rollup AS r (bucket, width, group_key, weight_unit, tree, samples, profiles)
        VALUES (b.bucket, rollup_from_level_apart.width, b.group_key, b.weight_unit,
                COALESCE(tree, '{}'::@extschema@.calltree), samples, profiles)
        ON CONFLICT ON CONSTRAINT rollup_key DO UPDATE
           SET tree = excluded.tree, samples = excluded.samples, profiles = excluded.profiles;
        written := written + 1;
    END LOOP;
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
CREATE OR REPLACE FUNCTION rollup(width interval, group_by text[] DEFAULT '{service}', since timestamptz DEFAULT NULL)
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
        IF NOT EXISTS (SELECT FROM @extschema@.rollup_level l WHERE l.width = w AND l.group_by = keys) THEN
            PERFORM @extschema@.rollup_check_keys_known(keys);
            PERFORM @extschema@.rollup_create_level(w, keys);
        END IF;
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
CREATE OR REPLACE FUNCTION rollup_add(a calltree, b calltree) RETURNS calltree
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE a OPERATOR(@extschema@.+) b END;

-- The rows of a level that tree_between may read for the uncovered part
-- of [since, until): those that lie wholly in it, share no profile with
-- the rows chosen already (covered: a profile moved after a level took
-- it may sit at different times in two levels), and include every profile
-- that a finer row inside their bucket includes.  A coarser level behind
-- its source lacks profiles whose samples expire() may have deleted: its
-- row is passed over for the finer rows, which have them.
CREATE OR REPLACE FUNCTION rollup_rows_within(group_key jsonb, width interval, since timestamptz, until timestamptz,
                                   weight_unit text, uncovered tstzmultirange, covered int8multirange)
RETURNS SETOF rollup
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT r.* FROM @extschema@.rollup r
     WHERE r.group_key = rollup_rows_within.group_key AND r.width = rollup_rows_within.width
       AND r.bucket >= since AND r.bucket + r.width <= until
       AND (rollup_rows_within.weight_unit IS NULL OR r.weight_unit = rollup_rows_within.weight_unit)
       AND uncovered @> tstzrange(r.bucket, r.bucket + r.width, '[)')
       AND NOT r.profiles && covered
       -- one index range per finer width: the rows of its bucket
       AND NOT EXISTS (SELECT 1 FROM @extschema@.rollup_level l
                        WHERE l.width < r.width
                          AND EXISTS (SELECT 1 FROM @extschema@.rollup f
                                       WHERE f.group_key = r.group_key AND f.width = l.width
                                         AND f.bucket >= r.bucket AND f.bucket < r.bucket + r.width
                                         AND f.weight_unit = r.weight_unit
                                         AND f.bucket + f.width <= r.bucket + r.width
                                         AND NOT r.profiles @> f.profiles));
END;

CREATE OR REPLACE FUNCTION tree_between(group_key jsonb, since timestamptz, until timestamptz, weight_unit text DEFAULT NULL)
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
    -- uncovered, and that rollup_rows_within finds complete.  A level holds
    -- a profile once, and rows that share a profile with a chosen one are
    -- passed over, so no profile is in two chosen rows.
    FOR w IN SELECT DISTINCT r.width FROM @extschema@.rollup r
              WHERE r.group_key = tree_between.group_key AND r.bucket >= since AND r.bucket < until
              ORDER BY r.width DESC
    LOOP
        SELECT count(*), sum(r.samples), range_agg(r.profiles), range_agg(tstzrange(r.bucket, r.bucket + r.width, '[)')),
               array_agg(DISTINCT r.weight_unit)
          INTO n, part_samples, part_ids, part_time, part_units
          FROM @extschema@.rollup_rows_within(group_key, w, since, until, weight_unit, uncovered, covered) r;
        CONTINUE WHEN n = 0;
        -- one row (a week read from a weekly row) is its own tree: no merge
        IF n = 1 THEN
            SELECT r.tree INTO part
              FROM @extschema@.rollup_rows_within(group_key, w, since, until, weight_unit, uncovered, covered) r;
        ELSE
            SELECT @extschema@.calltree_merge(r.tree) INTO part
              FROM @extschema@.rollup_rows_within(group_key, w, since, until, weight_unit, uncovered, covered) r;
        END IF;
        result := @extschema@.rollup_add(result, part);
        sample_count := sample_count + part_samples;
        covered := covered + part_ids;
        uncovered := uncovered - part_time;
        units := units || part_units;
    END LOOP;

    -- Raw samples for the rest: the edges, and profiles no chosen row includes.
    SELECT @extschema@.stack_agg(s), sum(@extschema@.sample_count(s)), array_agg(DISTINCT p.weight_unit)
      INTO part, part_samples, part_units
      FROM @extschema@.profile p, @extschema@.profile_sample_sets(p.id) AS s
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
CREATE OR REPLACE FUNCTION grafana_flamegraph(tree calltree,
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
