--------------------------------------------------------------------------
-- The samples type: a profile's samples packed into one value, each a
-- stack id, a weight and, where the format has them, a time and a label
-- set id.  A multiset (duplicates kept), stored column by column with
-- variable-length integers at about 2 bytes per sample without times;
-- src/tree/samples.h documents the layout to the byte and docs/storage.md
-- its cost.  The text form is {stack_id:weight@ts#labels_id,...}; the
-- binary form is the packed bytes, checked on receipt.
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
