-- import_profile: any supported file, recognized from its content.
SET search_path = calltree, public;
\getenv shared_dir CALLTREE_SHARED
\set data_dir :shared_dir '/data/'

CREATE TEMP TABLE files (path text, expected text);
INSERT INTO files VALUES
  ('speedscope-samples/stackcollapse/simple.txt', 'collapsed'),
  ('speedscope-samples/stackcollapse/simple-crlf.txt', 'collapsed'),
  ('speedscope-samples/stackcollapse/simple-utf16-le.txt', 'collapsed'),
  ('speedscope-samples/stackcollapse/simple-utf16-be.txt', 'collapsed'),
  ('speedscope-samples/stackcollapse/recursion.txt', 'collapsed'),
  ('speedscope-samples/stackcollapse/alternating.txt', 'collapsed'),
  ('speedscope-samples/stackcollapse/tall.txt', 'collapsed'),
  ('speedscope-samples/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt', 'collapsed'),
  ('speedscope-samples/Chrome/65/simple.cpuprofile', 'cpuprofile'),
  ('speedscope-samples/Chrome/65/sucrase.cpuprofile', 'cpuprofile'),
  ('speedscope-samples/node/10.11.0/example.cpuprofile', 'cpuprofile'),
  ('firefox-profiler/hello.cjs-20231120T211435.cpuprofile', 'cpuprofile'),
  ('speedscope-samples/Chrome/69/simple.json', 'trace-event'),
  ('speedscope-samples/trace-event/simple.json', 'trace-event'),
  ('speedscope-samples/trace-event/simple-object.json', 'trace-event'),
  ('speedscope-samples/speedscope/0.0.1/simple.speedscope.json', 'speedscope'),
  ('speedscope-samples/speedscope/0.1.2/simple-sampled.speedscope.json', 'speedscope'),
  ('speedscope-samples/speedscope/0.6.0/two-sampled.speedscope.json', 'speedscope'),
  ('speedscope-samples/Firefox/59/simple-firefox.json', 'firefox'),
  ('speedscope-samples/Firefox/61/recursion.json', 'firefox'),
  ('pprof/sample.cpu', 'pprof'),
  ('speedscope-samples/pprof/simple.prof', 'pprof'),
  ('speedscope-samples/linux-perf/simple.linux-perf.txt', 'perf script'),
  ('speedscope-samples/linux-perf/simple-with-header.linux-perf.txt', 'perf script'),
  ('speedscope-samples/linux-perf/simple-with-pid.linux-perf.txt', 'perf script'),
  ('speedscope-samples/linux-perf/forks.linux-perf.txt', 'perf script'),
  ('speedscope-samples/linux-perf/system-wide.linux-perf.txt', 'perf script'),
  ('speedscope-samples/linux-perf/rust-mangled.linux-perf.txt', 'perf script'),
  ('firefox-profiler/test.perf.gz', 'perf script');

-- each file is recognized (notices from the importers are not the point here)
SET client_min_messages = warning;
CREATE TEMP TABLE imported AS
SELECT f.path, f.expected,
       import_profile(pg_read_binary_file(:'data_dir' || f.path), name => f.path) AS id
  FROM files AS f;
RESET client_min_messages;
SELECT i.path, p.format = i.expected AS recognized, p.format
  FROM imported AS i JOIN profile AS p ON p.id = i.id ORDER BY i.path;

-- UTF-16 (both byte orders) and CRLF give the tree of the plain file
SELECT i.path, (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = i.id)
             = (SELECT stack_agg(stack_id, weight) FROM sample s JOIN imported j ON s.profile_id = j.id
                 WHERE j.path LIKE '%/simple.txt') AS same_as_plain
  FROM imported AS i WHERE i.path ~ 'simple-(utf16|crlf)' ORDER BY i.path;

-- a gzip-compressed file is the same as its content
SELECT (SELECT total(stack_agg(stack_id, weight)) FROM sample s JOIN imported i ON s.profile_id = i.id
         WHERE i.path LIKE '%test.perf.gz') AS gzipped_perf_total;

-- what is not a profile
SELECT import_profile('');
SELECT import_profile('{"hello": "world"}');
SELECT import_profile('\xfffe3d'::bytea);
SELECT import_profile('\xfffe200020000a00'::bytea);
SELECT import_profile('\x1f8b0800'::bytea);
SELECT import_profile(convert_to('a;b;c 3' || chr(10) || 'a;b x', 'UTF8'));

