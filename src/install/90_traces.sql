
--------------------------------------------------------------------------
-- Instrumented traces: enter/exit events and the function call trie
--------------------------------------------------------------------------

CREATE TABLE event (
    profile_id bigint NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
    thread     text,
    ts         bigint NOT NULL,
    func_id    int4 NOT NULL REFERENCES func (id),
    enter      boolean NOT NULL,
    seq        bigint NOT NULL    -- order of events with equal timestamps
);
CREATE INDEX event_profile_idx ON event (profile_id, thread, ts, seq);
COMMENT ON TABLE event IS 'enter/exit events of instrumented traces; ts in ns from profile start';
SELECT pg_catalog.pg_extension_config_dump('event', '');

CREATE FUNCTION trace_agg_transfn(internal, int4, boolean, bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION trace_agg_finalfn(internal) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The events of one thread, in time order (the ORDER BY is the caller's):
--   trace_agg(func_id, enter, ts ORDER BY ts, seq)
-- No combine function: the trie is built by replaying events in order.
-- Trees of several threads merge with calltree_merge.
CREATE AGGREGATE trace_agg(func int4, enter boolean, ts bigint) (
    SFUNC = trace_agg_transfn, STYPE = internal,
    FINALFUNC = trace_agg_finalfn, FINALFUNC_MODIFY = READ_WRITE,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE trace_agg(int4, boolean, bigint) IS 'the XRay function call trie of one thread''s enter/exit events: calls, self (local time) and running (tree time) per CallNode';

CREATE FUNCTION latency(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT calls bigint, OUT min bigint, OUT max bigint, OUT mean float8,
    OUT p50 bigint, OUT p90 bigint, OUT p99 bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_latency'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION latency(calltree) IS 'per CallNode of a traced tree: calls and the distribution of their running time (quantiles within 1%)';

--------------------------------------------------------------------------
-- Time order and lines
--------------------------------------------------------------------------

CREATE FUNCTION estimated_calls(profile bigint, thread text DEFAULT NULL,
    OUT thread_name text, OUT func int4, OUT depth int4, OUT path int4[],
    OUT start_ts bigint, OUT end_ts bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_estimated_calls'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION estimated_calls(bigint, text) IS 'calls estimated from time-ordered samples (Chrome''s ProfileCalls): the data of a flame chart';

CREATE FUNCTION lines(profile bigint, node_path int4[],
    OUT frame bigint, OUT address bigint, OUT line int4, OUT col int4,
    OUT self bigint, OUT running bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_lines'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION lines(bigint, int4[]) IS 'per frame (address, line) of a CallNode''s function: self weight, and running weight of the samples through the CallNode';

-- source: 'samples' (the CPU samples: Profile/ProfileChunk events, Hermes
-- samples/stackFrames) into calltree.sample, 'events' (B/E/X events) into
-- calltree.event, or NULL: the samples when the file has any.
CREATE FUNCTION import_trace_events(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
    source text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_trace_events'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_trace_events(text, text, jsonb, text) IS 'imports Chrome trace-event JSON: its CPU samples (Profile/ProfileChunk events, Hermes samples) into calltree.sample, or its B/E and X events into calltree.event (source => ''samples'' or ''events''; NULL: the samples when there are any); returns the profile id';
