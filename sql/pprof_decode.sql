-- pprof_decode: the paths of the pprof decoder that real files seldom take,
-- in hand-made profiles: location and function ids looked up by place, by
-- their index, and by bisection when ids chosen to collide make the index
-- useless; packed location ids and values of every varint length, at
-- every place of a field; strings checked 8 bytes at a time, and copied
-- into the profile's blocks; many lines per location.  Each is imported
-- and checked against the same profile with plain ids or names, or is an
-- error naming pprof and the byte offset.
SET search_path = calltree, public;
SELECT coalesce(max(id), 0) AS before_decode FROM profile \gset

-- Protobuf helpers: a varint, a varint field, a length-delimited field,
-- a packed repeated varint field, a string table ("" first)
\ir test/reference/protobuf.sql
CREATE FUNCTION pg_temp.strings(vals bytea[]) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
    SELECT string_agg(pg_temp.m(6, x), ''::bytea ORDER BY i) FROM unnest(vals) WITH ORDINALITY AS u(x, i)
$$;

-- A profile of sample type cpu/nanoseconds with n functions and n
-- locations: location i has the id loc_ids[i] and `lines` lines (numbered
-- 1 up, the last one outermost) of function i, whose id is fn_ids[i]
-- (loc_ids by default) and whose name is names[i] (f<i> by default).  A
-- sample of weight i names location i alone; one of weight 1000 names
-- them all, loc_ids[1] the leaf (after the others, or before them with
-- list_first: then it meets every location first); `extra` is added after them.
CREATE FUNCTION pg_temp.chain(loc_ids numeric[], fn_ids numeric[] DEFAULT NULL, names bytea[] DEFAULT NULL,
                              lines int DEFAULT 1, extra bytea DEFAULT '', list_first boolean DEFAULT false) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
    n int := array_length(loc_ids, 1);
    body bytea := pg_temp.m(1, pg_temp.v(1, 1) || pg_temp.v(2, 2));
    strs bytea[] := ARRAY[''::bytea, 'cpu'::bytea, 'nanoseconds'::bytea];
    list bytea := pg_temp.m(2, pg_temp.packed(1, loc_ids) || pg_temp.packed(2, '{1000}'));
BEGIN
    fn_ids := coalesce(fn_ids, loc_ids);
    IF list_first THEN
        body := body || list;
    END IF;
    FOR i IN 1 .. n LOOP
        strs := strs || coalesce(names[i], convert_to('f' || i, 'UTF8'));
        body := body || pg_temp.m(5, pg_temp.v(1, fn_ids[i]) || pg_temp.v(2, 2 + i))
            || pg_temp.m(4, pg_temp.v(1, loc_ids[i])
                            || (SELECT string_agg(pg_temp.m(4, pg_temp.v(1, fn_ids[i]) || pg_temp.v(2, j)), ''::bytea ORDER BY j)
                                  FROM generate_series(1, lines) j))
            || pg_temp.m(2, pg_temp.packed(1, ARRAY[loc_ids[i]]) || pg_temp.packed(2, ARRAY[i]));
    END LOOP;
    IF NOT list_first THEN
        body := body || list;
    END IF;
    RETURN body || extra || pg_temp.strings(strs);
END
$$;

-- A profile's samples as (stack, weight) pairs; funcs and frames are
-- interned, so two imports of the same stacks give the same pairs.
CREATE FUNCTION pg_temp.pairs(profile bigint) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT string_agg(stack_id || ':' || weight, ' ' ORDER BY weight, stack_id)
      FROM calltree.sample WHERE profile_id = profile
$$;
-- The frames of the stack of a profile's sample of a weight: func name and line, root first
CREATE FUNCTION pg_temp.frames(profile bigint, w bigint) RETURNS text
LANGUAGE sql STABLE AS $$
    WITH RECURSIVE up AS (
        SELECT st.id, st.prefix_id, st.frame_id, 0 AS depth
          FROM calltree.stack st WHERE st.id = (SELECT stack_id FROM calltree.sample WHERE profile_id = profile AND weight = w)
        UNION ALL
        SELECT st.id, st.prefix_id, st.frame_id, up.depth + 1 FROM calltree.stack st JOIN up ON st.id = up.prefix_id)
    SELECT string_agg(f.name || ':' || fr.line, ' > ' ORDER BY up.depth DESC)
      FROM up JOIN calltree.frame fr ON fr.id = up.frame_id JOIN calltree.func f ON f.id = fr.func_id
