-- Real profiles of other tools, one per importer, imported through SQL
-- (the importers' own entry points, not import_stream).
SET client_min_messages = warning;
SELECT calltree.import_collapsed(pg_read_file(:'shared' || '/data/speedscope-samples/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt'), 'collapsed') IS NOT NULL AS collapsed;
SELECT calltree.import_pprof(pg_read_binary_file(:'shared' || '/data/pprof/sample.cpu'), name => 'pprof') IS NOT NULL AS pprof;
SELECT calltree.import_cpuprofile(pg_read_file(:'shared' || '/data/speedscope-samples/Chrome/65/simple.cpuprofile'), 'cpuprofile') IS NOT NULL AS cpuprofile;
SELECT calltree.import_speedscope(pg_read_file(:'shared' || '/data/speedscope-samples/speedscope/0.6.0/two-sampled.speedscope.json'), 'speedscope') IS NOT NULL AS speedscope;
SELECT calltree.import_profile(pg_read_binary_file(:'shared' || '/data/firefox-profiler/test.perf.gz'), 'perf') IS NOT NULL AS perf;
SELECT calltree.import_trace_events(pg_read_file(:'shared' || '/data/speedscope-samples/trace-event/simple.json'), 'trace') IS NOT NULL AS trace_events;
SELECT calltree.import_perf_script(pg_read_file(:'shared' || '/data/speedscope-samples/linux-perf/simple-with-header.linux-perf.txt'), name => 'perf_script') IS NOT NULL AS perf_script;
SELECT calltree.import_firefox(pg_read_file(:'shared' || '/data/speedscope-samples/Firefox/59/simple-firefox.json'), 'firefox') IS NOT NULL AS firefox;
-- by hand: a stack interned name by name, then a sample of it (on Citus
-- a statement that reads all shards cannot intern in the same transaction)
SELECT calltree.intern_stack(ARRAY['A', 'B', 'C']) AS abc \gset
INSERT INTO calltree.sample (profile_id, stack_id, weight) VALUES (1, :abc, 5);
