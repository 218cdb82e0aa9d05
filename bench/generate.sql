-- bench/generate.sql: deterministic synthetic profile for the benchmark.
--
-- Run by bench/run.sh (psql -v gen_version=N -f bench/generate.sql) when the
-- database does not hold the profile 'bench' of the current generator
-- version.  Everything happens in one transaction: either the whole profile
-- (funcs, frames, stacks, samples, and the profile row that marks it
-- complete) is there, or none of it is.
--
-- Shape (see bench/README.md):
--   * 20,000 funcs, 1 to 3 frames each (different lines of one function);
--   * a call tree grown in generations of "chains": a chain picks a target
--     depth D in 5..60 (skewed towards 15..30), a short length S (mean 3),
--     attaches below an existing node at depth D - S (a Zipf-like choice
--     among the nodes at that depth, older nodes being hotter) and descends
--     S frames; a callee is a function of (caller func, call slot), the slot
--     Zipf-like among 16, the callee Zipf-like among the 20,000 funcs, so
--     the same caller calls the same few callees everywhere and stacks
--     share prefixes as real call trees do (recursion included);
--   * the end nodes of the first 100,000 distinct chains are the sampled
--     stacks; stack rows are those nodes and all their prefixes;
--   * 10,000,000 samples: sample n hits the stack of popularity rank
--     n / 100 when n is a multiple of 100 (so every stack is hit), and a
--     Zipf(1) rank otherwise; weight is a jittered 1 ms period in ns.
--     They are kept twice: as rows of the plain table public.bench_sample,
--     which the timings of tree building read (a row per sample, as
--     calltree.sample was a table before version 0.3), and packed into
--     calltree.sample_set, a set per thread and million samples, as an
--     import stores them, which the timing of stack_agg(samples) reads.
--
-- All randomness comes from pg_temp.u(a, b, salt), a hash of its
-- arguments, so the data are the same in every run, on every plan.

\set ON_ERROR_STOP 1
SET client_min_messages = notice;
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET work_mem = '256MB';
SET maintenance_work_mem = '512MB';
SET temp_buffers = '512MB';
SELECT set_config('calltree_bench.gen_version', :'gen_version', false);
\ir functions.sql

BEGIN;

DO $gen$
DECLARE
  v_version   constant int    := current_setting('calltree_bench.gen_version')::int;
  n_funcs     constant int    := 20000;
  n_stacks    constant int    := 100000;
  n_samples   constant bigint := 10000000;
  max_depth   constant int    := 60;
  n_slots     constant int    := 16;
  -- salts: one per use of the hash, so that draws are independent
  salt_depth  constant bigint := 101;
  salt_len    constant bigint := 102;
  salt_attach constant bigint := 103;
  salt_slot   constant bigint := 104;
  salt_callee constant bigint := 105;
  salt_var    constant bigint := 106;
  salt_nvar   constant bigint := 107;
  salt_rank   constant bigint := 108;
  salt_weight constant bigint := 109;
  salt_line   constant bigint := 110;

  v_super     bool;
  old_profiles bigint[];
  v_profile   bigint;
  func_off    int;
  frame_off   bigint;
  stack_off   bigint;
  v_gen       int    := 0;
  gen_size    bigint := 16;
  chain_base  bigint := 0;
  node_base   bigint := 0;
  v_maxdepth  int;
  v_maxs      int;
  n_ends      bigint := 0;
  n_rows      bigint;
  n_stackrows bigint;
  n_frames    bigint;
  n_bad       bigint;
  seq         text;
  t0          timestamptz := clock_timestamp();