$$;
-- k / phi * 2^64 (mod 2^64): ids that the index's Fibonacci hashing puts in one slot, k = 1, 2, 3...
CREATE FUNCTION pg_temp.colliding(k int) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$ SELECT (k * 17428512612931826493::numeric) % 18446744073709551616 $$;

\set VERBOSITY default

------------------------------------------------------------------------
-- Ids: 1, 2, 3... (found by place), sparse (by the index), colliding (33
-- in one slot: the index's longest probe; 40: the bisection)
------------------------------------------------------------------------
SELECT import_pprof(pg_temp.chain(array(SELECT i FROM generate_series(1, 33) i))) AS plain33 \gset
SELECT import_pprof(pg_temp.chain(array(SELECT 1000 * i FROM generate_series(1, 33) i))) AS sparse33 \gset
SELECT import_pprof(pg_temp.chain(array(SELECT pg_temp.colliding(i) FROM generate_series(1, 33) i))) AS colliding33 \gset
SELECT import_pprof(pg_temp.chain(array(SELECT i FROM generate_series(1, 33) i),
                                  array(SELECT pg_temp.colliding(i) FROM generate_series(1, 33) i))) AS fn_colliding33 \gset
-- location i with the id 7 * (34 - i): listed with decreasing ids, sparse
SELECT import_pprof(pg_temp.chain(array(SELECT 7 * (34 - i) FROM generate_series(1, 33) i))) AS reversed33 \gset
SELECT import_pprof(pg_temp.chain(array(SELECT i FROM generate_series(1, 40) i))) AS plain40 \gset
SELECT import_pprof(pg_temp.chain(array(SELECT pg_temp.colliding(i) FROM generate_series(1, 40) i))) AS colliding40 \gset
SELECT import_pprof(pg_temp.chain(array(SELECT i FROM generate_series(1, 40) i),
                                  array(SELECT pg_temp.colliding(i) FROM generate_series(1, 40) i))) AS fn_colliding40 \gset
SELECT count(*) AS samples, pg_temp.frames(:plain33, 1000) AS chain FROM sample WHERE profile_id = :plain33;
SELECT pg_temp.pairs(:sparse33) = pg_temp.pairs(:plain33) AS sparse_same,
       pg_temp.pairs(:colliding33) = pg_temp.pairs(:plain33) AS colliding_same,
       pg_temp.pairs(:fn_colliding33) = pg_temp.pairs(:plain33) AS fn_colliding_same,
       pg_temp.pairs(:colliding40) = pg_temp.pairs(:plain40) AS colliding40_same,
       pg_temp.pairs(:fn_colliding40) = pg_temp.pairs(:plain40) AS fn_colliding40_same;
-- locations listed with decreasing ids: sorted by the decoder, the same samples
SELECT pg_temp.pairs(:reversed33) = pg_temp.pairs(:plain33) AS reversed_same;
-- an unknown id in each case: one past the end, between two sparse ids,
-- colliding with 33 ids in the index, with 40 ids bisected; an unknown
-- function id colliding with 40
SELECT import_pprof(pg_temp.chain(array(SELECT i FROM generate_series(1, 33) i),
                                  extra => pg_temp.m(2, pg_temp.packed(1, '{34}') || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain(array(SELECT 1000 * i FROM generate_series(1, 33) i),
                                  extra => pg_temp.m(2, pg_temp.packed(1, '{1500}') || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain(array(SELECT pg_temp.colliding(i) FROM generate_series(1, 33) i),
                                  extra => pg_temp.m(2, pg_temp.packed(1, ARRAY[pg_temp.colliding(34)]) || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain(array(SELECT pg_temp.colliding(i) FROM generate_series(1, 40) i),
                                  extra => pg_temp.m(2, pg_temp.packed(1, ARRAY[pg_temp.colliding(41)]) || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain(array(SELECT i FROM generate_series(1, 40) i),
                                  array(SELECT pg_temp.colliding(i) FROM generate_series(1, 40) i),
                                  extra => pg_temp.m(4, pg_temp.v(1, 99) || pg_temp.m(4, pg_temp.v(1, pg_temp.colliding(41))))
                                           || pg_temp.m(2, pg_temp.packed(1, '{99}') || pg_temp.packed(2, '{1}'))));

------------------------------------------------------------------------
-- Packed varints: location ids of 1 to 10 bytes, each at the start, in
-- the middle and at the end of a sample's packed field; values too
------------------------------------------------------------------------
-- ids of 1, 2, 3, 4, 5, 6, 9 and 10 bytes (2^62, 2^63, 2^64 - 1)
SELECT '{5,200,20000,3000000,400000000,50000000000,4611686018427387904,9223372036854775808,18446744073709551615}' AS wide_ids \gset
SELECT import_pprof(pg_temp.chain(:'wide_ids')) AS wide \gset
SELECT import_pprof(pg_temp.chain(array(SELECT i FROM generate_series(1, 9) i))) AS narrow \gset
SELECT pg_temp.pairs(:wide) = pg_temp.pairs(:narrow) AS wide_same;
-- whether two profiles import to the same samples (each import a statement of its own)
CREATE FUNCTION pg_temp.same(a bytea, b bytea) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    pa bigint := calltree.import_pprof(a);
    pb bigint := calltree.import_pprof(b);
BEGIN
    RETURN pg_temp.pairs(pa) = pg_temp.pairs(pb);
END
$$;
-- every rotation of the ids, so that each length ends the packed field once
SELECT r AS rotation, pg_temp.same(
           pg_temp.chain((SELECT array_agg(x ORDER BY (i + r) % 9) FROM unnest(:'wide_ids'::numeric[]) WITH ORDINALITY AS u(x, i))),
           pg_temp.chain((SELECT array_agg(x ORDER BY (i + r) % 9) FROM unnest('{1,2,3,4,5,6,7,8,9}'::numeric[]) WITH ORDINALITY AS u(x, i))))
  FROM generate_series(0, 8) r;
-- the same with the list first, where its locations are met first: ids
-- of 1 to 4 bytes are read backward from the end of the field (root first)
-- and their frames computed as they come; a field with a longer id is
-- read forward
SELECT r AS rotation, pg_temp.same(
           pg_temp.chain((SELECT array_agg(x ORDER BY (i + r) % 9) FROM unnest(:'wide_ids'::numeric[]) WITH ORDINALITY AS u(x, i)),
                         list_first => true),
           pg_temp.chain((SELECT array_agg(x ORDER BY (i + r) % 9) FROM unnest('{1,2,3,4,5,6,7,8,9}'::numeric[]) WITH ORDINALITY AS u(x, i))))
       AS wide, pg_temp.same(
           pg_temp.chain((SELECT array_agg(x ORDER BY (i + r) % 4) FROM unnest('{5,200,20000,3000000}'::numeric[]) WITH ORDINALITY AS u(x, i)),
                         list_first => true),
           pg_temp.chain((SELECT array_agg(x ORDER BY (i + r) % 4) FROM unnest('{1,2,3,4}'::numeric[]) WITH ORDINALITY AS u(x, i))))
       AS short
  FROM generate_series(0, 8) r;
-- a list of 1,500 ids of 3 bytes (4.5 kB, read 4 kB at a time) met first
SELECT pg_temp.same(pg_temp.chain(array(SELECT 1000 * i FROM generate_series(1, 1500) i), list_first => true),
                    pg_temp.chain(array(SELECT i FROM generate_series(1, 1500) i))) AS long_list_same;
-- a sample of 8,200 ids of 2 bytes, whose field's length takes 3 bytes:
-- the top level's fast path leaves it to the generic reader; its ids are
-- read backward 4 kB at a time
SELECT import_pprof(pg_temp.chain('{200}', extra => pg_temp.m(2, pg_temp.packed(1, array_fill(200::numeric, '{8200}'))
                                                                 || pg_temp.packed(2, '{7}')))) AS deep \gset
SELECT array_length(stack_path((SELECT stack_id FROM sample WHERE profile_id = :deep AND weight = 7)), 1) AS deep_frames;
-- samples' values of 10 bytes (2^62 and -1) and of 5 bytes, alone and
-- after one of 1 byte: the weights as read
SELECT import_pprof(pg_temp.chain('{1}', extra =>
           pg_temp.m(2, pg_temp.packed(1, '{1}') || pg_temp.packed(2, '{4611686018427387904}')) ||
           pg_temp.m(2, pg_temp.packed(1, '{1}') || pg_temp.packed(2, '{-1}')) ||
           pg_temp.m(2, pg_temp.packed(1, '{1}') || pg_temp.packed(2, '{12345678901}')) ||
           pg_temp.m(2, pg_temp.packed(1, '{1,1}') || pg_temp.packed(2, '{2}'))), 'cpu') AS values \gset
SELECT array_agg(weight ORDER BY weight) AS weights FROM sample WHERE profile_id = :values;
-- values one by one, not packed (Go's runtime/pprof writes a list of two or
-- fewer so): of 1, 4, 5 and 10 bytes, before and after the location ids,
-- the 4-byte one larger than the rest of its sample; the weights as read
SELECT import_pprof(pg_temp.chain('{1}', extra =>
           pg_temp.m(2, pg_temp.v(2, 3) || pg_temp.packed(1, '{1}')) ||
           pg_temp.m(2, pg_temp.packed(1, '{1}') || pg_temp.v(2, 10000000)) ||
           pg_temp.m(2, pg_temp.v(2, 10000000) || pg_temp.packed(1, '{1,1}')) ||
           pg_temp.m(2, pg_temp.v(2, 12345678901) || pg_temp.packed(1, '{1}')) ||
           pg_temp.m(2, pg_temp.packed(1, '{1}') || pg_temp.v(2, -1))), 'cpu') AS unpacked \gset
SELECT array_agg(weight ORDER BY weight) AS weights FROM sample WHERE profile_id = :unpacked;
-- two values one by one for one sample type; a value cut by the end of its sample
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.v(2, 1) || pg_temp.v(2, 2) || pg_temp.packed(1, '{1}'))));
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.packed(1, '{1}') || '\x1081'::bytea)));
-- malformed packed ids: a varint cut by the end of the field after 1, 2,
-- 3 and 9 bytes; one whose tenth byte goes on; a tenth byte above 1
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.m(1, '\x0181'::bytea) || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.m(1, '\x018181'::bytea) || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.m(1, '\x01818181'::bytea) || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.m(1, '\x01818181818181818181'::bytea) || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.m(1, '\x0181818181818181818181'::bytea) || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.m(1, '\x8181818181818181810201'::bytea) || pg_temp.packed(2, '{1}'))));
-- the same before the id 98 that no location has (root first, read first
-- backward): the error of the varint, which comes first forward
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.m(1, '\x8181818181818181810262'::bytea) || pg_temp.packed(2, '{1}'))));
-- after an id of 4 bytes, read backward, or of 5, read forward: the error
-- of location id 98, the same both ways
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.m(1, '\x8181810162'::bytea) || pg_temp.packed(2, '{1}'))));
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.m(1, '\x818181810162'::bytea) || pg_temp.packed(2, '{1}'))));
-- a packed field longer than its sample; a location id field of wire type 5
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, '\x0a0501'::bytea)));
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, '\x0d01020304'::bytea)));
-- tags: a field number of two bytes is skipped; field 0, wire types 6 and 7
SELECT pg_temp.same(pg_temp.chain('{1}', extra => pg_temp.v(100, 1) || pg_temp.m(2000, '\x01')), pg_temp.chain('{1}')) AS skipped;
SELECT import_pprof(pg_temp.chain('{1}', extra => '\x0001'::bytea));
SELECT import_pprof(pg_temp.chain('{1}', extra => '\x0e01'::bytea));
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, '\xcf0f01'::bytea)));

