--------------------------------------------------------------------------
-- Aggregates.  All share one shape: an internal state in the aggregate's
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
