-- The profile row and the sample sets of an import
-- (src/writer/writer_profile_row.c, writer_set_row.c): written without a
-- statement where an INSERT would do nothing more, by the INSERT where it
-- would.  Either way the rows are what the INSERT makes: defaults filled,
-- constraints and unique indexes refuse, the user's privileges are
-- checked, triggers fire.  (import_copy has the triggers, policies and
-- privileges of sample_set.)  In a database of its own: a NOT NULL
-- constraint on profile.name cannot be added where the tests before left
-- profiles without a name.
SELECT current_database() AS regression_db \gset
CREATE DATABASE calltree_profile_row;
\c calltree_profile_row
CREATE EXTENSION calltree;
SET search_path = calltree, public;
\set SHOW_CONTEXT never
\set VERBOSITY terse

-- (no column can be added: rolled_up(profile) takes its row type)
SELECT count(*) AS profiles_before FROM profile \gset
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr first') AS first \gset
SELECT name, format, weight_unit, meta, imported_at > now() - interval '1 hour' AS imported_now,
       started_at IS NULL AS no_start, octet_length(content_sha256) AS digest_bytes
  FROM profile WHERE id = :first;
SELECT count(*) AS samples FROM sample WHERE profile_id = :first;
-- a default changed within the session: the next row takes the new one
ALTER TABLE profile ALTER COLUMN imported_at SET DEFAULT '2001-02-03 04:05:06+00';
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr second') AS second \gset
SELECT :second > :first AS later_id, imported_at = '2001-02-03 04:05:06+00' AS new_default
  FROM profile WHERE id = :second;
ALTER TABLE profile ALTER COLUMN imported_at SET DEFAULT now();
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr third') AS third \gset
SELECT imported_at > now() - interval '1 hour' AS default_again FROM profile WHERE id = :third;
-- a NOT NULL constraint: refused, nothing left behind
ALTER TABLE profile ALTER COLUMN name SET NOT NULL;
SELECT import_collapsed(E'pr_main;pr_work 3\n', NULL);
ALTER TABLE profile ALTER COLUMN name DROP NOT NULL;
-- a read-only transaction
BEGIN READ ONLY;
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr read-only');
ROLLBACK;
-- a CHECK constraint
ALTER TABLE profile ADD CONSTRAINT pr_named CHECK (name IS DISTINCT FROM 'pr refused');
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr refused');
ALTER TABLE profile DROP CONSTRAINT pr_named;
-- a unique index of a DBA's
CREATE UNIQUE INDEX pr_unique_name ON profile (name) WHERE name LIKE 'pr once%';
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr once') > 0 AS imported_once;
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr once');
DROP INDEX pr_unique_name;
SELECT count(*) - :profiles_before AS profiles_added FROM profile;

-- a DBA's trigger fires (the INSERT writes the row then)
CREATE FUNCTION pr_stamp() RETURNS trigger LANGUAGE plpgsql AS
$$BEGIN NEW.meta := NEW.meta || '{"stamped": true}'; RETURN NEW; END$$;
CREATE TRIGGER pr_stamp BEFORE INSERT ON profile FOR EACH ROW EXECUTE FUNCTION pr_stamp();
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr stamped') AS stamped \gset
SELECT meta FROM profile WHERE id = :stamped;
DROP TRIGGER pr_stamp ON profile;
DROP FUNCTION pr_stamp();

-- calltree.import_started_at: the start of every profile an import writes,
-- in place of the file's, which the importer may then not change (the
-- Firefox importer sets it after the row is written); empty: the file's
\set gecko '{"meta": {"version": 24, "startTime": 1700000001000.5}, "threads": [{"name": "GeckoMain", "pid": 200, "stringTable": ["(root)", "content"], "frameTable": {"schema": {"location": 0}, "data": [[0], [1]]}, "stackTable": {"schema": {"frame": 1, "prefix": 0}, "data": [[null, 0], [0, 1]]}, "samples": {"schema": {"stack": 0, "time": 1}, "data": [[1, 0.25]]}}]}'
BEGIN;
SET LOCAL calltree.import_started_at = '2001-02-03 04:05:06.789+00';
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr given') AS given \gset
SELECT import_firefox(:'gecko', 'pr given firefox') AS given_firefox \gset
COMMIT;
SELECT import_firefox(:'gecko', 'pr own firefox') AS own_firefox \gset
SELECT name, started_at AT TIME ZONE 'UTC' AS started_utc
  FROM profile WHERE id IN (:given, :given_firefox, :own_firefox) ORDER BY id;
-- a value that is not a time is refused when it is set, and not kept
SET calltree.import_started_at = 'not a time';
SELECT current_setting('calltree.import_started_at') = '' AS still_empty;
SELECT count(*) - :profiles_before AS profiles_added FROM profile;

-- privileges: INSERT on the columns given and SELECT on id, as INSERT ... RETURNING id
CREATE ROLE regress_pr_importer;
GRANT USAGE ON SCHEMA calltree TO regress_pr_importer;
GRANT INSERT (name, format, weight_unit, meta, started_at, content_sha256) ON profile TO regress_pr_importer;
GRANT INSERT ON sample_set TO regress_pr_importer;
GRANT SELECT ON func, frame, stack, labels TO regress_pr_importer;
GRANT USAGE ON SEQUENCE profile_id_seq TO regress_pr_importer;
SET ROLE regress_pr_importer;
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr no select');
RESET ROLE;
GRANT SELECT (id) ON profile TO regress_pr_importer;
REVOKE INSERT (format) ON profile FROM regress_pr_importer;
SET ROLE regress_pr_importer;
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr no format');
RESET ROLE;
GRANT INSERT (format) ON profile TO regress_pr_importer;
REVOKE USAGE ON SEQUENCE profile_id_seq FROM regress_pr_importer;
SET ROLE regress_pr_importer;
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr no sequence');
RESET ROLE;
GRANT USAGE ON SEQUENCE profile_id_seq TO regress_pr_importer;
SET ROLE regress_pr_importer;
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr granted') > 0 AS imported_with_rights;
RESET ROLE;
SELECT count(*) - :profiles_before AS profiles_added FROM profile;

-- sample_set: a CHECK constraint of a partition's own
ALTER TABLE sample_set_0 ADD CONSTRAINT pr_threaded CHECK (thread IS NOT NULL) NOT VALID;
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr no thread');
ALTER TABLE sample_set_0 DROP CONSTRAINT pr_threaded;
-- under REPEATABLE READ the integrity trigger checks the sets (the INSERT writes them)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT import_collapsed(E'pr_main;pr_work 3\n', 'pr repeatable') AS repeatable \gset
COMMIT;
SELECT count(*) AS sets, sum(sample_count(samples)) AS samples FROM sample_set WHERE profile_id = :repeatable;
SELECT count(*) - :profiles_before AS profiles_added FROM profile;

DELETE FROM profile WHERE name LIKE 'pr %';
REVOKE ALL ON profile, sample_set, profile_id_seq, func, frame, stack, labels FROM regress_pr_importer;
\c :regression_db
DROP DATABASE calltree_profile_row;
DROP ROLE regress_pr_importer;