------------------------------------------------------------------------
-- Strings: ASCII of every length up to 17 and long ones, checked 8 bytes
-- at a time; UTF-8 beyond ASCII; NUL bytes and bad bytes at the places
-- that each step of the check reads
------------------------------------------------------------------------
-- the func of a profile's one-frame stack of a weight
CREATE FUNCTION pg_temp.func_of(profile bigint, w bigint) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT f.name FROM calltree.sample s JOIN calltree.stack st ON st.id = s.stack_id
      JOIN calltree.frame fr ON fr.id = st.frame_id JOIN calltree.func f ON f.id = fr.func_id
     WHERE s.profile_id = profile AND s.weight = w
$$;
SELECT import_pprof(pg_temp.chain(array(SELECT i FROM generate_series(1, 20) i), names =>
           array(SELECT convert_to(repeat(chr(96 + i), i), 'UTF8') FROM generate_series(1, 17) i)
           || array[convert_to(repeat('x', 1023) || 'é', 'UTF8'), convert_to(repeat('y', 3000), 'UTF8'),
                    convert_to('ünïcode ñame', 'UTF8')])) AS names \gset
SELECT w, CASE WHEN length(name) <= 17 THEN name ELSE left(name, 3) || '...' || right(name, 3) END AS name,
       length(name) AS chars, octet_length(name) AS bytes
  FROM generate_series(1, 20) w, LATERAL pg_temp.func_of(:names, w) AS name ORDER BY w;
