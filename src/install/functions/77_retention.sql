--------------------------------------------------------------------------
-- Retention: expire() deletes the raw samples and profiles that are old
-- enough and rolled up, by emptying and dropping whole partitions of
-- sample_set; collect_garbage() deletes the interned rows nothing uses.
-- The rows of sample_row that pack_samples() has not packed yet go with
-- their profiles, row by row.
--
-- Why sample_set is partitioned by ranges of profile ids, not by time.  A
-- time key on every row would cost a column for the writer to fill, and
-- moving a profile's samples whenever its started_at
-- changes (imports without a start time get one later; some never do).
-- Profile ids already grow with the time of import, and every sample
-- carries one.  So a partition is a time window of imports:
-- new_sample_partition() opens the window [k * 10^10, (k + 1) * 10^10)
-- and moves the profile id sequence to its first id, so that profiles
-- created from then on fall in it (ids jump once per window; a bigint has
-- room for 9 * 10^8 windows).  sample_set_0 holds the ids below 10^10:
-- the profiles imported before the first window, those of version 0.1 too.
-- A profile counts by its start time: one whose start lies far from its
-- import sits in the window of its import and goes with it.  Sharded
-- later by profile id, the partitions of a shard stay ranges of the same
-- column.
--
-- A partition goes when every profile in it is expirable: started before
-- the cutoff, and included in every rollup level that reads raw samples
-- (rolled_up).  It is emptied by TRUNCATE, which gives its space back and
-- locks only the partition, then its profile rows are deleted (the
-- cascade of profile_delete_cascade reads only the partitions of their
-- ids, emptied already);
-- the empty partition is dropped when the lock on sample_set that DROP
-- needs comes within a second (else by a later run).  A partition with a profile
-- that is not expirable is kept whole: its expirable profiles are counted
-- as kept, and go with the rest.  sample_set_default catches what no
-- window holds (an import that took its id before its window was dropped);
-- its expirable profiles are deleted one by one.
--
-- Ids past the last window are refused in sample_set_default (its trigger,
-- src/store/sample_partitions.c): the next window could not be attached
-- over them.
--
-- Concurrency: expire() checks a partition without locks, then takes an
-- ACCESS EXCLUSIVE lock on it (waiting for the imports that write into it
-- and the queries that read it) and checks again in a new snapshot before
-- it empties it, so a profile committed meanwhile is seen; it deletes the
-- profiles it checked then, not those committed after (an events-only
-- import writes no sample, so the lock does not hold it off).  An import
-- whose profile id lies in a partition being emptied and that has not
-- written yet writes after the TRUNCATE: its rows stay.  Before any of
-- that it takes a SHARE lock on rollup_level: no new rollup level is made
-- meanwhile (its first run would read raw samples that expire deletes),
-- and no level's first run is under way.
--
-- A window opens transactionally: new_sample_partition() moves the profile
-- id sequence with ALTER SEQUENCE, which waits for the transactions that
-- took ids (nextval holds a lock on the sequence until they end) and holds
-- off nextval until it commits or rolls back.  No id of a window is handed
-- out before its partition is there for all to see, and none after a
-- rollback.  Lock order: rollup_level, the partitions by id, then
-- sample_set (SHARE UPDATE EXCLUSIVE), the sequence, sample_set_default
-- (by ATTACH), and sample_set (ACCESS EXCLUSIVE, for DROP).  An import
-- takes the sequence, then sample_set and its partition: it never waits
-- for the sequence while holding
-- a lock that the opening of a window wants later.  Within expire(), which
-- holds the partitions it emptied, the opening of a window and each DROP
-- give up after half a second, before a deadlock is detected, and are left
-- to a later run.
--------------------------------------------------------------------------

