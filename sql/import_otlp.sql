-- import_otlp: OpenTelemetry profiles (OTLP v1development), hand-made
-- requests and malformed ones.  The requests are encoded by
-- test/otlp_cases.py with the classes protoc generates from the vendored
-- .proto files; its docstrings say what each holds, and the expected
-- output was checked against them by hand.  Real profiles: test/t_otlp.sh.
SET search_path = calltree, public;
-- the profiles this file makes are deleted at its end, for the files after it
SELECT coalesce(max(id), 0) AS otlp_max_before FROM profile \gset

CREATE TEMP TABLE otlp_case (name text PRIMARY KEY, data bytea);
INSERT INTO otlp_case VALUES
('many', decode(
  '12ca030a000a0c0880201080a00220072a01060a0a0880e00110808002200d1200120b08'
  '011080201a040801100a121108011080401a04080310051a0408021014120608021080fe'
  '01120410effd021a001a04080318061a04080418061a0408051806221c0a100000000000'
  '000000000000000000000012080000000000000000221c0a100102030405060708090a0b'
  '0c0d0e0f101208a1a2a3a4a5a6a7a8221c0a100000000000000000000000000000000012'
  '0800000000000000002a002a036370752a0b6e616e6f7365636f6e64732a046d61696e2a'
  '04776f726b2a07696e6c696e65642a066d61696e2e632a0c2f7573722f62696e2f617070'
  '2a067468726561642a06776f726b65722a0473697a652a0562797465732a0a66726f6d2d'
  '7461626c652a0c2f6c69622f6c6962632e736f2a04666c61672a0773616d706c65732a05'
  '636f756e742a05726174696f2a1f70726f636573732e65786563757461626c652e627569'
  '6c645f69642e676e753200320c080812080a06776f726b65723208080a12021840180b32'
  '06080e12021001320d0811120921000000000000e03f320608081202400c320908121205'
  '0a036231643a003a040a0202013a040a0203013a030a01043a030a01010aff020abd010a'
  '160a0c736572766963652e6e616d6512060a0473686f700a0b0a017312060a0474657874'
  '0a070a0162120210000a100a0169120b18f9ffffffffffffffff010a0e0a016412092100'
  '000000000002400a100a036e616e120921000000000000f87f0a1a0a016112152a130a02'
  '18010a050a0374776f0a062a040a0210010a1b0a026b76121532130a080a016b12030a01'
  '760a070a05756e7365740a0f0a05627974657312063a0400ff61620a061202400418090a'
  '070a05656d7074791294010a1e0a056167656e741203312e321a100a0a73636f70652e61'
  '7474721202180112700a0408011002121e080112020102180122021e142a10e8032a36fe'
  '9c971788132a36fe9c9717120a0802120103180222010512080803120105220107120322'
  '01641900002a36fe9c9717208094ebdc032a04080110023080ade2043a100f0f0f0f0f0f'
  '0f0f0f0f0f0f0f0f0f0f5a010412001a2668747470733a2f2f6f70656e74656c656d6574'
  '72792e696f2f736368656d61732f312e302e300a2e122c122a0a04080f1010121408042a'
  '10b80b2a36fe9c9717d0072a36fe9c9717120c08012a08c4092a36fe9c9717', 'hex')),
('dictionary only', decode(
  '12022a00', 'hex')),
('stack out of range', decode(
  '0a11120f120d0a04080110021205080922010112ca030a000a0c0880201080a00220072a'
  '01060a0a0880e00110808002200d1200120b08011080201a040801100a12110801108040'
  '1a04080310051a0408021014120608021080fe01120410effd021a001a04080318061a04'
  '080418061a0408051806221c0a1000000000000000000000000000000000120800000000'
  '00000000221c0a100102030405060708090a0b0c0d0e0f101208a1a2a3a4a5a6a7a8221c'
  '0a1000000000000000000000000000000000120800000000000000002a002a036370752a'
  '0b6e616e6f7365636f6e64732a046d61696e2a04776f726b2a07696e6c696e65642a066d'
  '61696e2e632a0c2f7573722f62696e2f6170702a067468726561642a06776f726b65722a'
  '0473697a652a0562797465732a0a66726f6d2d7461626c652a0c2f6c69622f6c6962632e'
  '736f2a04666c61672a0773616d706c65732a05636f756e742a05726174696f2a1f70726f'
  '636573732e65786563757461626c652e6275696c645f69642e676e753200320c08081208'
  '0a06776f726b65723208080a12021840180b3206080e12021001320d0811120921000000'
  '000000e03f320608081202400c3209081212050a036231643a003a040a0202013a040a02'
  '03013a030a01043a030a0101', 'hex')),