-- 400 functions of 40 bytes: 16 kB of names, copied into several blocks
SELECT import_pprof(pg_temp.chain(array(SELECT i FROM generate_series(1, 400) i), names =>
           array(SELECT convert_to(lpad(i::text, 40, '.'), 'UTF8') FROM generate_series(1, 400) i))) AS many \gset
SELECT count(DISTINCT name) AS names, bool_and(name = lpad(w::text, 40, '.')) AS each_its_own
  FROM generate_series(1, 400) w, LATERAL pg_temp.func_of(:many, w) AS name;
-- an import's SQLSTATE, message and detail, or 'imported'
CREATE FUNCTION pg_temp.try(data bytea) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    message text;
    detail text;
BEGIN
    PERFORM calltree.import_pprof(data);
    RETURN 'imported';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || message || ': ' || detail;
END
$$;
-- a NUL byte or a byte that is not UTF-8 at the last place of strings of
-- 7, 8, 9, 16 and 17 bytes, at the first of 9, at the 8th of 17; a UTF-8
-- sequence cut by the end, and one that ends it
SELECT n, at, bad, pg_temp.try(pg_temp.chain('{1}', names =>
           array[overlay(convert_to(repeat('a', n), 'UTF8') placing bad from at for 1)])) AS result
  FROM (VALUES (7, 7), (8, 8), (9, 9), (16, 16), (17, 17), (9, 1), (17, 8)) AS c(n, at),
       (VALUES ('\x00'::bytea), ('\xff'::bytea)) AS b(bad)
 ORDER BY n, at, bad;
