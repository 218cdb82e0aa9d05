-- Damaged real files: every real file of perf script, pprof, .cpuprofile,
-- speedscope, Firefox and trace-event formats in ../shared/data, cut at
-- every 1/50th of its length (k = 1..49) and with 12 single-bit flips at
-- pseudo-random places (pg_temp.flip: md5 of the file's name and k, so
-- the same places every run).  Each attempt must either import or fail
-- with an ERROR that names the format and where: a byte offset or a line
-- for every cut; for a flip, which may leave valid syntax, a byte offset,
-- a line, or the JSON path, event or table row of the bad value.  Never a
-- crash, never an internal error, and nothing left behind.
--
-- Collapsed stacks have their own such test (sql/import_collapsed.sql).
\set ECHO none
\ir test/reference/helpers.sql
\set ECHO all
\getenv shared_dir CALLTREE_SHARED
\set d :shared_dir '/data/'
SET search_path = calltree, public;

SELECT (SELECT count(*) FROM profile) AS profiles, (SELECT count(*) FROM sample) AS samples,
       (SELECT count(*) FROM event) AS events, (SELECT count(*) FROM func) AS funcs,
       (SELECT count(*) FROM frame) AS frames, (SELECT count(*) FROM stack) AS stacks \gset before_

-- The gzip files also go in decompressed, so that cuts and flips reach the
-- parsers and not only zlib's checks (gunzip into the data directory).
\set gunzip 'gzip -dc ''' :d 'pprof/sample.cpu'' > damaged_sample_cpu.pb && gzip -dc ''' :d 'speedscope-samples/pprof/simple.prof'' > damaged_simple_prof.pb && gzip -dc ''' :d 'firefox-profiler/test.perf.gz'' > damaged_test.perf'
COPY (SELECT 1 WHERE false) TO PROGRAM :'gunzip';

CREATE TEMP TABLE damaged_file (file text, importer text, format text, data bytea);
INSERT INTO damaged_file
SELECT 'linux-perf/' || f, 'import_perf_script', 'perf script', pg_read_binary_file(:'d' || 'speedscope-samples/linux-perf/' || f)
  FROM pg_ls_dir(:'d' || 'speedscope-samples/linux-perf') AS f
UNION ALL
SELECT 'test.perf.gz, gunzipped', 'import_perf_script', 'perf script', pg_read_binary_file('damaged_test.perf')
UNION ALL
SELECT 'test.perf.gz', 'import_profile', 'gzip', pg_read_binary_file(:'d' || 'firefox-profiler/test.perf.gz')
UNION ALL
SELECT f, 'import_pprof', 'pprof', pg_read_binary_file(:'d' || f)
  FROM unnest(ARRAY['pprof/sample.cpu', 'speedscope-samples/pprof/simple.prof']) AS f
UNION ALL
SELECT f || ', gunzipped', 'import_pprof', 'pprof', pg_read_binary_file('damaged_' || b)
  FROM (VALUES ('pprof/sample.cpu', 'sample_cpu.pb'), ('speedscope-samples/pprof/simple.prof', 'simple_prof.pb')) AS v(f, b)
UNION ALL
SELECT regexp_replace(f, '^speedscope-samples/', ''), 'import_cpuprofile', 'cpuprofile', pg_read_binary_file(:'d' || f)
  FROM unnest(ARRAY['speedscope-samples/Chrome/65/simple.cpuprofile', 'speedscope-samples/Chrome/65/sucrase.cpuprofile',
                    'speedscope-samples/node/10.11.0/example.cpuprofile',
                    'firefox-profiler/hello.cjs-20231120T211435.cpuprofile']) AS f
UNION ALL
SELECT f, 'import_speedscope', 'speedscope', pg_read_binary_file(:'d' || 'speedscope-samples/speedscope/' || f)
  FROM unnest(ARRAY['0.0.1/simple.speedscope.json', '0.0.1/simple-no-pretty-print.speedscope.json',
                    '0.1.2/simple-sampled.speedscope.json', '0.6.0/two-sampled.speedscope.json']) AS f
