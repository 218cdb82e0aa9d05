-- Bad input gets a clear error, never a crash or a hang.
SET search_path = calltree, public;

-- malformed func paths
SELECT calltree_agg('{{1,2},{3,4}}'::int4[]);
SELECT calltree_agg('{1,NULL,3}'::int4[]);

-- weight sums that overflow bigint
SELECT calltree_agg(path, weight)
  FROM (VALUES ('{1}'::int4[], 9223372036854775807), ('{1}', 1)) AS v(path, weight);
SELECT calltree_agg(path, weight)
  FROM (VALUES ('{1,2}'::int4[], 9223372036854775807), ('{1,3}', 1)) AS v(path, weight);
SELECT calltree_agg(path, weight)
  FROM (VALUES ('{1}'::int4[], 9223372036854775807), ('{2}', 1)) AS v(path, weight);
SELECT calltree_agg(path, weight)
  FROM (VALUES ('{1}'::int4[], -9223372036854775808), ('{1}', -1)) AS v(path, weight);
SELECT stack_agg(s, w)
  FROM (VALUES (intern_stack('{overflow}'::text[]), 9223372036854775807),
               (intern_stack('{overflow}'::text[]), 2)) AS v(s, w);
SELECT '{1:9223372036854775807/9223372036854775807}'::calltree + '{1:1/1}'::calltree;

-- an unknown stack id
SELECT stack_agg(s) FROM (VALUES (987654321::bigint)) AS v(s);
SELECT stack_path(987654321);

-- a damaged stack table: a dangling prefix (foreign keys off) ...
SELECT intern_frame(intern_func('damaged')) AS damaged_frame \gset
BEGIN;
SET LOCAL session_replication_role = replica;
INSERT INTO stack (id, prefix_id, frame_id) VALUES (900000002, 900000001, :damaged_frame);
SELECT stack_agg(s) FROM (VALUES (900000002::bigint)) AS v(s);
ROLLBACK;

-- ... a frame that does not exist ...
BEGIN;
SET LOCAL session_replication_role = replica;
INSERT INTO stack (id, prefix_id, frame_id) VALUES (900000003, NULL, 123456789);
SELECT stack_path(900000003);
ROLLBACK;

-- ... and a cycle (the CHECK constraint dropped)
BEGIN;
ALTER TABLE stack DROP CONSTRAINT stack_prefix_before;
SET LOCAL session_replication_role = replica;
INSERT INTO stack (id, prefix_id, frame_id) VALUES
  (900000010, 900000011, :damaged_frame), (900000011, 900000010, :damaged_frame);
SAVEPOINT cycle;
SELECT stack_agg(s) FROM (VALUES (900000011::bigint)) AS v(s);
ROLLBACK TO SAVEPOINT cycle;
SELECT stack_path(900000010);
ROLLBACK;

-- the same damage found while reading the whole stack table
SET calltree.stack_read = scan;
SELECT stack_agg(s) FROM (VALUES (987654321::bigint)) AS v(s);
BEGIN;
SET LOCAL session_replication_role = replica;
INSERT INTO stack (id, prefix_id, frame_id) VALUES (900000002, 900000001, :damaged_frame);
INSERT INTO stack (id, prefix_id, frame_id) VALUES (900000003, NULL, 123456789);
SAVEPOINT damaged;
SELECT stack_agg(s) FROM (VALUES (900000002::bigint)) AS v(s);
ROLLBACK TO SAVEPOINT damaged;
SELECT stack_agg(s) FROM (VALUES (900000003::bigint)) AS v(s);
ROLLBACK;
BEGIN;
ALTER TABLE stack DROP CONSTRAINT stack_prefix_before;
SET LOCAL session_replication_role = replica;
INSERT INTO stack (id, prefix_id, frame_id) VALUES
  (900000010, 900000011, :damaged_frame), (900000011, 900000010, :damaged_frame);
SELECT stack_agg(s) FROM (VALUES (900000011::bigint)) AS v(s);
ROLLBACK;
RESET calltree.stack_read;
SET calltree.stack_read = sideways;

-- the constraints themselves refuse such rows
\set VERBOSITY terse
INSERT INTO stack (id, prefix_id, frame_id) VALUES (900000020, 900000021, :damaged_frame);
INSERT INTO stack (id, prefix_id, frame_id) VALUES (900000022, 900000021, :damaged_frame);
\set VERBOSITY default

-- interning refuses nulls
SELECT intern_func(NULL);
SELECT intern_frame(NULL);
SELECT intern_stack(NULL::bigint, NULL::bigint);
SELECT intern_stack(ARRAY['a', NULL, 'c']);
SELECT intern_stack('{{a,b},{c,d}}'::text[]);
