-- The references of stack rows, checked by statement-level triggers
-- (src/store/integrity.c) instead of foreign keys: every case a foreign key would
-- refuse is refused, with a message that names the rows.  Rows get explicit
-- ids here so that the messages do not depend on earlier tests.
SET search_path = calltree, public;

INSERT INTO frame (id, func_id) VALUES
  (900000001, intern_func('integrity a')), (900000002, intern_func('integrity b'));
INSERT INTO stack (id, prefix_id, frame_id) VALUES
  (900000010, NULL, 900000001), (900000011, 900000010, 900000002);

-- new stacks: a missing prefix or frame is refused, whichever row it is in
INSERT INTO stack (id, prefix_id, frame_id) VALUES (900000020, 900000010, 900000999);
INSERT INTO stack (id, prefix_id, frame_id)
VALUES (900000021, 900000011, 900000001), (900000022, 900000005, 900000001),
       (900000023, NULL, 900000002);
SELECT count(*) AS none_written FROM stack WHERE id BETWEEN 900000020 AND 900000023;
-- a prefix written by the same statement counts: one INSERT of a chain
INSERT INTO stack (id, prefix_id, frame_id)
VALUES (900000030, NULL, 900000002), (900000031, 900000030, 900000001),
       (900000032, 900000031, 900000002);
SELECT f.name FROM unnest(stack_path(900000032)) WITH ORDINALITY AS p(func, n)
  JOIN func f ON f.id = p.func ORDER BY p.n;

-- deleting: a stack with children is refused; leaves first, then their
-- prefixes, each statement is fine
DELETE FROM stack WHERE id = 900000031;
DELETE FROM stack WHERE id = 900000032;
DELETE FROM stack WHERE id IN (900000030, 900000031);
SELECT count(*) AS chain_left FROM stack WHERE id BETWEEN 900000030 AND 900000032;
-- a frame some stack uses (only 900000010 uses 900000001 now) is refused
DELETE FROM frame WHERE id = 900000001;
-- a whole subtree in one statement is fine too, and then its frames
BEGIN;
DELETE FROM stack WHERE id IN (900000010, 900000011);
DELETE FROM frame WHERE id IN (900000001, 900000002);
SELECT count(*) AS frames_left FROM frame WHERE id IN (900000001, 900000002);
ROLLBACK;

-- stacks never change, nor do frame ids; symbolicate() moves frames to
-- other funcs, which stays allowed
UPDATE stack SET frame_id = 900000001 WHERE id = 900000011;
UPDATE frame SET id = 900000003 WHERE id = 900000002;
UPDATE frame SET func_id = intern_func('integrity c') WHERE id = 900000002;
SELECT f.name FROM frame fr JOIN func f ON f.id = fr.func_id WHERE fr.id = 900000002;

-- TRUNCATE of frame is refused while stacks exist, allowed once they are gone
BEGIN;
TRUNCATE frame CASCADE;
ROLLBACK;
BEGIN;
SET LOCAL client_min_messages = warning;
TRUNCATE stack CASCADE;
TRUNCATE frame CASCADE;
SELECT count(*) AS frames_left FROM frame;
ROLLBACK;

-- under session_replication_role = replica the triggers stay silent, as
-- foreign keys do (the damaged-table tests in bad_input rely on it)
BEGIN;
SET LOCAL session_replication_role = replica;
INSERT INTO stack (id, prefix_id, frame_id) VALUES (900000040, 900000039, 900000001);
SELECT count(*) AS damaged_row FROM stack WHERE id = 900000040;
ROLLBACK;

DELETE FROM stack WHERE id IN (900000010, 900000011);
DELETE FROM frame WHERE id IN (900000001, 900000002);

-- samples: their profile and label set must exist ...
INSERT INTO frame (id, func_id) VALUES (900000001, intern_func('integrity a'));
INSERT INTO stack (id, prefix_id, frame_id) VALUES (900000010, NULL, 900000001);
INSERT INTO profile (id, name) VALUES (900000001, 'integrity one'), (900000002, 'integrity two');
INSERT INTO labels (id, labels) VALUES (900000001, '{"integrity": "x"}'), (900000002, '{"integrity": "y"}');
INSERT INTO sample (profile_id, stack_id, weight, labels_id) VALUES
  (900000001, 900000010, 1, NULL), (900000001, 900000010, 2, 900000001),
  (900000002, 900000010, 4, 900000001);
INSERT INTO sample (profile_id, stack_id) VALUES (900000001, 900000010), (900000009, 900000010);
INSERT INTO sample (profile_id, stack_id, labels_id) VALUES (900000001, 900000010, 900000009);
-- ... and so must their stack, on insert and on update; a stack that
-- samples use cannot be deleted
INSERT INTO sample (profile_id, stack_id) VALUES (900000001, 900000010), (900000001, 900000099);
UPDATE sample SET stack_id = 900000098 WHERE profile_id = 900000002;
DELETE FROM stack WHERE id = 900000010;
-- sample.stack_id is no foreign key, on sample nor on its partitions: the
-- statement checks stand in
SELECT count(*) AS foreign_keys FROM pg_constraint c
 WHERE c.contype = 'f'
   AND c.conrelid IN (SELECT partition FROM sample_partitions() UNION ALL SELECT 'sample'::regclass);
UPDATE sample SET profile_id = 900000008 WHERE profile_id = 900000002;
UPDATE sample SET labels_id = 900000002 WHERE profile_id = 900000002;
SELECT profile_id, weight, labels_id FROM sample WHERE profile_id >= 900000001 ORDER BY weight;
-- ... a used label set cannot go, an unused one can ...
DELETE FROM labels WHERE id = 900000001;
BEGIN;
UPDATE sample SET labels_id = NULL WHERE labels_id = 900000001;
DELETE FROM labels WHERE id = 900000001;
ROLLBACK;
-- ... and deleting a profile deletes its samples, in one statement or several
DELETE FROM profile WHERE id = 900000002;
SELECT profile_id, weight FROM sample WHERE profile_id >= 900000001 ORDER BY weight;
UPDATE profile SET id = 900000003 WHERE id = 900000001;
UPDATE labels SET id = 900000003 WHERE id = 900000002;
BEGIN;
TRUNCATE profile CASCADE;
ROLLBACK;
BEGIN;
TRUNCATE labels;
ROLLBACK;
DELETE FROM profile WHERE id IN (900000001, 900000002);
SELECT count(*) AS samples_left FROM sample WHERE profile_id >= 900000001;
DELETE FROM labels WHERE id IN (900000001, 900000002);
DELETE FROM stack WHERE id = 900000010;
DELETE FROM frame WHERE id = 900000001;
