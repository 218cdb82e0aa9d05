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
--
-- A level that reads raw samples also keeps the ids of every profile it
-- has taken (rollup_taken), whatever the row: a profile is
-- counted once per level, in the bucket, group and unit where the level
-- first read it, even if its start time, meta or unit change afterwards.
-- A profile that a level cannot take (its row's key too long for the
-- index, a weight that overflows the row) is listed in rollup_skipped,
-- and the level goes on with the others.
--------------------------------------------------------------------------

CREATE TABLE rollup_level (
    width        interval NOT NULL,
    group_by     text[]   NOT NULL,  -- sorted meta keys
    source_width interval,           -- the finer level it is built from; NULL: raw samples
    CONSTRAINT rollup_level_key PRIMARY KEY (width, group_by)
);
COMMENT ON TABLE rollup_level IS 'rollup levels: a bucket width, the meta keys that group profiles, and the level each is built from';

-- The ids of the profiles that a level reading raw samples has taken, in
-- whatever row.  A table apart from rollup_level: a run writes it, and
-- expire() holds rollup_level in SHARE mode, which an UPDATE there would
-- wait for.
CREATE TABLE rollup_taken (
    width    interval       NOT NULL,
    group_by text[]         NOT NULL,
    profiles int8multirange NOT NULL,
    CONSTRAINT rollup_taken_key PRIMARY KEY (width, group_by),
    CONSTRAINT rollup_taken_level FOREIGN KEY (width, group_by)
        REFERENCES rollup_level (width, group_by) ON DELETE CASCADE
);
COMMENT ON TABLE rollup_taken IS 'per rollup level that reads raw samples, the ids of the profiles it has taken';

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

-- The profiles that a level could not take, and why.  A row stays when its
-- profile is gone (expire() deletes a skipped profile as if rolled up),
-- and goes with its level; deleting a row lets the next run try its
-- profile again.  bucket,
-- group_key and weight_unit are those of the row it was to go to.
CREATE TABLE rollup_skipped (
    width       interval    NOT NULL,
    group_by    text[]      NOT NULL,
    profile_id  bigint      NOT NULL,
    bucket      timestamptz NOT NULL,
    group_key   jsonb       NOT NULL,
    weight_unit text        NOT NULL,
    sqlstate    text        NOT NULL,
    reason      text        NOT NULL,
    skipped_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rollup_skipped_key PRIMARY KEY (width, group_by, profile_id),
    CONSTRAINT rollup_skipped_level FOREIGN KEY (width, group_by)
        REFERENCES rollup_level (width, group_by) ON DELETE CASCADE
);
COMMENT ON TABLE rollup_skipped IS 'the profiles a rollup level could not take (key too long for the index, weight out of range), with the error';

-- Profiles by start time: rollup(since => ...) and the raw part of tree_between
CREATE INDEX profile_started_at_idx ON profile (started_at);

SELECT pg_catalog.pg_extension_config_dump('rollup_level', '');
SELECT pg_catalog.pg_extension_config_dump('rollup', '');
SELECT pg_catalog.pg_extension_config_dump('rollup_taken', '');
SELECT pg_catalog.pg_extension_config_dump('rollup_skipped', '');
