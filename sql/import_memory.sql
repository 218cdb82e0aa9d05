-- Streamed formats (collapsed stacks, perf script) stay within
-- calltree.import_work_mem: past it, the import writes what is pending and
-- empties its caches of stacks, then finds the rows it wrote again through
-- the index.  The profile must be the same as with caches that never empty:
-- the same stacks, the same stack ids, no duplicate and no missing row.
SET search_path = calltree, public;
SELECT total(calltree_agg(ARRAY[1], 1)) AS loads_the_module;
\set VERBOSITY terse

SHOW calltree.import_work_mem;
SET calltree.import_work_mem = '512kB';   -- below the minimum
SET calltree.import_work_mem = '1MB';

-- 6,000 lines of distinct stacks, 9 to 25 frames deep: shallow frames
-- change every 2048 lines, deep ones every line, so stacks share prefixes
-- as real ones do, and there are tens of thousands of stack rows.
CREATE TEMP TABLE mem_lines AS
SELECT i,
       ARRAY['memtest_root' || (i % 5)] ||
       ARRAY(SELECT 'memtest_fn' || (((i >> (12 - least(d, 12))) * 7 + d * 13) % 997)
               FROM generate_series(1, 8 + i % 17) d) AS names,
       1 + i % 9 AS weight
  FROM generate_series(1, 6000) i;

-- what the import must write: one stack row per distinct prefix
CREATE TEMP TABLE mem_expect AS
SELECT (SELECT count(*) FROM mem_lines) AS lines,
       (SELECT sum(weight) FROM mem_lines) AS weight,
       (SELECT count(DISTINCT names[1:k]) FROM mem_lines, generate_series(1, array_length(names, 1)) k) AS stack_rows;
SELECT * FROM mem_expect;

CREATE TEMP TABLE mem_text AS
SELECT string_agg(array_to_string(names, ';') || ' ' || weight, E'\n' ORDER BY i) AS body FROM mem_lines;

CREATE TEMP TABLE mem_counts (step text, stacks bigint);
INSERT INTO mem_counts SELECT 'before', count(*) FROM stack;

-- with 1MB the caches empty several times; the message says when
SET client_min_messages = debug1;
SELECT import_collapsed(body, name => 'memory-bounded') AS bounded FROM mem_text \gset
RESET client_min_messages;
INSERT INTO mem_counts SELECT 'bounded', count(*) FROM stack;

-- the same file again, with room to spare: every stack known
SET calltree.import_work_mem = '256MB';
SELECT import_collapsed(body, name => 'memory-unbounded') AS unbounded FROM mem_text \gset
INSERT INTO mem_counts SELECT 'unbounded', count(*) FROM stack;

-- the bounded import wrote one row per distinct prefix, the second none
SELECT (SELECT stacks FROM mem_counts WHERE step = 'bounded') - (SELECT stacks FROM mem_counts WHERE step = 'before')
         AS bounded_rows,
       (SELECT stacks FROM mem_counts WHERE step = 'unbounded') - (SELECT stacks FROM mem_counts WHERE step = 'bounded')
         AS repeat_rows,
       (SELECT stack_rows FROM mem_expect) AS expected_rows;

