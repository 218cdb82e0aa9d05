-- Interned keys of any length: func names, frame implementations and label
-- values too long for a btree entry (about 2.7kB), and keys that differ
-- but whose hash codes are equal.
SET search_path = calltree, public;

-- incompressible names: md5 digests end to end
CREATE FUNCTION pg_temp.noise(seed text, len int) RETURNS text LANGUAGE sql AS $$
  SELECT left(string_agg(md5(seed || i), '' ORDER BY i), len) FROM generate_series(1, len / 32 + 1) AS i
$$;
SELECT pg_temp.noise('a', 3000) AS long3k, pg_temp.noise('b', 10000) AS long10k \gset

SELECT intern_func(:'long3k') = intern_func(:'long3k') AS same_3k_func,
       intern_func(:'long10k') = intern_func(:'long10k') AS same_10k_func,
       intern_func(:'long3k') <> intern_func(left(:'long3k', 2999) || 'x') AS last_char_matters,
       intern_func(:'long3k', :'long10k', :'long10k') = intern_func(:'long3k', :'long10k', :'long10k')
           AS same_long_file_and_resource,
       intern_frame(intern_func('f'), NULL, NULL, NULL, :'long3k')
           = intern_frame(intern_func('f'), NULL, NULL, NULL, :'long3k') AS same_long_implementation,
       intern_labels(jsonb_build_object('trace', pg_temp.noise('c', 4000)))
           = intern_labels(jsonb_build_object('trace', pg_temp.noise('c', 4000))) AS same_long_labels;
SELECT count(*) AS funcs_of_long3k FROM func WHERE name = :'long3k';

-- an import finds them again: two imports of a stack with a long name
-- share its func
SELECT import_collapsed(:'long3k' || ';leaf 5', 'long-1') AS long_1,
       import_collapsed(:'long3k' || ';leaf 7', 'long-2') AS long_2 \gset
SELECT (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :long_1)::text
         = format('{%s:5/0 {%s:5/5}}', intern_func(:'long3k'), intern_func('leaf')) AS first_import,
       (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :long_2)::text
         = format('{%s:7/0 {%s:7/7}}', intern_func(:'long3k'), intern_func('leaf')) AS second_import;

-- Keys with equal hash codes: each key of such a pair is its own row,
-- found again by SQL and by an import's index probe.  The pairs were found
-- by grouping many keys by the hash of the key index, for example
--   SELECT min(name), max(name)
--     FROM (SELECT 'twin' || i AS name, hash_record(ROW('twin' || i, NULL, NULL)::func_identity) AS h
--             FROM generate_series(1, 300000) AS i) AS s
--    GROUP BY h HAVING count(*) = 2 ORDER BY 1 LIMIT 1;
-- (PostgreSQL's hashes are those of a little-endian machine here.)
\set twin_a twin11962
\set twin_b twin279469
SELECT hash_record(ROW(:'twin_a', NULL, NULL)::func_identity)
         = hash_record(ROW(:'twin_b', NULL, NULL)::func_identity) AS same_hash;
SELECT intern_func(:'twin_a') AS twin_a_id, intern_func(:'twin_b') AS twin_b_id \gset
SELECT :twin_a_id <> :twin_b_id AS two_funcs,
       intern_func(:'twin_a') = :twin_a_id AND intern_func(:'twin_b') = :twin_b_id AS found_again;
SELECT import_collapsed(:'twin_a' || ' 1' || chr(10) || :'twin_b' || ' 2', 'twins') AS twins \gset
SELECT (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :twins)::text
         = format('{%s:2/2, %s:1/1}', :twin_b_id, :twin_a_id) AS import_tells_twins_apart;

-- frames at two addresses of one func (an id of its own, which the hash
-- covers), and two label sets
INSERT INTO func (id, name) VALUES (2000000007, 'twin_frames');
\set frame_a 2775
\set frame_b 131913
SELECT hash_record(ROW(2000000007, :frame_a, NULL, NULL, NULL)::frame_identity)
         = hash_record(ROW(2000000007, :frame_b, NULL, NULL, NULL)::frame_identity) AS same_hash;
SELECT intern_frame(2000000007, :frame_a) AS frame_a_id, intern_frame(2000000007, :frame_b) AS frame_b_id \gset
SELECT :frame_a_id <> :frame_b_id AS two_frames,
       intern_frame(2000000007, :frame_a) = :frame_a_id
         AND intern_frame(2000000007, :frame_b) = :frame_b_id AS frames_found_again,
       (SELECT array_agg(address ORDER BY id) FROM frame WHERE id IN (:frame_a_id, :frame_b_id))
         = ARRAY[:frame_a, :frame_b]::bigint[] AS right_addresses;
\set labels_a '{"k": 26353}'
\set labels_b '{"k": 53775}'
SELECT intern_labels(:'labels_a') AS labels_a_id, intern_labels(:'labels_b') AS labels_b_id \gset
SELECT jsonb_hash(:'labels_a') = jsonb_hash(:'labels_b') AS same_hash,
       :labels_a_id <> :labels_b_id AS two_label_sets,
       intern_labels(:'labels_a') = :labels_a_id AND intern_labels(:'labels_b') = :labels_b_id AS labels_found_again,
       (SELECT labels FROM labels WHERE id = :labels_b_id) = :'labels_b' AS right_labels;
