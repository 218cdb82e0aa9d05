-- The intern lock (src/store/intern_lock.c): what an import holds, and who may
-- take the lock.  Concurrency itself: test/isolation/specs/intern_lock.spec.
SET search_path = calltree, public;

-- The locks of this backend's transaction, by kind: advisory locks, the
-- intern lock (an object lock whose class is calltree.func), and all.
CREATE TEMP VIEW my_locks AS
SELECT count(*) FILTER (WHERE locktype = 'advisory') AS advisory,
       count(*) FILTER (WHERE locktype = 'object' AND classid = 'calltree.func'::regclass
                          AND objid = 0 AND mode = 'ExclusiveLock' AND granted) AS intern,
       count(*) < 100 AS few
  FROM pg_locks WHERE pid = pg_backend_pid();

-- perf script of one [unknown] frame in each of n libraries (at addresses
-- of their own: frames are probed by address)
CREATE FUNCTION pg_temp.libraries(n int) RETURNS text LANGUAGE sql
RETURN (SELECT string_agg(format(E'app 1/1 %s.000001: 1 cycles:\n\t %s [unknown] (/lib/l%s.so)\n',
                                 i, to_hex(4096 + 16 * i), i), E'\n' ORDER BY i)
          FROM generate_series(1, n) AS i);

-- 20,000 samples, each in a library of its own: one lock, not one per
-- library (which ran out of shared memory).  Rolled back: deleting 20,000
-- frames would take minutes.
BEGIN;
SELECT import_perf_script(pg_temp.libraries(20000), name => 'many libraries') AS many \gset
SELECT * FROM my_locks;
SELECT count(*) AS samples, sum(weight) AS weight, count(DISTINCT f.resource) AS libraries
  FROM sample s JOIN stack st ON st.id = s.stack_id
  JOIN frame fr ON fr.id = st.frame_id JOIN func f ON f.id = fr.func_id
 WHERE s.profile_id = :many;
ROLLBACK;

-- Every frame known: no new row, no lock at all.
SELECT import_perf_script(pg_temp.libraries(100), name => 'some libraries') > 0 AS imported;
BEGIN;
SELECT import_perf_script(pg_temp.libraries(100), name => 'known libraries') > 0 AS imported;
SELECT * FROM my_locks;
COMMIT;

-- The statement trigger takes it for any other writer, here intern_func().
BEGIN;
SELECT intern_func('a locked func') > 0 AS interned;
SELECT * FROM my_locks;
ROLLBACK;

-- intern_lock(): for a role that may insert into one of the interned
-- tables (which could hold such a row, and imports with it, anyway).
CREATE ROLE regress_calltree_reader;
CREATE ROLE regress_calltree_labeller;
GRANT USAGE ON SCHEMA calltree TO regress_calltree_reader, regress_calltree_labeller;
GRANT SELECT ON ALL TABLES IN SCHEMA calltree TO regress_calltree_reader;
GRANT INSERT ON labels TO regress_calltree_labeller;
BEGIN;
SET LOCAL ROLE regress_calltree_labeller;
SELECT intern_lock();
RESET ROLE;
SELECT * FROM my_locks;
ROLLBACK;
-- a reader gets the error an INSERT would give, before it waits for the
-- lock: from intern_lock() and from symbolicate()
SET ROLE regress_calltree_reader;
SELECT intern_lock();
SELECT * FROM symbolicate('/lib/l1.so', ARRAY[0]::bigint[], ARRAY['l1_start']);
RESET ROLE;
-- it is not a trigger
SELECT intern_lock_trigger();
REVOKE ALL ON SCHEMA calltree FROM regress_calltree_reader, regress_calltree_labeller;
REVOKE ALL ON ALL TABLES IN SCHEMA calltree FROM regress_calltree_reader, regress_calltree_labeller;
DROP ROLE regress_calltree_reader, regress_calltree_labeller;

DELETE FROM profile WHERE name IN ('some libraries', 'known libraries');
DELETE FROM stack st USING frame fr, func f
 WHERE fr.id = st.frame_id AND f.id = fr.func_id AND f.resource LIKE '/lib/l%.so';
DELETE FROM frame fr USING func f WHERE f.id = fr.func_id AND f.resource LIKE '/lib/l%.so';
DELETE FROM func WHERE resource LIKE '/lib/l%.so';
