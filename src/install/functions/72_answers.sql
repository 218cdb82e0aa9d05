--------------------------------------------------------------------------
-- Answers in one call: the everyday questions of a profile without joins
-- or arithmetic.  The tree of a profile or of a set of profiles (by ids,
-- or by time range, meta and name), its top functions as pprof's -top
-- prints them, one function's callers and callees with names (pprof's
-- -peek), and weights printed in their profile's unit.
--
-- Units follow pprof's (its measurement package), so that a table printed
-- from these functions reads as pprof's does: a weight in nanoseconds is
-- shown in ns, us, ms, s or hrs, one in bytes in B, kB, MB, GB, TB or PB
-- (powers of 1024), two decimals at most, ".00" dropped.  Counts (samples,
-- count, none) print as numbers.  A table shows all its weights in one
-- unit, chosen as pprof chooses it (report_scale).
--------------------------------------------------------------------------

-- The units pprof knows, by family: each with its aliases (lower case,
-- without a plural s) and its factor to the family's first unit.  The
-- default of a family is the unit a weight is shown in when nothing
-- else fits.  format_weight() (C, formats/weight_format.c) holds the
-- same table; sql/answers checks that they agree.  Without SET, so that
-- it is inlined into its callers' queries: a function scan is planned
-- again at every call of scale_weight() (a millisecond a weight).  Its
-- body is bound when it is created, whatever the caller's search_path.
CREATE OR REPLACE FUNCTION weight_units(OUT family text, OUT unit text, OUT aliases text[], OUT factor float8,
                                        OUT is_default boolean)
RETURNS SETOF record
LANGUAGE sql IMMUTABLE PARALLEL SAFE ROWS 20
BEGIN ATOMIC
    SELECT u.family, u.unit, u.aliases, u.factor, u.is_default
      FROM (VALUES ('bytes', 'B', '{b,byte}'::text[], 1::float8, true),
                   ('bytes', 'kB', '{kb,kbyte,kilobyte}', 1024::float8, false),
                   ('bytes', 'MB', '{mb,mbyte,megabyte}', 1048576::float8, false),
                   ('bytes', 'GB', '{gb,gbyte,gigabyte}', 1073741824::float8, false),
                   ('bytes', 'TB', '{tb,tbyte,terabyte}', 1099511627776::float8, false),
                   ('bytes', 'PB', '{pb,pbyte,petabyte}', 1125899906842624::float8, false),
                   ('time', 'ns', '{ns,nanosecond}', 1::float8, false),
                   ('time', 'us', '{μs,us,microsecond}', 1e3::float8, false),
                   ('time', 'ms', '{ms,millisecond}', 1e6::float8, false),
                   ('time', 's', '{s,sec,second}', 1e9::float8, true),
                   ('time', 'hrs', '{hour,hr}', 3.6e12::float8, false),
                   ('gcu', 'n*GCU', '{nanogcu}', 1e-9::float8, false),
                   ('gcu', 'u*GCU', '{microgcu}', 1e-6::float8, false),
                   ('gcu', 'm*GCU', '{milligcu}', 1e-3::float8, false),
                   ('gcu', 'GCU', '{gcu}', 1::float8, true),
                   ('gcu', 'k*GCU', '{kilogcu}', 1e3::float8, false),
                   ('gcu', 'M*GCU', '{megagcu}', 1e6::float8, false),
                   ('gcu', 'G*GCU', '{gigagcu}', 1e9::float8, false),
                   ('gcu', 'T*GCU', '{teragcu}', 1e12::float8, false),
                   ('gcu', 'P*GCU', '{petagcu}', 1e15::float8, false))
           AS u(family, unit, aliases, factor, is_default)
     ORDER BY u.family, u.factor;
END;
COMMENT ON FUNCTION weight_units() IS 'the units weights are shown in, pprof''s: per family (bytes, time, gcu) each unit with its aliases and its factor to the family''s first unit';

