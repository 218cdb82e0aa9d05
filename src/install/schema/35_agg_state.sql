--------------------------------------------------------------------------
-- The state of stack_agg as a type of its own: weights summed per stack
-- id.  calltree_agg and calltree_merge need no such type, their state is a
-- calltree.  States of real types (not internal) can travel as values:
-- Citus ships a worker's partial state to the coordinator in its text
-- form, which is why the aggregates need them.
--------------------------------------------------------------------------

CREATE TYPE stack_weights;

CREATE FUNCTION stack_weights_in(cstring) RETURNS stack_weights
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_weights_out(stack_weights) RETURNS cstring
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_weights_recv(internal) RETURNS stack_weights
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION stack_weights_send(stack_weights) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE stack_weights (
    INPUT          = stack_weights_in,
    OUTPUT         = stack_weights_out,
    RECEIVE        = stack_weights_recv,
    SEND           = stack_weights_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT      = double,
    STORAGE        = extended
);

COMMENT ON TYPE stack_weights IS 'the state of stack_agg: a weight summed per stack id, written {stack_id:weight,...} in ascending id order';
COMMENT ON FUNCTION stack_weights_in(cstring) IS 'text input of stack_weights: {stack_id:weight,...}, ids ascending';
COMMENT ON FUNCTION stack_weights_out(stack_weights) IS 'text output of stack_weights: {stack_id:weight,...}, ids ascending';
COMMENT ON FUNCTION stack_weights_recv(internal) IS 'binary input of stack_weights';
COMMENT ON FUNCTION stack_weights_send(stack_weights) IS 'binary output of stack_weights';
