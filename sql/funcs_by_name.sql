-- Functions by name: funcs(), unify_funcs(), the name and func-array forms
-- of the transforms and analyses, running_of() and self_of(), and the
-- errors for ids and names that name nothing.
--
-- The tree is the Firefox Profiler's example (A→B→C→D→E, A→B→C→F→G,
-- A→B→H→F, weight 1 each) from build 1, plus two stacks of build 2 whose
-- funcs have the same names: A→B→C→F→G (weight 2) and A→B→H→F (weight 4).
-- A func is keyed by name, file and resource: each name is two funcs, one
-- per build, and build 2's F also moved to another file.  The expected
-- values were worked out by hand from these five stacks (the comments say
-- how); the independent check of unify_funcs() against go tool pprof is
-- test/t_pprof_go.sh.
SET search_path = calltree, public;

-- The tests after this one print func and profile ids: the funcs and the
-- profile made here are deleted at the end, and the sequences set back.
SELECT last_value AS func_seq, is_called AS func_seq_called FROM func_id_seq \gset
SELECT last_value AS profile_seq, is_called AS profile_seq_called FROM profile_id_seq \gset

-- the funcs, build 1 interned first (so its ids are the smaller ones)
CREATE TEMP TABLE nm (label text, id int4);
INSERT INTO nm
SELECT n || '1', intern_func('nm.' || n, 'app.c', 'app (build 1)')
  FROM unnest('{A,B,C,D,E,F,G,H}'::text[]) AS n;
INSERT INTO nm
SELECT n || '2', intern_func('nm.' || n, CASE n WHEN 'F' THEN 'f.c' ELSE 'app.c' END, 'app (build 2)')
  FROM unnest('{A,B,C,D,E,F,G,H}'::text[]) AS n;
SELECT id AS a1 FROM nm WHERE label = 'A1' \gset
SELECT id AS c1 FROM nm WHERE label = 'C1' \gset
SELECT id AS f1 FROM nm WHERE label = 'F1' \gset
SELECT id AS f2 FROM nm WHERE label = 'F2' \gset
SELECT id AS h1 FROM nm WHERE label = 'H1' \gset

-- a path of labels ('A1 B1 C1') as func ids
CREATE FUNCTION pg_temp.path(labels text) RETURNS int4[] LANGUAGE sql AS $$
  SELECT array_agg(nm.id ORDER BY u.i) FROM unnest(string_to_array(labels, ' ')) WITH ORDINALITY AS u(l, i)
  JOIN nm ON nm.label = u.l
$$;
-- a tree drawn label:running,self, funcs as labels (func ids vary with the tests run before)
CREATE FUNCTION pg_temp.draw(t calltree) RETURNS SETOF text LANGUAGE sql AS $$
  SELECT repeat('  ', n.depth) || coalesce(nm.label, '#' || n.func) || ':' || n.running || ',' || n.self
    FROM calltree.nodes(t) n LEFT JOIN nm ON nm.id = n.func ORDER BY n.node
$$;
CREATE FUNCTION pg_temp.labels(funcs int4[]) RETURNS text LANGUAGE sql AS $$
  SELECT string_agg(nm.label, ' ' ORDER BY nm.id) FROM nm WHERE nm.id = ANY (funcs)
$$;

CREATE TEMP TABLE mixed AS
SELECT calltree_agg(pg_temp.path(p), w) AS tree
  FROM (VALUES ('A1 B1 C1 D1 E1', 1), ('A1 B1 C1 F1 G1', 1), ('A1 B1 H1 F1', 1),
               ('A2 B2 C2 F2 G2', 2), ('A2 B2 H2 F2', 4)) AS v(p, w);
SELECT pg_temp.draw(tree) FROM mixed;

--------------------------------------------------------------------------
-- funcs(pattern): the ids of the funcs whose names match, sorted
SELECT pg_temp.labels(funcs('^nm\.F$')) AS f, pg_temp.labels(funcs('^nm\.[DE]')) AS d_e,
       funcs('^nm\.F$') = ARRAY[:f1, :f2] AS sorted,
       funcs('^no such function$') AS none;
-- a bad pattern is PostgreSQL's regular-expression error
SELECT funcs('(');

