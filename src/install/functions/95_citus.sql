--------------------------------------------------------------------------
-- Citus: distribute() spreads the profiles over a Citus cluster's workers
-- (docs/citus.md).  Profiles, their sample sets (and the sample rows of
-- version 0.2 not packed yet) and their trace events are distributed by
-- profile id and co-located, so that a profile's rows are on one worker
-- and a query grouped by profile runs there whole.  The interned tables
-- (func, frame, stack, labels, symbol) become reference tables, a copy on
-- every node, so that a worker resolves the stacks of its samples itself.
-- rollup and rollup_level stay on the coordinator.
--
-- Citus refuses tables with triggers.  The integrity triggers that read
-- other tables (15_integrity.sql) become the foreign keys they stand for,
-- which Citus checks on each node between the co-located shards and the
-- node's copy of the reference tables.  The triggers that read no table
-- (refusing updates of ids and TRUNCATE, the intern cache's invalidation,
-- the intern lock) are kept: Citus copies them onto every shard, and they
-- fire there.
--
-- The stacks and label sets inside packed values (sample_set.samples)
-- cannot be foreign keys.  Their references are kept by checks of writes
-- and one check of deletions:
--   - an INSERT into calltree.sample checks each row's stack and label
--     set first, on the coordinator (citus_sample_refs_check, a trigger of
--     the view); every statement writing sample sets (the writer's, the
--     view's, yours) is checked on its shard, on the worker, against the
--     node's copy of stack and labels (citus_sample_set_refs_check);
--   - a DELETE from stack or labels (collect_garbage()'s) is checked
--     against the dictionaries of every sample set, on the workers, by a
--     trigger that acts on the coordinator's copy only
--     (citus_interned_delete_check).
-- The view's check and that of deletions take the lock on the
-- coordinator's stack table that imports take, so that a check and a
-- concurrent write cannot miss each other.
--
-- The extension does not depend on Citus: CREATE EXTENSION calltree works
-- without it, and distribute() calls Citus's functions by name.
--------------------------------------------------------------------------

-- INSTEAD OF INSERT ON sample FOR EACH ROW, before sample_write (on Citus
-- only): the row's stack and label set exist, and stay until the end of
-- the transaction (collect_garbage() waits for the lock on stack).  On one
-- node sample_set's own trigger checks them.
CREATE OR REPLACE FUNCTION citus_sample_refs_check() RETURNS trigger
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    LOCK TABLE @extschema@.stack IN ROW EXCLUSIVE MODE;
    IF NEW.stack_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM @extschema@.stack s WHERE s.id OPERATOR(pg_catalog.=) NEW.stack_id) THEN
        RAISE EXCEPTION 'sample of profile % refers to stack %, which does not exist', NEW.profile_id, NEW.stack_id
            USING ERRCODE = 'foreign_key_violation',
                  HINT = 'Intern the stack first, with intern_stack().';
    END IF;
    IF NEW.labels_id IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM @extschema@.labels l WHERE l.id OPERATOR(pg_catalog.=) NEW.labels_id) THEN
        RAISE EXCEPTION 'sample of profile % refers to label set %, which does not exist', NEW.profile_id, NEW.labels_id
            USING ERRCODE = 'foreign_key_violation',
                  HINT = 'Intern the label set first, with intern_labels().';
    END IF;
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION citus_sample_refs_check() IS 'on Citus: trigger of calltree.sample that refuses a new sample whose stack or label set does not exist';

-- AFTER DELETE ON stack or labels FOR EACH STATEMENT (on Citus only;
-- TG_ARGV[0] names the table): no sample set names a deleted row.  Citus
-- fires it on every node's copy of the table; it checks once, on the
-- coordinator's, reading the sample sets of every worker.  Run as the
-- owner, as a foreign key's check: it sees every sample set.
CREATE OR REPLACE FUNCTION citus_interned_delete_check() RETURNS trigger
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ids bigint[];
    used bigint;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_dist_local_group WHERE groupid OPERATOR(pg_catalog.=) 0) THEN
        RETURN NULL;
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'on Citus, a DELETE from calltree.% needs the READ COMMITTED isolation level, not %',
                        TG_ARGV[0], current_setting('transaction_isolation')
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'Delete unused stacks and label sets with calltree.collect_garbage().';
    END IF;
    ids := ARRAY(SELECT o.id FROM old_rows o);
    -- wait for the imports in progress, and hold off new ones; then read
    -- in a new snapshot, which sees what they committed
    LOCK TABLE @extschema@.stack IN SHARE ROW EXCLUSIVE MODE;
    IF TG_ARGV[0] = 'stack' THEN
        SELECT u.id INTO used FROM @extschema@.sample_set s, unnest(@extschema@.stack_ids(s.samples)) AS u(id)
         WHERE u.id OPERATOR(pg_catalog.=) ANY (ids) LIMIT 1;
    ELSE
        SELECT u.id INTO used FROM @extschema@.sample_set s, unnest(@extschema@.label_set_ids(s.samples)) AS u(id)
         WHERE u.id OPERATOR(pg_catalog.=) ANY (ids) LIMIT 1;
    END IF;
    IF used IS NOT NULL THEN
        RAISE EXCEPTION '% % is still referred to by samples', CASE WHEN TG_ARGV[0] = 'stack' THEN 'stack' ELSE 'label set' END, used
            USING ERRCODE = 'foreign_key_violation',
                  HINT = 'Delete the profiles of those samples first; calltree.collect_garbage() deletes what nothing uses.';
    END IF;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION citus_interned_delete_check() IS 'on Citus: trigger of calltree.stack and calltree.labels that refuses to delete a row that a sample set names';

