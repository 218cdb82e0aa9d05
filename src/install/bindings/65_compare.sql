-- The operator of comparison (functions/65_compare.sql).
CREATE OPERATOR - (
    LEFTARG = calltree, RIGHTARG = calltree, PROCEDURE = calltree_subtract
);
COMMENT ON OPERATOR - (calltree, calltree) IS 'the first tree''s samples minus the second''s: test - base is what changed';