BEGIN
  SELECT rolsuper INTO v_super FROM pg_roles WHERE rolname = current_user;

  ---------------------------------------------------------------------------
  -- 0. Remove an older benchmark profile and everything only it used.
  --    Its samples go with it (its sets by the profile's cascade, its rows
  --    by TRUNCATE of bench_sample).  The bench stacks, frames and funcs
  --    (found by their file prefix) go next.  Deleting stack rows checks
  --    that no sample uses them; as superuser the checks are skipped and
  --    done once, set-based, here instead.
  ---------------------------------------------------------------------------
  SELECT array_agg(id) INTO old_profiles FROM calltree.profile
   WHERE name = 'bench' AND meta->>'generator' = 'calltree-bench';
  IF old_profiles IS NOT NULL THEN
    DELETE FROM calltree.profile WHERE id = ANY (old_profiles);
  END IF;
  CREATE TABLE IF NOT EXISTS public.bench_sample (
    profile_id bigint NOT NULL, thread text, ts bigint, stack_id bigint NOT NULL,
    weight bigint NOT NULL, labels_id bigint);
  TRUNCATE public.bench_sample;

  CREATE TEMP TABLE g_old_stack AS
    SELECT s.id FROM calltree.stack s
      JOIN calltree.frame fr ON fr.id = s.frame_id
      JOIN calltree.func f ON f.id = fr.func_id
     WHERE f.file LIKE 'calltree-bench/%';
  IF EXISTS (SELECT 1 FROM g_old_stack) OR
     EXISTS (SELECT 1 FROM calltree.func WHERE file LIKE 'calltree-bench/%') THEN
    IF v_super THEN
      IF EXISTS (SELECT 1 FROM calltree.sample WHERE stack_id IN (SELECT id FROM g_old_stack)) THEN
        RAISE EXCEPTION 'bench generator: samples of other profiles use the old benchmark stacks'
          USING HINT = 'Run the benchmark in a database of its own.';
      END IF;
      IF EXISTS (SELECT 1 FROM calltree.stack s
                  WHERE s.prefix_id IN (SELECT id FROM g_old_stack)
                    AND s.id NOT IN (SELECT id FROM g_old_stack)) THEN
        RAISE EXCEPTION 'bench generator: other stacks extend the old benchmark stacks'
          USING HINT = 'Run the benchmark in a database of its own.';
      END IF;
      SET LOCAL session_replication_role = replica;
    END IF;
    DELETE FROM calltree.stack WHERE id IN (SELECT id FROM g_old_stack);
    DELETE FROM calltree.frame
     WHERE func_id IN (SELECT id FROM calltree.func WHERE file LIKE 'calltree-bench/%');
    DELETE FROM calltree.func WHERE file LIKE 'calltree-bench/%';
    IF v_super THEN
      SET LOCAL session_replication_role = origin;
    END IF;
  END IF;

  RAISE NOTICE '% s: %', round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1), 'old data removed';
  SELECT coalesce(max(id), 0) INTO func_off  FROM calltree.func;
  SELECT coalesce(max(id), 0) INTO frame_off FROM calltree.frame;
  SELECT coalesce(max(id), 0) INTO stack_off FROM calltree.stack;

  ---------------------------------------------------------------------------
  -- 1. Grow the call tree in temporary tables.
  --    g_node: one row per stack row to be; parent 0 for roots; the frame is
  --    (func, variant).  g_chain: one row per chain, its current node.
  ---------------------------------------------------------------------------
  CREATE TEMP TABLE g_node (
    id      bigint PRIMARY KEY,
    parent  bigint NOT NULL,
    depth   int    NOT NULL,
    func    int    NOT NULL,
    variant int    NOT NULL,
    UNIQUE (parent, func, variant)
  );
  CREATE TEMP TABLE g_chain (
    id          bigint PRIMARY KEY,
    gen         int    NOT NULL,
    s           int    NOT NULL,   -- frames to descend
    start_depth int    NOT NULL,   -- depth of the attach node (0: root)
    cur         bigint NOT NULL,   -- current node (0: none yet)
    cur_func    int    NOT NULL    -- its func (0: none)
  );

  CREATE TEMP TABLE g_rank (depth int, rnk bigint, id bigint, func int);
  CREATE INDEX ON g_rank (depth, rnk);
  CREATE TEMP TABLE g_depth (depth int, cnt bigint);
  CREATE TEMP TABLE g_step (chain bigint, parent bigint, depth int, func int, variant int);

  LOOP
    v_gen := v_gen + 1;
    SELECT coalesce(max(depth), 0) INTO v_maxdepth FROM g_node;

    TRUNCATE g_rank, g_depth;
    INSERT INTO g_rank
      SELECT depth, row_number() OVER (PARTITION BY depth ORDER BY id), id, func FROM g_node;
    INSERT INTO g_depth
      SELECT depth, count(*) FROM g_node GROUP BY depth;
    ANALYZE g_rank, g_depth;

    INSERT INTO g_chain (id, gen, s, start_depth, cur, cur_func)
    WITH c AS (
      SELECT c AS id,
             least(max_depth, 5 + floor(56 * (1 - (1 - pg_temp.u(c, 1, salt_depth)) ^ (1 / 4.0)) ^ (1 / 1.5)))::int AS d,
             least(12, 1 + floor(-ln(1 - pg_temp.u(c, 2, salt_len)) * 2.5))::int AS s0
        FROM generate_series(chain_base + 1, chain_base + gen_size) AS c
    ), a AS (
      SELECT id, d, greatest(0, least(d - s0, v_maxdepth)) AS eff FROM c
    )
    SELECT a.id, v_gen, a.d - a.eff, a.eff, coalesce(r.id, 0), coalesce(r.func, 0)
      FROM a
      LEFT JOIN g_depth gd ON gd.depth = a.eff
      LEFT JOIN g_rank r ON r.depth = a.eff
                        AND r.rnk = pg_temp.zipf(pg_temp.u(a.id, 3, salt_attach), gd.cnt, 1);
    chain_base := chain_base + gen_size;

    SELECT max(s) INTO v_maxs FROM g_chain WHERE g_chain.gen = v_gen;
    FOR p IN 1 .. v_maxs LOOP
      TRUNCATE g_step;
      INSERT INTO g_step (chain, parent, depth, func, variant)
      WITH k AS (
        SELECT c.id AS chain, c.cur AS parent, c.start_depth + p AS depth, c.cur_func,
               pg_temp.zipf(pg_temp.u(c.id, 100 + p, salt_slot), n_slots, 1) - 1 AS slot
          FROM g_chain c
         WHERE c.gen = v_gen AND c.s >= p
      ), f AS (
        SELECT k.*,
               (((pg_temp.zipf(pg_temp.u(k.cur_func, k.slot, salt_callee), n_funcs, 30) - 1) * 7919) % n_funcs + 1)::int AS func
          FROM k
      )
      SELECT f.chain, f.parent, f.depth, f.func,
             floor(pg_temp.u(f.cur_func, f.slot, salt_var)
                   * (1 + floor(pg_temp.u(f.func, 0, salt_nvar) * 3)))::int AS variant
        FROM f;
      ANALYZE g_step;

      INSERT INTO g_node (id, parent, depth, func, variant)
      SELECT node_base + row_number() OVER (ORDER BY first_chain), parent, depth, func, variant
        FROM (SELECT parent, depth, func, variant, min(chain) AS first_chain
                FROM g_step s
               WHERE NOT EXISTS (SELECT 1 FROM g_node n
                                  WHERE n.parent = s.parent AND n.func = s.func
                                    AND n.variant = s.variant)
               GROUP BY parent, depth, func, variant) x;
      GET DIAGNOSTICS n_rows = ROW_COUNT;
      node_base := node_base + n_rows;

      UPDATE g_chain c SET cur = n.id, cur_func = n.func
        FROM g_step s
        JOIN g_node n ON n.parent = s.parent AND n.func = s.func AND n.variant = s.variant
       WHERE c.id = s.chain;
    END LOOP;
    ANALYZE g_node, g_chain;

    SELECT count(DISTINCT cur) INTO n_ends FROM g_chain;
    RAISE NOTICE '% s: generation %: % chains, % nodes, % distinct chain ends',
      round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1),
      v_gen, chain_base, node_base, n_ends;
    EXIT WHEN n_ends >= n_stacks;
    IF gen_size < 65536 THEN
      gen_size := gen_size * 4;
    ELSE
      gen_size := ceil((n_stacks - n_ends) * 1.3) + 16;
    END IF;
  END LOOP;

  ---------------------------------------------------------------------------
  -- 2. The sampled stacks: the first 100,000 distinct chain ends, ranked by
  --    first appearance (the hot paths are the old ones).  Keep only them
  --    and their prefixes.
  ---------------------------------------------------------------------------
  RAISE NOTICE '% s: %', round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1), 'tree grown';
  CREATE TEMP TABLE g_sampled AS
    SELECT row_number() OVER (ORDER BY first_chain) AS rnk, node
      FROM (SELECT cur AS node, min(id) AS first_chain FROM g_chain GROUP BY cur
             ORDER BY first_chain LIMIT n_stacks) x;
  CREATE TEMP TABLE g_keep AS
    WITH RECURSIVE anc(id) AS (
      SELECT node FROM g_sampled
      UNION
      SELECT n.parent FROM anc JOIN g_node n ON n.id = anc.id WHERE n.parent <> 0
    )
    SELECT id FROM anc;
  CREATE TEMP TABLE g_map AS
    SELECT n.id AS gid, stack_off + row_number() OVER (ORDER BY n.id) AS sid
      FROM g_node n JOIN g_keep k ON k.id = n.id;
  CREATE UNIQUE INDEX ON g_map (gid);
  ANALYZE g_sampled, g_map;

  ---------------------------------------------------------------------------
  -- 3. Load funcs, frames, stacks.  Per-row foreign-key checks are avoided
  --    where we may (superuser: session_replication_role = replica) and the
  --    references are verified once, set-based, at the end.
  ---------------------------------------------------------------------------
  RAISE NOTICE '% s: %', round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1), 'sampled stacks chosen, prefixes kept';
  IF v_super THEN
    SET LOCAL session_replication_role = replica;
  END IF;

  INSERT INTO calltree.func (id, name, file, resource) OVERRIDING SYSTEM VALUE
  SELECT func_off + f,
         format('%s::%s::%s',
                (ARRAY['core','net','db','ui','gc','io','json','http','sched','alloc'])[1 + f % 10],
                'C' || (f % 797),
                (ARRAY['run','step','visit','parse','emit','lookup','insert','flush','poll','dispatch',
                       'encode','decode','alloc','free','lock','unlock','read','write','hash','compare'])[1 + (f / 10) % 20]
                  || '_' || f),
         format('calltree-bench/src/mod%s/file%s.cc', f % 37, f / 8),
         (ARRAY['bench-server', 'libbench_core.so', 'libbench_net.so', 'libc.so.6'])[1 + (f % 7) % 4]
    FROM generate_series(1, n_funcs) f;

  CREATE TEMP TABLE g_frame AS
    SELECT frame_off + row_number() OVER (ORDER BY f, v) AS id, f AS func, v AS variant
      FROM generate_series(1, n_funcs) f,
           LATERAL generate_series(0, floor(pg_temp.u(f, 0, salt_nvar) * 3)::int) v;
  CREATE UNIQUE INDEX ON g_frame (func, variant);
  ANALYZE g_frame;
  SELECT count(*) INTO n_frames FROM g_frame;

  INSERT INTO calltree.frame (id, func_id, address, line, col, implementation) OVERRIDING SYSTEM VALUE
  SELECT id, func_off + func,
         4194304 + func::bigint * 256 + variant * 16,
         10 + floor(pg_temp.u(func, variant, salt_line) * 400)::int,
         NULL, NULL
    FROM g_frame ORDER BY id;

  INSERT INTO calltree.stack (id, prefix_id, frame_id) OVERRIDING SYSTEM VALUE
  SELECT m.sid, pm.sid, fr.id
    FROM g_node n
    JOIN g_map m ON m.gid = n.id
    LEFT JOIN g_map pm ON pm.gid = n.parent
    JOIN g_frame fr ON fr.func = n.func AND fr.variant = n.variant
   ORDER BY m.sid;
  GET DIAGNOSTICS n_stackrows = ROW_COUNT;

  FOREACH seq IN ARRAY ARRAY[pg_get_serial_sequence('calltree.func', 'id'),
                             pg_get_serial_sequence('calltree.frame', 'id'),
                             pg_get_serial_sequence('calltree.stack', 'id')] LOOP
    CONTINUE WHEN seq IS NULL;
    EXECUTE format('SELECT setval(%L, greatest((SELECT max(id) FROM %s), 1))', seq,
                   CASE WHEN seq LIKE '%func%' THEN 'calltree.func'
                        WHEN seq LIKE '%frame%' THEN 'calltree.frame'
                        ELSE 'calltree.stack' END);
  END LOOP;

  ---------------------------------------------------------------------------
  -- 4. The profile and its 10,000,000 samples, one INSERT ... SELECT.
  ---------------------------------------------------------------------------
  RAISE NOTICE '% s: %', round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1), 'funcs, frames, stacks loaded';
  INSERT INTO calltree.profile (name, format, started_at, weight_unit, meta)
  VALUES ('bench', 'synthetic', timestamptz '2024-01-01 00:00:00+00', 'nanoseconds',
          jsonb_build_object('generator', 'calltree-bench', 'version', v_version,
                             'complete', false))
  RETURNING id INTO v_profile;

  CREATE TEMP TABLE g_rank_stack AS
    SELECT s.rnk, m.sid FROM g_sampled s JOIN g_map m ON m.gid = s.node;
  CREATE UNIQUE INDEX ON g_rank_stack (rnk);
  ANALYZE g_rank_stack;

  INSERT INTO public.bench_sample (profile_id, thread, ts, stack_id, weight, labels_id)
  SELECT v_profile,
         (ARRAY['main', 'worker-1', 'worker-2', 'worker-3'])[1 + n % 4],
         (n / 4) * 1000000,
         r.sid,
         900000 + floor(pg_temp.u(n, 0, salt_weight) * 200001)::bigint,
         NULL
    FROM generate_series(1, n_samples) AS n
    JOIN g_rank_stack r
      ON r.rnk = CASE WHEN n % 100 = 0 THEN n / 100
                      ELSE pg_temp.zipf(pg_temp.u(n, 0, salt_rank), n_stacks, 1) END;
  GET DIAGNOSTICS n_rows = ROW_COUNT;
  IF n_rows <> n_samples THEN
    RAISE EXCEPTION 'bench generator: % samples inserted, expected %', n_rows, n_samples;
  END IF;

  RAISE NOTICE '% s: %', round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1), 'samples loaded';
  -- the same samples packed, as an import stores them: a set per thread
  -- and million samples (samples_agg holds 40 bytes a sample)
  SET LOCAL enable_hashagg = off;
  INSERT INTO calltree.sample_set (profile_id, thread, samples)
  SELECT c.profile_id, c.thread, calltree.samples_agg(c.stack_id, c.weight, c.ts, c.labels_id)
    FROM (SELECT b.*, (b.ts / 1000000) / 1048576 AS chunk FROM public.bench_sample b) AS c
   GROUP BY c.profile_id, c.thread, c.chunk;
  RESET enable_hashagg;
  RAISE NOTICE '% s: %', round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1), 'samples packed';
  IF v_super THEN
    SET LOCAL session_replication_role = origin;
  END IF;

  ---------------------------------------------------------------------------
  -- 5. Verify, once, what the skipped per-row checks would have verified.
  ---------------------------------------------------------------------------
  SELECT count(*) INTO n_bad
    FROM public.bench_sample s LEFT JOIN calltree.stack st ON st.id = s.stack_id
   WHERE s.profile_id = v_profile AND st.id IS NULL;
  IF n_bad > 0 THEN RAISE EXCEPTION 'bench generator: % samples with a dangling stack_id', n_bad; END IF;
  SELECT count(*) INTO n_bad
    FROM calltree.stack s
    LEFT JOIN calltree.stack p ON p.id = s.prefix_id
    LEFT JOIN calltree.frame fr ON fr.id = s.frame_id
    LEFT JOIN calltree.func f ON f.id = fr.func_id
   WHERE s.id > stack_off
     AND ((s.prefix_id IS NOT NULL AND (p.id IS NULL OR s.prefix_id >= s.id))
          OR fr.id IS NULL OR f.id IS NULL);
  IF n_bad > 0 THEN RAISE EXCEPTION 'bench generator: % stack rows with a dangling reference', n_bad; END IF;
  SELECT count(DISTINCT stack_id) INTO n_rows FROM public.bench_sample WHERE profile_id = v_profile;
  IF n_rows <> n_stacks THEN
    RAISE EXCEPTION 'bench generator: % distinct sampled stacks, expected %', n_rows, n_stacks;
  END IF;

  RAISE NOTICE '% s: %', round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1), 'references verified';
  UPDATE calltree.profile
     SET meta = (SELECT jsonb_build_object(
                   'depth_min', min(n.depth), 'depth_max', max(n.depth),
                   'depth_mean', round(avg(n.depth), 1),
                   'depth_p10_p50_p90_p99',
                   to_jsonb(percentile_disc(ARRAY[0.1, 0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY n.depth)),
                   'sampled_internal',
                   count(*) FILTER (WHERE n.id IN (SELECT c.parent FROM g_node c
                                                     JOIN g_map m ON m.gid = c.id)),
                   'roots', (SELECT count(*) FROM g_node r JOIN g_map m ON m.gid = r.id
                              WHERE r.parent = 0))
                   FROM g_sampled s JOIN g_node n ON n.id = s.node)
              || jsonb_build_object(
           'generator', 'calltree-bench', 'version', v_version, 'complete', true,
           'samples', n_samples, 'distinct_stacks', n_stacks, 'stack_rows', n_stackrows,
           'funcs', n_funcs, 'frames', n_frames,
           'func_ids', jsonb_build_array(func_off + 1, func_off + n_funcs),
           'frame_ids', jsonb_build_array(frame_off + 1, frame_off + n_frames),
           'stack_ids', jsonb_build_array(stack_off + 1, stack_off + n_stackrows),
           'generations', v_gen, 'chains', chain_base,
           'seconds', round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1))
   WHERE id = v_profile;
  RAISE NOTICE 'bench data: % stack rows, % frames, % samples in % s',
    n_stackrows, n_frames, n_samples, round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1);
END
$gen$;

COMMIT;