-- The partitions of sample_set and the profile ids each holds: [first_id,
-- end_id), first_id NULL for sample_set_0 (no lower bound), both NULL for
-- sample_set_default.
CREATE OR REPLACE FUNCTION sample_partitions(OUT partition regclass, OUT first_id bigint, OUT end_id bigint)
RETURNS SETOF record
LANGUAGE sql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT b.partition,
           NULLIF(substring(b.bound FROM 'FROM \(''?([0-9A-Z]+)''?\)'), 'MINVALUE')::bigint,
           NULLIF(substring(b.bound FROM 'TO \(''?([0-9A-Z]+)''?\)'), 'MAXVALUE')::bigint
      FROM (SELECT i.inhrelid::regclass AS partition, pg_get_expr(c.relpartbound, c.oid) AS bound
              FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = '@extschema@.sample_set'::regclass) AS b
     ORDER BY 2 NULLS FIRST, 3 NULLS LAST;
END;
COMMENT ON FUNCTION sample_partitions() IS 'the partitions of calltree.sample_set and the profile ids [first_id, end_id) each holds';

-- Opens the next time window: a partition for the next 10^10 profile ids,
-- and the profile id sequence moved to its first id (past the ids given
-- in it by hand), in this transaction: see the locks above.  A call in a
-- transaction that holds locks an import may wait for (as expire() does)
-- deadlocks with the import that took an id meanwhile: expire() calls it
-- through expire_open_window().
CREATE OR REPLACE FUNCTION new_sample_partition() RETURNS regclass
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    block constant bigint := 10000000000;
    next_id bigint;
    first bigint;
    restart bigint;
    name text;