-- A unit name as pprof looks it up: lower case, a plural s dropped from
-- names longer than two bytes ("nanoseconds", "bytes", "hrs").
CREATE OR REPLACE FUNCTION weight_unit_alias(unit text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN CASE WHEN pg_catalog.octet_length(unit) OPERATOR(pg_catalog.>) 2
             AND pg_catalog.lower(unit) OPERATOR(pg_catalog.~~) '%s'
            THEN pg_catalog.left(pg_catalog.lower(unit), -1)
            ELSE pg_catalog.lower(unit) END;
COMMENT ON FUNCTION weight_unit_alias(text) IS 'a unit''s name as weight_units() lists its aliases: lower case, without a plural s';

-- pprof's Scale: a weight in unit converted to scale, which is a unit of
-- the same family, or 'auto' for the largest unit in which the weight is
-- at least 1.  A unit of no family (samples, count, none, or one pprof
-- does not know) leaves the weight as it is, and is shown only when scale
-- names a unit other than a count.
CREATE OR REPLACE FUNCTION scale_weight(weight bigint, unit text, scale text DEFAULT 'auto',
                                        OUT value float8, OUT shown_unit text)
RETURNS record
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    -- the names as weight_units() lists them, once rather than per unit
    from_alias text := @extschema@.weight_unit_alias(scale_weight.unit);
    to_alias text := @extschema@.weight_unit_alias(scale_weight.scale);
    from_unit record;
    to_unit record;
    base float8;
BEGIN
    IF weight < 0 THEN
        -- as pprof: the magnitude scaled, then the sign
        SELECT -s.value, s.shown_unit INTO value, shown_unit
          FROM @extschema@.scale_weight(-weight, scale_weight.unit, scale) s;
        RETURN;
    END IF;
    SELECT * INTO from_unit FROM @extschema@.weight_units() u WHERE from_alias = ANY (u.aliases);
    IF NOT FOUND THEN
        value := weight;
        shown_unit := CASE WHEN scale IN ('auto', 'minimum', 'count', 'sample', 'samples', 'none', 'unit') THEN ''
                           ELSE scale END;
        RETURN;
    END IF;
    base := weight::float8 * from_unit.factor;
    IF scale IN ('auto', 'minimum') THEN
        SELECT * INTO to_unit FROM @extschema@.weight_units() u
         WHERE u.family = from_unit.family AND base / u.factor >= 1
         ORDER BY u.factor DESC LIMIT 1;
    ELSE
        SELECT * INTO to_unit FROM @extschema@.weight_units() u
         WHERE u.family = from_unit.family AND to_alias = ANY (u.aliases);
    END IF;
    IF to_unit IS NULL THEN
        SELECT * INTO to_unit FROM @extschema@.weight_units() u WHERE u.family = from_unit.family AND u.is_default;
    END IF;
    value := base / to_unit.factor;
    shown_unit := to_unit.unit;
END
$$;
COMMENT ON FUNCTION scale_weight(bigint, text, text) IS 'a weight in a unit (a profile''s weight_unit) converted to scale (a unit of its family, or auto: the largest in which it is at least 1), as pprof scales it; the unit it is then in ('''' for counts)';

-- In C (formats/weight_format.c): it runs once per weight that top(),
-- peek() and bin/calltree print, and the SQL of scale_weight() took 50 to
-- 85 us a weight.  Its unit table is weight_units()'s.
CREATE OR REPLACE FUNCTION format_weight(weight bigint, unit text, scale text DEFAULT 'auto') RETURNS text
AS 'MODULE_PATHNAME', 'calltree_format_weight'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION format_weight(bigint, text, text) IS 'a weight as pprof prints it: in unit (a profile''s weight_unit) scaled to scale (default auto: the largest unit in which it is at least 1), two decimals at most, then the unit: 250ms, 1.50MB, 42';

-- pprof's choice of one unit for a whole table: the unit of its smallest
-- weight, or of 100 times it when that is under a hundredth of the
-- largest and their units differ (so that the smallest prints as 0.01 or
-- more).  For a unit of no family, the unit itself.
CREATE OR REPLACE FUNCTION report_scale(smallest bigint, largest bigint, unit text) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    small_unit text;
    large_unit text;
    chosen text;
BEGIN
    smallest := abs(COALESCE(NULLIF(smallest, 0), largest, 0));
    largest := abs(COALESCE(largest, 0));
    small_unit := (@extschema@.scale_weight(smallest, unit, 'minimum')).shown_unit;
    large_unit := (@extschema@.scale_weight(largest, unit, 'minimum')).shown_unit;
    chosen := small_unit;
    IF small_unit <> large_unit AND smallest::numeric * 100 < largest THEN
        chosen := (@extschema@.scale_weight(smallest * 100, unit, 'minimum')).shown_unit;
    END IF;
    RETURN CASE WHEN chosen = '' THEN unit ELSE chosen END;
END
$$;
COMMENT ON FUNCTION report_scale(bigint, bigint, text) IS 'the unit pprof prints a table in: that of its smallest non-zero weight, or of 100 times it when that is under a hundredth of largest (the total) and their units differ';

--------------------------------------------------------------------------
-- Selections of profiles and their trees
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION profile_ids(since timestamptz DEFAULT NULL, until timestamptz DEFAULT NULL,
                                       meta jsonb DEFAULT NULL, name text DEFAULT NULL)
RETURNS bigint[]
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT COALESCE(pg_catalog.array_agg(p.id ORDER BY p.id), '{}'::bigint[])
      FROM @extschema@.profile p
     WHERE (profile_ids.since IS NULL OR p.started_at OPERATOR(pg_catalog.>=) profile_ids.since)
       AND (profile_ids.until IS NULL OR p.started_at OPERATOR(pg_catalog.<) profile_ids.until)
       AND (profile_ids.meta IS NULL OR p.meta OPERATOR(pg_catalog.@>) profile_ids.meta)
       AND (profile_ids.name IS NULL OR p.name OPERATOR(pg_catalog.=) profile_ids.name);
END;
COMMENT ON FUNCTION profile_ids(timestamptz, timestamptz, jsonb, text) IS 'the ids of the profiles started in [since, until) whose meta contains meta and whose name is name (NULL: any), sorted';

-- The one weight unit of a set of profiles; an error names the profiles
-- that do not exist, or the units when there are several.  NULL ids are
-- no profile.
CREATE OR REPLACE FUNCTION weight_unit_of(profiles bigint[]) RETURNS text
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    missing text;
    missing_count bigint;
    units text[];
    listed text;
BEGIN
    SELECT string_agg(i::text, ', ' ORDER BY i), count(*) INTO missing, missing_count
      FROM (SELECT DISTINCT i FROM unnest(profiles) AS i WHERE i IS NOT NULL) AS ids
     WHERE NOT EXISTS (SELECT FROM @extschema@.profile p WHERE p.id = ids.i);
    IF missing_count > 0 THEN
        RAISE EXCEPTION '% %', CASE WHEN missing_count = 1 THEN 'profile' ELSE 'profiles' END,
                        missing || CASE WHEN missing_count = 1 THEN ' does not exist' ELSE ' do not exist' END
            USING ERRCODE = 'no_data_found',
                  HINT = 'SELECT id, name, started_at FROM calltree.profile lists the profiles.';
    END IF;
    SELECT array_agg(u.unit ORDER BY u.unit), string_agg(u.unit || ' (' || u.ids || ')', ', ' ORDER BY u.unit)
      INTO units, listed
      FROM (SELECT p.weight_unit AS unit, string_agg(p.id::text, ', ' ORDER BY p.id) AS ids
              FROM @extschema@.profile p WHERE p.id = ANY (profiles)
             GROUP BY p.weight_unit) AS u;
    IF cardinality(units) > 1 THEN
        RAISE EXCEPTION 'the profiles have several weight units: %', listed
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Choose profiles of one weight unit (pprof''s sample types are in meta->>''sample_type'').';
    END IF;
    RETURN units[1];
END
$$;
COMMENT ON FUNCTION weight_unit_of(bigint[]) IS 'the weight unit of a set of profiles; an error when one does not exist or they have several (NULL for no profile)';

CREATE OR REPLACE FUNCTION tree_of(profiles bigint[]) RETURNS calltree
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    -- checks that they exist and have one unit: their sum means something
    PERFORM @extschema@.weight_unit_of(profiles);
    -- the packed sets: no row per sample
    RETURN (SELECT @extschema@.stack_agg(s)
              FROM (SELECT DISTINCT u.id FROM unnest(profiles) AS u(id)) AS p,
                   @extschema@.profile_sample_sets(p.id) AS s);
END
$$;
COMMENT ON FUNCTION tree_of(bigint[]) IS 'the call tree of a set of profiles, all of one weight unit (NULL when they hold no sample)';

CREATE OR REPLACE FUNCTION tree_of(profile bigint) RETURNS calltree
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN @extschema@.tree_of(ARRAY[profile]);
COMMENT ON FUNCTION tree_of(bigint) IS 'the call tree of a profile (NULL when it holds no sample)';

CREATE OR REPLACE FUNCTION tree_of(since timestamptz, until timestamptz, meta jsonb DEFAULT NULL,
                                   name text DEFAULT NULL)
RETURNS calltree
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN @extschema@.tree_of(@extschema@.profile_ids(since, until, meta, name));
COMMENT ON FUNCTION tree_of(timestamptz, timestamptz, jsonb, text) IS 'the call tree of the profiles of profile_ids(since, until, meta, name), all of one weight unit (NULL when none matches)';

--------------------------------------------------------------------------
-- pprof's -top and -peek
--------------------------------------------------------------------------

-- The functions of a tree by name (each name one function, as pprof
-- counts them), their weights as functions() reports them.  A function
-- with neither self nor running weight (in a diff, one that did not
-- change) is left out, as pprof leaves it out of its graph.
CREATE OR REPLACE FUNCTION functions_by_name(tree calltree, OUT func int4, OUT name text,
                                             OUT self bigint, OUT running bigint)
RETURNS SETOF record
LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 1000
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT fn.func, f.name, fn.self, fn.running
      FROM @extschema@.functions(@extschema@.unify_funcs(tree, 'name')) AS fn
      JOIN @extschema@.func f ON f.id OPERATOR(pg_catalog.=) fn.func
     WHERE fn.self OPERATOR(pg_catalog.<>) 0 OR fn.running OPERATOR(pg_catalog.<>) 0;
END;
COMMENT ON FUNCTION functions_by_name(calltree) IS 'functions() of the tree with each name one function (unify_funcs), with the names; those without weight left out';

-- A share as pprof prints it beside a weight: a percentage of total, two
-- decimals.  The magnitude, as pprof's: a diff's losses are shares too.
CREATE OR REPLACE FUNCTION weight_share(weight bigint, total bigint) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
RETURN pg_catalog.round(pg_catalog.abs(weight::numeric OPERATOR(pg_catalog.*) 100
                                       OPERATOR(pg_catalog./) NULLIF(total, 0)), 2);
COMMENT ON FUNCTION weight_share(bigint, bigint) IS 'abs(weight) as a percentage of total, two decimals; NULL when total is 0';

CREATE OR REPLACE FUNCTION top(tree calltree, unit text DEFAULT 'samples', node_fraction float8 DEFAULT 0.005,
                               node_count int4 DEFAULT NULL, total bigint DEFAULT NULL, by_running boolean DEFAULT false,
                               OUT name text, OUT flat text, OUT flat_pct numeric, OUT sum_pct numeric,
                               OUT cum text, OUT cum_pct numeric, OUT self bigint, OUT running bigint)
RETURNS SETOF record
LANGUAGE sql STABLE PARALLEL SAFE ROWS 100
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH fn AS (
        SELECT f.name, f.self, f.running FROM @extschema@.functions_by_name(tree) AS f
    ), kept AS (
        -- pprof drops the functions whose running weight is under
        -- node_fraction of the tree's total, then sorts: self, name,
        -- running (-cum: running, name, self)
        SELECT fn.name, fn.self, fn.running,
               pg_catalog.row_number() OVER (ORDER BY CASE WHEN top.by_running THEN pg_catalog.abs(fn.running)
                                                           ELSE pg_catalog.abs(fn.self) END DESC,
                                                      fn.name COLLATE "C",
                                                      CASE WHEN top.by_running THEN pg_catalog.abs(fn.self)
                                                           ELSE pg_catalog.abs(fn.running) END DESC) AS rank
          FROM fn
         WHERE pg_catalog.abs(fn.running) OPERATOR(pg_catalog.>=)
               pg_catalog.abs(pg_catalog.trunc(@extschema@.total(tree)::float8 OPERATOR(pg_catalog.*)
                                               COALESCE(top.node_fraction, 0))::bigint)
    ), shown AS (
        SELECT kept.* FROM kept
         WHERE top.node_count IS NULL OR kept.rank OPERATOR(pg_catalog.<=) top.node_count
    ), whole AS (
        SELECT COALESCE(top.total, @extschema@.total(tree)) AS total
    ), scale AS (
        SELECT @extschema@.report_scale(
                   pg_catalog.min(CASE WHEN shown.self OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.abs(shown.self)
                                       ELSE NULLIF(pg_catalog.abs(shown.running), 0) END),
                   (SELECT whole.total FROM whole), COALESCE(top.unit, 'samples')) AS scale
          FROM shown
    )
    SELECT shown.name,
           @extschema@.format_weight(shown.self, COALESCE(top.unit, 'samples'), scale.scale),
           @extschema@.weight_share(shown.self, whole.total),
           @extschema@.weight_share(pg_catalog.sum(shown.self) OVER (ORDER BY shown.rank)::bigint, whole.total),
           @extschema@.format_weight(shown.running, COALESCE(top.unit, 'samples'), scale.scale),
           @extschema@.weight_share(shown.running, whole.total),
           shown.self, shown.running
      FROM shown, scale, whole
     ORDER BY shown.rank;
END;
COMMENT ON FUNCTION top(calltree, text, float8, int4, bigint, boolean) IS 'the functions of a tree by name as pprof -top lists them: the largest self (flat) weight first (running with by_running, as -cum), in unit (a profile''s weight_unit) scaled as pprof does, with shares of total (default: the tree''s); those running under node_fraction of the total left out, at most node_count';

CREATE OR REPLACE FUNCTION top(profiles bigint[], node_fraction float8 DEFAULT 0.005, node_count int4 DEFAULT NULL,
                               by_running boolean DEFAULT false, OUT name text, OUT flat text, OUT flat_pct numeric, OUT sum_pct numeric,
                               OUT cum text, OUT cum_pct numeric, OUT self bigint, OUT running bigint)
RETURNS SETOF record
LANGUAGE sql STABLE PARALLEL SAFE ROWS 100
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT t.* FROM @extschema@.top(@extschema@.tree_of(profiles), @extschema@.weight_unit_of(profiles),
                                    node_fraction, node_count, NULL, by_running) AS t;
END;
COMMENT ON FUNCTION top(bigint[], float8, int4, boolean) IS 'top() of the tree of a set of profiles, in their weight unit';

CREATE OR REPLACE FUNCTION top(profile bigint, node_fraction float8 DEFAULT 0.005, node_count int4 DEFAULT NULL,
                               by_running boolean DEFAULT false, OUT name text, OUT flat text, OUT flat_pct numeric, OUT sum_pct numeric,
                               OUT cum text, OUT cum_pct numeric, OUT self bigint, OUT running bigint)
RETURNS SETOF record
LANGUAGE sql STABLE PARALLEL SAFE ROWS 100
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT t.* FROM @extschema@.top(ARRAY[profile], node_fraction, node_count, by_running) AS t;
END;
COMMENT ON FUNCTION top(bigint, float8, int4, boolean) IS 'top() of the tree of a profile, in its weight unit';

-- pprof's -peek: for each function whose name matches the pattern, in
-- top()'s order, its callers, itself and its callees, the edges heaviest
-- first.  An edge's weight counts each sample once, as pprof's do; a
-- function's calls of itself are no edge (pprof leaves them out too).
CREATE OR REPLACE FUNCTION peek(tree calltree, pattern text, unit text DEFAULT 'samples',
                                OUT function text, OUT relation text, OUT name text, OUT flat text,
                                OUT cum text, OUT share numeric, OUT self bigint, OUT running bigint)
RETURNS SETOF record
LANGUAGE sql STABLE PARALLEL SAFE ROWS 100
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    WITH unified AS (
        SELECT @extschema@.unify_funcs(tree, 'name') AS tree
    ), fn AS (
        SELECT f.func, f.name, f.self, f.running FROM @extschema@.functions_by_name(tree) AS f
    ), whole AS (
        SELECT @extschema@.total(tree) AS total
    ), scale AS (
        SELECT @extschema@.report_scale(
                   pg_catalog.min(CASE WHEN fn.self OPERATOR(pg_catalog.<>) 0 THEN pg_catalog.abs(fn.self)
                                       ELSE NULLIF(pg_catalog.abs(fn.running), 0) END),
                   (SELECT whole.total FROM whole), COALESCE(peek.unit, 'samples')) AS scale
          FROM fn
    ), matched AS (
        SELECT fn.*, pg_catalog.row_number() OVER (ORDER BY pg_catalog.abs(fn.self) DESC, fn.name COLLATE "C",
                                                           pg_catalog.abs(fn.running) DESC) AS rank
          FROM fn WHERE fn.name OPERATOR(pg_catalog.~) peek.pattern
    ), edges AS (
        SELECT m.rank, 1 AS part, c.name, NULL::bigint AS flat, c.running AS weight, c.self
          FROM matched m,
               LATERAL (SELECT f.name, e.running, e.self
                          FROM @extschema@.callers((SELECT unified.tree FROM unified), m.func) AS e
                          JOIN @extschema@.func f ON f.id OPERATOR(pg_catalog.=) e.caller
                         WHERE e.caller OPERATOR(pg_catalog.<>) m.func) AS c
        UNION ALL
        SELECT m.rank, 2, m.name, m.self, m.running, m.self FROM matched m
        UNION ALL
        SELECT m.rank, 3, c.name, NULL, c.running, c.self
          FROM matched m,
               LATERAL (SELECT f.name, e.running, e.self
                          FROM @extschema@.callees((SELECT unified.tree FROM unified), m.func) AS e
                          JOIN @extschema@.func f ON f.id OPERATOR(pg_catalog.=) e.callee
                         WHERE e.callee OPERATOR(pg_catalog.<>) m.func) AS c
    )
    SELECT m.name,
           CASE e.part WHEN 1 THEN 'caller' WHEN 2 THEN 'function' ELSE 'callee' END,
           e.name,
           @extschema@.format_weight(e.flat, COALESCE(peek.unit, 'samples'), scale.scale),
           @extschema@.format_weight(e.weight, COALESCE(peek.unit, 'samples'), scale.scale),
           @extschema@.weight_share(e.weight, CASE WHEN e.part OPERATOR(pg_catalog.=) 2 THEN whole.total
                                                   ELSE m.running END),
           e.self, e.weight
      FROM edges e JOIN matched m ON m.rank OPERATOR(pg_catalog.=) e.rank, scale, whole
     ORDER BY e.rank, e.part, pg_catalog.abs(e.weight) DESC, e.name COLLATE "C";
END;
COMMENT ON FUNCTION peek(calltree, text, text) IS 'pprof -peek: for each function whose name matches a regular expression, its callers, itself and its callees with their weights in unit and shares (an edge''s of the function''s running weight, the function''s of the total)';

CREATE OR REPLACE FUNCTION peek(profiles bigint[], pattern text,
                                OUT function text, OUT relation text, OUT name text, OUT flat text,
                                OUT cum text, OUT share numeric, OUT self bigint, OUT running bigint)
RETURNS SETOF record
LANGUAGE sql STABLE PARALLEL SAFE ROWS 100
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT p.* FROM @extschema@.peek(@extschema@.tree_of(profiles), pattern, @extschema@.weight_unit_of(profiles)) AS p;
END;
COMMENT ON FUNCTION peek(bigint[], text) IS 'peek() of the tree of a set of profiles, in their weight unit';

CREATE OR REPLACE FUNCTION peek(profile bigint, pattern text,
                                OUT function text, OUT relation text, OUT name text, OUT flat text,
                                OUT cum text, OUT share numeric, OUT self bigint, OUT running bigint)
RETURNS SETOF record
LANGUAGE sql STABLE PARALLEL SAFE ROWS 100
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT p.* FROM @extschema@.peek(ARRAY[profile], pattern) AS p;
END;
COMMENT ON FUNCTION peek(bigint, text) IS 'peek() of the tree of a profile, in its weight unit';