--------------------------------------------------------------------------
-- unify_funcs(tree, by)
-- by name: each name becomes its build-1 func (the smallest id), and the
-- stacks of both builds merge: A:9 → B:9 → {H:5 → F:5,5 ; C:4 → {F:3 → G:3,3 ;
-- D:1 → E:1,1}}
SELECT pg_temp.draw(unify_funcs(tree)) FROM mixed;
-- by name and file: build 2's F (f.c) stays apart, the rest merges:
-- C:4 → {F2:2 → G:2,2 ; D:1 → E:1,1 ; F1:1 → G:1,1}, H:5 → {F2:4,4 ; F1:1,1}
SELECT pg_temp.draw(unify_funcs(tree, 'file')) FROM mixed;
-- by func: the tree as it is; 'name' is the default
SELECT unify_funcs(tree, 'func') = tree AS unchanged,
       unify_funcs(tree) = unify_funcs(tree, 'name') AS name_by_default,
       unify_funcs(unify_funcs(tree)) = unify_funcs(tree) AS idempotent,
       total(unify_funcs(tree)) = total(tree) AS same_total
  FROM mixed;
-- funcs that calltree.func does not hold stay as they are
SELECT unify_funcs('{1000000001:3/1 {1000000002:2/2}}'::calltree)::text AS bare_ids;
-- functions() of the unified tree is functions() summed by name (no stack
-- mixes builds, so no sample is counted twice)
SELECT bool_and(u.running = s.running AND u.self = s.self) AS agree, count(*) AS names
  FROM (SELECT f.name, fn.running, fn.self
          FROM mixed, functions(unify_funcs(tree)) fn JOIN func f ON f.id = fn.func) u
  JOIN (SELECT f.name, sum(fn.running) AS running, sum(fn.self) AS self
          FROM mixed, functions(tree) fn JOIN func f ON f.id = fn.func GROUP BY f.name) s USING (name);
SELECT unify_funcs(tree, 'build') FROM mixed;

--------------------------------------------------------------------------
-- running_of() and self_of(): F runs in 1+1 samples of build 1 and 2+4
-- of build 2, and is the leaf of 1 and 4 of them
SELECT running_of(tree, 'nm.F') AS by_name, self_of(tree, 'nm.F') AS self_by_name,
       running_of(tree, :f1) AS f1, self_of(tree, :f1) AS self_f1,
       running_of(tree, ARRAY[:f1, :f2]) AS by_array, self_of(tree, ARRAY[:f1, :f2]) AS self_by_array
  FROM mixed;
-- a set counts a sample once: C1, F1 or F2 runs in 3 samples of build 1
-- and 2 + 4 of build 2, 9 in all, not their running weights summed (2 + 2 + 6)
SELECT running_of(tree, ARRAY[:c1, :f1, :f2]) AS c_or_f FROM mixed;
-- each func: the same as functions()
SELECT bool_and(running_of(tree, fn.func) = fn.running AND self_of(tree, fn.func) = fn.self) AS agree,
       count(*) AS funcs
  FROM mixed, functions(tree) fn;
-- recursion counted once: A→B→A→C (5), A (2)
SELECT running_of(t, :a1) AS running, self_of(t, :a1) AS self, (SELECT running FROM functions(t) WHERE func = :a1) AS functions
  FROM (SELECT calltree_agg(pg_temp.path(p), w) AS t
          FROM (VALUES ('A1 B1 A1 C1', 5), ('A1', 2)) AS v(p, w)) AS r;
-- a func the tree does not hold: 0
SELECT running_of(tree, :a1) AS absent_running, self_of(tree, 'nm.A') AS absent_self
  FROM (SELECT calltree_agg(pg_temp.path('B1 C1'), 3) AS tree) AS t;

--------------------------------------------------------------------------
-- A quoted literal is a name, an integer a func id, an array a set: the
-- name form is the array form of the name's funcs, and the func form the
-- array form of one func.  Checked for every transform, on the tree and,
-- for the transforms, on each stack (the path twin, aggregated).
CREATE TEMP TABLE stacks AS
SELECT pg_temp.path(p) AS path, w AS weight
  FROM (VALUES ('A1 B1 C1 D1 E1', 1), ('A1 B1 C1 F1 G1', 1), ('A1 B1 H1 F1', 1),
               ('A2 B2 C2 F2 G2', 2), ('A2 B2 H2 F2', 4)) AS v(p, w);
