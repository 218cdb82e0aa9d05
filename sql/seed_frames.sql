-- The Firefox Profiler's documentation ("Frames, funcs, stacks
-- and CallNodes in C++"): frames at different addresses of main() and of
-- doSomething() are different stacks, but the call tree is built from
-- funcs: main → doSomething and main → someInterlude.
SET search_path = calltree, public;

SELECT intern_func('main', 'example.cpp') AS main,
       intern_func('doSomething', 'example.cpp') AS do_something,
       intern_func('someInterlude', 'example.cpp') AS some_interlude \gset

-- one frame per address that was on a stack
CREATE TEMP TABLE seed_frames AS
SELECT addr, intern_frame(func, addr) AS frame
  FROM (VALUES (:main, 2), (:main, 3), (:main, 6), (:main, 8), (:main, 9),
               (:do_something, 17), (:some_interlude, 21)) AS v(func, addr);

-- the documentation's stacks: 0x02; 0x03 → 0x11; 0x06 → 0x15; 0x08; 0x09 → 0x11
CREATE TEMP TABLE seed_stacks AS
SELECT leaf, intern_stack(prefix, (SELECT frame FROM seed_frames WHERE addr = leaf)) AS stack, weight
  FROM (SELECT 2 AS leaf, NULL::bigint AS prefix, 1 AS weight
        UNION ALL SELECT 8, NULL, 1) AS roots;
INSERT INTO seed_stacks
SELECT leaf, intern_stack(intern_stack(NULL, (SELECT frame FROM seed_frames WHERE addr = caller)),
                          (SELECT frame FROM seed_frames WHERE addr = leaf)), weight
  FROM (VALUES (3, 17, 10), (6, 21, 1), (9, 17, 10)) AS v(caller, leaf, weight);

-- 7 frames and 8 stack rows (5 with main at the root, 3 below), but 3 CallNodes
SELECT count(*) AS frames FROM frame WHERE func_id IN (:main, :do_something, :some_interlude);
SELECT count(*) AS stacks FROM stack s JOIN frame f ON f.id = s.frame_id
 WHERE f.func_id IN (:main, :do_something, :some_interlude);

INSERT INTO profile (name, format) VALUES ('seed 002', 'test') RETURNING id AS seed_profile \gset
INSERT INTO sample (profile_id, stack_id, weight) SELECT :seed_profile, stack, weight FROM seed_stacks;

-- main: running 1+10+1+1+10 = 23, self 2 (0x02 and 0x08 are leaves);
-- doSomething: 10+10 from two different stacks; someInterlude: 1
SELECT label, running, self
  FROM report((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :seed_profile));

-- stack_path gives funcs, not frames: both doSomething stacks have one path
SELECT s.leaf, array(SELECT f.name FROM unnest(stack_path(s.stack)) WITH ORDINALITY AS u(func, i)
                      JOIN func f ON f.id = u.func ORDER BY u.i) AS path
  FROM seed_stacks AS s ORDER BY s.leaf;
SELECT count(DISTINCT stack_path(stack)) AS distinct_paths, count(DISTINCT stack) AS distinct_stacks
  FROM seed_stacks;
