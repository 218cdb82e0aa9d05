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