SELECT merge_function(tree, 'nm.F') = merge_function(tree, ARRAY[:f1, :f2]) AS merge,
       collapse_function_subtree(tree, 'nm.F') = collapse_function_subtree(tree, ARRAY[:f1, :f2]) AS collapse,
       drop_function(tree, 'nm.F') = drop_function(tree, ARRAY[:f1, :f2]) AS drop,
       focus_function(tree, 'nm.F') = focus_function(tree, ARRAY[:f1, :f2]) AS focus,
       collapse_direct_recursion(tree, 'nm.F') = collapse_direct_recursion(tree, ARRAY[:f1, :f2]) AS direct,
       collapse_recursion(tree, 'nm.F') = collapse_recursion(tree, ARRAY[:f1, :f2]) AS recursion,
       merge_function(tree, :f1) = merge_function(tree, ARRAY[:f1]) AS one_func,
       merge_function(tree, ARRAY[:f1, :f2]) = merge_functions(tree, ARRAY[:f1, :f2]) AS merge_functions
  FROM mixed;
SELECT merge_function(tree, 'nm.F') = (SELECT calltree_agg(merge_function(path, 'nm.F'), weight) FROM stacks) AS merge,
       collapse_function_subtree(tree, 'nm.F')
         = (SELECT calltree_agg(collapse_function_subtree(path, 'nm.F'), weight) FROM stacks) AS collapse,
       drop_function(tree, 'nm.F') = (SELECT calltree_agg(drop_function(path, 'nm.F'), weight) FROM stacks) AS drop,
       focus_function(tree, 'nm.F') = (SELECT calltree_agg(focus_function(path, 'nm.F'), weight) FROM stacks) AS focus,
       focus_function(tree, ARRAY[:f1, :f2])
         = (SELECT calltree_agg(focus_function(path, ARRAY[:f1, :f2]), weight) FROM stacks) AS focus_array
  FROM mixed;
-- focus on F, by name: both builds' F, cut to start at it (F1:2,1 → G1:1,1 ; F2:6,4 → G2:2,2);
-- by id: build 1's only
SELECT pg_temp.draw(focus_function(tree, 'nm.F')) FROM mixed;
SELECT pg_temp.draw(focus_function(tree, :f1)) FROM mixed;
-- drop H, by name: the samples through H1 or H2 go (1 + 4 of 9)
SELECT total(drop_function(tree, 'nm.H')) AS without_h FROM mixed;
-- a set counts as one function: F1 calling F2 directly is a direct recursion of it
SELECT collapse_direct_recursion(pg_temp.path('A1 F1 F2 G1'), 'nm.F') = pg_temp.path('A1 F1 G1') AS direct,
       collapse_recursion(pg_temp.path('A1 F1 B1 F2 G1'), 'nm.F') = pg_temp.path('A1 F1 G1') AS recursion,
       collapse_direct_recursion(pg_temp.path('A1 F1 F2 G1'), :f1) = pg_temp.path('A1 F1 F2 G1') AS by_id_untouched;

-- the analyses, by name: F is called by C and H in both builds
SELECT pg_temp.labels(ARRAY[caller]) AS caller, running, self FROM callers((SELECT tree FROM mixed), 'nm.F');
SELECT pg_temp.labels(ARRAY[callee]) AS callee, running, self FROM callees((SELECT tree FROM mixed), 'nm.F');
SELECT call_sites, pg_temp.draw(outgoing) FROM outgoing_calls((SELECT tree FROM mixed), 'nm.F');
SELECT pg_temp.draw(backtraces(tree, 'nm.F', 'self')) FROM mixed;
SELECT (SELECT array_agg(c ORDER BY c) FROM callers(tree, 'nm.F') c) = (SELECT array_agg(c ORDER BY c) FROM callers(tree, ARRAY[:f1, :f2]) c) AS callers,
       (SELECT array_agg(c ORDER BY c) FROM callees(tree, 'nm.F') c) = (SELECT array_agg(c ORDER BY c) FROM callees(tree, ARRAY[:f1, :f2]) c) AS callees,
       outgoing_calls(tree, 'nm.F') = outgoing_calls(tree, ARRAY[:f1, :f2]) AS outgoing,
       backtraces(tree, 'nm.F') = backtraces(tree, ARRAY[:f1, :f2]) AS backtraces,
       (SELECT array_agg(c ORDER BY c) FROM callers(tree, :f1) c) = (SELECT array_agg(c ORDER BY c) FROM callers(tree, ARRAY[:f1]) c) AS one_func
  FROM mixed;

