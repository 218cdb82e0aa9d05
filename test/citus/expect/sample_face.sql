-- calltree.sample, the view of packed samples a row each, on Citus:
-- read as on one node (its query runs on the workers), INSERT packed on
-- the way in and routed to the profile's worker; UPDATE and DELETE are
-- refused (Citus would send the statement on the view to a worker as it
-- is, which sends it on again: no trigger of the view ever gets its rows):
-- a profile's samples are deleted through sample_set, or with the
-- profile, and some of them by rewriting its sets (docs/citus.md).
SET search_path = calltree, public;
SELECT count(*) AS samples, sum(weight) AS weight FROM sample WHERE profile_id = 2;
-- (the new stack rolled back with the rest: collect_garbage() later finds
-- the same garbage as on one node)
BEGIN;
SELECT intern_stack('{face_main,face_work}') AS face_stack \gset
INSERT INTO sample (profile_id, thread, stack_id, weight) VALUES (2, 'face', :face_stack, 7), (2, 'face', :face_stack, 8);
-- one set for the statement's rows, on the worker of profile 2
SELECT thread, sample_count(samples) FROM sample_set WHERE profile_id = 2 AND thread = 'face';
SELECT count(*) AS samples, sum(weight) AS weight FROM sample WHERE profile_id = 2;
SELECT stack_id = :face_stack AS face_stack, weight FROM sample WHERE profile_id = 2 AND thread = 'face' ORDER BY weight;
SELECT (SELECT total(stack_agg(stack_id, weight)) FROM sample WHERE profile_id = 2)
     = (SELECT total(stack_agg(samples)) FROM sample_set WHERE profile_id = 2) AS same_tree_total;
-- refused, and nothing changed
DELETE FROM sample WHERE profile_id = 2 AND thread = 'face';
ROLLBACK;
BEGIN;
UPDATE sample SET weight = 1 WHERE profile_id = 2;
ROLLBACK;
BEGIN;
DELETE FROM sample_set WHERE profile_id = 2;
SELECT count(*) AS samples_of_2 FROM sample WHERE profile_id = 2;
ROLLBACK;
-- some samples of a profile removed (those of one stack): its sets that
-- name the stack rewritten without them, on its worker
SELECT stack_id AS gone_stack, count(*) AS gone_samples, sum(weight) AS gone_weight
  FROM sample WHERE profile_id = 2 GROUP BY stack_id ORDER BY count(*) DESC, stack_id LIMIT 1 \gset
BEGIN;
DELETE FROM sample_set s
 WHERE s.profile_id = 2 AND stack_ids(s.samples) = ARRAY[:gone_stack]::bigint[];
UPDATE sample_set s
   SET samples = (SELECT samples_agg(u.stack_id, u.weight, u.ts, u.labels_id)
                    FROM unnest(s.samples) AS u WHERE u.stack_id <> :gone_stack)
 WHERE s.profile_id = 2 AND :gone_stack = ANY (stack_ids(s.samples));
SELECT count(*) = 133 - :gone_samples AS samples_left, sum(weight) = 1330000000 - :gone_weight AS weight_left,
       count(*) FILTER (WHERE stack_id = :gone_stack) AS of_gone_stack
  FROM sample WHERE profile_id = 2;
ROLLBACK;
SELECT count(*) AS samples, sum(weight) AS weight FROM sample WHERE profile_id = 2;
-- a database distributed under 0.3 has no sample rows of 0.2 to pack
CALL pack_samples();
SELECT pack_samples_batch();
-- sample sets written straight into sample_set are checked on their
-- worker: the stacks and label sets their values name exist (as on one
-- node); a value naming others is refused, and nothing is written
SELECT min(stack_id) AS good_stack FROM sample WHERE profile_id = 2 \gset
INSERT INTO sample_set (profile_id, thread, samples)
SELECT 2, 'bad', samples_agg(s, 1) FROM (VALUES (:good_stack), (999999999)) AS v(s);
INSERT INTO sample_set (profile_id, thread, samples)
SELECT 2, 'bad', samples_agg(:good_stack, 1, 0, 999999999);
BEGIN;
INSERT INTO sample_set (profile_id, thread, samples) SELECT 2, 'good', samples_agg(:good_stack, 5);
UPDATE sample_set SET samples = (SELECT samples_agg(999999998, 5))
 WHERE profile_id = 2 AND thread = 'good';
ROLLBACK;
BEGIN;
INSERT INTO sample_set (profile_id, thread, samples) SELECT 2, 'good', samples_agg(:good_stack, 5);
SELECT count(*) AS samples, sum(weight) AS weight FROM sample WHERE profile_id = 2;
ROLLBACK;
SELECT count(*) AS samples, sum(weight) AS weight FROM sample WHERE profile_id = 2;
