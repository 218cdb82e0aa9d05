-- Reading bounded: report() in one pass gives exactly what its SQL formula
-- gives, and calltree.max_path_output refuses path output or walks that
-- grow with the square of the depth, before any work.

-- report(): name, percentages and label, against the SQL formula, for
-- shares that round at a half hundredth, signed weights, huge weights and
-- a func that calltree.func does not hold
CREATE TEMP TABLE shares (total bigint, part bigint);
INSERT INTO shares VALUES
  (200000, 1), (200000, 10), (200000, -10), (200000, 30), (3, 1), (3, 2),
  (7, 1), (7, -1), (1, 150), (1, -150), (200, 1),
  (9223372036854775807, 1), (9223372036854775807, 9223372036854775806),
  (9223372036854775807, 92233720368547758), (-9223372036854775807, -5),
  (1000000007, 10000000), (1000000007, 4999999), (999999999999, 5000000000);
SELECT count(*) AS shares,
       count(*) FILTER (WHERE r.running_pct::text IS DISTINCT FROM round(100.0 * s.part / s.total, 2)::text
                           OR r.self_pct::text IS DISTINCT FROM round(100.0 * s.part / s.total, 2)::text) AS differ
  FROM shares AS s,
       calltree.report(format('{1:%s/%s {2:%s/%s}}', s.total, s.total - s.part, s.part, s.part)::calltree.calltree) AS r
 WHERE r.func = 2;
SELECT s.total, s.part, r.running_pct, r.self_pct
  FROM shares AS s,
       calltree.report(format('{1:%s/%s {2:%s/%s}}', s.total, s.total - s.part, s.part, s.part)::calltree.calltree) AS r
 WHERE r.func = 2 AND s.total < 1000
 ORDER BY s.total, s.part;
-- names of funcs that calltree.func does not hold: #id; NULL shares of a zero total
SELECT node, depth, func, name, running_pct, self_pct, replace(label, ' ', '.') AS label
  FROM calltree.report('{-6:0/0 {-7:1/1, -8:-1/-1}}');

-- calltree.max_path_output: a chain 3 deep has 1 + 2 + 3 = 6 path elements
SET calltree.max_path_output = 5;
SELECT count(*) FROM calltree.nodes('{1:1/0 {2:1/0 {3:1/1}}}');
SELECT count(*) FROM calltree.report('{1:1/0 {2:1/0 {3:1/1}}}');
SELECT count(*) FROM calltree.collapse_recursions('{1:1/0 {2:1/0 {3:1/1}}}');
-- the exporters write the path of each node that holds samples: 3 here ...
SELECT calltree.to_collapsed('{-1:1/0 {-2:1/0 {-3:1/1}}}');
SELECT calltree.invert('{1:1/0 {2:1/0 {3:1/1}}}'::calltree.calltree);
-- ... and 6 when every node has self weight
SELECT calltree.to_collapsed('{1:3/1 {2:2/1 {3:1/1}}}');
SELECT length(calltree.to_pprof('{1:3/1 {2:2/1 {3:1/1}}}'));
SELECT calltree.to_speedscope('{1:3/1 {2:2/1 {3:1/1}}}');
SELECT calltree.invert('{1:3/1 {2:2/1 {3:1/1}}}'::calltree.calltree);
-- backtraces read each sample's path from the outermost call of the func up
-- to the root: below func 3 of this chain, 4 samples of 3 elements; in
-- 'self' mode only func 3's own, 3; below func 1, 4 samples of 1
SELECT calltree.backtraces('{1:4/0 {2:4/0 {3:4/1 {4:3/1 {5:2/1 {6:1/1}}}}}}', 3);
SELECT calltree.backtraces('{1:4/0 {2:4/0 {3:4/1 {4:3/1 {5:2/1 {6:1/1}}}}}}', 3, 'self');
SELECT calltree.backtraces('{1:4/0 {2:4/0 {3:4/1 {4:3/1 {5:2/1 {6:1/1}}}}}}', 1);
-- diff() writes the paths of the union of two trees: a chain and a copy
-- with other weights have a union of 6 elements, though each holds 6 ...
SELECT count(*) FROM calltree.diff('{1:1/0 {2:1/0 {3:1/1}}}', '{1:2/0 {2:2/0 {3:2/2}}}');
-- ... and two forks of root 1 have 1 + 2 + 2 = 5, not 3 + 3
SELECT count(*) FROM calltree.diff('{1:1/0 {2:1/1}}', '{1:1/0 {3:1/1}}');
SET calltree.max_path_output = 6;
SELECT count(*) FROM calltree.nodes('{1:1/0 {2:1/0 {3:1/1}}}');
SELECT count(*) FROM calltree.diff('{1:1/0 {2:1/0 {3:1/1}}}', '{1:2/0 {2:2/0 {3:2/2}}}');
SELECT calltree.invert('{1:3/1 {2:2/1 {3:1/1}}}'::calltree.calltree);
RESET calltree.max_path_output;
SELECT count(*) FROM calltree.nodes('{1:1/0 {2:1/0 {3:1/1}}}');
SHOW calltree.max_path_output;
