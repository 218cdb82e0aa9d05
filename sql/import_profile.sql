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
