-- The samples type: a multiset of samples packed into one value
-- (src/tree/samples.h).  Its text form round-trips in canonical order,
-- its binary form is the packed bytes (checked byte by byte on receipt),
-- samples_agg packs rows and unnest unpacks them, and stack_agg over
-- packed values gives the tree of their rows, also in parallel plans and
-- over real imported profiles.
SET search_path = calltree, public;

-- the state of stack_agg, to compare packed values with rows without stacks
CREATE AGGREGATE pg_temp.row_state(bigint, bigint) (
    SFUNC = calltree.stack_agg_transfn, STYPE = calltree.stack_weights,
    COMBINEFUNC = calltree.stack_agg_combinefn, PARALLEL = SAFE);
CREATE AGGREGATE pg_temp.packed_state(calltree.samples) (
    SFUNC = calltree.stack_agg_transfn, STYPE = calltree.stack_weights,
    COMBINEFUNC = calltree.stack_agg_combinefn, PARALLEL = SAFE);

----------------------------------------------------------------------------
-- text form: printed in canonical order, duplicates kept
----------------------------------------------------------------------------

SELECT v AS literal, v::samples AS value, sample_count(v::samples) AS samples,
       v::samples::text::samples::text = v::samples::text AS round_trip
  FROM (VALUES ('{}'),
               -- by stack id; the two samples of stack 3 stay two
               ('{5:1,3:2,3:2}'),
               -- in time order; ties by stack
               ('{7:1@300,5:2@100,3:1@100}'),
               -- those without a time first
               ('{9:1,4:1@50,2:3}'),
               -- no label set before any, then by label set id, then weight
               ('{3:4#8,3:1,3:1#2,1:5@10#8,3:-1#2}'),
               (' { 3 : 1 @ 5 # 2 , 3:0 } '),
               -- the edges of bigint everywhere
               ('{-9223372036854775808:9223372036854775807@-9223372036854775808#-9223372036854775808,'
                '9223372036854775807:-9223372036854775808@9223372036854775807#9223372036854775807,'
                '0:0@0,0:-9223372036854775808,0:9223372036854775807#0}'),
               -- weights sharing a large factor, times a large step
               ('{1:-9223372036854775808,1:4611686018427387904,2:0}'),
               ('{1:1@-9223372036854775808,1:1@9223372036854775807}'),
               -- weights of a long tail, in gamma codes: one of 33 bits
               ('{1:1,1:1,1:1,1:1,1:1,1:1,1:1,1:100000}'),
               -- weights far apart and all large: a frame of 62 bits a
               -- weight, values across 9 bytes
               ('{1:36028797018963969,1:36028797018963971,1:36028797018963973,1:36028797018963975,'
                '1:4611686018427387897,1:4611686018427387899,1:4611686018427387901,1:4611686018427387903}')) AS t(v);

-- the bytes, checked by hand against samples.h: version 2, no flags, 3
-- samples, 2 stacks, weight unit 1; the stack dictionary zigzag(3) = 06,
-- then its one gap 5 - 3 - 1 = 01 (a column of one value: its varint);
-- the stack column, index steps 0 0 1: tag 01 (a frame of 1 bit), base
-- 00, bits 0b100 = 04; the weights 2 2 1: tag 01, base zigzag(1) = 02,
-- offsets 1 1 0 = 0b011 = 03.  13 bytes, as many as the varints would
-- take (06 01 00 00 01 04 04 02): a frame wins a tie
SELECT samples_send('{5:1,3:2,3:2}') AS without_times;
-- flags 3 (times, labels), 2 samples, 1 stack, 2 timed, 1 label set,
-- weight unit 10 = 0a, time unit 1000 = e8 07; stack dictionary
-- zigzag(7) = 0e, label set dictionary zigzag(-2) = 03; no sample without
-- a time: no stack steps; the timed stack indexes 0 0: tag 00 (width 0),
-- base 00; weights 1 -1: tag 02, base zigzag(-1) = 01, offsets 2 0 =
-- 0b0010 = 02; labels 1 1: tag 00, base 01; times zigzag(5000) = 10000 =
-- 90 4e, then the one step (6000 - 5000) / 1000 = 01
SELECT samples_send('{7:10@5000#-2,7:-10@6000#-2}') AS with_times;
-- what a sample costs: 13 bytes of value for 3 samples and 5 for none
SELECT pg_column_size('{5:1,3:2,3:2}'::samples) - 4 AS bytes_3, pg_column_size('{}'::samples) - 4 AS bytes_0;
-- 1,000 samples of 100 stacks, weights of 1 to 3 periods: 392 bytes (2,110
-- as varints only).  Header 9 bytes (02 00, n e8 07, d 64, g 10,000,000 in
-- 4 bytes); stack dictionary 4 (zigzag(1000) in 2, 99 gaps of 0: tag 00,
-- base 00); index steps 0 or 1: a 1-bit frame, 2 + 125; weights 1 to 3
-- periods: a 2-bit frame, 2 + 250 (gamma codes would take 1 + 292)
SELECT octet_length(samples_send(samples_agg(1000 + g % 100, (g % 3 + 1) * 10000000))) AS bytes_1000
  FROM generate_series(1, 1000) AS g;

