-- The canonical order that packing sorts samples into (src/tree/samples.h):
-- random multisets of several shapes (few and many stacks, ids near each
-- other and across the whole int64 range, negative ids, one stack only,
-- with and without times and label sets, few label sets and thousands,
-- weights of a unit of 1, 3 and 10,000,000, times of steps of 1 and 1000)
-- come back from a packed value exactly as the rows sorted by that order.
-- Packing groups samples without a time by stack in a hash table, sorts
-- the stacks by the bytes of their ids, then the samples of a stack by
-- comparison, and numbers the label sets by the same table: a wrong sort
-- or numbering makes a value that is not canonical, which unpacking
-- refuses, or a different multiset or order.
SELECT setseed(0.3);
DO $$
DECLARE
  shape int;
  n int;
  same bool;
  differing int := 0;
BEGIN
  FOR trial IN 1..120 LOOP
    shape := trial % 6;
    n := (random() * 2000)::int + 1;
    CREATE TEMP TABLE t AS
      SELECT CASE shape WHEN 0 THEN (random() * 300)::bigint
                        WHEN 1 THEN (random() * 1e12)::bigint - 500000000000
                        WHEN 2 THEN 1000000 + (random() * 3)::bigint
                        WHEN 3 THEN (random() * 9e18)::bigint * (CASE WHEN random() < 0.5 THEN -1 ELSE 1 END)
                        WHEN 4 THEN 7
                        ELSE (random() * 70000)::bigint END AS stack_id,
             ((random() * 10)::bigint - 3) * CASE shape WHEN 2 THEN 10000000 WHEN 5 THEN 3 ELSE 1 END AS weight,
             CASE WHEN random() < (trial % 3) * 0.3 THEN (random() * 1e6)::bigint * CASE shape WHEN 5 THEN 1000 ELSE 1 END END AS ts,
             CASE WHEN random() < 0.7 THEN
                    CASE WHEN shape IN (1, 3) THEN (random() * 1e12)::bigint + 1 ELSE (random() * 9)::bigint + 1 END
             END AS labels_id
        FROM generate_series(1, n);
    SELECT (SELECT array_agg(row(u.stack_id, u.weight, u.ts, u.labels_id)::text)
              FROM calltree.unnest((SELECT calltree.samples_agg(stack_id, weight, ts, labels_id) FROM t)) u)
         = (SELECT array_agg(row(stack_id, weight, ts, labels_id)::text
                             ORDER BY ts IS NOT NULL, ts, stack_id, labels_id IS NOT NULL, labels_id, weight)
              FROM t)
      INTO same;
    IF NOT same THEN
      differing := differing + 1;
      RAISE NOTICE 'trial %: shape %, % samples: unpacked differs', trial, shape, n;
    END IF;
    DROP TABLE t;
  END LOOP;
  RAISE NOTICE '% trials of 120 differ', differing;
END $$;
