-- The time windows of calltree.sample_set and profile ids past the last
-- one.  A sample of such an id would land in sample_set_default and stop
-- the next window from opening (ATTACH PARTITION refuses a range of which
-- the default partition holds rows): sample_set_default refuses it.
-- Samples of such ids that version 0.2 let in wait in sample_row, and are
-- packed into their window once it is open.
SET search_path = calltree, public;
\set SHOW_CONTEXT never

SELECT last_value AS seq_before FROM profile_id_seq \gset
-- the other tests left sample_set_0 and sample_set_default alone
SELECT partition, first_id, end_id FROM sample_partitions();

-- a profile of an id past the last window holds no sample: it may be made
INSERT INTO profile (id, name) VALUES (10000000005, 'sw-ahead');
-- its samples are refused, whether inserted or moved there by an update
INSERT INTO sample (profile_id, stack_id, weight) VALUES (10000000005, intern_stack(ARRAY['sw_main', 'sw_ahead']), 4);
SELECT import_collapsed(E'sw_main;sw_mine 2\n', 'sw-mine') AS mine \gset
UPDATE sample SET profile_id = 10000000005 WHERE profile_id = :mine;
SELECT count(*) AS in_default FROM sample_set_default;

-- the next window opens over them; the sequence starts past the ids
-- given in it by hand; the profile's samples are now taken, in the window
SELECT new_sample_partition() AS w1 \gset
SELECT :'w1' AS w1, first_id, end_id FROM sample_partitions() WHERE partition = :'w1'::regclass;
SELECT import_collapsed(E'sw_main;sw_next 1\n', 'sw-next') AS next \gset
SELECT :next AS next_id;
INSERT INTO sample (profile_id, stack_id, weight) VALUES (10000000005, intern_stack(ARRAY['sw_main', 'sw_ahead']), 4);
SELECT p.name, s.tableoid::regclass AS partition, u.weight
  FROM profile p JOIN sample_set s ON s.profile_id = p.id, unnest(s.samples) u WHERE p.name LIKE 'sw-%' ORDER BY p.id;

-- a sample past the last window that version 0.2 let in, a row of
-- sample_row after the update: the next window's ids start past it, and
-- pack_samples_batch() packs it into that window
INSERT INTO profile (id, name) VALUES (20000000007, 'sw-legacy');
INSERT INTO sample_row (profile_id, stack_id, weight) VALUES (20000000007, intern_stack(ARRAY['sw_main', 'sw_legacy']), 6);
SELECT new_sample_partition() AS w2 \gset
SELECT pack_samples_batch(10) AS packed;
SELECT s.tableoid::regclass = :'w2'::regclass AS moved, u.weight FROM sample_set s, unnest(s.samples) u WHERE s.profile_id = 20000000007;
SELECT count(*) AS in_default FROM sample_set_default;
SELECT nextval('profile_id_seq') AS after_legacy;

-- the trigger refuses to run other than BEFORE ... FOR EACH ROW
CREATE TEMP TABLE sw_wrong (profile_id bigint);
CREATE TRIGGER sw_wrong AFTER INSERT ON sw_wrong FOR EACH STATEMENT EXECUTE FUNCTION sample_window_check();
INSERT INTO sw_wrong VALUES (1);

-- clean up: the profiles, the windows, the ids
DELETE FROM profile WHERE name LIKE 'sw-%';
DROP TABLE :w1, :w2;
SELECT setval('profile_id_seq', :seq_before) > 0 AS ids_back;
SELECT partition FROM sample_partitions();
