-- to_speedscope: a tree out as a speedscope file (one sampled profile, one
-- sample per node with self weight, in the unit given), and back in with
-- import_speedscope.  test/t_speedscope_schema.sh validates the output
-- against speedscope's published JSON schema with ajv.
\getenv shared_dir CALLTREE_SHARED
\set dir :shared_dir '/data/'
SET search_path = calltree, public;

-- The Firefox Profiler's call tree example: A→B→C→D→E, A→B→C→F→G, A→B→H→F, one sample each
CREATE TEMP TABLE trees (name text, tree calltree);
CREATE TEMP TABLE seed_stacks AS
SELECT intern_stack(names) AS stack_id
  FROM (VALUES (ARRAY['A','B','C','D','E']), (ARRAY['A','B','C','F','G']), (ARRAY['A','B','H','F'])) AS v(names);
INSERT INTO trees SELECT 'seed 000', stack_agg(stack_id) FROM seed_stacks;

SELECT to_speedscope(tree, 'seed 000') FROM trees WHERE name = 'seed 000';

-- Round trips: import_speedscope(to_speedscope(t)) gives t back, for trees
-- whose funcs have no resource (a func's file travels as the frame's file)
\set f :dir 'speedscope-samples/Chrome/65/simple.cpuprofile'
SELECT import_cpuprofile(pg_read_file(:'f')) AS id \gset
INSERT INTO trees SELECT 'chrome simple', stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id;
\set f :dir 'firefox-profiler/hello.cjs-20231120T211435.cpuprofile'
SELECT import_cpuprofile(pg_read_file(:'f')) AS id \gset
INSERT INTO trees SELECT 'hello.cjs (with files)', stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id;
\set f :dir 'speedscope-samples/Chrome/65/sucrase.cpuprofile'
SELECT import_cpuprofile(pg_read_file(:'f')) AS id \gset
INSERT INTO trees SELECT 'sucrase', stack_agg(stack_id, weight) FROM sample WHERE profile_id = :id;
-- a leaf with self 0, and names that need escaping
CREATE TEMP TABLE odd_stacks AS
SELECT intern_stack(names) AS stack_id, w
  FROM (VALUES (ARRAY['main', 'say "hi"'], 5::bigint), (ARRAY['main', E'back\\slash', 'tab	é'], 0),
               (ARRAY['main'], 2)) AS v(names, w);
INSERT INTO trees SELECT 'zero leaf, odd names', stack_agg(stack_id, w) FROM odd_stacks;

CREATE TEMP TABLE reimported AS
SELECT name, import_speedscope(to_speedscope(tree, name)::text) AS id FROM trees;
SELECT t.name, total(t.tree) AS total, (SELECT count(*) FROM nodes(t.tree)) AS nodes,
       json_array_length(to_speedscope(t.tree)->'profiles'->0->'samples') AS samples,
       (to_speedscope(t.tree)->'profiles'->0->>'endValue')::bigint = total(t.tree) AS end_is_total,
       (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = r.id) = t.tree AS round_trip
  FROM trees AS t JOIN reimported AS r USING (name) ORDER BY t.name;

SELECT to_speedscope(tree) FROM trees WHERE name = 'zero leaf, odd names';

-- func ids that are not in calltree.func are named #<id>
SELECT to_speedscope(calltree_agg(p, w), 'made up')
  FROM (VALUES (ARRAY[2147483600, 2147483601], 3::bigint), (ARRAY[2147483600], 1)) AS v(p, w);

-- NULL in, NULL out
SELECT to_speedscope(NULL) IS NULL AS is_null;

-- The unit: a tree carries none, so the caller gives the unit of the
-- profiles it came from.  speedscope's names are written as they are;
-- NULL and counts (samples, pprof's count, a perf event) are none.
SELECT u AS unit, to_speedscope(tree, 'u', u)->'profiles'->0->>'unit' AS written
  FROM trees, (VALUES ('nanoseconds'), ('microseconds'), ('milliseconds'), ('seconds'), ('bytes'),
                      ('none'), ('samples'), ('count'), ('cycles'), (NULL)) AS v(u)
 WHERE name = 'seed 000';
-- import, export, import keeps the unit: a .cpuprofile is in nanoseconds
-- and comes back in nanoseconds, with the same tree; without the unit, the
-- same weights come back as counts (samples)
SELECT import_speedscope(to_speedscope(t.tree, t.name, p.weight_unit)::text) AS with_unit,
       import_speedscope(to_speedscope(t.tree, t.name)::text) AS without_unit
  FROM trees AS t, profile AS p
 WHERE t.name = 'chrome simple' AND p.id = (SELECT id FROM profile WHERE format = 'cpuprofile' ORDER BY id LIMIT 1) \gset
SELECT p.weight_unit, (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = p.id) = t.tree AS same_tree
  FROM profile AS p, trees AS t
 WHERE p.id IN (:with_unit, :without_unit) AND t.name = 'chrome simple' ORDER BY p.id;