('values and timestamps differ', decode(
  '0a1c121a12180a040801100212100801220201022a0800002a36fe9c971712ca030a000a'
  '0c0880201080a00220072a01060a0a0880e00110808002200d1200120b08011080201a04'
  '0801100a121108011080401a04080310051a0408021014120608021080fe01120410effd'
  '021a001a04080318061a04080418061a0408051806221c0a100000000000000000000000'
  '000000000012080000000000000000221c0a100102030405060708090a0b0c0d0e0f1012'
  '08a1a2a3a4a5a6a7a8221c0a100000000000000000000000000000000012080000000000'
  '0000002a002a036370752a0b6e616e6f7365636f6e64732a046d61696e2a04776f726b2a'
  '07696e6c696e65642a066d61696e2e632a0c2f7573722f62696e2f6170702a0674687265'
  '61642a06776f726b65722a0473697a652a0562797465732a0a66726f6d2d7461626c652a'
  '0c2f6c69622f6c6962632e736f2a04666c61672a0773616d706c65732a05636f756e742a'
  '05726174696f2a1f70726f636573732e65786563757461626c652e6275696c645f69642e'
  '676e753200320c080812080a06776f726b65723208080a12021840180b3206080e120210'
  '01320d0811120921000000000000e03f320608081202400c3209081212050a036231643a'
  '003a040a0202013a040a0203013a030a01043a030a0101', 'hex')),
('neither values nor timestamps', decode(
  '0a0e120c120a0a04080110021202080112ca030a000a0c0880201080a00220072a01060a'
  '0a0880e00110808002200d1200120b08011080201a040801100a121108011080401a0408'
  '0310051a0408021014120608021080fe01120410effd021a001a04080318061a04080418'
  '061a0408051806221c0a1000000000000000000000000000000000120800000000000000'
  '00221c0a100102030405060708090a0b0c0d0e0f101208a1a2a3a4a5a6a7a8221c0a1000'
  '000000000000000000000000000000120800000000000000002a002a036370752a0b6e61'
  '6e6f7365636f6e64732a046d61696e2a04776f726b2a07696e6c696e65642a066d61696e'
  '2e632a0c2f7573722f62696e2f6170702a067468726561642a06776f726b65722a047369'
  '7a652a0562797465732a0a66726f6d2d7461626c652a0c2f6c69622f6c6962632e736f2a'
  '04666c61672a0773616d706c65732a05636f756e742a05726174696f2a1f70726f636573'
  '732e65786563757461626c652e6275696c645f69642e676e753200320c080812080a0677'
  '6f726b65723208080a12021840180b3206080e12021001320d0811120921000000000000'
  'e03f320608081202400c3209081212050a036231643a003a040a0202013a040a0203013a'
  '030a01043a030a0101', 'hex')),
