-- to_pprof: a call tree as a gzip-compressed pprof profile.  import_pprof of
-- it gives the same tree back (test/t_pprof_go.sh checks it with go tool pprof).
SET search_path = calltree, public;
\getenv shared_dir CALLTREE_SHARED
\set sample_cpu :shared_dir '/data/pprof/sample.cpu'

CREATE FUNCTION pg_temp.tree(profile bigint) RETURNS calltree
LANGUAGE sql STABLE
AS $$ SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = profile $$;

-- A tree of funcs without file or resource: recursion (exp_a > exp_b > exp_a),
-- a Unicode name, a zero-weight leaf and a negative weight (a diff)
SELECT calltree_agg(path, weight) AS t
  FROM (VALUES (ARRAY['exp_main', 'exp_a', 'exp_b', 'exp_a'], 7),
               (ARRAY['exp_main', 'exp_a'], 3),
               (ARRAY['exp_main', 'exp_b'], 2),
               (ARRAY['exp_main', 'exp_b', 'exp_zero'], 0),
               (ARRAY['exp_main', 'exp_négatif'], -4),
               (ARRAY['exp_other'], 1)) AS v(names, weight),
       LATERAL (SELECT array_agg(intern_func(n) ORDER BY i) AS path
                  FROM unnest(names) WITH ORDINALITY AS u(n, i)) p \gset

-- gzip magic, and a profile that imports
SELECT substr(to_pprof(:'t'), 1, 2) AS magic;
SELECT import_pprof(to_pprof(:'t')) AS back \gset
SELECT format, weight_unit FROM profile WHERE id = :back;
-- one sample per node with self weight, plus the zero-weight leaf
SELECT count(*) AS samples, sum(weight) AS total FROM sample WHERE profile_id = :back;
SELECT pg_temp.tree(:back) = :'t'::calltree AS same_tree;
SELECT f.name, fn.self, fn.running
  FROM functions(pg_temp.tree(:back)) fn JOIN func f ON f.id = fn.func
 ORDER BY fn.running DESC, f.name;

-- the sample type and unit are the profile's
SELECT import_pprof(to_pprof(:'t', 'cpu', 'nanoseconds'), 'cpu') AS back_ns \gset
SELECT weight_unit, pg_temp.tree(:back_ns) = :'t'::calltree AS same_tree FROM profile WHERE id = :back_ns;
SELECT import_pprof(to_pprof(:'t', 'cpu', 'nanoseconds'), 'samples');

-- funcs with file and resource (sample.cpu): the file goes to Function.filename,
-- the resource to a Mapping, and both come back
SELECT import_pprof(pg_read_binary_file(:'sample_cpu')) AS cpu \gset
SELECT import_pprof(to_pprof(pg_temp.tree(:cpu), 'cpu', 'nanoseconds')) AS cpu_back \gset
SELECT pg_temp.tree(:cpu_back) = pg_temp.tree(:cpu) AS same_tree,
       total(pg_temp.tree(:cpu_back)) AS total,
       (SELECT count(*) FROM sample WHERE profile_id = :cpu_back) AS samples,
       (SELECT count(*) FROM nodes(pg_temp.tree(:cpu)) WHERE self <> 0) AS nodes_with_self;

-- import, export, import keeps the unit and the sample type: a tree has no
-- unit, so the export is given those of the profile it came from
-- (weight_unit, meta.sample_type), here by count
SELECT import_pprof(pg_read_binary_file(:'sample_cpu'), 'samples') AS by_count \gset
SELECT import_pprof(to_pprof(pg_temp.tree(p.id), p.meta->>'sample_type', p.weight_unit)) AS by_count_back
  FROM profile AS p WHERE p.id = :by_count \gset
SELECT p.id = :by_count AS original, p.weight_unit, p.meta->>'sample_type' AS sample_type,
       total(pg_temp.tree(p.id)) AS total
  FROM profile AS p WHERE p.id IN (:by_count, :by_count_back) ORDER BY p.id;

-- a func id that calltree.func does not know is named #<id>
SELECT import_pprof(to_pprof('{2000000001:5/2 {2000000002:3/3}}'::calltree)) AS unknown \gset
SELECT string_agg(f.name, ' > ' ORDER BY n.node) AS names, total(pg_temp.tree(:unknown))
  FROM nodes(pg_temp.tree(:unknown)) n JOIN func f ON f.id = n.func;

-- the empty tree: a profile without samples
SELECT length(to_pprof('{}'::calltree)) > 0 AS has_bytes;
SELECT import_pprof(to_pprof('{}'::calltree)) AS empty \gset
SELECT count(*) AS samples FROM sample WHERE profile_id = :empty;

-- NULL in, NULL out
SELECT to_pprof(NULL) IS NULL AS null_tree, to_pprof('{}', NULL) IS NULL AS null_type;