UNION ALL
SELECT f, 'import_firefox', 'Firefox', pg_read_binary_file(:'d' || 'speedscope-samples/' || f)
  FROM unnest(ARRAY['Firefox/59/simple-firefox.json', 'Firefox/61/recursion.json']) AS f
UNION ALL
SELECT 'trace-event/' || f, 'import_trace_events', 'trace-event', pg_read_binary_file(:'d' || 'speedscope-samples/trace-event/' || f)
  FROM pg_ls_dir(:'d' || 'speedscope-samples/trace-event') AS f
UNION ALL
SELECT 'Chrome/69/simple.json', 'import_trace_events', 'trace-event', pg_read_binary_file(:'d' || 'speedscope-samples/Chrome/69/simple.json');
COPY (SELECT 1 WHERE false) TO PROGRAM 'rm -f damaged_sample_cpu.pb damaged_simple_prof.pb damaged_test.perf';

-- What an error must say, per format: its name at the start of the
-- message (perf script's "malformed perf script ...", pprof's "invalid
-- pprof data at byte N"; import_profile, which finds the format inside the
-- gzip stream, says "corrupt gzip-compressed profile data at byte N"); and
-- where, in the message or the detail.
CREATE TEMP TABLE error_rule (format text, names_format text, cut_location text, flip_location text);
INSERT INTO error_rule VALUES
  ('perf script', '^(malformed )?perf script ',
   -- a cut before the first sample: "Read N lines" in the detail
   '(at|line) (byte )?[0-9]+|Read [0-9]+ lines?', '(at|line) (byte )?[0-9]+|Read [0-9]+ lines?'),
  ('gzip', '^corrupt gzip-compressed profile data', 'at byte [0-9]+', 'at byte [0-9]+'),
  ('pprof', '^(invalid|corrupt gzip-compressed) pprof data', 'at byte [0-9]+', 'at byte [0-9]+'),
  ('cpuprofile', '^(invalid )?cpuprofile ', 'at byte offset [0-9]+ \(line [0-9]+\)',
   'at byte offset [0-9]+ \(line [0-9]+\)|\$[.[]'),
  ('speedscope', '^(invalid )?speedscope ', 'at byte offset [0-9]+ \(line [0-9]+\)',
   'at byte offset [0-9]+ \(line [0-9]+\)|\$[.[]'),
  ('Firefox', '^malformed Firefox ', 'at byte offset [0-9]+ \(line [0-9]+\)',
   'at byte offset [0-9]+ \(line [0-9]+\)|thread [0-9]+.* row [0-9]+'),
  ('trace-event', '^invalid trace[- ]event', 'at byte offset [0-9]+ \(line [0-9]+\)',
   'at byte offset [0-9]+ \(line [0-9]+\)|^invalid trace-event file: event [0-9]+|\$[.[]');

SET client_min_messages = warning;  -- the NOTICEs of the imports that succeed
CREATE TEMP TABLE attempt AS
SELECT f.file, f.format, a.*,
       a.outcome = 'error' AND (a.message ~ r.names_format)
         AND (a.message || coalesce(' ' || a.detail, '')) ~ CASE a.kind WHEN 'cut' THEN r.cut_location ELSE r.flip_location END
         AS well_named
  FROM damaged_file AS f JOIN error_rule AS r USING (format),
       LATERAL pg_temp.damaged_imports(f.importer, f.data, f.file, 12) AS a;
RESET client_min_messages;