('link out of range', decode(
  '0a131211120f0a040801100212070801180522010112ca030a000a0c0880201080a00220'
  '072a01060a0a0880e00110808002200d1200120b08011080201a040801100a1211080110'
  '80401a04080310051a0408021014120608021080fe01120410effd021a001a0408031806'
  '1a04080418061a0408051806221c0a100000000000000000000000000000000012080000'
  '000000000000221c0a100102030405060708090a0b0c0d0e0f101208a1a2a3a4a5a6a7a8'
  '221c0a1000000000000000000000000000000000120800000000000000002a002a036370'
  '752a0b6e616e6f7365636f6e64732a046d61696e2a04776f726b2a07696e6c696e65642a'
  '066d61696e2e632a0c2f7573722f62696e2f6170702a067468726561642a06776f726b65'
  '722a0473697a652a0562797465732a0a66726f6d2d7461626c652a0c2f6c69622f6c6962'
  '632e736f2a04666c61672a0773616d706c65732a05636f756e742a05726174696f2a1f70'
  '726f636573732e65786563757461626c652e6275696c645f69642e676e753200320c0808'
  '12080a06776f726b65723208080a12021840180b3206080e12021001320d081112092100'
  '0000000000e03f320608081202400c3209081212050a036231643a003a040a0202013a04'
  '0a0203013a030a01043a030a0101', 'hex')),
('first string not empty', decode(
  '12032a0178', 'hex')),
('gzip', decode(
  '1f8b08000000000002037d8f4d6edb301085458a92695a8ee941174650a04e96034446b5'
  'f426be49a01f26252a538228a14d563a4a9bb649ce9253e40639418b90f9d964d101e6c3'
  'ccbcf740502c610173c138911422ce8e09c27d280291f0712dc71f743d41120bc1c70722'
  'c791aee710c0ccb9c7f5a10f0958fa65e79650468e547e80d871fc4780c9c7bff430f0da'
  '2a7664cf8c56f1f14721837705fc6df22aa1218be2099f8a59323f5848e03faf7ffdfe73'
  '737bf7ff2c061896ed8033939bc6aab2319545b6cfb541f6ade9bee2449b5a1b5561ec8f'
  '6989c966b0dda6d06693b72dc6fd974ee54ef566d521b3fa4a61545cf6caa238ef9afd49'
  '9f17b572b15a17becbd436c8ceebfc022736dfb7b533466533981ea32eef75839fdaae29'
  '95b5a9faaecae1399e1683aeab335da51766c8822ce11cb8787d34e35c005ded56b32ce6'
  '074025c9e67c09d3a3972f3e9cba3307ba4bb229078844587caeb6c196094a896748b6a1'
  '20cc833c012ef733b7e0010000', 'hex')),
('deep 64', decode(
  '0ad6020acf020acc020a046465657012c3022ac0020abd022aba020ab7022ab4020ab102'
  '2aae020aab022aa8020aa5022aa2020a9f022a9c020a99022a96020a93022a90020a8d02'
  '2a8a020a87022a84020a81022afe010afb012af8010af5012af2010aef012aec010ae901'
  '2ae6010ae3012ae0010add012ada010ad7012ad4010ad1012ace010acb012ac8010ac501'
  '2ac2010abf012abc010ab9012ab6010ab3012ab0010aad012aaa010aa7012aa4010aa101'
  '2a9e010a9b012a98010a95012a92010a8f012a8c010a89012a86010a83012a80010a7e2a'
  '7c0a7a2a780a762a740a722a700a6e2a6c0a6a2a680a662a640a622a600a5e2a5c0a5a2a'
  '580a562a540a522a500a4e2a4c0a4a2a480a462a440a422a400a3e2a3c0a3a2a380a362a'
  '340a322a300a2e2a2c0a2a2a280a262a240a222a200a1e2a1c0a1a2a180a162a140a122a'
  '100a0e2a0c0a0a2a080a062a040a02180112021200', 'hex')),
('deep 65', decode(
  '0adc020ad5020ad2020a046465657012c9022ac6020ac3022ac0020abd022aba020ab702'
  '2ab4020ab1022aae020aab022aa8020aa5022aa2020a9f022a9c020a99022a96020a9302'
  '2a90020a8d022a8a020a87022a84020a81022afe010afb012af8010af5012af2010aef01'
  '2aec010ae9012ae6010ae3012ae0010add012ada010ad7012ad4010ad1012ace010acb01'
  '2ac8010ac5012ac2010abf012abc010ab9012ab6010ab3012ab0010aad012aaa010aa701'
  '2aa4010aa1012a9e010a9b012a98010a95012a92010a8f012a8c010a89012a86010a8301'
  '2a80010a7e2a7c0a7a2a780a762a740a722a700a6e2a6c0a6a2a680a662a640a622a600a'
  '5e2a5c0a5a2a580a562a540a522a500a4e2a4c0a4a2a480a462a440a422a400a3e2a3c0a'
  '3a2a380a362a340a322a300a2e2a2c0a2a2a280a262a240a222a200a1e2a1c0a1a2a180a'
  '162a140a122a100a0e2a0c0a0a2a080a062a040a02180112021200', 'hex')),
