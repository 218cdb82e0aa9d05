-- Duplicates seen (issue 32): every import keeps the SHA-256 of the file
-- (gzip undone) in profile.content_sha256; importing the same content again
-- raises a NOTICE naming the earlier profile, and on_duplicate ('keep',
-- 'skip', 'error') of import_profile and import_stream says what happens.
-- The suites run with calltree.duplicate_notice off (Makefile): on here.
SET search_path = calltree, public;
SET calltree.duplicate_notice = on;
\set SHOW_CONTEXT never
-- the NOTICEs name ids: the same ones whatever ran before
SELECT last_value AS seq_before FROM profile_id_seq \gset
SELECT setval('profile_id_seq', 7000000) > 0 AS ids_set;

-- the digest is SHA-256 of the file's bytes
SELECT import_collapsed(E'dup_main;dup_work 3\n', 'first') AS first \gset
SELECT content_sha256 = sha256(convert_to(E'dup_main;dup_work 3\n', 'UTF8')) AS digest_of_the_file
  FROM profile WHERE id = :first;
-- the same content again, through another importer: a NOTICE naming
-- profile 7000001, and a new profile (on_duplicate 'keep', the default)
SELECT import_profile(convert_to(E'dup_main;dup_work 3\n', 'UTF8'), 'second') AS second \gset
SELECT :second > :first AS a_new_profile,
       (SELECT count(*) FROM sample WHERE profile_id = :second) AS its_samples;
-- 'skip': the earlier profile's id, nothing imported
SELECT count(*) AS profiles_before FROM profile \gset
SELECT import_profile(convert_to(E'dup_main;dup_work 3\n', 'UTF8'), 'third', on_duplicate => 'skip') = :first
       AS earliest_returned;
SELECT count(*) = :profiles_before AS nothing_imported FROM profile;
-- 'error'; an unknown value
SELECT import_profile(convert_to(E'dup_main;dup_work 3\n', 'UTF8'), on_duplicate => 'error');
SELECT import_profile(convert_to(E'dup_main;dup_work 3\n', 'UTF8'), on_duplicate => 'twice');
-- other content, a byte apart: no NOTICE, and 'error' imports it
SELECT import_profile(convert_to(E'dup_main;dup_work 4\n', 'UTF8'), on_duplicate => 'error') > :second AS other_content;

-- gzip is undone: the digest of a .gz is that of what it holds, whether it
-- is parsed as it inflates (collapsed) or inflated whole (JSON)
COPY (SELECT 'dupgz_main;dupgz_work 7') TO PROGRAM 'gzip > import_duplicates.collapsed.gz';
SELECT import_profile(pg_read_binary_file('import_duplicates.collapsed.gz'), 'gz') AS gz \gset
SELECT content_sha256 = sha256(convert_to(E'dupgz_main;dupgz_work 7\n', 'UTF8')) AS digest_of_what_gzip_holds
  FROM profile WHERE id = :gz;
SELECT import_collapsed(E'dupgz_main;dupgz_work 7\n', 'plain') > :gz AS plain_after_gz;
SELECT import_profile(pg_read_binary_file('import_duplicates.collapsed.gz'), on_duplicate => 'skip') = :gz AS gz_skipped;
\set cpuprofile '{"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": [2]}, {"id": 2, "callFrame": {"functionName": "dup_js", "url": "dup.js", "lineNumber": 1, "columnNumber": 1}}], "startTime": 0, "endTime": 100, "samples": [2], "timeDeltas": [0]}'
COPY (SELECT :'cpuprofile') TO PROGRAM 'gzip > import_duplicates.cpuprofile.gz';
SELECT import_profile(pg_read_binary_file('import_duplicates.cpuprofile.gz')) AS js_gz \gset
SELECT content_sha256 = sha256(convert_to(:'cpuprofile' || E'\n', 'UTF8')) AS digest_of_json_gzip_holds
  FROM profile WHERE id = :js_gz;
SELECT import_cpuprofile(:'cpuprofile' || E'\n') > :js_gz AS json_again;
COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -f import_duplicates.collapsed.gz import_duplicates.cpuprofile.gz';

-- import_stream, as bin/calltree-load sends a file: read a line at a time
-- (collapsed) or whole (JSON), with on_duplicate too
CREATE TEMP TABLE chunks (seq bigserial, chunk text);
INSERT INTO chunks (chunk) VALUES (encode(convert_to(E'dup_main;', 'UTF8'), 'base64')),
                                  (encode(convert_to(E'dup_work 3\n', 'UTF8'), 'base64'));