--------------------------------------------------------------------------
-- Names and ids that name nothing are errors, with a hint
SELECT focus_function(tree, 'nm.nothing') FROM mixed;
SELECT callers(tree, 'nm.nothing') FROM mixed;
-- a quoted number is a name, not an id (unknown literals resolve to text)
SELECT focus_function(tree, '7') FROM mixed;
SELECT focus_function(tree, '{1,2}') FROM mixed;
-- an id that neither the tree nor calltree.func holds
SELECT focus_function(tree, 1000000097) FROM mixed;
SELECT running_of(tree, ARRAY[:f1, 1000000097]) FROM mixed;
SELECT backtraces(tree, 1000000097, 'self') FROM mixed;
SELECT focus_subtree(tree, ARRAY[:a1, 1000000097]) FROM mixed;
SELECT remap_functions(tree, ARRAY[:f1], ARRAY[1000000097]) FROM mixed;
-- an id calltree.func holds but the tree does not: an empty result, an unchanged tree
SELECT focus_function(tree, :a1)::text AS focused, merge_function(tree, :a1) = tree AS unchanged,
       (SELECT count(*) FROM callers(tree, :a1)) AS callers
  FROM (SELECT calltree_agg(pg_temp.path('B1 C1'), 3) AS tree) AS t;
-- an id the tree holds is known, even when calltree.func does not hold it
SELECT focus_function('{1000000001:3/1 {1000000002:2/2}}'::calltree, 1000000002)::text AS bare_ids;
-- profile ids: lines() and estimated_calls() of a profile that does not exist
SELECT count(*) FROM lines(1000000000, ARRAY[:a1]);
SELECT count(*) FROM estimated_calls(1000000000);
-- and a node path whose funcs do not exist, on a profile that does
INSERT INTO profile (name) VALUES ('funcs_by_name: no samples') RETURNING id AS no_samples \gset
SELECT count(*) FROM lines(:no_samples, ARRAY[:a1]);
SELECT count(*) FROM lines(:no_samples, ARRAY[1000000097]);
SELECT count(*) FROM estimated_calls(:no_samples);

--------------------------------------------------------------------------
-- Names are looked up with the caller's privileges and row security on
-- calltree.func, as the same SELECT would be: without SELECT on it, no
-- look-up; with a policy that shows build 1's funcs only, a name stands for
-- build 1's func and build 2's is a func that does not exist.
CREATE ROLE regress_funcs_by_name;
GRANT USAGE ON SCHEMA calltree TO regress_funcs_by_name;
GRANT SELECT ON mixed, nm TO regress_funcs_by_name;
SET ROLE regress_funcs_by_name;
SELECT funcs('^nm\.F$');
SELECT running_of(tree, 'nm.F') FROM mixed;
RESET ROLE;
GRANT SELECT ON func TO regress_funcs_by_name;
ALTER TABLE func ENABLE ROW LEVEL SECURITY;
CREATE POLICY build_1_only ON func FOR SELECT TO regress_funcs_by_name USING (resource IS DISTINCT FROM 'app (build 2)');
SET ROLE regress_funcs_by_name;
SELECT pg_temp.labels(funcs('^nm\.F$')) AS visible_f, running_of(tree, 'nm.F') AS running_f1 FROM mixed;
-- unified among the funcs it sees: build 2's stay as they are, so nothing merges
SELECT unify_funcs(tree) = tree AS unchanged FROM mixed;
-- an id the tree does not hold and the role cannot see (42704: undefined object)
\set VERBOSITY sqlstate
SELECT focus_function('{}'::calltree, :f2);
\set VERBOSITY default
RESET ROLE;
DROP POLICY build_1_only ON func;
ALTER TABLE func DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON func, mixed, nm FROM regress_funcs_by_name;
REVOKE USAGE ON SCHEMA calltree FROM regress_funcs_by_name;
DROP ROLE regress_funcs_by_name;

-- as it was
DELETE FROM profile WHERE id = :no_samples;
DELETE FROM func WHERE id IN (SELECT id FROM nm);
SELECT setval('func_id_seq', :func_seq, :'func_seq_called') IS NOT NULL AS func_seq_back,
       setval('profile_id_seq', :profile_seq, :'profile_seq_called') IS NOT NULL AS profile_seq_back;