('not utf-8', decode(
  '0a0b12091207120508012201011217120012041a0208011a001a0208012a003a003a030a'
  '010112032a01ff', 'hex'));

-- The samples of a profile: ts, weight, labels and the stack's func names, root first
CREATE FUNCTION pg_temp.samples(profile bigint)
RETURNS TABLE (ts bigint, weight bigint, labels jsonb, path text)
LANGUAGE sql STABLE
AS $$
SELECT s.ts, s.weight, l.labels,
       (SELECT string_agg(f.name, ' > ' ORDER BY p.i)
          FROM unnest(calltree.stack_path(s.stack_id)) WITH ORDINALITY AS p(func, i)
          JOIN calltree.func f ON f.id = p.func)
  FROM calltree.sample s LEFT JOIN calltree.labels l ON l.id = s.labels_id
 WHERE s.profile_id = profile
 ORDER BY s.ts NULLS LAST, s.weight
$$;

------------------------------------------------------------------------
-- Requests without profiles: no id.  An empty input is an empty request.
SELECT import_otlp(''::bytea) AS empty, import_otlp(NULL) IS NULL AS null_gives_null;
SELECT import_otlp(data) AS dictionary_only FROM otlp_case WHERE name = 'dictionary only';

------------------------------------------------------------------------
-- many: two resources, three profiles, ids in the request's order
CREATE TEMP TABLE many AS
SELECT u.id, u.n FROM otlp_case, unnest(import_otlp(data)) WITH ORDINALITY AS u(id, n) WHERE name = 'many';
SELECT n, p.name, p.format, p.weight_unit, p.started_at AT TIME ZONE 'UTC' AS started_utc
  FROM many JOIN profile p USING (id) ORDER BY n;

-- meta: resource attributes of every value type, scope, profile attributes, then ours
SELECT n, p.meta FROM many JOIN profile p USING (id) ORDER BY n;

-- profile 1: inlined frames, an address frame, an address without mapping,
-- attributes with a unit, a link; the stackless sample was skipped
SELECT * FROM pg_temp.samples((SELECT id FROM many WHERE n = 1));
WITH RECURSIVE walk AS (
    SELECT st.prefix_id, st.frame_id FROM calltree.stack st
     WHERE st.id IN (SELECT stack_id FROM calltree.sample WHERE profile_id = (SELECT id FROM many WHERE n = 1))
    UNION
    SELECT st.prefix_id, st.frame_id FROM walk JOIN calltree.stack st ON st.id = walk.prefix_id)
SELECT DISTINCT f.name, f.file, f.resource, to_hex(fr.address) AS address, fr.line, fr.implementation
  FROM walk JOIN calltree.frame fr ON fr.id = walk.frame_id JOIN calltree.func f ON f.id = fr.func_id
 ORDER BY address, fr.line;

-- profile 2 is empty; profile 3 has timestamps only: weight 1 each, times
-- from the earliest
SELECT count(*) AS empty_profile_samples FROM sample WHERE profile_id = (SELECT id FROM many WHERE n = 2);
SELECT * FROM pg_temp.samples((SELECT id FROM many WHERE n = 3));

-- the caller's name and meta win over the request's
CREATE TEMP TABLE overridden AS
SELECT u.id FROM otlp_case, unnest(import_otlp(data, name => 'override', meta => '{"sample_type": "mine", "team": "x"}')) AS u(id)
 WHERE otlp_case.name = 'many';
