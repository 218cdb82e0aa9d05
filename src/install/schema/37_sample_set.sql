--------------------------------------------------------------------------
-- sample_set: the samples of profiles, packed.  A row is some of the
-- samples of one profile and one thread (a samples value, 36_samples.sql):
-- an import writes a row per thread, and more where a thread's samples
-- pass what one value holds or what calltree.import_work_mem lets it
-- gather; a profile's samples are the union of its rows.  No row is shared
-- between profiles.  calltree.sample (bindings/37_sample_face.sql) shows
-- the same samples a row each.
--
-- Partitioned as sample_row was, by ranges of profile ids, one partition
-- per time window of imports (77_retention.sql says why):
-- sample_set_0 holds the ids below 10,000,000,000, sample_set_default the
-- ids no window holds, and new_sample_partition() adds the partition of
-- each later window.  The references of a row (its profile, and the stacks
-- and label sets inside its value) are checked by the triggers of
-- 15_integrity.sql, a statement at a time.
--------------------------------------------------------------------------

CREATE TABLE sample_set (
    profile_id bigint NOT NULL,  -- a profile; checked by sample_set_refs_check, deleted with it
    thread     text,
    samples    samples NOT NULL  -- stacks and label sets checked likewise
) PARTITION BY RANGE (profile_id);
COMMENT ON TABLE sample_set IS 'the samples of a profile and thread, packed: a profile''s samples are the union of its rows';

CREATE TABLE sample_set_0 PARTITION OF sample_set FOR VALUES FROM (MINVALUE) TO (10000000000);
CREATE INDEX sample_set_0_profile_idx ON sample_set_0 (profile_id);
COMMENT ON TABLE sample_set_0 IS 'the sample sets of the profiles imported before the first window of new_sample_partition()';
-- the sample sets of ids no window holds: imports that took their id
-- before their window was dropped, and ids given by hand
CREATE TABLE sample_set_default PARTITION OF sample_set DEFAULT;
CREATE INDEX sample_set_default_profile_idx ON sample_set_default (profile_id);
COMMENT ON TABLE sample_set_default IS 'the sample sets of profile ids that no partition of a window holds';
-- As sample_row's partitions: rows are read and written through
-- sample_set, whose triggers and policies apply to them.
ALTER TABLE sample_set_0 ENABLE ROW LEVEL SECURITY;
ALTER TABLE sample_set_default ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('sample_set_0', '');
SELECT pg_catalog.pg_extension_config_dump('sample_set_default', '');
