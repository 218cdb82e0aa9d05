--------------------------------------------------------------------------
-- Packing the sample rows of a database updated from version 0.2.  The
-- update renames 0.2's sample table to sample_row and leaves its rows
-- there: rewriting a large database in the update's one transaction would
-- hold it for hours.  pack_samples() packs them into sample_set a batch of
-- profiles at a time, each batch its own transaction; calltree.sample
-- reads both forms meanwhile, so queries and imports go on, and every
-- profile's samples are in one form or the other, never both nor neither.
-- It may be stopped (cancelled) and run again: it goes on with the
-- profiles left.  docs/storage.md says how to run it.
--------------------------------------------------------------------------

-- The packed samples of a profile: its sets, and its rows not packed yet
-- as one value per thread (samples_agg: at most 4,194,304 samples each).
-- What queries over many profiles read, by stack_agg(samples), before and
-- after packing alike.  PL/pgSQL, not SQL: on Citus a SQL function that
-- reads distributed tables with a parameter cannot be planned; this one
-- runs each call's query on the worker of its profile.
CREATE OR REPLACE FUNCTION profile_sample_sets(profile_id bigint) RETURNS SETOF samples
LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 2
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN QUERY
    SELECT s.samples FROM @extschema@.sample_set s WHERE s.profile_id = profile_sample_sets.profile_id
    UNION ALL
    SELECT @extschema@.samples_agg(r.stack_id, r.weight, r.ts, r.labels_id)
      FROM @extschema@.sample_row r WHERE r.profile_id = profile_sample_sets.profile_id
     GROUP BY r.thread;
END
$$;
COMMENT ON FUNCTION profile_sample_sets(bigint) IS 'the samples of a profile as packed values: its rows of sample_set, and its rows of sample_row not packed yet, one value per thread';

