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
-- and they hold: a sample of a stack that does not exist
INSERT INTO calltree.sample (profile_id, stack_id, weight) VALUES (1, 999999999, 1);
-- a stack is not updated
UPDATE calltree.stack SET frame_id = frame_id WHERE id = 1;
-- a profile's samples go with it, on its worker
BEGIN;
DELETE FROM calltree.profile WHERE id = 1;
SELECT count(*) AS samples_of_1 FROM calltree.sample WHERE profile_id = 1;
ROLLBACK;