-- AFTER INSERT and AFTER UPDATE ON sample_set FOR EACH STATEMENT (on
-- Citus only; new_sets the new rows): every stack and label set that the
-- new values name exists.  Citus fires it on the shard, on the worker that
-- holds it, which reads the node's copy of stack and labels (the
-- placements of the reference tables).  It takes no lock: imports and the
-- view's inserts hold the coordinator's (see above), which a deletion's
-- check waits for; a statement of yours on sample_set takes it itself
-- when a concurrent collect_garbage() matters (docs/citus.md).  Locking
-- the rows here, as a foreign key does, would cost a bulk load a row lock
-- per stack and set, and could wait on a worker for a deletion that waits
-- on the coordinator for this transaction.  Run as the owner, as a
-- foreign key's check.
CREATE OR REPLACE FUNCTION citus_sample_set_refs_check() RETURNS trigger
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    t text;
    copy_name text;
    ids bigint[];
    missing bigint;
BEGIN
    FOREACH t IN ARRAY ARRAY['stack', 'labels'] LOOP
        IF t = 'stack' THEN
            ids := ARRAY(SELECT DISTINCT u.id FROM new_sets n, unnest(@extschema@.stack_ids(n.samples)) AS u(id));
        ELSE
            ids := ARRAY(SELECT DISTINCT u.id FROM new_sets n, unnest(@extschema@.label_set_ids(n.samples)) AS u(id));
        END IF;
        CONTINUE WHEN cardinality(ids) = 0;
        -- this node's copy of the reference table (its one shard)
        SELECT shard_name(s.logicalrelid, s.shardid) INTO copy_name
          FROM pg_dist_shard s WHERE s.logicalrelid = format('@extschema@.%I', t)::regclass;
        EXECUTE format('SELECT i.id FROM unnest($1) AS i(id) WHERE NOT EXISTS (SELECT 1 FROM %s r WHERE r.id OPERATOR(pg_catalog.=) i.id) LIMIT 1',
                       copy_name)
           INTO missing USING ids;
        CONTINUE WHEN missing IS NULL;
        IF t = 'stack' THEN
            RAISE EXCEPTION 'a new sample refers to stack %, which does not exist', missing
                USING ERRCODE = 'foreign_key_violation',
                      HINT = 'Intern the stack first, with intern_stack().';
        END IF;
        RAISE EXCEPTION 'a new sample refers to label set %, which does not exist', missing
            USING ERRCODE = 'foreign_key_violation',
                  HINT = 'Intern the label set first, with intern_labels().';
    END LOOP;
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION citus_sample_set_refs_check() IS 'on Citus: trigger of calltree.sample_set, fired on its shards, that refuses new sample sets naming stacks or label sets that do not exist';

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
    IF EXISTS (SELECT FROM pg_dist_partition WHERE logicalrelid = '@extschema@.sample_set'::regclass) THEN
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
    FOREACH t IN ARRAY ARRAY['profile', 'sample_set', 'sample_row', 'event', 'func', 'frame', 'stack', 'labels', 'symbol'] LOOP
        EXECUTE format('SELECT EXISTS (SELECT FROM @extschema@.%I)', t) INTO has_rows;
        IF has_rows THEN
            RAISE EXCEPTION 'calltree.distribute() needs empty tables: calltree.% has rows', t
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Distribute right after CREATE EXTENSION calltree, then import.';
        END IF;
    END LOOP;

    -- the triggers left read no table (see above), or are made for Citus
    SET LOCAL citus.enable_unsafe_triggers = on;

    -- The checks that read other tables, as foreign keys
    DROP TRIGGER stack_insert_check ON @extschema@.stack;
    DROP TRIGGER stack_delete_check ON @extschema@.stack;
    DROP TRIGGER frame_delete_check ON @extschema@.frame;
    DROP TRIGGER sample_insert_check ON @extschema@.sample_row;
    DROP TRIGGER sample_update_check ON @extschema@.sample_row;
    DROP TRIGGER sample_set_insert_check ON @extschema@.sample_set;
    DROP TRIGGER sample_set_update_check ON @extschema@.sample_set;
    DROP TRIGGER profile_delete_cascade ON @extschema@.profile;
    DROP TRIGGER labels_delete_check ON @extschema@.labels;
    DROP TRIGGER labels_delete_hold ON @extschema@.labels;
    -- The view sample as a union of two single-table queries, which Citus
    -- runs on each shard whatever the query around it; the planner's
    -- shape of one node (a union of tables joined laterally to unnest())
    -- is one that Citus pushes down only when grouped by profile
    CREATE OR REPLACE VIEW @extschema@.sample WITH (security_invoker = true) AS
    SELECT s.profile_id, s.thread, u.ts, u.stack_id, u.weight, u.labels_id
      FROM @extschema@.sample_set s CROSS JOIN LATERAL @extschema@.unnest(s.samples) AS u
    UNION ALL
    SELECT r.profile_id, r.thread, r.ts, r.stack_id, r.weight, r.labels_id
      FROM @extschema@.sample_row r;
    -- Citus runs no UPDATE or DELETE on a view of its tables (it sends the
    -- statement on the view to a worker as it is): calltree.sample takes
    -- INSERTs only, checked first
    DROP TRIGGER sample_write ON @extschema@.sample;
    DROP TRIGGER _sample_write_sets ON @extschema@.sample;
    CREATE TRIGGER sample_citus_check INSTEAD OF INSERT ON @extschema@.sample
        FOR EACH ROW EXECUTE FUNCTION @extschema@.citus_sample_refs_check();
    CREATE TRIGGER sample_write INSTEAD OF INSERT ON @extschema@.sample
        FOR EACH ROW EXECUTE FUNCTION @extschema@.sample_face_row();
    CREATE TRIGGER _sample_write_sets AFTER INSERT ON @extschema@.sample
        FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.sample_face_write();

    -- Citus would turn a local table referring to a new reference table
    -- into a table of its own, made again on every worker, where the
    -- extension made it already: the foreign keys come back last, under
    -- new names (the workers' copies of the extension's tables, which
    -- Citus keeps as the shells of their shards, have the old ones)
    ALTER TABLE @extschema@.frame DROP CONSTRAINT frame_func_id_fkey;
    ALTER TABLE @extschema@.event DROP CONSTRAINT event_profile_id_fkey;
    ALTER TABLE @extschema@.event DROP CONSTRAINT event_func_id_fkey;

    -- foreign keys to reference tables: one connection per node
    SET LOCAL citus.multi_shard_modify_mode = 'sequential';
    PERFORM create_reference_table('@extschema@.func');
    PERFORM create_reference_table('@extschema@.frame');
    PERFORM create_reference_table('@extschema@.stack');
    PERFORM create_reference_table('@extschema@.labels');
    PERFORM create_reference_table('@extschema@.symbol');
    PERFORM create_distributed_table('@extschema@.profile', 'id', shard_count => shard_count);
    PERFORM create_distributed_table('@extschema@.sample_set', 'profile_id', colocate_with => '@extschema@.profile');
    PERFORM create_distributed_table('@extschema@.sample_row', 'profile_id', colocate_with => '@extschema@.profile');
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
    ALTER TABLE @extschema@.sample_set ADD CONSTRAINT sample_set_profile_fkey
        FOREIGN KEY (profile_id) REFERENCES @extschema@.profile (id) ON DELETE CASCADE;
    ALTER TABLE @extschema@.sample_row ADD CONSTRAINT sample_row_profile_fkey
        FOREIGN KEY (profile_id) REFERENCES @extschema@.profile (id) ON DELETE CASCADE;
    ALTER TABLE @extschema@.sample_row ADD CONSTRAINT sample_row_stack_fkey
        FOREIGN KEY (stack_id) REFERENCES @extschema@.stack (id);
    ALTER TABLE @extschema@.sample_row ADD CONSTRAINT sample_row_labels_fkey
        FOREIGN KEY (labels_id) REFERENCES @extschema@.labels (id);
    -- the stacks and label sets inside sample sets (new names: the
    -- workers' shells keep the old triggers)
    CREATE TRIGGER stack_citus_delete_check AFTER DELETE ON @extschema@.stack
        REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.citus_interned_delete_check('stack');
    CREATE TRIGGER labels_citus_delete_check AFTER DELETE ON @extschema@.labels
        REFERENCING OLD TABLE AS old_rows
        FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.citus_interned_delete_check('labels');
    CREATE TRIGGER sample_set_citus_insert_check AFTER INSERT ON @extschema@.sample_set
        REFERENCING NEW TABLE AS new_sets
        FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.citus_sample_set_refs_check();
    CREATE TRIGGER sample_set_citus_update_check AFTER UPDATE ON @extschema@.sample_set
        REFERENCING NEW TABLE AS new_sets
        FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.citus_sample_set_refs_check();

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
COMMENT ON FUNCTION distribute(int) IS 'on Citus: distributes profiles, sample sets and events by profile id over shard_count shards, and makes the interned tables reference tables';
