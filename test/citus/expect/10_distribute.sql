-- distribute() once only, and its argument checked first
SELECT calltree.distribute(0);
SELECT calltree.distribute();
-- what it made: the Citus tables of calltree, and how each is held
SELECT logicalrelid, partmethod, colocationid = (SELECT colocationid FROM pg_dist_partition
                                                  WHERE logicalrelid = 'calltree.profile'::regclass) AS with_profiles
  FROM pg_dist_partition WHERE logicalrelid::text LIKE 'calltree.%' ORDER BY logicalrelid::text;
-- the foreign keys that stand for the integrity triggers
SELECT conrelid::regclass, conname, confrelid::regclass, confdeltype
  FROM pg_constraint WHERE contype = 'f' AND connamespace = 'calltree'::regnamespace
   AND conrelid::regclass::text NOT LIKE '%\_1%' ORDER BY conrelid::regclass::text, conname;
-- and the triggers that keep the references inside packed sample sets
SELECT tgrelid::regclass, tgname FROM pg_trigger
 WHERE tgfoid IN ('calltree.citus_sample_refs_check'::regproc, 'calltree.citus_interned_delete_check'::regproc)
   AND tgrelid::regclass::text NOT LIKE '%\_1%' ORDER BY 1, 2;
-- they hold: a sample of a stack, label set or profile that does not
-- exist (the ids read first: Citus takes no statement on the view that
-- also reads its tables)
SELECT min(id) AS a_stack FROM calltree.stack \gset
SELECT max(u.id) AS used_stack FROM calltree.sample_set s, unnest(calltree.stack_ids(s.samples)) AS u(id) WHERE s.profile_id = 1 \gset
SELECT max(u.id) AS used_labels FROM calltree.sample_set s, unnest(calltree.label_set_ids(s.samples)) AS u(id) WHERE s.profile_id = 1 \gset
SELECT :used_stack > 0 AS a_used_stack, :used_labels > 0 AS a_used_label_set;
INSERT INTO calltree.sample (profile_id, stack_id, weight) VALUES (1, 999999999, 1);
INSERT INTO calltree.sample (profile_id, stack_id, weight, labels_id) VALUES (1, :a_stack, 1, 999999999);
INSERT INTO calltree.sample (profile_id, stack_id, weight) VALUES (999999999, :a_stack, 1);
-- a stack or label set that a sample set names is not deleted
DELETE FROM calltree.stack WHERE id = :used_stack;
DELETE FROM calltree.labels WHERE id = :used_labels;
-- a stack is not updated
UPDATE calltree.stack SET frame_id = frame_id WHERE id = 1;
-- a profile's samples go with it, on its worker
BEGIN;
DELETE FROM calltree.profile WHERE id = 1;
SELECT count(*) AS samples_of_1 FROM calltree.sample WHERE profile_id = 1;
SELECT count(*) AS sets_of_1 FROM calltree.sample_set WHERE profile_id = 1;
ROLLBACK;
