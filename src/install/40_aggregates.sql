--------------------------------------------------------------------------
-- Aggregates: the ways to build a call tree from rows.  calltree_agg
-- builds it from func paths, calltree_merge from trees, stack_agg from
-- stack ids, trace_agg from the enter and exit events of a trace.  All
-- but trace_agg share one shape: an internal state in the aggregate's
-- memory context, a combine function for partial aggregation, and
-- (de)serialization to bytea so parallel workers can hand states over.
--------------------------------------------------------------------------

-- calltree_agg and calltree_merge build the same state: a tree under
-- construction.
CREATE FUNCTION calltree_agg_transfn(internal, int4[], bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_agg_transfn(internal, int4[]) RETURNS internal
AS 'MODULE_PATHNAME', 'calltree_agg_transfn_unit' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_merge_transfn(internal, calltree) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_agg_combinefn(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION calltree_agg_serialfn(internal) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_agg_deserialfn(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_agg_finalfn(internal) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE calltree_agg(path int4[], weight bigint) (
    SFUNC = calltree_agg_transfn, STYPE = internal,
    FINALFUNC = calltree_agg_finalfn,
    COMBINEFUNC = calltree_agg_combinefn,
    SERIALFUNC = calltree_agg_serialfn, DESERIALFUNC = calltree_agg_deserialfn,
    PARALLEL = SAFE
);
CREATE AGGREGATE calltree_agg(path int4[]) (
    SFUNC = calltree_agg_transfn, STYPE = internal,
    FINALFUNC = calltree_agg_finalfn,
    COMBINEFUNC = calltree_agg_combinefn,
    SERIALFUNC = calltree_agg_serialfn, DESERIALFUNC = calltree_agg_deserialfn,
    PARALLEL = SAFE
);
CREATE AGGREGATE calltree_merge(calltree) (
    SFUNC = calltree_merge_transfn, STYPE = internal,
    FINALFUNC = calltree_agg_finalfn,
    COMBINEFUNC = calltree_agg_combinefn,
    SERIALFUNC = calltree_agg_serialfn, DESERIALFUNC = calltree_agg_deserialfn,
    PARALLEL = SAFE
);

-- stack_agg sums weights per stack id; the final function resolves each
-- distinct stack to its func path once, through the stack table.
CREATE FUNCTION stack_agg_transfn(internal, bigint, bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION stack_agg_transfn(internal, bigint) RETURNS internal
AS 'MODULE_PATHNAME', 'stack_agg_transfn_unit' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION stack_agg_combinefn(internal, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION stack_agg_serialfn(internal) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_agg_deserialfn(bytea, internal) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_agg_finalfn(internal) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;

CREATE AGGREGATE stack_agg(stack_id bigint, weight bigint) (
    SFUNC = stack_agg_transfn, STYPE = internal,
    FINALFUNC = stack_agg_finalfn,
    COMBINEFUNC = stack_agg_combinefn,
    SERIALFUNC = stack_agg_serialfn, DESERIALFUNC = stack_agg_deserialfn,
    PARALLEL = SAFE
);
CREATE AGGREGATE stack_agg(stack_id bigint) (
    SFUNC = stack_agg_transfn, STYPE = internal,
    FINALFUNC = stack_agg_finalfn,
    COMBINEFUNC = stack_agg_combinefn,
    SERIALFUNC = stack_agg_serialfn, DESERIALFUNC = stack_agg_deserialfn,
    PARALLEL = SAFE
);

-- trace_agg replays the enter and exit events of a trace (the event table)
-- into a call tree that also counts the calls of each node and keeps the
-- distribution of their durations, which latency() reads.
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
