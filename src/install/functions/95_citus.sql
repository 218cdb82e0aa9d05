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

CREATE OR REPLACE FUNCTION distribute(shard_count int DEFAULT 32) RETURNS void
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