-- One batch: the rows of up to max_profiles profiles of ids past after_id
-- (all when NULL), those with the smallest ids that no other transaction
-- holds, packed into sample_set, a set per profile and thread (more for a
-- thread past a million samples), and deleted from sample_row.  packed:
-- how many profiles; resume_after: where the next batch of the same pass
-- over the profiles goes on, NULL when this one reached the last.
--
-- The profiles are locked FOR NO KEY UPDATE SKIP LOCKED, against another
-- packer and a DELETE of the profile, and never waited for: a batch takes
-- its profiles first, then the rows and partitions of sample_row and
-- sample_set, the order of expire() and of every writer of an old
-- profile, and waits only for rows and partitions.  The candidates are
-- read 4 x max_profiles profile ids at a time, in id order, until
-- max_profiles are locked or none is left: profiles held by other
-- transactions (however many come first) are passed over, each once.
-- Those past the last window of sample_set (0.2 let their samples into
-- sample_default) wait in sample_row until new_sample_partition() opens
-- their window: sample_set_default refuses them.
CREATE OR REPLACE FUNCTION pack_samples_after(after_id bigint, max_profiles integer,
                                              OUT packed integer, OUT resume_after bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    window_end bigint;
    from_id bigint;
    candidates bigint[];
    ids bigint[] := '{}';
BEGIN
    IF max_profiles IS NULL OR max_profiles < 1 THEN
        RAISE EXCEPTION 'max_profiles % is not a positive number', coalesce(max_profiles::text, 'NULL')
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Pass how many profiles one transaction packs, such as 100.';
    END IF;
    IF row_security_active('@extschema@.sample_row') OR row_security_active('@extschema@.sample_set')
       OR row_security_active('@extschema@.profile') THEN
        RAISE EXCEPTION 'pack_samples() cannot apply the row-level security policies of calltree''s tables'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'It moves every sample row of a profile; policies would hide some.',
                  HINT = 'Run it as a role that the policies do not apply to: the owner of the tables, or a role with BYPASSRLS.';
    END IF;
    packed := 0;
    -- none left (and on Citus, whose tables of version 0.3 have none, the
    -- locking query below is one it cannot run)
    IF NOT EXISTS (SELECT 1 FROM @extschema@.sample_row) THEN
        RETURN;
    END IF;
    window_end := (SELECT max(w.end_id) FROM @extschema@.sample_partitions() w);
    -- a range, not "after_id IS NULL OR ...", so that each read of
    -- candidates goes through the index on profile_id
    from_id := coalesce(after_id + 1, -9223372036854775808);
    LOOP
        candidates := ARRAY(SELECT DISTINCT r.profile_id FROM @extschema@.sample_row r
                             WHERE r.profile_id >= from_id AND r.profile_id < window_end
                             ORDER BY r.profile_id LIMIT max_profiles::bigint * 4);
        EXIT WHEN cardinality(candidates) = 0;
        ids := ids || ARRAY(SELECT p.id FROM @extschema@.profile p WHERE p.id = ANY (candidates)
                             ORDER BY p.id LIMIT max_profiles - cardinality(ids)
                               FOR NO KEY UPDATE SKIP LOCKED);
        IF cardinality(ids) = max_profiles THEN
            -- the candidates up to the last locked were each locked or held
            resume_after := ids[max_profiles];
            EXIT;
        END IF;
        EXIT WHEN cardinality(candidates) < max_profiles::bigint * 4;
        from_id := candidates[cardinality(candidates)] + 1;
    END LOOP;
    IF cardinality(ids) = 0 THEN
        RETURN;
    END IF;
    -- the rows this statement deletes are those it packs: a row that a
    -- DELETE on sample removed meanwhile (the DELETE waited for) is not
    -- packed.  A million samples at most per set: samples_agg holds 40
    -- bytes a sample
    WITH moved AS (
        DELETE FROM @extschema@.sample_row r WHERE r.profile_id = ANY (ids)
        RETURNING r.profile_id, r.thread, r.ts, r.stack_id, r.weight, r.labels_id)
    INSERT INTO @extschema@.sample_set (profile_id, thread, samples)
    SELECT c.profile_id, c.thread, @extschema@.samples_agg(c.stack_id, c.weight, c.ts, c.labels_id)
      FROM (SELECT m.*, (row_number() OVER (PARTITION BY m.profile_id, m.thread ORDER BY m.ts) - 1) / 1048576 AS chunk
              FROM moved m) AS c
     GROUP BY c.profile_id, c.thread, c.chunk;
    packed := cardinality(ids);
END
$$;
COMMENT ON FUNCTION pack_samples_after(bigint, integer) IS 'packs the sample rows of up to max_profiles profiles of ids past after_id that no other transaction holds, in this transaction; how many it packed, and where the next batch goes on (NULL: from the first profile)';

-- One batch from the first profile: how many profiles it packed (0 when
-- none is left, or only profiles that other transactions hold or that are
-- past the last window).
CREATE OR REPLACE FUNCTION pack_samples_batch(max_profiles integer DEFAULT 100) RETURNS integer
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT b.packed FROM @extschema@.pack_samples_after(NULL, max_profiles) AS b;
END;
COMMENT ON FUNCTION pack_samples_batch(integer) IS 'packs the sample rows of up to max_profiles profiles of sample_row into sample_set, in this transaction; how many profiles it packed (0: none is left that another transaction does not hold)';

-- Every batch, each committed before the next, in passes over the
-- profiles by id: a batch goes on where the last one stopped, so that
-- profiles held by other transactions are passed over once a pass, not
-- once a batch; a pass that reached the last profile is followed by
-- another, for the profiles freed meanwhile, until a pass from the first
-- profile packs none.  CALL it outside a transaction block.  Qualified
-- names throughout: a procedure that commits cannot set its own
-- search_path.  So no variable is of type record, a name PL/pgSQL looks
-- up on the caller's path (a composite type "record" in a schema before
-- pg_catalog would be taken, with the checks of its columns' domains);
-- integer and bigint are SQL's own words for pg_catalog's types.
CREATE OR REPLACE PROCEDURE pack_samples(batch_profiles integer DEFAULT 100)
LANGUAGE plpgsql
AS $$
DECLARE
    batch_packed integer;
    batch_resume_after bigint;
    after_id bigint;
    total bigint := 0;
BEGIN
    LOOP
        -- The first lock of the batch, the one pack_samples_after() takes
        -- first, taken here: it may wait for a DROP EXTENSION open in
        -- another session, and the function found before the wait would
        -- be the dropped one (cache lookup failed for function, as it
        -- returns); after, the call is planned again on the new one.
        PERFORM FROM @extschema@.sample_row r WHERE false;
        SELECT b.packed, b.resume_after INTO batch_packed, batch_resume_after
          FROM @extschema@.pack_samples_after(after_id, batch_profiles) AS b;
        total := total OPERATOR(pg_catalog.+) batch_packed;
        EXIT WHEN after_id IS NULL AND batch_packed OPERATOR(pg_catalog.=) 0;
        after_id := batch_resume_after;
        COMMIT;
    END LOOP;
    -- what a pass from the first profile did not pack: the rows of
    -- profiles that other transactions hold, or of those that wait for a
    -- window
    IF NOT EXISTS (SELECT 1 FROM @extschema@.sample_row) THEN
        RAISE NOTICE 'calltree.pack_samples: % profiles packed, none left', total;
    ELSIF EXISTS (SELECT 1 FROM @extschema@.sample_row r
                   WHERE r.profile_id OPERATOR(pg_catalog.<)
                         (SELECT pg_catalog.max(w.end_id) FROM @extschema@.sample_partitions() w)) THEN
        RAISE NOTICE 'calltree.pack_samples: % profiles packed; the rows of profiles that other transactions hold are left', total
            USING HINT = 'Another pack_samples() or a statement on those profiles holds them: call pack_samples() again once it ends.';
    ELSE
        RAISE NOTICE 'calltree.pack_samples: % profiles packed; the rows of profile ids past the last window are left', total
            USING HINT = 'calltree.new_sample_partition() opens the next window; then call pack_samples() again.';
    END IF;
END
$$;
COMMENT ON PROCEDURE pack_samples(integer) IS 'packs every sample row left in sample_row into sample_set, batch_profiles profiles per transaction, committing each; stop it any time and CALL it again to go on';
