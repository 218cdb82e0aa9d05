--------------------------------------------------------------------------
-- Transforms.  Each exists twice with one meaning: on a func path
-- (int4[] -> int4[], NULL when the sample is dropped, so that
-- calltree_agg(transform(path), weight) applies it sample by sample) and on
-- a tree (calltree -> calltree, applied to the aggregated tree).
--
-- A function transform takes the function as a func id (int4), as a name
-- (text: every func of that exact name, one function in several builds)
-- or as an array of funcs (int4[]), a set counted as one function.  A func
-- id must be held by the tree (or path) or by calltree.func, a name by
-- calltree.func: the transforms that take funcs read calltree.func, so
-- they are STABLE.
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION merge_call_node(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_call_node_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION merge_call_node(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_call_node_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_call_node(calltree, int4[]) IS 'removes one CallNode: its self weight and its children go to its parent';

CREATE OR REPLACE FUNCTION merge_function(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION merge_function(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_function(calltree, int4) IS 'removes every CallNode of the function: self weight and children go to the parent';
CREATE OR REPLACE FUNCTION merge_function(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION merge_function(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_function(calltree, text) IS 'merge_function() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION merge_function(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION merge_function(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_function(calltree, int4[]) IS 'merge_function() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION merge_functions(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_functions_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION merge_functions(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_functions_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_functions(calltree, int4[]) IS 'merge_function for several functions at once';

CREATE OR REPLACE FUNCTION merge_subtree(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'merge_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION merge_subtree(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'merge_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION merge_subtree(calltree, int4[]) IS 'prunes a CallNode: its whole running weight becomes self weight of its parent';

CREATE OR REPLACE FUNCTION collapse_function_subtree(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_function_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION collapse_function_subtree(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_function_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_function_subtree(calltree, int4) IS 'everything below the function is charged to it as self weight';
CREATE OR REPLACE FUNCTION collapse_function_subtree(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_function_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION collapse_function_subtree(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_function_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_function_subtree(calltree, text) IS 'collapse_function_subtree() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION collapse_function_subtree(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_function_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION collapse_function_subtree(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_function_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_function_subtree(calltree, int4[]) IS 'collapse_function_subtree() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION hide_call_node(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'hide_call_node_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION hide_call_node(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'hide_call_node_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION hide_call_node(calltree, int4[]) IS 'drops the samples that pass through the CallNode';

CREATE OR REPLACE FUNCTION drop_function(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'drop_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION drop_function(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'drop_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION drop_function(calltree, int4) IS 'drops every sample that contains the function';
CREATE OR REPLACE FUNCTION drop_function(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'drop_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION drop_function(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'drop_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION drop_function(calltree, text) IS 'drop_function() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION drop_function(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'drop_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION drop_function(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'drop_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION drop_function(calltree, int4[]) IS 'drop_function() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION focus_subtree(path int4[], node_path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_subtree_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION focus_subtree(tree calltree, node_path int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_subtree_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_subtree(calltree, int4[]) IS 'keeps the samples through the CallNode, which becomes the root';

CREATE OR REPLACE FUNCTION focus_function(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION focus_function(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_function(calltree, int4) IS 'keeps the samples that contain the function, cut to start at its outermost call';
CREATE OR REPLACE FUNCTION focus_function(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION focus_function(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_function(calltree, text) IS 'focus_function() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION focus_function(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'focus_function_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION focus_function(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'focus_function_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION focus_function(calltree, int4[]) IS 'focus_function() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION collapse_direct_recursion(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION collapse_direct_recursion(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_direct_recursion(calltree, int4) IS 'the function calling itself directly becomes one call';
CREATE OR REPLACE FUNCTION collapse_direct_recursion(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION collapse_direct_recursion(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_direct_recursion(calltree, text) IS 'collapse_direct_recursion() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION collapse_direct_recursion(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION collapse_direct_recursion(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_direct_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_direct_recursion(calltree, int4[]) IS 'collapse_direct_recursion() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION collapse_recursion(path int4[], func int4) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION collapse_recursion(tree calltree, func int4) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_recursion(calltree, int4) IS 'removes everything between the outermost and the innermost call of the function';
CREATE OR REPLACE FUNCTION collapse_recursion(path int4[], name text) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION collapse_recursion(tree calltree, name text) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_recursion(calltree, text) IS 'collapse_recursion() of every func of that name, as one function';
CREATE OR REPLACE FUNCTION collapse_recursion(path int4[], funcs int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'collapse_recursion_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION collapse_recursion(tree calltree, funcs int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'collapse_recursion_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION collapse_recursion(calltree, int4[]) IS 'collapse_recursion() of a set of funcs, as one function';

CREATE OR REPLACE FUNCTION remap_functions(path int4[], "from" int4[], "to" int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'remap_functions_path' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION remap_functions(tree calltree, "from" int4[], "to" int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'remap_functions_tree' LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION remap_functions(calltree, int4[], int4[]) IS 'renames funcs, then merges a renamed func into an equal caller or callee';

CREATE OR REPLACE FUNCTION invert(path int4[]) RETURNS int4[]
AS 'MODULE_PATHNAME', 'invert_path' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION invert(tree calltree) RETURNS calltree
AS 'MODULE_PATHNAME', 'invert_tree_sql' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION invert(calltree) IS 'the bottom-up tree: roots are the functions that hold self weight';
