--------------------------------------------------------------------------
-- The calltree type: an aggregated call tree as one value, with its text
-- and binary input and output, equality and hashing (so that trees can be
-- grouped and compared), and + to add two trees.
--------------------------------------------------------------------------

CREATE TYPE calltree;

CREATE FUNCTION calltree_in(cstring) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_out(calltree) RETURNS cstring
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_recv(internal) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_send(calltree) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE calltree (
    INPUT          = calltree_in,
    OUTPUT         = calltree_out,
    RECEIVE        = calltree_recv,
    SEND           = calltree_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT      = double,
    STORAGE        = extended
);

COMMENT ON TYPE calltree IS 'an aggregated call tree: func paths with running and self weights';

CREATE FUNCTION calltree_eq(calltree, calltree) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION calltree_ne(calltree, calltree) RETURNS boolean
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION calltree_hash(calltree) RETURNS int4
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION calltree_add(calltree, calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR = (
    LEFTARG = calltree, RIGHTARG = calltree, PROCEDURE = calltree_eq,
    COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
);
CREATE OPERATOR <> (
    LEFTARG = calltree, RIGHTARG = calltree, PROCEDURE = calltree_ne,
    COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR + (
    LEFTARG = calltree, RIGHTARG = calltree, PROCEDURE = calltree_add,
    COMMUTATOR = +
);

CREATE OPERATOR CLASS calltree_hash_ops
DEFAULT FOR TYPE calltree USING hash AS
    OPERATOR 1 = (calltree, calltree),
    FUNCTION 1 calltree_hash(calltree);
