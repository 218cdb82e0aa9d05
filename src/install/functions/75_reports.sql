-- The functions of reports: rollup levels, rollup runs, tree_between and
-- Grafana's data frame (their tables: schema/75_reports.sql).

-- The bucket of a time: buckets are aligned on a Monday at midnight UTC, so
-- that hours, days and weeks nest.  date_bin counts a day as 24 hours.
CREATE OR REPLACE FUNCTION rollup_bucket(ts timestamptz, width interval) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.date_bin(width, ts, '2000-01-03 00:00:00+00'::timestamptz);
COMMENT ON FUNCTION rollup_bucket(timestamptz, interval) IS 'the start of the bucket of the given width that holds ts (buckets aligned on Monday 2000-01-03 00:00 UTC)';

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

-- Checks group_by against the meta keys of profiles; returns its keys sorted.
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

-- One run of a level read from raw samples: the profiles of the level's
-- buckets that no row of the level includes yet are aggregated per
-- bucket, group and unit, and added to the rows (one statement, so one
-- snapshot: the profiles read are exactly those whose samples are read).
CREATE OR REPLACE FUNCTION rollup_from_samples(width interval, keys text[], since timestamptz) RETURNS bigint
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
CREATE OR REPLACE FUNCTION rollup_from_level(width interval, keys text[], source interval, since timestamptz) RETURNS bigint
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
CREATE OR REPLACE FUNCTION rollup_add(a calltree, b calltree) RETURNS calltree
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE a OPERATOR(@extschema@.+) b END;

-- The rows of a level that lie wholly in the uncovered part of [since, until)
CREATE OR REPLACE FUNCTION rollup_rows_within(group_key jsonb, width interval, since timestamptz, until timestamptz,
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