-- Per file: attempts, imports, errors, and errors that name the format and
-- where.  "cut ok" is a cut that imports: perf script marks no end of file,
-- so a cut at the end of a line is a shorter recording, and a trace-event
-- array may lack its closing bracket (a trace cut short).  Every other cut
-- must fail.
SELECT file, format,
       count(*) FILTER (WHERE kind = 'cut') AS cuts,
       count(*) FILTER (WHERE kind = 'cut' AND outcome = 'ok') AS "cut ok",
       count(*) FILTER (WHERE kind = 'cut' AND well_named) AS "cut named",
       count(*) FILTER (WHERE kind = 'flip') AS flips,
       count(*) FILTER (WHERE kind = 'flip' AND outcome = 'ok') AS "flip ok",
       count(*) FILTER (WHERE kind = 'flip' AND well_named) AS "flip named",
       string_agg(DISTINCT state, ',') AS sqlstates
  FROM attempt GROUP BY file, format ORDER BY format, file COLLATE "C";

-- The errors that do not name the format and where (none)
SELECT file, kind, k, at, bitno, state, message, detail
  FROM attempt WHERE outcome = 'error' AND NOT well_named ORDER BY file, kind, k;

-- Internal errors (XX000) and anything that is not a data error (none):
-- class 22 (data exception), XX001 (data_corrupted, zlib's checks) and
-- P0002 (no_data_found, a perf script cut before its first sample)
SELECT file, kind, k, state, message
  FROM attempt WHERE state !~ '^22' AND state NOT IN ('XX001', 'P0002') ORDER BY file, kind, k;

-- A cut of perf script that imports is a prefix of the recording: never
-- more samples than the whole file, and more as the cut moves on
SET client_min_messages = warning;
SELECT c.file, count(*) AS cuts_imported,
       bool_and(c.imported > 0 AND c.imported <= whole.imported) AS fewer_than_whole,
       bool_and(c.imported >= coalesce(c.previous, 0)) AS growing
  FROM (SELECT file, k, imported, lag(imported) OVER (PARTITION BY file ORDER BY k) AS previous
          FROM attempt WHERE format = 'perf script' AND kind = 'cut' AND outcome = 'ok') AS c
  JOIN LATERAL (SELECT a.imported FROM damaged_file AS f, pg_temp.attempt(f.importer, f.data) AS a
                 WHERE f.file = c.file) AS whole ON true
 GROUP BY c.file ORDER BY c.file COLLATE "C";
RESET client_min_messages;

-- One message per format, the first failing cut at or after the middle
SELECT DISTINCT ON (format) format, file, k, message
  FROM attempt WHERE kind = 'cut' AND outcome = 'error' AND k >= 25
 ORDER BY format, file COLLATE "C", k;

-- A failed import at the top level, of each format, leaves nothing behind
SELECT convert_from(substr(data, 1, length(data) / 2), 'UTF8') AS half_perf
  FROM damaged_file WHERE file = 'linux-perf/forks.linux-perf.txt' \gset
SELECT import_perf_script(:'half_perf');
SELECT substr(data, 1, 1000) AS half_pprof FROM damaged_file WHERE file = 'pprof/sample.cpu, gunzipped' \gset
SELECT import_pprof(:'half_pprof');
SELECT convert_from(substr(data, 1, 10000), 'UTF8') AS half_json
  FROM damaged_file WHERE file = 'Chrome/65/sucrase.cpuprofile' \gset
SELECT import_cpuprofile(:'half_json');
SELECT convert_from(substr(data, 1, length(data) / 2), 'UTF8') AS bad_firefox
  FROM damaged_file WHERE file = 'Firefox/61/recursion.json' \gset
SELECT import_firefox(:'bad_firefox');
SELECT convert_from(substr(data, 1, 500), 'UTF8') AS half_trace
  FROM damaged_file WHERE file = 'trace-event/bex-interaction.json' \gset
SELECT import_trace_events(:'half_trace');
SELECT (SELECT count(*) FROM profile) - :before_profiles AS new_profiles,
       (SELECT count(*) FROM sample) - :before_samples AS new_samples,
       (SELECT count(*) FROM event) - :before_events AS new_events,
       (SELECT count(*) FROM func) - :before_funcs AS new_funcs,
       (SELECT count(*) FROM frame) - :before_frames AS new_frames,
       (SELECT count(*) FROM stack) - :before_stacks AS new_stacks;
