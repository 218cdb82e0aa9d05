--------------------------------------------------------------------------
-- Analyses (JProfiler's call tree analyses, the butterfly)
--------------------------------------------------------------------------

CREATE FUNCTION callers(tree calltree, func int4,
    OUT caller int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callers'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callers(calltree, int4) IS 'direct callers of a function (NULL: called as a root), each sample counted once per caller';

CREATE FUNCTION callees(tree calltree, func int4,
    OUT callee int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callees'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callees(calltree, int4) IS 'direct callees of a function, each sample counted once per callee';

CREATE FUNCTION outgoing_calls(tree calltree, func int4,
    OUT call_sites bigint, OUT outgoing calltree)
RETURNS record
AS 'MODULE_PATHNAME', 'calltree_outgoing_calls'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION outgoing_calls(calltree, int4) IS 'all top-level calls of a function summed into one tree rooted at it, and how many call sites were summed';

CREATE FUNCTION backtraces(tree calltree, func int4, mode text DEFAULT 'total')
RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_backtraces'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION backtraces(calltree, int4, text) IS 'the call paths into a function, read upwards from it; mode total (cut at its outermost call) or self (samples where it is the leaf)';

CREATE FUNCTION collapse_recursions(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT recursions bigint, OUT merged_stacks bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_collapse_recursions'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION collapse_recursions(calltree) IS 'the tree with every recursion stitched back to the first call of its function, with per node the recursions stitched to it and the original nodes merged into it';