SELECT import_stream('chunks', 'streamed') > 0 AS streamed_kept;
SELECT import_stream('chunks', on_duplicate => 'skip') = :first AS streamed_skipped;
SELECT import_stream('chunks', on_duplicate => 'error');
DELETE FROM chunks;
INSERT INTO chunks (chunk) VALUES (encode(convert_to(:'cpuprofile' || E'\n', 'UTF8'), 'base64'));
SELECT import_stream('chunks', on_duplicate => 'skip') = :js_gz AS json_streamed_skipped;

-- every importer keeps the digest: each SQL function, with
-- duplicate_notice off (no NOTICE; skip and error still act)
SET calltree.duplicate_notice = off;
SELECT import_perf_script(E'app 1/1 1.0: 7 cycles:u:\n\t 400600 dup_leaf (/opt/dup/app)\n\n') AS perf \gset
SELECT import_profile(convert_to(E'app 1/1 1.0: 7 cycles:u:\n\t 400600 dup_leaf (/opt/dup/app)\n\n', 'UTF8'),
                      on_duplicate => 'skip') = :perf AS perf_skipped_silently;
SELECT import_profile(convert_to(E'app 1/1 1.0: 7 cycles:u:\n\t 400600 dup_leaf (/opt/dup/app)\n\n', 'UTF8'),
                      on_duplicate => 'error');
SET calltree.duplicate_notice = on;
-- where no NOTICE goes anywhere (client_min_messages above it, as an
-- ingest client sets it) 'keep' imports without looking the earlier
-- profile up; skip and error still look it up and act
SET client_min_messages = warning;
SELECT import_collapsed(E'dup_main;dup_work 3\n', 'quiet') > :second AS quiet_kept;
SELECT import_profile(convert_to(E'dup_main;dup_work 3\n', 'UTF8'), on_duplicate => 'skip') = :first
       AS quiet_skipped;
SELECT import_profile(convert_to(E'dup_main;dup_work 3\n', 'UTF8'), on_duplicate => 'error');
RESET client_min_messages;
SELECT format, content_sha256 IS NOT NULL AS has_digest, octet_length(content_sha256) AS bytes
  FROM profile WHERE id >= 7000000 GROUP BY 1, 2, 3 ORDER BY 1;

-- a role that may import but not read calltree.profile sees no earlier
-- profile: it imports, without a NOTICE; skip and error need to read
CREATE ROLE regress_calltree_ingest;
GRANT USAGE ON SCHEMA calltree TO regress_calltree_ingest;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA calltree TO regress_calltree_ingest;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA calltree TO regress_calltree_ingest;
REVOKE SELECT ON profile FROM regress_calltree_ingest;
GRANT SELECT (id) ON profile TO regress_calltree_ingest; -- INSERT ... RETURNING id
SET ROLE regress_calltree_ingest;
SELECT import_collapsed(E'dup_main;dup_work 3\n') IS NOT NULL AS imported_unseen;
SELECT import_profile(convert_to(E'dup_main;dup_work 3\n', 'UTF8'), on_duplicate => 'skip');
RESET ROLE;
-- the columns it reads are enough
GRANT SELECT (name, content_sha256, first_of_import) ON profile TO regress_calltree_ingest;
SET ROLE regress_calltree_ingest;
SELECT import_profile(convert_to(E'dup_main;dup_work 3\n', 'UTF8'), on_duplicate => 'skip') = :first AS skipped_by_columns;
RESET ROLE;
REVOKE ALL ON ALL TABLES IN SCHEMA calltree FROM regress_calltree_ingest;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA calltree FROM regress_calltree_ingest;
REVOKE ALL ON SCHEMA calltree FROM regress_calltree_ingest;
DROP ROLE regress_calltree_ingest;

-- content_sha256 is a calltree.sha256_digest, 32 bytes, whoever writes it
INSERT INTO profile (name, content_sha256) VALUES ('short digest', '\x0102');
UPDATE profile SET content_sha256 = content_sha256 || '\x00'::bytea WHERE id = :first;
SELECT count(*) AS short_digests FROM profile WHERE octet_length(content_sha256) <> 32;
-- and the look-up of earlier profiles by digest (its plan as the import's,
-- with a bytea parameter) reads the index on (content_sha256, id)
SET enable_seqscan = off;
PREPARE digest_lookup(bytea) AS
  SELECT id, name FROM calltree.profile WHERE content_sha256 OPERATOR(pg_catalog.=) $1 ORDER BY id LIMIT 1;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE digest_lookup(sha256('x'));
EXECUTE digest_lookup(sha256(convert_to(E'dup_main;dup_work 3\n', 'UTF8'))) \gset lookup_
SELECT :lookup_id = :first AS finds_the_first;
DEALLOCATE digest_lookup;
RESET plan_cache_mode;
RESET enable_seqscan;

DELETE FROM profile WHERE id >= 7000000;
SELECT setval('profile_id_seq', :seq_before) > 0 AS ids_back;
