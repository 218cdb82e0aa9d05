-- The call tree example of the Firefox Profiler's documentation: three
-- samples 1 ms apart, A→B→C→D→E, A→B→C→F→G, A→B→H→F.  Its tree:
--   A:3,0 → B:3,0 → { C:2,0 → { D:1,0 → E:1,1 ; F:1,0 → G:1,1 } ; H:1,0 → F:1,1 }
SET search_path = calltree, public;

INSERT INTO profile (name, format, weight_unit)
VALUES ('seed 000', 'test', 'ms') RETURNING id AS seed_profile \gset

INSERT INTO sample (profile_id, thread, ts, stack_id, weight)
SELECT :seed_profile, 'main', ms * 1000000, intern_stack(names), 1
  FROM (VALUES (1, ARRAY['A','B','C','D','E']),
               (2, ARRAY['A','B','C','F','G']),
               (3, ARRAY['A','B','H','F'])) AS v(ms, names);

CREATE TEMP TABLE seed_tree AS
SELECT stack_agg(stack_id, weight) AS tree FROM sample WHERE profile_id = :seed_profile;

-- every CallNode with its running and self time, in preorder
SELECT label, running, self, running_pct, self_pct FROM report((SELECT tree FROM seed_tree));

-- F is one func but two CallNodes: A→B→C→F (1,0) and A→B→H→F (1,1)
SELECT r.node, r.depth, r.running, r.self
  FROM report((SELECT tree FROM seed_tree)) AS r WHERE r.name = 'F';

-- the same tree straight from func paths
SELECT calltree_agg(stack_path(stack_id), weight) = (SELECT tree FROM seed_tree) AS same_tree
  FROM sample WHERE profile_id = :seed_profile;

-- hot spots: F runs in 2 samples, is the leaf of 1
SELECT f.name, fn.running, fn.self
  FROM functions((SELECT tree FROM seed_tree)) AS fn JOIN func AS f ON f.id = fn.func
 ORDER BY fn.running DESC, f.name;

SELECT total(tree) FROM seed_tree;