SELECT pg_temp.try(pg_temp.chain('{1}', names => array['\x61616161616161c3'::bytea])) AS cut,
       pg_temp.try(pg_temp.chain('{1}', names => array['\x616161616161c3a9'::bytea])) AS whole;

------------------------------------------------------------------------
-- Lines: 40 locations of 3 lines each (120 in the table of every line),
-- the caller last
------------------------------------------------------------------------
SELECT import_pprof(pg_temp.chain(array(SELECT 10 * i FROM generate_series(1, 40) i), lines => 3)) AS inlined \gset
SELECT pg_temp.frames(:inlined, 1) AS one, pg_temp.frames(:inlined, 40) AS forty,
       array_length(stack_path((SELECT stack_id FROM sample WHERE profile_id = :inlined AND weight = 1000)), 1) AS frames;
-- a location of 30 lines, whose length takes 2 bytes
SELECT import_pprof(pg_temp.chain('{7}', lines => 30)) AS thirty \gset
SELECT pg_temp.frames(:thirty, 1000) AS thirty_lines;

------------------------------------------------------------------------
-- A sample's location list is remembered under the bytes of its one
-- packed field: the same bytes again (weight 14) find the same stack; the
-- same first field followed by a second one (12) is a longer list; the
-- same list unpacked (13), or after an empty packed field (15), is the
-- same stack read another way.  Leaf first, so [1,2] is f2 > f1.
------------------------------------------------------------------------
SELECT import_pprof(pg_temp.chain('{1,2,3}', extra =>
           pg_temp.m(2, pg_temp.packed(1, '{1,2}') || pg_temp.packed(2, '{11}'))
        || pg_temp.m(2, pg_temp.packed(1, '{1,2}') || pg_temp.packed(1, '{3}') || pg_temp.packed(2, '{12}'))
        || pg_temp.m(2, pg_temp.v(1, 1) || pg_temp.v(1, 2) || pg_temp.packed(2, '{13}'))
        || pg_temp.m(2, pg_temp.packed(1, '{1,2}') || pg_temp.packed(2, '{14}'))
        || pg_temp.m(2, pg_temp.packed(1, '{}') || pg_temp.packed(1, '{1,2}') || pg_temp.packed(2, '{15}')))) AS memo \gset
