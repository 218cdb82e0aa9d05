--------------------------------------------------------------------------
-- Reading trees: a tree's nodes as rows (nodes, report, and latency for
-- the trees of traces), its functions, and its total weight.
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION nodes(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT calls bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_nodes'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION nodes(calltree) IS 'the CallNodes of a tree in depth-first preorder, siblings by running desc then func';

CREATE OR REPLACE FUNCTION functions(tree calltree,
    OUT func int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_functions'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION functions(calltree) IS 'per func: running (each sample once, even under recursion) and self';

CREATE OR REPLACE FUNCTION total(tree calltree) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_total'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION report(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT calls bigint,
    OUT name text, OUT running_pct numeric, OUT self_pct numeric, OUT label text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_report'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION report(calltree) IS 'nodes() with func names, percentages of the total and an indented label';

-- The nodes of a tree built by trace_agg, with how often each was called
-- and how long the calls took.
CREATE OR REPLACE FUNCTION latency(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT calls bigint, OUT min bigint, OUT max bigint, OUT mean float8,
    OUT p50 bigint, OUT p90 bigint, OUT p99 bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_latency'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION latency(calltree) IS 'per CallNode of a traced tree: calls and the distribution of their running time (quantiles within 1%)';
