-- The operators of the call-node transforms (functions/60_transforms.sql),
-- each the twin of one of them:
--   path %> node   focus_subtree      (keep what is under the node, rooted at it)
--   path %! node   hide_call_node     (drop what passes through the node)
--   path %- node   merge_call_node    (remove the node, keep what is under it)
-- The % family clashes neither with the array operators nor with intarray's.
CREATE OPERATOR %> (LEFTARG = int4[], RIGHTARG = int4[], FUNCTION = focus_subtree);
CREATE OPERATOR %! (LEFTARG = int4[], RIGHTARG = int4[], FUNCTION = hide_call_node);
CREATE OPERATOR %- (LEFTARG = int4[], RIGHTARG = int4[], FUNCTION = merge_call_node);
CREATE OPERATOR %> (LEFTARG = calltree, RIGHTARG = int4[], FUNCTION = focus_subtree);
CREATE OPERATOR %! (LEFTARG = calltree, RIGHTARG = int4[], FUNCTION = hide_call_node);
CREATE OPERATOR %- (LEFTARG = calltree, RIGHTARG = int4[], FUNCTION = merge_call_node);
