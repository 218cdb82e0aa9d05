--------------------------------------------------------------------------
-- Reading trees
--------------------------------------------------------------------------

CREATE FUNCTION nodes(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT calls bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_nodes'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION nodes(calltree) IS 'the CallNodes of a tree in depth-first preorder, siblings by running desc then func';

CREATE FUNCTION functions(tree calltree,
    OUT func int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_functions'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION functions(calltree) IS 'per func: running (each sample once, even under recursion) and self';

CREATE FUNCTION total(tree calltree) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_total'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION report(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT calls bigint,
    OUT name text, OUT running_pct numeric, OUT self_pct numeric, OUT label text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_report'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION report(calltree) IS 'nodes() with func names, percentages of the total and an indented label';
