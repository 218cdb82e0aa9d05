--------------------------------------------------------------------------
-- Analyses: questions about one function or one node of a tree.  The
-- butterfly (callers and callees of a function), the calls out of it and
-- the paths into it, recursions stitched back together; from a profile's
-- samples, its calls over time (the data of a flame chart) and the lines
-- of a node's function that cost the most.
--
-- As the transforms, the analyses of one function take it as a func id,
-- a name (every func of that name) or an array of funcs counted as one
-- function; they read calltree.func to check them, so they are STABLE.
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION callers(tree calltree, func int4,
    OUT caller int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callers'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callers(calltree, int4) IS 'direct callers of a function (NULL: called as a root), each sample counted once per caller';
CREATE OR REPLACE FUNCTION callers(tree calltree, name text,
    OUT caller int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callers'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callers(calltree, text) IS 'callers() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION callers(tree calltree, funcs int4[],
    OUT caller int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callers'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callers(calltree, int4[]) IS 'callers() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION callees(tree calltree, func int4,
    OUT callee int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callees'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callees(calltree, int4) IS 'direct callees of a function, each sample counted once per callee';
CREATE OR REPLACE FUNCTION callees(tree calltree, name text,
    OUT callee int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callees'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callees(calltree, text) IS 'callees() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION callees(tree calltree, funcs int4[],
    OUT callee int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_callees'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION callees(calltree, int4[]) IS 'callees() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION outgoing_calls(tree calltree, func int4,
    OUT call_sites bigint, OUT outgoing calltree)
RETURNS record
AS 'MODULE_PATHNAME', 'calltree_outgoing_calls'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION outgoing_calls(calltree, int4) IS 'all top-level calls of a function summed into one tree rooted at it, and how many call sites were summed';
CREATE OR REPLACE FUNCTION outgoing_calls(tree calltree, name text,
    OUT call_sites bigint, OUT outgoing calltree)
RETURNS record
AS 'MODULE_PATHNAME', 'calltree_outgoing_calls'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION outgoing_calls(calltree, text) IS 'outgoing_calls() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION outgoing_calls(tree calltree, funcs int4[],
    OUT call_sites bigint, OUT outgoing calltree)
RETURNS record
AS 'MODULE_PATHNAME', 'calltree_outgoing_calls'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION outgoing_calls(calltree, int4[]) IS 'outgoing_calls() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION backtraces(tree calltree, func int4, mode text DEFAULT 'total')
RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_backtraces'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION backtraces(calltree, int4, text) IS 'the call paths into a function, read upwards from it; mode total (cut at its outermost call) or self (samples where it is the leaf)';
CREATE OR REPLACE FUNCTION backtraces(tree calltree, name text, mode text DEFAULT 'total')
RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_backtraces'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION backtraces(calltree, text, text) IS 'backtraces() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION backtraces(tree calltree, funcs int4[], mode text DEFAULT 'total')
RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_backtraces'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION backtraces(calltree, int4[], text) IS 'backtraces() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION collapse_recursions(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT recursions bigint, OUT merged_stacks bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_collapse_recursions'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION collapse_recursions(calltree) IS 'the tree with every recursion stitched back to the first call of its function, with per node the recursions stitched to it and the original nodes merged into it';

-- One function's weights as scalars, with functions()'s meaning: running
-- counts a sample once however often the function recurs; 0 when the
-- tree does not hold the function.  For a time series of one function,
-- one row per tree.
CREATE OR REPLACE FUNCTION running_of(tree calltree, func int4) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_running_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION running_of(calltree, int4) IS 'running weight of a function, as functions() reports it; 0 when the tree does not hold it';
CREATE OR REPLACE FUNCTION running_of(tree calltree, name text) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_running_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION running_of(calltree, text) IS 'running weight of every func of that name, as one function';
CREATE OR REPLACE FUNCTION running_of(tree calltree, funcs int4[]) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_running_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION running_of(calltree, int4[]) IS 'running weight of a set of funcs, as one function: a sample is counted once';

CREATE OR REPLACE FUNCTION self_of(tree calltree, func int4) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_self_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION self_of(calltree, int4) IS 'self weight of a function, as functions() reports it; 0 when the tree does not hold it';
CREATE OR REPLACE FUNCTION self_of(tree calltree, name text) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_self_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION self_of(calltree, text) IS 'self weight of every func of that name, as one function';
CREATE OR REPLACE FUNCTION self_of(tree calltree, funcs int4[]) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_self_of' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION self_of(calltree, int4[]) IS 'self weight of a set of funcs, as one function';

-- The two below read a profile's samples rather than a tree: their order
-- in time, and the frame (address or line) that each holds.
CREATE OR REPLACE FUNCTION estimated_calls(profile bigint, thread text DEFAULT NULL,
    OUT thread_name text, OUT func int4, OUT depth int4, OUT path int4[],
    OUT start_ts bigint, OUT end_ts bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_estimated_calls'
LANGUAGE C STABLE PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION estimated_calls(bigint, text) IS 'calls estimated from time-ordered samples (Chrome''s ProfileCalls): the data of a flame chart';

CREATE OR REPLACE FUNCTION lines(profile bigint, node_path int4[],
    OUT frame bigint, OUT address bigint, OUT line int4, OUT col int4,
    OUT self bigint, OUT running bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_lines'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 20;
COMMENT ON FUNCTION lines(bigint, int4[]) IS 'per frame (address, line) of a CallNode''s function: self weight, and running weight of the samples through the CallNode';