BEGIN
    -- one at a time (ATTACH PARTITION takes this lock too); imports and
    -- queries go on
    LOCK TABLE ONLY @extschema@.sample_set IN SHARE UPDATE EXCLUSIVE MODE;
    -- On Citus (docs/citus.md), whose tables refer to reference tables, a
    -- transaction may change sample_set after reading or writing all shards
    -- (profile's below) only one connection per node
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
    END IF;
    SELECT CASE WHEN s.is_called THEN s.last_value + 1 ELSE s.last_value END
      INTO next_id FROM @extschema@.profile_id_seq s;
    -- past every window, and past every id taken: those of a window that
    -- was never made are in sample_set_default
    SELECT greatest(max(p.end_id), (next_id + block - 1) / block * block)
      INTO first FROM @extschema@.sample_partitions() p;
    SELECT coalesce(max(p.id) + 1, first) INTO restart FROM @extschema@.profile p
     WHERE p.id >= first AND p.id < first + block;
    -- first of all the locks on the window's tables (see above)
    EXECUTE format('ALTER SEQUENCE @extschema@.profile_id_seq RESTART WITH %s', restart);
    name := 'sample_set_' || (first / block);
    EXECUTE format('CREATE TABLE @extschema@.%I (LIKE @extschema@.sample_set INCLUDING DEFAULTS)', name);
    EXECUTE format('CREATE INDEX %I ON @extschema@.%I (profile_id)', name || '_profile_idx', name);
    -- only the owner reads and writes a partition itself (37_sample_set.sql)
    EXECUTE format('ALTER TABLE @extschema@.%I ENABLE ROW LEVEL SECURITY', name);
    EXECUTE format('COMMENT ON TABLE @extschema@.%I IS %L', name,
                   format('the sample sets of profile ids %s to %s, imported from %s', first, first + block - 1, now()));
    EXECUTE format('ALTER TABLE @extschema@.sample_set ATTACH PARTITION @extschema@.%I FOR VALUES FROM (%s) TO (%s)',
                   name, first, first + block);
    RETURN format('@extschema@.%I', name)::regclass;
END
$$;
COMMENT ON FUNCTION new_sample_partition() IS 'opens a new time window of calltree.sample_set: a partition for the next profile ids, which new profiles take once this transaction commits';

-- new_sample_partition() for expire(), if its locks come within half a
-- second.  While it waits for the ATTACH (behind the queries that read
-- sample_set_default), it holds the sequence and so new imports; and expire()
-- holds the partitions it emptied, which an import that holds the sequence
-- may wait for: below deadlock_timeout's default, this wait ends first.
-- The new partition, or NULL when a later run must open it.
CREATE OR REPLACE FUNCTION expire_open_window() RETURNS regclass
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
SET lock_timeout = '500ms'
AS $$
BEGIN
    RETURN @extschema@.new_sample_partition();
EXCEPTION WHEN lock_not_available OR deadlock_detected THEN
    RAISE NOTICE 'no new window of calltree.sample_set: imports or queries held its locks'
        USING HINT = 'The next run of expire() opens it.';
    RETURN NULL;
END
$$;
COMMENT ON FUNCTION expire_open_window() IS 'opens a new time window of calltree.sample_set for expire() if the locks come within half a second; the new partition or NULL';

-- BEFORE INSERT OR UPDATE OF profile_id ON sample_set_default, FOR EACH
-- ROW: refuses a sample set of a profile id past the last window
CREATE OR REPLACE FUNCTION sample_window_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_sample_window_check' LANGUAGE C;
COMMENT ON FUNCTION sample_window_check() IS 'trigger of calltree.sample_set_default: refuses the sample sets of profile ids past the last time window';

-- Whether every rollup level that reads raw samples (and one at least
-- exists) has taken the profile (rollup_taken: in the row where
-- it first read it, whatever its start, meta and unit now) or skipped it
-- (rollup_skipped: kept, it would keep its whole partition of samples
-- forever).  A level built from another reads that level's rows, which
-- stay; tree_between passes over a row of such a level that lacks a
-- profile of the finer rows in its bucket.
CREATE OR REPLACE FUNCTION rolled_up(p profile) RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE
BEGIN ATOMIC
    SELECT p.started_at IS NOT NULL
       AND EXISTS (SELECT FROM @extschema@.rollup_level l WHERE l.source_width IS NULL)
       AND NOT EXISTS (SELECT FROM @extschema@.rollup_level l
                        WHERE l.source_width IS NULL
                          AND NOT EXISTS (SELECT FROM @extschema@.rollup_taken t
                                           WHERE t.width = l.width AND t.group_by = l.group_by
                                             AND t.profiles @> p.id)
                          AND NOT EXISTS (SELECT FROM @extschema@.rollup_skipped k
                                           WHERE k.width = l.width AND k.group_by = l.group_by
                                             AND k.profile_id = p.id));
END;
COMMENT ON FUNCTION rolled_up(profile) IS 'whether every rollup level that reads raw samples (and one exists) has taken or skipped the profile';

-- The checks of expire's arguments.
CREATE OR REPLACE FUNCTION expire_check(raw_older_than interval, partition_width interval) RETURNS void
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
                  HINT = 'Pass how long a partition of calltree.sample_set receives imports, such as ''1 day''.';
    END IF;
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'expire() needs the READ COMMITTED isolation level, not %', current_setting('transaction_isolation')
            USING ERRCODE = 'feature_not_supported',
                  HINT = 'It checks each partition again in a new snapshot after locking it.';
    END IF;
END
$$;
COMMENT ON FUNCTION expire_check(interval, interval) IS 'checks the arguments of expire() and its isolation level';

-- The samples of the profile ids [first_id, end_id): counted from the
-- headers of their packed sets, and the rows not packed yet.  PL/pgSQL:
-- Citus cannot plan a SQL function's query of its tables with parameters.
CREATE OR REPLACE FUNCTION sample_count_of(first_id bigint, end_id bigint) RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    RETURN coalesce((SELECT sum(@extschema@.sample_count(s.samples))::bigint FROM @extschema@.sample_set s
                      WHERE s.profile_id >= first_id AND s.profile_id < end_id), 0)
         + (SELECT count(*) FROM @extschema@.sample_row r WHERE r.profile_id >= first_id AND r.profile_id < end_id);
END
$$;
COMMENT ON FUNCTION sample_count_of(bigint, bigint) IS 'the number of samples of the profile ids [first_id, end_id), packed or not';

-- Empties one partition whose profiles are all expirable, and deletes
-- those profiles; nothing done when one is not expirable.  The first check
-- runs without a lock; the second after the lock, in a new snapshot, and
-- only the profiles it checked are deleted: one committed later holds no
-- sample of the partition (the lock holds off its writes) and stays.  The
-- check must see every profile of the partition, since TRUNCATE empties it
-- whole: it refuses to run where row-level security would hide some.
CREATE OR REPLACE FUNCTION expire_partition(part regclass, first_id bigint, end_id bigint, cutoff timestamptz,
                                 INOUT profiles bigint, INOUT samples bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    lo bigint := coalesce(first_id, -9223372036854775808);
    prof @extschema@.profile;
    checked bigint[];
BEGIN
    IF row_security_active('@extschema@.profile') OR row_security_active('@extschema@.sample_set')
       OR row_security_active('@extschema@.sample_row') THEN
        RAISE EXCEPTION 'expire() cannot apply the row-level security policies of calltree.profile and calltree.sample_set'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'It empties whole partitions of calltree.sample_set with TRUNCATE, which would remove the samples of the profiles that the policies hide.',
                  HINT = 'Run expire() as a role that the policies do not apply to: the owner of the tables, or a role with BYPASSRLS.';
    END IF;
    profiles := 0;
    samples := 0;
    FOR pass IN 1 .. 2 LOOP
        IF pass = 2 THEN
            -- the window's profiles first, then its partition: the order of
            -- every other writer of old profiles (pack_samples_batch(), a
            -- DELETE of a profile, samples inserted for it), so none waits
            -- for the partition while holding a profile this waits for.
            -- On Citus, which locks no rows of a query over all shards, the
            -- DELETE below takes them.
            IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
                PERFORM 1 FROM @extschema@.profile p WHERE p.id >= lo AND p.id < end_id ORDER BY p.id FOR UPDATE;
            END IF;
            EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', part);
        END IF;
        checked := '{}';
        -- each profile is checked here, where rollup is (on Citus the
        -- profiles are on the workers, the rollups on the coordinator)
        FOR prof IN SELECT p.* FROM @extschema@.profile p WHERE p.id >= lo AND p.id < end_id LOOP
            IF NOT (prof.started_at < cutoff AND @extschema@.rolled_up(prof)) THEN
                RETURN;
            END IF;
            checked := checked || prof.id;
        END LOOP;
    END LOOP;
    -- through sample_set: a partition's own row security hides its rows
    -- from all but its owner; the rows not packed yet go with the profiles
    samples := @extschema@.sample_count_of(lo, end_id);
    EXECUTE format('TRUNCATE %s', part);
    DELETE FROM @extschema@.profile p WHERE p.id = ANY (checked);
    GET DIAGNOSTICS profiles = ROW_COUNT;
END
$$;
COMMENT ON FUNCTION expire_partition(regclass, bigint, bigint, timestamptz, bigint, bigint) IS 'empties a partition of calltree.sample_set whose profiles are all expirable, and deletes them; the profiles and samples deleted';

-- Drops an empty partition of a closed window, if the lock on sample_set
-- that DROP takes comes within a second: waiting longer would hold up
-- every query of sample_set queued behind it.  Whether it was dropped.
CREATE OR REPLACE FUNCTION expire_drop(part regclass) RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
-- below deadlock_timeout's default: an import that waits for a partition
-- this transaction emptied, while it holds sample_set, makes a cycle; this
-- wait ends it first
SET lock_timeout = '500ms'
AS $$
DECLARE
    empty boolean;
BEGIN
    LOCK TABLE ONLY @extschema@.sample_set IN ACCESS EXCLUSIVE MODE;
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
COMMENT ON FUNCTION expire_drop(regclass) IS 'drops an empty partition of calltree.sample_set if the lock comes within half a second; whether it did';

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

    -- the profiles of sample_set_default, one by one: few.  Each profile
    -- is checked here, as in expire_partition.
    FOR prof IN SELECT p.* FROM @extschema@.profile p WHERE p.started_at < cutoff LOOP
        IF NOT EXISTS (SELECT 1 FROM @extschema@.sample_partitions() w
                        WHERE w.end_id IS NOT NULL AND prof.id >= coalesce(w.first_id, prof.id) AND prof.id < w.end_id)
           AND @extschema@.rolled_up(prof) THEN
            gone := gone || prof.id;
        END IF;
    END LOOP;
    -- locked, then checked again in a new snapshot, as in expire_partition:
    -- a transaction that held one (moving its start, writing samples for
    -- it) has ended, and what it committed is seen
    IF cardinality(gone) > 0 THEN
        IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
            PERFORM 1 FROM @extschema@.profile p WHERE p.id = ANY (gone) ORDER BY p.id FOR UPDATE;
        END IF;
        gone := ARRAY(SELECT p.id FROM @extschema@.profile p
                       WHERE p.id = ANY (gone) AND p.started_at < cutoff AND @extschema@.rolled_up(p));
    END IF;
    SELECT samples + coalesce(sum(@extschema@.sample_count_of(g.id, g.id + 1)), 0) INTO samples
      FROM unnest(gone) AS g(id);
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
        PERFORM @extschema@.expire_open_window();
    END IF;

    -- the empty partitions of closed windows (sample_set_0 stays: the extension made it)
    FOR part IN SELECT * FROM @extschema@.sample_partitions() p
                 WHERE p.first_id IS NOT NULL AND p.end_id <= current.first_id
                 ORDER BY p.end_id LOOP
        IF NOT EXISTS (SELECT 1 FROM @extschema@.profile q WHERE q.id >= part.first_id AND q.id < part.end_id) THEN
            PERFORM @extschema@.expire_drop(part.partition);
        END IF;
    END LOOP;
END
$$;
COMMENT ON FUNCTION expire(interval, interval) IS 'deletes the profiles started more than raw_older_than ago that every rollup level reading raw samples includes, a whole partition of sample sets at a time; opens a new partition when the current one is older than partition_width';

-- Whether collect_garbage() holds calltree.rollup against the rollup runs
-- (SHARE: it waits for none of them).  A run reads samples and writes the
-- trees of their funcs into calltree.rollup in one statement, whose
-- snapshot may be older than the deletion of those samples (a profile
-- deleted meanwhile); until the run commits, no query sees that its trees
-- use those funcs.  So a collection deletes funcs only when no run is
-- under way, and holds off new ones (their writes wait for the lock, then
-- read the samples in a snapshot taken after it ends).  It does not wait:
-- it holds the stacks already, and a run's transaction may go on to
-- import, which would wait for them.  Whatever else holds the table
-- against SHARE makes it delete no func either: any write to it, and
-- VACUUM or ANALYZE of it (autovacuum's too, which a lock that does not
-- wait does not cancel).
CREATE OR REPLACE FUNCTION collect_garbage_rollup_lock() RETURNS boolean
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    LOCK TABLE @extschema@.rollup IN SHARE MODE NOWAIT;
    RETURN true;
EXCEPTION WHEN lock_not_available THEN
    RAISE NOTICE 'collect_garbage() deletes no func: another transaction holds calltree.rollup'
        USING DETAIL = 'A rollup run may be writing trees of funcs whose samples are gone since it read them; a write to calltree.rollup, or a VACUUM or ANALYZE of it, holds it too.',
              HINT = 'The next collect_garbage() deletes them.';
    RETURN false;
END
$$;
COMMENT ON FUNCTION collect_garbage_rollup_lock() IS 'for collect_garbage(): locks calltree.rollup in SHARE mode if no other transaction (a rollup run, a write, VACUUM) holds it; whether it did';

-- The stacks that are neither in sampled nor a prefix of one of them: the
-- stacks collect_garbage() deletes, given those of samples.
CREATE OR REPLACE FUNCTION unused_stacks(sampled bigint[]) RETURNS bigint[]
AS 'MODULE_PATHNAME', 'calltree_unused_stacks'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION unused_stacks(bigint[]) IS 'the stacks that are neither one of sampled nor a prefix of one of them, ascending';

-- Deletes the interned rows that nothing uses: the stacks that no sample
-- uses, nor any longer stack as its prefix; then the frames of no stack;
-- the funcs of no frame, no trace event and no node of a rollup tree; the
-- label sets of no sample.  Trees kept in tables of your own are not
-- seen: their funcs may go.  Funcs go only when no rollup run is under
-- way (collect_garbage_rollup_lock).
--
-- An import holds the stacks (a ROW EXCLUSIVE lock on stack) from before
-- it looks up its first frame or stack, in the intern cache or in the
-- tables, until it ends (integrity.c).  The SHARE ROW EXCLUSIVE lock taken
-- first waits for the imports under way and holds off new ones until this
-- transaction ends; every query after it sees what they wrote.  An import
-- that waited finds its cache emptied (the DELETE triggers of
-- 16_intern_cache.sql) and writes again the rows it needs.  The intern
-- lock, taken next, holds off the intern_* functions and symbolicate().
--
-- Without JIT: enable_nestloop off prices a plan that must still loop at
-- PostgreSQL's cost of a disabled path, past every JIT threshold, and
-- compiling took a second of each call, where a collection of a small
-- database takes milliseconds.
CREATE OR REPLACE FUNCTION collect_garbage(OUT stacks bigint, OUT frames bigint, OUT funcs bigint, OUT label_sets bigint)
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
SET enable_nestloop = off
SET jit = off
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
    -- what uses a row must be seen whole: a policy that hides samples,
    -- events, stacks or frames from this role would make the rows they use
    -- look unused (their deletion then fails on a reference check), and
    -- one that hides rollup rows would let their funcs go, which nothing checks
    IF row_security_active('@extschema@.sample_set') OR row_security_active('@extschema@.sample_row')
       OR row_security_active('@extschema@.event') OR row_security_active('@extschema@.rollup')
       OR row_security_active('@extschema@.stack') OR row_security_active('@extschema@.frame') THEN
        RAISE EXCEPTION 'collect_garbage() cannot apply the row-level security policies of calltree''s tables'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'It deletes the stacks, frames, funcs and label sets that no sample, stack, frame, trace event or rollup row uses: policies would hide some of those.',
                  HINT = 'Run collect_garbage() as a role that the policies do not apply to: the owner of the tables, or a role with BYPASSRLS.';
    END IF;
    -- the SHARE lock of collect_garbage_rollup_lock(), which PostgreSQL
    -- grants only to a role that may change the table: said here, before
    -- any work, rather than as a bare "permission denied for table rollup"
    IF NOT has_table_privilege('@extschema@.rollup', 'UPDATE, DELETE, TRUNCATE') THEN
        RAISE EXCEPTION 'collect_garbage() needs the UPDATE, DELETE or TRUNCATE privilege on calltree.rollup'
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'It writes no rollup row, but locks calltree.rollup in SHARE mode so that no rollup run writes trees of the funcs it deletes, and PostgreSQL lets only a role that may change a table take that lock.',
                  HINT = 'Grant one of them to the role (GRANT UPDATE ON calltree.rollup TO ...), or run collect_garbage() as the owner of the tables.';
    END IF;
    -- On Citus (docs/citus.md): the interned tables are reference tables
    -- that samples and events refer to by foreign keys, and Citus lets a
    -- transaction write those after reading all shards only if it reads
    -- them one connection per node.  What the distributed tables use is
    -- read first, into arrays: Citus deletes from a reference table with
    -- conditions on reference tables and values only.
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
        PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
        -- A shard move leaves the old placements behind, which Citus drops
        -- later in the background: such a drop locks an old shard, then the
        -- interned tables it refers to, where this function locks them the
        -- other way round, and Citus would cancel it as a deadlock.
        IF EXISTS (SELECT 1 FROM pg_dist_cleanup c WHERE c.object_name LIKE '@extschema@.%') THEN
            RAISE EXCEPTION 'collect_garbage() cannot run before Citus drops the old placements of moved shards of calltree''s tables'
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      DETAIL = 'pg_dist_cleanup lists them: Citus drops them every citus.defer_shard_delete_interval, and a drop under way would deadlock with collect_garbage().',
                      HINT = 'Run CALL citus_cleanup_orphaned_resources(); until pg_dist_cleanup is empty, then collect_garbage() again.';
        END IF;
    END IF;
    LOCK TABLE @extschema@.stack IN SHARE ROW EXCLUSIVE MODE;
    PERFORM @extschema@.intern_lock();

    -- the stacks of samples: those in the dictionaries of the packed sets,
    -- and of the rows not packed yet
    used_ids := ARRAY(SELECT u.id FROM @extschema@.sample_set s, unnest(@extschema@.stack_ids(s.samples)) AS u(id)
                      UNION
                      SELECT r.stack_id FROM @extschema@.sample_row r);
    -- the other stacks go unless one of those has them as a prefix, at any
    -- depth: found in one read of the stack table, by no query plan
    -- (src/store/stack_garbage.c)
    garbage := @extschema@.unused_stacks(used_ids);
    DELETE FROM @extschema@.stack st WHERE st.id = ANY (garbage);
    GET DIAGNOSTICS stacks = ROW_COUNT;

    -- Each garbage below is an anti-join that the function's settings
    -- keep from being a nested loop (enable_nestloop off): a hash or a
    -- merge join, both of which go to disk past work_mem.  On statistics
    -- that call a table nearly empty (after a collection and a VACUUM,
    -- until the next ANALYZE), a nested loop scanned the stacks whole for
    -- each frame and the frames for each func; and a set difference
    -- (EXCEPT), planned hashed on such statistics, grew its hash table in
    -- memory past work_mem, however large (PostgreSQL's hashed SetOp does
    -- not go to disk).
    garbage := ARRAY(SELECT f.id FROM @extschema@.frame f
                     WHERE NOT EXISTS (SELECT FROM @extschema@.stack st WHERE st.frame_id = f.id));
    DELETE FROM @extschema@.frame f WHERE f.id = ANY (garbage);
    GET DIAGNOSTICS frames = ROW_COUNT;

    funcs := 0;
    IF @extschema@.collect_garbage_rollup_lock() THEN
        used_funcs := ARRAY(SELECT DISTINCT e.func_id FROM @extschema@.event e
                            UNION
                            SELECT n.func FROM @extschema@.rollup r, @extschema@.functions(r.tree) n);
        garbage := ARRAY(SELECT f.id FROM @extschema@.func f
                         WHERE NOT EXISTS (SELECT FROM @extschema@.frame fr WHERE fr.func_id = f.id)
                           AND NOT EXISTS (SELECT FROM unnest(used_funcs) AS u(id) WHERE u.id = f.id));
        DELETE FROM @extschema@.func f WHERE f.id = ANY (garbage);
        GET DIAGNOSTICS funcs = ROW_COUNT;
    END IF;

    used_ids := ARRAY(SELECT u.id FROM @extschema@.sample_set s, unnest(@extschema@.label_set_ids(s.samples)) AS u(id)
                      UNION
                      SELECT r.labels_id FROM @extschema@.sample_row r WHERE r.labels_id IS NOT NULL);
    garbage := ARRAY(SELECT l.id FROM @extschema@.labels l
                     WHERE NOT EXISTS (SELECT FROM unnest(used_ids) AS u(id) WHERE u.id = l.id));
    DELETE FROM @extschema@.labels l WHERE l.id = ANY (garbage);
    GET DIAGNOSTICS label_sets = ROW_COUNT;
END
$$;
COMMENT ON FUNCTION collect_garbage() IS 'deletes the stacks, frames, funcs and label sets that no sample, stack, frame, trace event or rollup tree uses; returns how many of each';