SELECT p.name, p.meta->>'sample_type' AS sample_type, p.meta->>'team' AS team, p.meta->>'service.name' AS service
  FROM overridden JOIN profile p USING (id) ORDER BY p.id;

-- a gzip-compressed request (one sample of 42 on main)
CREATE TEMP TABLE gz AS SELECT u.id FROM otlp_case, unnest(import_otlp(data)) AS u(id) WHERE name = 'gzip';
SELECT p.weight_unit, s.* FROM gz JOIN profile p USING (id), pg_temp.samples((SELECT id FROM gz)) s;

-- attribute values nested 64 arrays deep, the most there may be
CREATE TEMP TABLE deep AS SELECT u.id FROM otlp_case, unnest(import_otlp(data)) AS u(id) WHERE name = 'deep 64';
SELECT p.meta #> ('{deep,' || array_to_string(array_fill(0, ARRAY[64]), ',') || '}')::text[] AS innermost
  FROM deep JOIN profile p USING (id);

-- import_stream with format => 'otlp' (bin/calltree-load --format otlp):
-- a row per profile, in the request's order, as import_otlp returns them
-- (and no NOTICE naming the others, which 0.2's import_stream gave)
CREATE TEMP TABLE chunks (seq bigint, chunk text);
INSERT INTO chunks SELECT 1, encode(data, 'base64') FROM otlp_case WHERE name = 'many';
SELECT max(id) AS before_stream FROM profile \gset
CREATE TEMP TABLE streamed AS
SELECT s.id, s.n FROM import_stream('chunks', format => 'otlp') WITH ORDINALITY AS s(id, n);
SELECT array_agg(s.id ORDER BY s.n) = (SELECT array_agg(id ORDER BY id) FROM profile WHERE id > :before_stream)
       AS every_id_in_order,
       count(*) AS rows, array_agg(p.name ORDER BY s.n) AS names,
       array_agg(p.meta->>'sample_type' ORDER BY s.n) AS sample_types
  FROM streamed s JOIN profile p USING (id);

------------------------------------------------------------------------
-- Malformed requests: an error naming the byte, nothing written
SELECT count(*) AS profiles_before FROM profile \gset
SELECT import_otlp(substring(data FROM 1 FOR 40)) FROM otlp_case WHERE name = 'many';
SELECT import_otlp(substring(data FROM 1 FOR length(data) - 3)) FROM otlp_case WHERE name = 'many';
SELECT import_otlp(data) FROM otlp_case WHERE name = 'stack out of range';
SELECT import_otlp(data) FROM otlp_case WHERE name = 'values and timestamps differ';
SELECT import_otlp(data) FROM otlp_case WHERE name = 'neither values nor timestamps';
SELECT import_otlp(data) FROM otlp_case WHERE name = 'link out of range';
SELECT import_otlp(data) FROM otlp_case WHERE name = 'first string not empty';
SELECT import_otlp(data) FROM otlp_case WHERE name = 'not utf-8';
-- attribute values nest 64 arrays deep at most
SELECT import_otlp(data) FROM otlp_case WHERE name = 'deep 65';
-- the dictionary with wire type 0; a group (wire type 3)
SELECT import_otlp('\x1001'::bytea);
SELECT import_otlp('\x0b'::bytea);
-- a corrupt gzip stream
SELECT import_otlp('\x1f8b0800'::bytea);
-- 300,000 strings need more than calltree.import_work_mem (1 MB) to read
SET calltree.import_work_mem = '1MB';
SELECT import_otlp(decode('12c0cf24' || repeat('2a00', 300000), 'hex'));
-- a sample of 140,000 values (140,004 bytes) may need more than 1 MB
SELECT import_otlp(decode('0af0c50812ecc50812e8c50812e4c50822e0c508' || repeat('01', 140000), 'hex'));
RESET calltree.import_work_mem;
SELECT count(*) - :profiles_before AS profiles_written FROM profile;
-- leave no profile of this file behind
DELETE FROM profile WHERE id > :otlp_max_before;