-- every sample has the stack of a line, with its weight, each line one
-- sample (the lines' stacks are distinct), in both profiles: samples
-- keep no order of insertion, so they are matched by content, and the
-- two profiles' samples compared in stack order
CREATE TEMP TABLE mem_funcs AS
SELECT f.name, f.id FROM func f WHERE f.name LIKE 'memtest%' AND f.file IS NULL AND f.resource IS NULL;
SELECT count(*) AS samples,
       sum(s.weight) AS weight,
       count(DISTINCT l.i) AS right_path,
       count(*) FILTER (WHERE s.stack_id = u.stack_id AND s.weight = u.weight) AS same_stack_as_unbounded
  FROM (SELECT stack_id, weight, row_number() OVER (ORDER BY stack_id, weight) AS k FROM sample WHERE profile_id = :bounded) s
  JOIN (SELECT stack_id, weight, row_number() OVER (ORDER BY stack_id, weight) AS k FROM sample WHERE profile_id = :unbounded) u USING (k)
  LEFT JOIN (SELECT i, weight,
                    ARRAY(SELECT mf.id FROM unnest(names) WITH ORDINALITY AS n(name, k)
                            JOIN mem_funcs mf ON mf.name = n.name ORDER BY n.k) AS path
               FROM mem_lines) l ON l.path = stack_path(s.stack_id) AND l.weight = s.weight;

-- perf script: address frames ([unknown]) and symbols, many threads; the
-- frame cache keeps its frames across the emptying, under their real ids
SET calltree.import_work_mem = '1MB';
CREATE TEMP TABLE mem_perf AS
SELECT string_agg(format(E'memtest %s/%s 1.%s: 1 cycles:\n%s\n', 100 + i % 3, 100 + i % 3, lpad(i::text, 6, '0'),
                         (SELECT string_agg(CASE WHEN d % 4 = 0
                                                 THEN format(E'\t%s [unknown] (memtest.so)', to_hex(4096 * d + (i >> 4) % 64))
                                                 ELSE format(E'\t%s %s+0x1 (memtest_bin)', to_hex(d),
                                                             array_to_string(l.names[d:d], ''))
                                            END, E'\n' ORDER BY d DESC)
                            FROM generate_series(1, array_length(l.names, 1)) d)),
                  E'\n' ORDER BY i) AS body
  FROM mem_lines l WHERE i <= 3000;
SET client_min_messages = debug1;
SELECT import_perf_script(body, name => 'memory-bounded-perf') AS perf_bounded FROM mem_perf \gset
RESET client_min_messages;
SET calltree.import_work_mem = '256MB';
SELECT count(*) AS stacks_before_repeat FROM stack \gset
SELECT import_perf_script(body, name => 'memory-unbounded-perf') AS perf_unbounded FROM mem_perf \gset
SELECT count(*) - :stacks_before_repeat AS repeat_rows,
       (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :perf_bounded) =
       (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :perf_unbounded) AS same_tree,
       (SELECT array_agg(stack_id ORDER BY thread, ts, stack_id) FROM sample WHERE profile_id = :perf_bounded) =
       (SELECT array_agg(stack_id ORDER BY thread, ts, stack_id) FROM sample WHERE profile_id = :perf_unbounded) AS same_stacks,
       (SELECT count(*) FROM sample WHERE profile_id = :perf_bounded) AS samples
  FROM stack;

-- under REPEATABLE READ too (the import's own rows are found again in a
-- newer snapshot; the references are checked, as at that level always)
SET calltree.import_work_mem = '1MB';
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT import_collapsed(body || E'\nmemtest_rr;memtest_fn1 5', name => 'memory-rr') AS rr FROM mem_text \gset
SELECT (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :rr) =
       (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :bounded) +
       calltree_agg(ARRAY[(SELECT id FROM func WHERE name = 'memtest_rr'),
                          (SELECT id FROM func WHERE name = 'memtest_fn1' AND file IS NULL AND resource IS NULL)], 5)
         AS rr_tree_right;
COMMIT;

-- every line twice, the second time after the whole file: the import's
-- memo (of each line's stack text, copied from the input) finds the stack
-- of a line met before, unless the caches were emptied since, and then
-- the walk finds it; either way each line has the stack and the weight it
-- had in the first import, twice
SELECT import_collapsed(body || E'\n' || body, name => 'memory-twice') AS twice FROM mem_text \gset
SET calltree.import_work_mem = '256MB';
SELECT import_collapsed(body || E'\n' || body, name => 'memory-twice-unbounded') AS twice_unbounded FROM mem_text \gset
CREATE TEMP TABLE mem_twice AS
SELECT array_agg(stack_id || ':' || weight ORDER BY stack_id, weight) AS samples
  FROM (SELECT stack_id, weight FROM sample WHERE profile_id = :bounded
        UNION ALL SELECT stack_id, weight FROM sample WHERE profile_id = :bounded) s;
SELECT (SELECT array_agg(stack_id || ':' || weight ORDER BY stack_id, weight) FROM sample WHERE profile_id = :twice) =
       samples AS twice_same_samples,
       (SELECT array_agg(stack_id || ':' || weight ORDER BY stack_id, weight) FROM sample WHERE profile_id = :twice_unbounded) =
       samples AS twice_unbounded_same_samples,
       cardinality(samples) AS twice_samples
  FROM mem_twice;
RESET calltree.import_work_mem;
