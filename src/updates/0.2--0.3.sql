-- calltree 0.2 -> 0.3: the changes of objects that are made once (types,
-- tables, indexes, triggers, operators), written by hand.  The functions
-- of src/install/functions/ are replayed after this file by the generated
-- upgrade script, so a function whose arguments or result change is
-- dropped here first (with what depends on it); a new function that a new
-- trigger or operator names is created here before it.

--------------------------------------------------------------------------
-- samples: the packed type calltree.samples (src/install/schema/36_samples.sql);
-- its readers, samples_agg and stack_agg(samples) come with the replayed functions.
--------------------------------------------------------------------------
CREATE TYPE samples;

CREATE FUNCTION samples_in(cstring) RETURNS samples
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION samples_out(samples) RETURNS cstring
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION samples_recv(internal) RETURNS samples
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION samples_send(samples) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE samples (
    INPUT          = samples_in,
    OUTPUT         = samples_out,
    RECEIVE        = samples_recv,
    SEND           = samples_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT      = int4,
    STORAGE        = extended
);

COMMENT ON TYPE samples IS 'a multiset of samples packed column-wise: each a stack id, a weight and optionally a time and a label set id, written {stack_id:weight@ts#labels_id,...}';
COMMENT ON FUNCTION samples_in(cstring) IS 'text input of samples: {stack_id:weight@ts#labels_id,...}, time and label set optional, samples in any order';
COMMENT ON FUNCTION samples_out(samples) IS 'text output of samples: {stack_id:weight@ts#labels_id,...} in canonical order (untimed samples by stack, then the others by time)';
COMMENT ON FUNCTION samples_recv(internal) IS 'binary input of samples: the packed bytes, checked';
COMMENT ON FUNCTION samples_send(samples) IS 'binary output of samples: the packed bytes';