SELECT w, pg_temp.frames(:memo, w) AS stack FROM unnest('{11,12,13,14,15,1000}'::bigint[]) AS w;

------------------------------------------------------------------------
-- Strings of data that import_pprof decompressed end with a NUL written
-- in place, over the tag of the field after them, where nothing reads it
-- again; they are copied where a sample's tag follows (before the first,
-- between two) and at the end of the data.  Strings before, between and
-- after the samples, and one last: gzip-compressed, the same samples and
-- names as raw.
------------------------------------------------------------------------
CREATE FUNCTION pg_temp.interleaved() RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
    SELECT pg_temp.m(6, '') || pg_temp.m(1, pg_temp.v(1, 1) || pg_temp.v(2, 2))
        || pg_temp.m(6, 'cpu') || pg_temp.m(6, 'nanoseconds')
        || pg_temp.m(2, pg_temp.packed(1, '{1}') || pg_temp.packed(2, '{1}'))
        || pg_temp.m(6, 'f1')
        || pg_temp.m(2, pg_temp.packed(1, '{2,1}') || pg_temp.packed(2, '{2}'))
        || pg_temp.m(2, pg_temp.packed(1, '{3,1}') || pg_temp.packed(2, '{3}'))
        || pg_temp.m(6, 'f2')
        || (SELECT string_agg(pg_temp.m(5, pg_temp.v(1, i) || pg_temp.v(2, 2 + i))
                              || pg_temp.m(4, pg_temp.v(1, i) || pg_temp.m(4, pg_temp.v(1, i) || pg_temp.v(2, 10 * i))),
                              ''::bytea ORDER BY i) FROM generate_series(1, 3) i)
        || pg_temp.m(6, 'f3')
$$;
SELECT pg_temp.interleaved() AS interleaved_raw \gset
COPY (SELECT translate(encode(:'interleaved_raw'::bytea, 'base64'), E'\n', ''))
  TO PROGRAM 'base64 -d | gzip -c > pprof_interleaved.pb.gz';
SELECT pg_read_binary_file('pprof_interleaved.pb.gz') AS interleaved_gz \gset
COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -f pprof_interleaved.pb.gz';
SELECT import_pprof(:'interleaved_gz'::bytea) AS interleaved_gz_id \gset
SELECT import_pprof(:'interleaved_raw'::bytea) AS interleaved_raw_id \gset
SELECT w, pg_temp.frames(:interleaved_gz_id, w) AS stack FROM unnest('{1,2,3}'::bigint[]) AS w;
SELECT pg_temp.pairs(:interleaved_gz_id) = pg_temp.pairs(:interleaved_raw_id) AS same_as_raw,
       (SELECT weight_unit FROM profile WHERE id = :interleaved_gz_id) AS unit;