-- The importers' options pass through: strict => false (collapsed stacks)
-- skips malformed lines (a;b 1 and a 2 are kept: 2 samples, 3 in all),
-- event (perf script) picks the event (instructions: 3 of the 5 + 3),
-- sample_type (pprof) the sample type (sample.cpu by count: 176 samples,
-- as import_pprof's test has it).
SELECT import_profile(convert_to(E'a;b 1\nnot a line\na 2\n', 'UTF8'), strict => false) AS lenient \gset
SELECT format, count(*) AS samples, sum(weight) AS total
  FROM profile p JOIN sample s ON s.profile_id = p.id WHERE p.id = :lenient GROUP BY p.id;
\set two_events 'app 1/1 1.0: 5 cycles:u:\n\t 400400 main (/bin/app)\n\napp 1/1 1.1: 3 instructions:u:\n\t 400400 main (/bin/app)\n'
SELECT import_profile(convert_to(E:'two_events', 'UTF8'), event => 'instructions') AS perf \gset
SELECT format, count(*) AS samples, sum(weight) AS total
  FROM profile p JOIN sample s ON s.profile_id = p.id WHERE p.id = :perf GROUP BY p.id;
SELECT import_profile(pg_read_binary_file(:'data_dir' || 'pprof/sample.cpu'), sample_type => 'samples') AS pprof \gset
SELECT format, weight_unit, sum(weight) AS total
  FROM profile p JOIN sample s ON s.profile_id = p.id WHERE p.id = :pprof GROUP BY p.id;
-- NULL is an option not given
SELECT import_profile(convert_to(E'a;b 1\n', 'UTF8'), strict => NULL, event => NULL, sample_type => NULL) > 0 AS imported;

-- An option of another format is an error, even a default value
SELECT count(*) AS profiles FROM profile \gset
SELECT import_profile(pg_read_binary_file(:'data_dir' || 'speedscope-samples/stackcollapse/simple.txt'),
                      sample_type => 'cpu');
SELECT import_profile(pg_read_binary_file(:'data_dir' || 'pprof/sample.cpu'), strict => false);
SELECT import_profile(convert_to(E:'two_events', 'UTF8'), strict => true);
SELECT import_profile(pg_read_binary_file(:'data_dir' || 'speedscope-samples/speedscope/0.6.0/two-sampled.speedscope.json'),
                      event => 'cycles');
SELECT count(*) = :profiles AS nothing_left_behind FROM profile;

-- Invalid UTF-8 in a text format names its line (and the byte); a control
-- character alone is text too (here in a func name); bytes that are not
-- text (NUL, or invalid UTF-8 with control characters) are pprof
SELECT import_profile(convert_to(E'a;b 1\na;c 2\n', 'UTF8') || '\xe9'::bytea || convert_to(E'; 3\n', 'UTF8'));
-- the same text gzip-compressed, parsed as it is decompressed: the same
-- error; and a gzipped text with a UTF-8 byte-order mark (a;b 1, a;c 2)
SELECT import_profile('\x1f8b08000000000002034bb44e5230e44ab44e5630e27a69ad60cc0500123bc0ac11000000'::bytea);
SELECT import_profile('\x1f8b08000000000002037bbf7b7fa27592822157a275b282111700e2b876630f000000'::bytea, 'gzipped bom') AS gzipped_bom \gset
SELECT total(stack_agg(stack_id, weight)) AS gzipped_bom_total FROM sample WHERE profile_id = :gzipped_bom;
SELECT import_profile(convert_to(E'{"shared": {"frames": []},\n"profiles": ["', 'UTF8') || '\xc0'::bytea || convert_to('"]}', 'UTF8'));
SELECT import_profile(convert_to(E'a;b 1\n', 'UTF8') || '\x11'::bytea || convert_to(E'a 2\n', 'UTF8')) AS control \gset
SELECT encode(convert_to(f.name, 'UTF8'), 'escape') AS name, s.weight
  FROM sample s JOIN stack k ON k.id = s.stack_id JOIN frame fr ON fr.id = k.frame_id JOIN func f ON f.id = fr.func_id
 WHERE s.profile_id = :control ORDER BY s.weight;
SELECT import_profile(convert_to(E'a;b 1\n', 'UTF8') || '\x08910a08910a08910a'::bytea);