-- bad literals, each with its error
SELECT ''::samples;
SELECT '{'::samples;
SELECT '{3}'::samples;
SELECT '{3:}'::samples;
SELECT '{3:1,}'::samples;
SELECT '{3:1@}'::samples;
SELECT '{3:1#x}'::samples;
SELECT '{3:1#2@5}'::samples;
SELECT '{3:1} x'::samples;
SELECT '{a:1}'::samples;
SELECT '{3:1 4:1}'::samples;
SELECT '{3:9223372036854775808}'::samples;
SELECT '{-9223372036854775809:1}'::samples;

----------------------------------------------------------------------------
-- binary form: the packed bytes, refused with the byte offset when wrong
----------------------------------------------------------------------------

-- a value through binary COPY: sent, written to a file, received
CREATE TEMP TABLE packed (v samples);
CREATE TEMP TABLE received (v samples);
CREATE FUNCTION pg_temp.receive(bytes bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    file oid;
    result text;
BEGIN
    -- a binary COPY file of one row, one column holding `bytes`
    file := lo_from_bytea(0, '\x5047434f50590aff0d0a00'::bytea || '\x0000000000000000'::bytea
                             || '\x0001'::bytea || int4send(length(bytes)) || bytes || '\xffff'::bytea);
    PERFORM lo_export(file, 'samples_type.copy');
    PERFORM lo_unlink(file);
    TRUNCATE received;
    COPY received FROM 'samples_type.copy' (FORMAT binary);
    SELECT v::text INTO result FROM received;
    RETURN result;
END $$;
INSERT INTO packed VALUES ('{}'), ('{5:1,3:2,3:2}'), ('{3:4#8,3:1,3:1#2,1:5@10#8,3:-1#2}'),
    ('{-9223372036854775808:9223372036854775807@-9223372036854775808#-9223372036854775808,9223372036854775807:-9223372036854775808@9223372036854775807#9223372036854775807}');
SELECT v::text = pg_temp.receive(samples_send(v)) AS binary_round_trip FROM packed;
-- the example above, received; errors without their context (COPY, line 1)
\set SHOW_CONTEXT never
SELECT pg_temp.receive('\x02000302010601010004010203');
-- a column in gamma codes: {1:1 seven times, 1:100}: 8 samples, 1 stack,
-- unit 1; dictionary zigzag(1) = 02; the steps all 0: tag 00, base 00;
-- the weights: tag fe (gamma), base zigzag(1) = 02, then the codes of
-- offset + 1, least significant bit first: seven times x = 1, "1"
-- (bits 0-6), then x = 100 = 0b1100100: 6 zeros, a one, then the 6 bits
-- under the highest, 100 - 64 = 36, at bits 7-19: 0x7f | (36 << 7 |
-- 1 << 6) << 7 = 0x9207f = 7f 20 09.  4 bytes after the tag: a frame
-- would take 8 (7 bits a value), varints 9
SELECT pg_temp.receive('\x0200080101020000fe027f2009');
-- a column as varints: {1:1,1:1000000}: steps tag 00, base 00; weights
-- tag ff, then zigzag(1) = 02 and zigzag(1000000) = 2000000 = 80 89 7a:
-- 4 bytes; a frame would take 6 (base, 2 values of 20 bits), gamma 6
SELECT pg_temp.receive('\x0200020101020000ff0280897a');
-- truncated: in the header, in the dictionary, in a column
SELECT pg_temp.receive('\x02');
SELECT pg_temp.receive('\x020003');
SELECT pg_temp.receive('\x020003020106');
SELECT pg_temp.receive('\x020003020106010100040102');
-- version 1 (the varint layout of development versions), unknown flags
SELECT pg_temp.receive('\x01000302010601000001040402');
SELECT pg_temp.receive('\x02040302010601010004010203');
-- counts that do not match: more stacks than samples, samples beyond the
-- bytes (9 samples: the steps 04 00 read, the weights' frame of 2 bits
-- at base zigzag 03 needs 3 bytes)
SELECT pg_temp.receive('\x02000304010601010004010203');
SELECT pg_temp.receive('\x02000902010601010004000203');
-- a varint longer than it needs (3 written 83 00)
SELECT pg_temp.receive('\x0200830002010601010004010203');
-- trailing bytes
SELECT pg_temp.receive('\x0200030201060101000401020300');
-- a stack index beyond the dictionary: steps 0 1 1 (bits 06), at byte 9
SELECT pg_temp.receive('\x02000302010601010006010203');
-- a dictionary entry no sample uses (steps 0 0 0: tag 00, base 00; stack
-- 5, its gap at byte 6; weights 1 2 2), and a label set no sample uses
-- ({5:1#7,5:1#7} with label sets 7 and 8: 8 is the gap 00 at byte 8)
SELECT pg_temp.receive('\x020003020106010000010206');
SELECT pg_temp.receive('\x0202020102010a0e00000000020001');
-- out of order: the two samples of stack 3 with weights 2 then 1
-- (weight offsets 1 0 0: bits 01)
SELECT pg_temp.receive('\x02000302010601010004010201');
-- a weight unit that is not the greatest common divisor: weights 2, 2, 4
-- with unit 1 (tag 02, base zigzag(2) = 04, offsets 0 0 2: bits 0x20)
SELECT pg_temp.receive('\x02000302010601010004020420');
-- a weight beyond bigint once multiplied by its unit
SELECT pg_temp.receive('\x02000101ffffffffffffffff7f0000ffffffffffffffffff01');
-- times out of range: 9223372036854775807 then a step of 1 (at byte 22)
SELECT pg_temp.receive('\x020102010201010200000002feffffffffffffffff0101');
-- a column tag that is no width (65) and none at all (0x80)
SELECT pg_temp.receive('\x02000302010601410004010203');
SELECT pg_temp.receive('\x02000302010601800004010203');
-- a frame whose base is not its least value: the weights 2 2 1 at base
-- 0 (offsets 2 2 1 in 2 bits: 0x1a)
SELECT pg_temp.receive('\x0200030201060101000402001a');
-- a frame wider than its values need: the weights' offsets 1 1 0 in 2
-- bits (0x05)
SELECT pg_temp.receive('\x02000302010601010004020205');
-- a frame whose bits after the last value are not zero (83 for 03)
SELECT pg_temp.receive('\x02000302010601010004010283');
-- a frame's value beyond bigint: the weights at base 9223372036854775807,
-- offsets 0 and 1
SELECT pg_temp.receive('\x020002010102000001feffffffffffffffff0102');
-- a column in a coding of more bytes than its canonical one: the steps
-- as varints (3 bytes, a frame takes 2); the weights 2 2 1 in gamma codes
-- (x = 2, 2, 1: 010 010 1 = 0x52, 2 bytes, a frame takes 2 too and wins
-- the tie); the 8 weights of the gamma example as a 7-bit frame (8 bytes
-- for 4), and the 2 of the varint example as a 20-bit frame (6 for 4)
SELECT pg_temp.receive('\x02000302010601ff000001010203');
SELECT pg_temp.receive('\x02000302010601010004fe0252');
SELECT pg_temp.receive('\x02000801010200000702000000000000c6');
SELECT pg_temp.receive('\x020002010102000014020000f023f4');
-- gamma codes cut short, and a gamma code of 28 zeros or more (a value
-- of more than 28 bits)
SELECT pg_temp.receive('\x0200080101020000fe027f20');
SELECT pg_temp.receive('\x0200080101020000fe027f00000000');

\set SHOW_CONTEXT errors

----------------------------------------------------------------------------
-- samples_agg and unnest
----------------------------------------------------------------------------

CREATE TEMP TABLE rows_in (stack_id bigint, weight bigint, ts bigint, labels_id bigint);
INSERT INTO rows_in VALUES (4, 10, NULL, NULL), (2, 20, NULL, 7), (4, 10, NULL, NULL),
    (9, -5, 300, 7), (2, 1, 100, NULL), (4, 10, 100, 3);
SELECT samples_agg(stack_id, weight) AS two, samples_agg(stack_id, weight, ts) AS three,
       samples_agg(stack_id, weight, ts, labels_id) AS four FROM rows_in;
SELECT u.* FROM (SELECT samples_agg(stack_id, weight, ts, labels_id) AS v FROM rows_in) AS p, unnest(p.v) AS u;
SELECT stack_ids(v), label_set_ids(v), sample_count(v)
  FROM (SELECT samples_agg(stack_id, weight, ts, labels_id) AS v FROM rows_in) AS p;
SELECT stack_ids('{}'), label_set_ids('{}'), sample_count('{}');
-- no row: NULL, as other aggregates
SELECT samples_agg(stack_id, weight) IS NULL AS empty FROM rows_in WHERE false;
-- a row without a stack or a weight
SELECT samples_agg(stack_id, weight) FROM (VALUES (1::bigint, NULL::bigint)) AS t(stack_id, weight);
SELECT samples_agg(stack_id, weight, ts) FROM (VALUES (NULL::bigint, 1::bigint, 5::bigint)) AS t(stack_id, weight, ts);

-- many rows: unnest gives the same multiset back, stack_agg the same sums
CREATE TEMP TABLE many AS
SELECT g % 40 AS grp, (g * 7919) % 1000 - 300 AS stack_id, ((g % 13) - 4) * 1000 AS weight,
       CASE WHEN g % 40 < 20 THEN (g * 37) % 100000 END AS ts,
       CASE WHEN g % 3 = 0 THEN g % 5 END AS labels_id
  FROM generate_series(1, 40000) AS g;
CREATE TEMP TABLE many_packed AS
SELECT grp, samples_agg(stack_id, weight, ts, labels_id) AS v FROM many GROUP BY grp;
SELECT (SELECT count(*) FROM (SELECT stack_id, weight, ts, labels_id FROM many
                              EXCEPT ALL
                              SELECT u.* FROM many_packed, unnest(v) AS u) AS d) AS missing,
       (SELECT count(*) FROM (SELECT u.* FROM many_packed, unnest(v) AS u
                              EXCEPT ALL
                              SELECT stack_id, weight, ts, labels_id FROM many) AS d) AS extra,
       (SELECT sum(sample_count(v)) FROM many_packed) AS samples,
       (SELECT pg_temp.packed_state(v)::text FROM many_packed) = (SELECT pg_temp.row_state(stack_id, weight)::text FROM many) AS same_sums;
-- the timed samples come back in time order
SELECT bool_and(ordered) AS time_order
  FROM (SELECT ts >= lag(ts) OVER (PARTITION BY grp ORDER BY ord) OR lag(ts) OVER (PARTITION BY grp ORDER BY ord) IS NULL AS ordered
          FROM many_packed, unnest(v) WITH ORDINALITY AS u(stack_id, weight, ts, labels_id, ord)
         WHERE ts IS NOT NULL) AS o;
-- NULL values add nothing; a sum out of range is an error, as for rows
SELECT pg_temp.packed_state(v)::text FROM (VALUES ('{1:5}'::samples), (NULL), ('{1:6,2:1}')) AS t(v);
SELECT pg_temp.packed_state(v) FROM (VALUES ('{1:9223372036854775807}'::samples), ('{1:1}')) AS t(v);
SELECT pg_temp.packed_state(v) FROM (VALUES ('{1:9223372036854775807,1:1}'::samples)) AS t(v);

-- in a parallel plan, workers hand their states to the leader
CREATE TABLE samples_shared AS SELECT grp, v FROM many_packed, generate_series(1, 25);
ANALYZE samples_shared;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF) SELECT stack_agg(v) FROM samples_shared;
SELECT (SELECT pg_temp.packed_state(v)::text FROM samples_shared)
     = (SELECT pg_temp.row_state(stack_id, weight * 25)::text FROM many) AS parallel_same;
-- and the workers did run
CREATE FUNCTION pg_temp.workers_launched(query text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    plan json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || query INTO plan;
    RETURN (SELECT max((m[1])::int) FROM regexp_matches(plan::text, '"Workers Launched": (\d+)', 'g') AS m);
END $$;
SELECT pg_temp.workers_launched('SELECT pg_temp.packed_state(v) FROM samples_shared') > 0 AS packed_state_parallel;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
DROP TABLE samples_shared;

----------------------------------------------------------------------------
-- real profiles: packed, their trees are the trees of their rows
----------------------------------------------------------------------------

\getenv shared_dir CALLTREE_SHARED
\set data_dir :shared_dir '/data/'
SET client_min_messages = warning;
CREATE TEMP TABLE real_profiles AS
SELECT f.path, import_profile(pg_read_binary_file(:'data_dir' || f.path), name => f.path) AS id
  FROM (VALUES ('pprof/sample.cpu'),
               ('speedscope-samples/pprof/simple.prof'),
               ('firefox-profiler/test.perf.gz'),
               ('firefox-profiler/hello.cjs-20231120T211435.cpuprofile'),
               ('speedscope-samples/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt'),
               ('speedscope-samples/linux-perf/forks.linux-perf.txt')) AS f(path);
RESET client_min_messages;
CREATE TEMP TABLE real_packed AS
SELECT profile_id, thread, samples_agg(stack_id, weight, ts, labels_id) AS v
  FROM sample WHERE profile_id IN (SELECT id FROM real_profiles) GROUP BY profile_id, thread;
SELECT r.path,
       (SELECT count(*) FROM sample s WHERE s.profile_id = r.id) AS samples,
       (SELECT sum(sample_count(v)) FROM real_packed p WHERE p.profile_id = r.id) AS packed,
       (SELECT count(*) FROM sample s WHERE s.profile_id = r.id AND s.ts IS NOT NULL) > 0 AS timed,
       (SELECT stack_agg(stack_id, weight) FROM sample s WHERE s.profile_id = r.id)
     = (SELECT stack_agg(v) FROM real_packed p WHERE p.profile_id = r.id) AS same_tree,
       (SELECT total(stack_agg(v)) FROM real_packed p WHERE p.profile_id = r.id) AS total,
       -- the rows come back, and in time order per thread
       (SELECT count(*) FROM (SELECT thread, stack_id, weight, ts, labels_id FROM sample s WHERE s.profile_id = r.id
                              EXCEPT ALL
                              SELECT p.thread, u.* FROM real_packed p, unnest(p.v) AS u WHERE p.profile_id = r.id) AS d) AS missing,
       (SELECT array_agg(ts ORDER BY thread, ts) FROM sample s WHERE s.profile_id = r.id AND ts IS NOT NULL)
         IS NOT DISTINCT FROM
       (SELECT array_agg(u.ts ORDER BY p.thread, u.ord) FROM real_packed p, unnest(p.v) WITH ORDINALITY AS u(s, w, ts, l, ord)
         WHERE p.profile_id = r.id AND u.ts IS NOT NULL) AS time_order,
       -- compact: well under the 60 bytes of a sample row
       (SELECT sum(pg_column_size(v)) FROM real_packed p WHERE p.profile_id = r.id)
         < 8 * (SELECT count(*) FROM sample s WHERE s.profile_id = r.id) + 100 AS compact
  FROM real_profiles r ORDER BY r.path;
-- every stack a packed value names is a stored one, and all of them are named
SELECT bool_and(s.id IS NOT NULL) AS stacks_exist, count(*) AS distinct_stacks,
       count(*) = (SELECT count(DISTINCT stack_id) FROM sample WHERE profile_id IN (SELECT id FROM real_profiles)) AS all_named
  FROM (SELECT DISTINCT x FROM real_packed, unnest(stack_ids(v)) AS x) AS u LEFT JOIN stack s ON s.id = u.x;
DELETE FROM profile WHERE id IN (SELECT id FROM real_profiles);