------------------------------------------------------------------------
-- The fast paths (a Location, Line, Function, Sample and Label of the
-- usual shape, read with local pointers) and the generic decoder that
-- reads every other shape: each of them with an unknown field (skipped)
-- and a Label with a 10-byte number (-1) gives the samples, frames and
-- labels of the same profile without them
------------------------------------------------------------------------
CREATE FUNCTION pg_temp.shapes(extra bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
    SELECT pg_temp.m(1, pg_temp.v(1, 1) || pg_temp.v(2, 2))
        || pg_temp.m(5, pg_temp.v(1, 1) || pg_temp.v(2, 3) || extra)
        || pg_temp.m(4, pg_temp.v(1, 1) || pg_temp.m(4, pg_temp.v(1, 1) || pg_temp.v(2, 10) || extra) || extra)
        || pg_temp.m(2, pg_temp.packed(1, '{1}') || pg_temp.packed(2, '{5}')
                        || pg_temp.m(3, pg_temp.v(1, 4) || pg_temp.v(2, 5) || extra)
                        || pg_temp.m(3, pg_temp.v(1, 6) || pg_temp.v(3, -1)) || extra)
        || pg_temp.strings(ARRAY['', 'cpu', 'nanoseconds', 'f1', 'k', 'v', 'n']::bytea[])
$$;
SELECT import_pprof(pg_temp.shapes('')) AS usual_shape \gset
SELECT import_pprof(pg_temp.shapes(pg_temp.v(15, 7))) AS other_shape \gset
SELECT pg_temp.pairs(:other_shape) = pg_temp.pairs(:usual_shape) AS same_samples,
       pg_temp.frames(:other_shape, 5) AS frames,
       (SELECT l.labels FROM sample s JOIN labels l ON l.id = s.labels_id WHERE s.profile_id = :other_shape) AS labels,
       (SELECT labels_id FROM sample WHERE profile_id = :other_shape) =
       (SELECT labels_id FROM sample WHERE profile_id = :usual_shape) AS same_labels;
-- field 1 as bytes (wire type 2) in each: the generic decoder's error, for the Function's id (the first)
SELECT import_pprof(pg_temp.shapes(pg_temp.m(1, 'x')));
-- Labels next to one another are read when the sample's stack is looked
-- up, and not again for the same bytes: their errors still come before
-- those of the stack (location 98 is not defined), the first label's
-- before the second's; labels with the values between them are read at
-- once, as are those of other samples
SELECT import_pprof(pg_temp.chain('{1}', extra => pg_temp.m(2, pg_temp.packed(1, '{98}') || pg_temp.packed(2, '{1}')
                                                                 || pg_temp.m(3, pg_temp.v(1, 1) || pg_temp.m(2, 'x'))
                                                                 || pg_temp.m(3, pg_temp.m(1, 'x')))));
CREATE FUNCTION pg_temp.labels_of(profile bigint) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT string_agg(s.weight || ':' || coalesce(l.labels::text, '-'), ' ' ORDER BY s.weight)
      FROM calltree.sample s LEFT JOIN calltree.labels l ON l.id = s.labels_id WHERE s.profile_id = profile
$$;
-- A is {"f1": "cpu"}, B {"nanoseconds": 2}: [A, values, B] (6), then A B
-- (7), the same bytes again (8), A written the other way (9), A alone
-- (10), A B again after it (11)
CREATE FUNCTION pg_temp.labelled(w int, labels bytea, before_values bytea DEFAULT '') RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
    SELECT pg_temp.m(2, pg_temp.packed(1, '{1}') || before_values || pg_temp.packed(2, ARRAY[w]) || labels)
$$;
SELECT pg_temp.m(3, pg_temp.v(1, 3) || pg_temp.v(2, 1)) AS a, pg_temp.m(3, pg_temp.v(1, 2) || pg_temp.v(3, 2)) AS b \gset
SELECT import_pprof(pg_temp.chain('{1}', extra =>
           pg_temp.labelled(6, :'b', before_values => :'a') || pg_temp.labelled(7, :'a'::bytea || :'b')
        || pg_temp.labelled(8, :'a'::bytea || :'b')
        || pg_temp.labelled(9, pg_temp.m(3, pg_temp.v(2, 1) || pg_temp.v(1, 3)) || :'b')
        || pg_temp.labelled(10, :'a') || pg_temp.labelled(11, :'a'::bytea || :'b'))) AS labelled \gset
SELECT pg_temp.labels_of(:labelled) AS labels,
       (SELECT count(DISTINCT labels_id) FROM sample WHERE profile_id = :labelled AND weight IN (6, 7, 8, 9, 11)) AS ab_sets;

-- the profiles of this test deleted, and what only they used: the tests
-- after this one find the database as it was before it
DELETE FROM profile WHERE id > :before_decode;
SELECT (collect_garbage()).stacks > 0 AS collected;
