-- Roles: what a role may read or write through calltree is what it may
-- read or write with SQL.  The C code that reads calltree.stack,
-- calltree.frame and calltree.func directly (stack_agg, stack_path, the
-- import's probes) checks SELECT as a query would, and refuses a table
-- where row-level security applies.  Then the README's recipe: a reader
-- role, a writer role, and tenants kept apart by row-level security on
-- profile and sample.
SET search_path = calltree, public;
SELECT import_collapsed(E'sec_main;sec_work 5\nsec_main 2\n', 'roles base') AS base \gset
SELECT s.stack_id AS leaf_stack FROM sample s WHERE s.profile_id = :base AND s.weight = 5 \gset

------------------------------------------------------------------------
-- Direct reads check SELECT, with the executor's own error
------------------------------------------------------------------------
CREATE ROLE regress_calltree_nostack;
GRANT USAGE ON SCHEMA calltree TO regress_calltree_nostack;
GRANT SELECT ON sample, sample_set, sample_row, func TO regress_calltree_nostack;
SET ROLE regress_calltree_nostack;
SELECT count(*) FROM stack;
SELECT stack_path(:leaf_stack);
SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :base;
SELECT stack_agg(stack_id) FROM sample WHERE profile_id = :base;
SELECT * FROM lines(:base, ARRAY[intern_func('sec_main')]);
RESET ROLE;
-- SELECT on stack but not on frame: the frame table is named
GRANT SELECT ON stack TO regress_calltree_nostack;
SET ROLE regress_calltree_nostack;
SELECT stack_path(:leaf_stack);
RESET ROLE;
-- the columns a query of them would read are enough, as for SQL
GRANT SELECT (id, func_id) ON frame TO regress_calltree_nostack;
SET ROLE regress_calltree_nostack;
SELECT array_length(stack_path(:leaf_stack), 1) AS depth;
SELECT label, running, self FROM report((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :base));
RESET ROLE;
-- An import finds known funcs, frames and stacks by probing their key
-- indexes: it needs SELECT on them, all the columns of their keys.  (The
-- funcs and stacks of this file are known: no INSERT ... RETURNING would
-- ask for SELECT.)
GRANT INSERT ON ALL TABLES IN SCHEMA calltree TO regress_calltree_nostack;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA calltree TO regress_calltree_nostack;
GRANT SELECT (id) ON profile TO regress_calltree_nostack;
REVOKE SELECT ON func FROM regress_calltree_nostack;
SET ROLE regress_calltree_nostack;
SELECT import_collapsed(E'sec_main;sec_work 1\n', 'no select on func');
RESET ROLE;
GRANT SELECT ON func TO regress_calltree_nostack;
SET ROLE regress_calltree_nostack;
SELECT import_collapsed(E'sec_main;sec_work 1\n', 'select on two columns of frame');
RESET ROLE;
GRANT SELECT ON frame TO regress_calltree_nostack;
REVOKE SELECT ON stack FROM regress_calltree_nostack;
SET ROLE regress_calltree_nostack;
SELECT import_collapsed(E'sec_main;sec_work 1\n', 'no select on stack');
RESET ROLE;
GRANT SELECT ON stack TO regress_calltree_nostack;
SET ROLE regress_calltree_nostack;
SELECT import_collapsed(E'sec_main;sec_work 1\n', 'all granted') IS NOT NULL AS imported;
RESET ROLE;
SELECT name FROM profile WHERE name IN ('no select on func', 'select on two columns of frame',
                                        'no select on stack', 'all granted');

------------------------------------------------------------------------
-- Row-level security on a table read directly: refused, not bypassed
------------------------------------------------------------------------
ALTER TABLE stack ENABLE ROW LEVEL SECURITY;
CREATE POLICY some_stacks ON stack FOR SELECT TO regress_calltree_nostack USING (id < 0);
SET ROLE regress_calltree_nostack;
SELECT count(*) FROM stack;
SELECT stack_path(:leaf_stack);
SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :base;
SELECT import_collapsed(E'sec_main;sec_work 1\n', 'policy on stack');
-- with row_security off, the error a query gets
SET row_security = off;
SELECT stack_path(:leaf_stack);
RESET row_security;
RESET ROLE;
-- the table's owner is not subject to the policy, nor a role that bypasses it
SELECT array_length(stack_path(:leaf_stack), 1) AS depth;
ALTER ROLE regress_calltree_nostack BYPASSRLS;
SET ROLE regress_calltree_nostack;
SELECT array_length(stack_path(:leaf_stack), 1) AS depth;
RESET ROLE;
DROP POLICY some_stacks ON stack;
ALTER TABLE stack DISABLE ROW LEVEL SECURITY;
-- a policy that hides an interned row but lets a role add rows: interning
-- says so, where it used to retry the conflict forever
ALTER ROLE regress_calltree_nostack NOBYPASSRLS;
SELECT intern_func('sec_hidden') AS hidden_func \gset
ALTER TABLE func ENABLE ROW LEVEL SECURITY;
CREATE POLICY hide_some_funcs ON func FOR SELECT TO regress_calltree_nostack USING (id <> :hidden_func);
CREATE POLICY add_funcs ON func FOR INSERT TO regress_calltree_nostack WITH CHECK (true);
SET ROLE regress_calltree_nostack;
SET statement_timeout = '20s';
SELECT intern_func('sec_hidden');
RESET statement_timeout;
RESET ROLE;
DROP POLICY hide_some_funcs ON func;
DROP POLICY add_funcs ON func;
ALTER TABLE func DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON ALL TABLES IN SCHEMA calltree FROM regress_calltree_nostack;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA calltree FROM regress_calltree_nostack;
REVOKE ALL ON SCHEMA calltree FROM regress_calltree_nostack;
DROP ROLE regress_calltree_nostack;

------------------------------------------------------------------------
-- The README's roles: a reader queries, a writer imports
------------------------------------------------------------------------
CREATE ROLE regress_calltree_reader NOLOGIN;
GRANT USAGE ON SCHEMA calltree TO regress_calltree_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA calltree TO regress_calltree_reader;

CREATE ROLE regress_calltree_writer NOLOGIN IN ROLE regress_calltree_reader;
GRANT INSERT ON profile, sample_set, sample, event, func, frame, stack, labels, symbol TO regress_calltree_writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA calltree TO regress_calltree_writer;
GRANT UPDATE (weight_unit, started_at) ON profile TO regress_calltree_writer;
GRANT UPDATE (id) ON labels TO regress_calltree_writer;
GRANT UPDATE (name) ON func TO regress_calltree_writer;
GRANT UPDATE (func_id) ON frame TO regress_calltree_writer;
GRANT DELETE ON symbol TO regress_calltree_writer;
GRANT DELETE ON profile, sample_set, sample_row, sample TO regress_calltree_writer;

CREATE ROLE regress_calltree_ann IN ROLE regress_calltree_reader;
CREATE ROLE regress_calltree_wes IN ROLE regress_calltree_writer;

-- the reader reads everything, and can change nothing
SET ROLE regress_calltree_ann;
SELECT label, running, self FROM report((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :base));
SELECT count(*) > 0 AS lines FROM lines(:base, ARRAY[intern_func('sec_main')]);
SELECT import_collapsed(E'sec_main 1\n', 'by the reader');
SELECT intern_func('sec_reader');
SELECT symbolicate('/opt/sec/libroles.so', '{4096}', '{sec_sym}');
DELETE FROM profile WHERE id = :base;
RESET ROLE;

-- the writer imports every kind of data: labels (pprof), address frames
-- and their symbols (perf script, symbolicate), events (trace events)
SET ROLE regress_calltree_wes;
SELECT import_collapsed(E'sec_main;sec_work 3\n', 'by the writer') IS NOT NULL AS collapsed;
-- a sample of sec_lab, weight 5, labelled k=v: the import locks the label
-- set FOR KEY SHARE, which needs UPDATE on a column of labels
SELECT import_pprof('\x0a0408011002120a080110051a040803100422060801220208012a04080110053200320773616d706c65733205636f756e7432016b32017632077365635f6c6162',
                    name => 'by the writer') AS pprof \gset
-- a role that may not lock label sets (no UPDATE on labels) cannot import
-- a labelled profile, also when this backend's intern cache knows its
-- label set from the import above: the import then locks it FOR KEY
-- SHARE, which checks the role's rights, as it did before imports held
-- their label sets by a lock of their own
RESET ROLE;
CREATE ROLE regress_calltree_nolock NOLOGIN IN ROLE regress_calltree_reader;
GRANT INSERT ON profile, sample_set, func, frame, stack, labels TO regress_calltree_nolock;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA calltree TO regress_calltree_nolock;
SET ROLE regress_calltree_nolock;
SELECT import_pprof('\x0a0408011002120a080110051a040803100422060801220208012a04080110053200320773616d706c65733205636f756e7432016b32017632077365635f6c6162',
                    name => 'no update on labels');
RESET ROLE;
REVOKE ALL ON ALL TABLES IN SCHEMA calltree FROM regress_calltree_nolock;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA calltree FROM regress_calltree_nolock;
DROP ROLE regress_calltree_nolock;
SET ROLE regress_calltree_wes;
SELECT import_perf_script(E'app 1/1 1.0: 10 cycles:u:\n\t 7f0000001010 [unknown] (/opt/sec/libroles.so)\n\t 400500 main (/opt/sec/app)\n',
                          name => 'by the writer') AS perf \gset
SELECT count(*) AS moved FROM symbolicate('/opt/sec/libroles.so', '{139637976731648}', '{sec_sym}');
SELECT count(*) AS moved FROM symbolicate('/opt/sec/libroles.so', '{139637976731648}', '{sec_sym_renamed}');
SELECT import_trace_events('[{"ph": "X", "name": "sec_x", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]',
                           'by the writer', source => 'events') IS NOT NULL AS events;
-- samples written by hand, with a label set
INSERT INTO sample (profile_id, stack_id, weight, labels_id)
SELECT :perf, stack_id, 1, intern_labels('{"sec": "writer"}') FROM sample WHERE profile_id = :perf;
-- but it cannot rewrite the data
UPDATE labels SET id = id WHERE labels = '{"sec": "writer"}';
UPDATE func SET resource = 'x' WHERE name = 'sec_sym_renamed';
-- nor write rollups: a row of its own would pass for the rollup of any
-- profile its ids name (rollup() would skip them, expire() delete them)
INSERT INTO rollup (bucket, width, group_key, weight_unit, tree, samples, profiles)
VALUES ('2020-01-06', '1 hour', '{}', 'samples', '{1:1/1}', 1, '{[1,10000000000)}');
INSERT INTO rollup_level (width, group_by) VALUES ('1 hour', '{}');
RESET ROLE;
SELECT p.format, count(s.*) AS samples, sum(s.weight) AS total
  FROM profile p LEFT JOIN sample s ON s.profile_id = p.id
 WHERE p.name = 'by the writer' GROUP BY p.format ORDER BY p.format;
SELECT label, running, self FROM report((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :perf));
SELECT l.labels, s.weight FROM sample s JOIN labels l ON l.id = s.labels_id WHERE s.profile_id IN (:pprof, :perf)
 ORDER BY s.weight;

------------------------------------------------------------------------
-- Tenants: the policies of docs/operations.md on profile and sample_set
-- (and sample_row: 0.2's rows until packed)
------------------------------------------------------------------------
CREATE ROLE regress_calltree_alice IN ROLE regress_calltree_writer;
CREATE ROLE regress_calltree_bob IN ROLE regress_calltree_writer;
ALTER TABLE profile ENABLE ROW LEVEL SECURITY;
ALTER TABLE sample_set ENABLE ROW LEVEL SECURITY;
ALTER TABLE sample_row ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_profiles ON profile
    USING (meta->>'tenant' = current_user) WITH CHECK (meta->>'tenant' = current_user);
CREATE POLICY tenant_samples ON sample_set
    USING (profile_id IN (SELECT id FROM calltree.profile));
CREATE POLICY tenant_sample_rows ON sample_row
    USING (profile_id IN (SELECT id FROM calltree.profile));
ALTER TABLE event ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_events ON event
    USING (profile_id IN (SELECT id FROM calltree.profile));

SET ROLE regress_calltree_alice;
SELECT import_collapsed(E'sec_main;sec_alice 5\nsec_main 2\n', 'alice',
                        jsonb_build_object('tenant', current_user)) AS alice \gset
-- a profile of another tenant cannot be written
SELECT import_collapsed(E'sec_main 1\n', 'as bob', '{"tenant": "regress_calltree_bob"}');
SELECT import_collapsed(E'sec_main 1\n', 'no tenant');
RESET ROLE;
SET ROLE regress_calltree_bob;
SELECT import_perf_script(E'app 1/1 1.0: 7 cycles:u:\n\t 400600 sec_bob (/opt/sec/app)\n\t 400500 main (/opt/sec/app)\n\n'
                          'app 1/1 1.5: 3 cycles:u:\n\t 400500 main (/opt/sec/app)\n',
                          name => 'bob', meta => jsonb_build_object('tenant', current_user)) AS bob \gset
-- an instrumented trace: two events
SELECT import_trace_events('[{"ph": "X", "name": "sec_bob_x", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]',
                           'bob events', jsonb_build_object('tenant', current_user), 'events') AS bob_events \gset
SELECT count(*) AS own_events FROM event WHERE profile_id = :bob_events;
RESET ROLE;

-- each tenant sees its own profiles, through every function; another's
-- profile does not exist for them
SET ROLE regress_calltree_alice;
SELECT name FROM profile ORDER BY name;
SELECT label, running, self FROM report((SELECT stack_agg(stack_id, weight) FROM sample));
SELECT count(*) AS bob_samples FROM sample WHERE profile_id = :bob;
SELECT count(*) AS bob_events FROM event WHERE profile_id = :bob_events;
\set VERBOSITY sqlstate
SELECT count(*) AS bob_lines FROM lines(:bob, ARRAY[intern_func('main', NULL, '/opt/sec/app')]);
SELECT count(*) AS bob_calls FROM estimated_calls(:bob);
\set VERBOSITY default
-- and cannot change another's
DELETE FROM profile WHERE id = :bob;
UPDATE profile SET weight_unit = 'bytes' WHERE id = :bob;
INSERT INTO sample (profile_id, stack_id, weight) SELECT :bob, :leaf_stack, 1;
RESET ROLE;
-- nor through the partition that holds bob's samples, which the readers'
-- GRANT SELECT ON ALL TABLES reached (and an INSERT granted on it):
-- sample_set's policies (and its triggers) do not apply there, so the
-- partitions let no one but their owner in
SELECT s.tableoid::regclass AS bob_partition FROM sample_set s WHERE s.profile_id = :bob LIMIT 1 \gset
GRANT INSERT ON :bob_partition TO regress_calltree_writer;
SET ROLE regress_calltree_alice;
SELECT count(*) AS bob_partition_rows FROM :bob_partition;
\set VERBOSITY sqlstate
INSERT INTO :bob_partition (profile_id, samples) VALUES (:bob, '{1:1000}');
\set VERBOSITY default
RESET ROLE;
REVOKE INSERT ON :bob_partition FROM regress_calltree_writer;
SET ROLE regress_calltree_bob;
SELECT name FROM profile ORDER BY name;
SELECT label, running, self FROM report((SELECT stack_agg(stack_id, weight) FROM sample));
SELECT count(*) AS calls FROM estimated_calls(:bob);
\set VERBOSITY sqlstate
SELECT count(*) AS alice_lines FROM lines(:alice, ARRAY[intern_func('sec_main')]);
\set VERBOSITY default
RESET ROLE;
-- the owner sees both, unchanged
SELECT p.name, p.weight_unit, count(s.*) AS samples, sum(s.weight) AS total
  FROM profile p JOIN sample s ON s.profile_id = p.id WHERE p.id IN (:alice, :bob)
 GROUP BY p.name, p.weight_unit ORDER BY p.name;
-- a tenant deletes its own profiles, and their samples go with them
SET ROLE regress_calltree_alice;
DELETE FROM profile WHERE id IN (:alice, :bob);
RESET ROLE;
SELECT p.id = :bob AS is_bob, count(s.*) AS samples
  FROM profile p LEFT JOIN sample s ON s.profile_id = p.id WHERE p.id IN (:alice, :bob)
 GROUP BY p.id;
SELECT count(*) AS alice_samples FROM sample WHERE profile_id = :alice;

DELETE FROM profile WHERE meta ? 'tenant' OR name IN ('roles base', 'by the writer', 'all granted');
DROP POLICY tenant_profiles ON profile;
DROP POLICY tenant_samples ON sample_set;
DROP POLICY tenant_sample_rows ON sample_row;
DROP POLICY tenant_events ON event;
ALTER TABLE event DISABLE ROW LEVEL SECURITY;
ALTER TABLE profile DISABLE ROW LEVEL SECURITY;
ALTER TABLE sample_set DISABLE ROW LEVEL SECURITY;
ALTER TABLE sample_row DISABLE ROW LEVEL SECURITY;
DROP OWNED BY regress_calltree_reader, regress_calltree_writer;
DROP ROLE regress_calltree_alice, regress_calltree_bob, regress_calltree_ann, regress_calltree_wes,
          regress_calltree_writer, regress_calltree_reader;
