-- tree - tree at the limits of bigint: each node's difference is computed
-- in one step, so it fails only when the difference itself does not fit,
-- never because a negation or a partial sum on the way does not.  The text
-- form is {func:running/self {children}}; expected values by hand.
SET search_path = calltree, public;

-- a - a is every node of a with weight 0, at both ends of the range
SELECT '{1:-9223372036854775808/-9223372036854775808}'::calltree
     - '{1:-9223372036854775808/-9223372036854775808}'::calltree AS min_minus_min;
SELECT '{1:9223372036854775807/9223372036854775807}'::calltree
     - '{1:9223372036854775807/9223372036854775807}'::calltree AS max_minus_max;
-- -1 - (-2^63) = 2^63 - 1; 0 - (2^63 - 1) = -(2^63 - 1)
SELECT '{1:-1/-1}'::calltree - '{1:-9223372036854775808/-9223372036854775808}'::calltree AS fits_max;
SELECT '{}'::calltree - '{1:9223372036854775807/9223372036854775807}'::calltree AS fits_negated_max;
-- differences that do not fit: -2 - (2^63 - 1) = -2^63 - 1,
-- (2^63 - 1) - (-1) = 2^63, 0 - (-2^63) = 2^63
SELECT '{1:-2/-2}'::calltree - '{1:9223372036854775807/9223372036854775807}'::calltree;
SELECT '{1:9223372036854775807/9223372036854775807}'::calltree - '{1:-1/-1}'::calltree;
SELECT '{}'::calltree - '{1:-9223372036854775808/-9223372036854775808}'::calltree;
-- a child at -2^63 under a parent of self 0, and siblings at both ends
-- (running -1): minus themselves, 0 everywhere
SELECT '{1:-9223372036854775808/0 {2:-9223372036854775808/-9223372036854775808}}'::calltree
     - '{1:-9223372036854775808/0 {2:-9223372036854775808/-9223372036854775808}}'::calltree AS nested_zero;
SELECT '{1:-1/0 {2:9223372036854775807/9223372036854775807, 3:-9223372036854775808/-9223372036854775808}}'::calltree
     - '{1:-1/0 {2:9223372036854775807/9223372036854775807, 3:-9223372036854775808/-9223372036854775808}}'::calltree AS siblings_zero;
-- the running weights of the result: parent -2 - (-3) = 1 over a child
-- 2^63 - 1 runs 2^63, which does not fit; parent -2 - (-1) = -1 over a
-- child (2^63 - 1) - 1 runs 2^63 - 3, which does
SELECT '{1:9223372036854775805/-2 {2:9223372036854775807/9223372036854775807}}'::calltree
     - '{1:-3/-3}'::calltree;
SELECT '{1:9223372036854775805/-2 {2:9223372036854775807/9223372036854775807}}'::calltree
     - '{1:0/-1 {2:1/1}}'::calltree AS running_fits;
