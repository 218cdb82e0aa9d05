--------------------------------------------------------------------------
-- Importers: one function per format, then import_profile, which
-- recognizes the format of a file from its content, and import_stream,
-- which reads a file sent in chunks.  Each returns the new profile's id
-- (import_otlp, import_jfr and import_stream: every new profile's id);
-- the import commits whole with the caller's transaction or leaves nothing
-- behind.  The JSON formats are parsed with PostgreSQL's own JSON parser.
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION import_collapsed(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                                 strict boolean DEFAULT true)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_collapsed'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_collapsed(text, text, jsonb, boolean) IS 'imports collapsed stacks ("a;b;c 42" lines); returns the profile id';

-- A frame whose symbol perf script could not name ([unknown], or none)
-- becomes an address frame of its library (85_symbols.sql), which
-- symbolicate() can name later.
CREATE OR REPLACE FUNCTION import_perf_script(data text, event text DEFAULT NULL, name text DEFAULT NULL,
                                   meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_perf_script'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_perf_script(text, text, text, jsonb) IS 'imports the text output of perf script; returns the profile id';

CREATE OR REPLACE FUNCTION import_pprof(data bytea, sample_type text DEFAULT NULL, name text DEFAULT NULL,
                             meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_pprof'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_pprof(bytea, text, text, jsonb) IS 'imports a pprof profile (gzip-compressed or raw protobuf), one sample type (default: the profile''s default, else the last); returns the profile id';

CREATE OR REPLACE FUNCTION import_cpuprofile(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_cpuprofile'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_cpuprofile(text, text, jsonb) IS 'imports a V8/Chrome/Node .cpuprofile (weights in ns, samples keep their ts); returns the profile id';

CREATE OR REPLACE FUNCTION import_speedscope(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_speedscope'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_speedscope(text, text, jsonb) IS 'imports a speedscope file (sampled and evented profiles, one thread each); returns the profile id';

CREATE OR REPLACE FUNCTION import_firefox(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_firefox'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_firefox(text, text, jsonb) IS 'imports a Firefox Profiler profile (Gecko or processed format); returns the profile id';

-- source: 'samples' (the CPU samples: Profile/ProfileChunk events, Chrome
-- 66's CpuProfile events, Hermes samples/stackFrames) into calltree.sample, 'events' (B/E/X events) into
-- calltree.event, or NULL: the samples when the file has any.
CREATE OR REPLACE FUNCTION import_trace_events(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
    source text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_trace_events'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_trace_events(text, text, jsonb, text) IS 'imports Chrome trace-event JSON: its CPU samples (Profile/ProfileChunk or CpuProfile events, Hermes samples), a thread per profile, into calltree.sample, or its B/E and X events into calltree.event (source => ''samples'' or ''events''; NULL: the samples when there are any); returns the profile id';

-- One OTLP request carries many profiles (of several resources and
-- scopes): each becomes a profile, and every id is returned, in the
-- request's order ('{}' for a request without profiles).  OTLP protobuf
-- has no mark of its own, so import_profile does not recognize it:
-- import_otlp, or import_stream with format => 'otlp'.
CREATE OR REPLACE FUNCTION import_otlp(data bytea, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'calltree_import_otlp'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_otlp(bytea, text, jsonb) IS 'imports an OpenTelemetry ExportProfilesServiceRequest (OTLP profiles v1development, protobuf, gzip-compressed or not), one profile per OTLP Profile, named by the resource''s service.name unless name is given; returns every profile id';

-- import_jfr, import_stream, or import_profile of a recording (the first id).
CREATE OR REPLACE FUNCTION import_jfr(data bytea, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                           sample_rate integer DEFAULT NULL, labels bytea DEFAULT NULL)
RETURNS bigint[]
AS 'MODULE_PATHNAME', 'calltree_import_jfr'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_jfr(bytea, text, jsonb, integer, bytea) IS 'imports a Java Flight Recorder recording (gzip-compressed or not), one profile per kind of sample event present (CPU, wall clock, allocations, live objects, monitor and park contentions and delays), a CPU or wall sample weighing 10^9/sample_rate ns (default: the recording''s own interval, else 100 Hz); labels: the Pyroscope Java agent''s LabelsSnapshot, giving samples their label sets by context id; returns every profile id';

-- Every import keeps the digest of the file (profile.content_sha256, gzip
-- undone); a file imported before is said with a NOTICE naming the earlier
-- profile.  on_duplicate: 'keep' (import it again), 'skip' (return the
-- earlier profile's id, import nothing) or 'error'.
CREATE OR REPLACE FUNCTION import_profile(data bytea, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                               strict boolean DEFAULT NULL, event text DEFAULT NULL,
                               sample_type text DEFAULT NULL, on_duplicate text DEFAULT 'keep')
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_profile'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_profile(bytea, text, jsonb, boolean, text, text, text) IS 'imports a profile of any supported format, recognized from its content (gzip and UTF-16 unwrapped), passing strict (collapsed), event (perf script) or sample_type (pprof) to its importer; a file imported before is kept again, skipped (the earlier id returned) or an error (on_duplicate: keep, skip, error); returns the profile id';

-- import_stream returns a row per profile the file made: one, or a JFR
-- recording's and an OTLP request's several (bin/calltree-load prints
-- them all); a file skipped as imported before gives the earlier id.
CREATE OR REPLACE FUNCTION import_stream(chunks regclass, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                              format text DEFAULT NULL, strict boolean DEFAULT NULL,
                              event text DEFAULT NULL, sample_type text DEFAULT NULL,
                              source text DEFAULT NULL, on_duplicate text DEFAULT 'keep')
RETURNS SETOF bigint
AS 'MODULE_PATHNAME', 'calltree_import_stream'
LANGUAGE C VOLATILE PARALLEL UNSAFE ROWS 1;
COMMENT ON FUNCTION import_stream(regclass, text, jsonb, text, boolean, text, text, text, text) IS 'imports a profile file sent as base64 chunks in a table (seq, chunk), as bin/calltree-load does: collapsed stacks and perf script as a stream, other formats whole, with the options of import_profile (on_duplicate too) and source (trace events); returns every profile id the file made (a JFR recording''s, an OTLP request''s several), in its order';
