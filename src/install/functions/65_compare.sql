--------------------------------------------------------------------------
-- Comparing trees: the difference of two trees as a signed tree, their
-- CallNodes side by side, and their functions side by side as shares.
-- A signed tree is an ordinary tree: every function that reads a tree
-- reads it.
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION calltree_subtract(calltree, calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION calltree_subtract(calltree, calltree) IS 'the first tree''s samples minus the second''s: a signed tree with every node of both, without call counts';

-- normalize is a keyword of SQL (the normalize() function), so the
-- parameter's name is quoted; a call by name writes "normalize" => true.
CREATE OR REPLACE FUNCTION diff(base calltree, test calltree, "normalize" boolean DEFAULT false,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT base_running bigint, OUT base_self bigint, OUT test_running bigint, OUT test_self bigint,
    OUT delta_running bigint, OUT delta_self bigint, OUT base_share float8, OUT test_share float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_diff'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
COMMENT ON FUNCTION diff(calltree, calltree, boolean) IS 'one row per CallNode of either tree, in the order of nodes(base + test): both sides'' weights (0 where a side lacks the node), test minus base, running over each side''s total; normalize scales base to test''s total first';

CREATE OR REPLACE FUNCTION regressions(base calltree, test calltree, min_share float8 DEFAULT 0.005,
    OUT func int4, OUT name text,
    OUT base_self_share float8, OUT test_self_share float8, OUT delta_self_share float8,
    OUT base_running_share float8, OUT test_running_share float8, OUT delta_running_share float8)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_regressions'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION regressions(calltree, calltree, float8) IS 'per function of either tree (functions() weights): self and running shares of each side''s total and their change, the largest growth of self share first; functions under min_share on every share are left out';

CREATE OR REPLACE FUNCTION significant_changes(base calltree[], test calltree[], alpha float8 DEFAULT 0.05,
    OUT func int4, OUT name text,
    OUT base_running_share float8, OUT test_running_share float8, OUT delta_running_share float8,
    OUT base_self_share float8, OUT test_self_share float8, OUT delta_self_share float8,
    OUT effect_size float8, OUT p_value float8, OUT q_value float8, OUT significant boolean)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_significant_changes'
LANGUAGE C STABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION significant_changes(calltree[], calltree[], float8) IS 'per function of any tree: the mean running and self shares of each side''s trees and their change, the Mann-Whitney U test of the running shares (effect_size U/(n1 n2), two-sided p_value), Benjamini-Hochberg q_value over the functions tested, significant when q_value < alpha; the smallest p_value first';
