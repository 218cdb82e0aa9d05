-- symbolicate(): the Firefox Profiler's example ("Frames, funcs, stacks and
-- CallNodes in C++").  The frames of main() at 0x02, 0x03, 0x06, 0x09, of
-- doSomething() at 0x11 and of someInterlude() at 0x15 are known only by
-- their addresses in the resource 'example'; the symbols main at 0x01,
-- doSomething at 0x0F and someInterlude at 0x14 arrive later, and change
-- the shape of the call tree.
SET search_path = calltree, public;

-- the example's stacks, in a profile per resource (the same stacks in
-- 'example-parts' and 'example-reversed', for the symbol table in parts)
CREATE FUNCTION pg_temp.seed_profile(resource text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    p bigint;
BEGIN
    INSERT INTO calltree.profile (name, format) VALUES ('seed 002 ' || resource, 'test') RETURNING id INTO p;
    INSERT INTO calltree.sample (profile_id, stack_id, weight)
    SELECT p, calltree.intern_stack(calltree.intern_stack(NULL, calltree.intern_address(resource, v.caller)),
                                    calltree.intern_address(resource, v.leaf)), v.weight
      FROM (VALUES (x'03'::int, x'11'::int, 10), (x'09'::int, x'11'::int, 10), (x'06'::int, x'15'::int, 1)) AS v(caller, leaf, weight);
    INSERT INTO calltree.sample (profile_id, stack_id, weight)
    VALUES (p, calltree.intern_stack(NULL, calltree.intern_address(resource, x'02'::int)), 1);
    RETURN p;
END
$$;
CREATE FUNCTION pg_temp.tree(p bigint) RETURNS calltree LANGUAGE sql AS $$
    SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = p
$$;
-- the map by name (in a statement of its own: funcs that symbolicate()
-- creates are not visible to the statement that calls it)
CREATE FUNCTION pg_temp.map_names(map_table regclass) RETURNS TABLE (old_name text, new_name text)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE format('SELECT o.name, n.name FROM %s m JOIN calltree.func o ON o.id = m.old_func '
                                'JOIN calltree.func n ON n.id = m.new_func ORDER BY o.id', map_table);
END
$$;
SELECT pg_temp.seed_profile('example') AS p \gset

-- before symbolication: one CallNode per frame, named by address
SELECT label, running, self FROM report(pg_temp.tree(:p));
CREATE TEMP TABLE saved AS SELECT pg_temp.tree(:p) AS tree,
       (SELECT path FROM nodes(pg_temp.tree(:p)) WHERE running = 10 AND self = 10 ORDER BY node LIMIT 1) AS selected;

-- the symbols arrive: 0x01 main, 0x0F doSomething, 0x14 someInterlude.
-- Each symbol's func is one of the funcs it combines (the Firefox Profiler: "we pick
-- one func object"): the func of its first frame (lowest frame id) is
-- renamed and keeps its id; the map lists the others, merged into it
-- (0x2, 0x6, 0x9 into main, formerly 0x3; doSomething and someInterlude
-- were 0x11 and 0x15).
CREATE TEMP TABLE map AS
SELECT * FROM symbolicate('example', ARRAY[x'01'::int, x'0F'::int, x'14'::int]::bigint[],
                          '{main,doSomething,someInterlude}');
SELECT * FROM pg_temp.map_names('map');

-- after: main → doSomething, main → someInterlude; the stacks are the same
-- rows, stack_agg resolves their frames to the new funcs
SELECT label, running, self FROM report(pg_temp.tree(:p));

-- the map carries saved state over: the saved tree and a saved node path
SELECT remap_functions(tree, (SELECT array_agg(old_func) FROM map), (SELECT array_agg(new_func) FROM map))
       = pg_temp.tree(:p) AS saved_tree_carried_over,
       (SELECT array_agg(f.name ORDER BY i) FROM unnest(remap_functions(selected,
               (SELECT array_agg(old_func) FROM map), (SELECT array_agg(new_func) FROM map)))
               WITH ORDINALITY AS u(func, i) JOIN func f ON f.id = u.func) AS saved_path_carried_over
  FROM saved;

-- the frames keep their addresses; which lines of main() are expensive
SELECT fr.address, f.name, sum(s.weight) AS self
  FROM sample s JOIN stack st ON st.id = s.stack_id JOIN frame fr ON fr.id = st.frame_id
  JOIN func f ON f.id = fr.func_id
 WHERE s.profile_id = :p GROUP BY 1, 2 ORDER BY 1;

-- symbolicating again with the same table changes nothing
SELECT count(*) AS merged FROM symbolicate('example', '{1,15,20}', '{main,doSomething,someInterlude}');

-- an address interned after the symbols arrived gets its symbol's func at
-- once; one below the first symbol keeps a func of its own
SELECT intern_address('example', x'16'::int) AS a16, intern_address('example', 0) AS a0 \gset
SELECT fr.address, f.name FROM frame fr JOIN func f ON f.id = fr.func_id
 WHERE fr.id IN (:a16, :a0) ORDER BY fr.address;

-- a symbol table in two parts gives the same tree, in either order.  A map
-- lists only funcs left without frames: after the first of the ascending
-- parts, 0x15 belongs to doSomething (the highest symbol known); the second
-- part moves it to someInterlude while doSomething keeps 0x11, so
-- doSomething is not in the second map (a saved path through it may mean
-- either function).
SELECT pg_temp.seed_profile('example-parts') AS p_parts \gset
CREATE TEMP TABLE map1 AS SELECT * FROM symbolicate('example-parts', '{1,15}', '{main,doSomething}');
SELECT * FROM pg_temp.map_names('map1');
SELECT label, running, self FROM report(pg_temp.tree(:p_parts));
CREATE TEMP TABLE map2 AS SELECT * FROM symbolicate('example-parts', '{20}', '{someInterlude}');
SELECT * FROM pg_temp.map_names('map2');
SELECT pg_temp.seed_profile('example-reversed') AS p_reversed \gset
SELECT count(*) AS merged FROM symbolicate('example-reversed', '{20}', '{someInterlude}');
SELECT count(*) AS merged FROM symbolicate('example-reversed', '{15,1}', '{doSomething,main}');
SELECT label, running, self FROM report(pg_temp.tree(:p_parts));
SELECT label, running, self FROM report(pg_temp.tree(:p_reversed));
SELECT (SELECT array_agg(f.name || ':' || n.running || '/' || n.self ORDER BY n.node)
          FROM nodes(pg_temp.tree(:p_parts)) n JOIN func f ON f.id = n.func)
     = (SELECT array_agg(f.name || ':' || n.running || '/' || n.self ORDER BY n.node)
          FROM nodes(pg_temp.tree(:p_reversed)) n JOIN func f ON f.id = n.func) AS same_tree;

-- the symbols are kept per resource
SELECT resource, start, name FROM symbol WHERE resource LIKE 'example%' ORDER BY resource, start;

-- unsorted symbols are sorted; the same symbol twice is one symbol; a
-- later table replaces the name at a start it shares with an earlier one
SELECT intern_address('unsorted', 100) AS u100, intern_address('unsorted', 250) AS u250 \gset
SELECT count(*) AS merged FROM symbolicate('unsorted', '{200,50,50,150}', '{gamma,alpha,alpha,beta}');
SELECT fr.address, f.name FROM frame fr JOIN func f ON f.id = fr.func_id
 WHERE fr.id IN (:u100, :u250) ORDER BY 1;
CREATE TEMP TABLE map3 AS SELECT * FROM symbolicate('unsorted', '{200}', '{gamma_renamed}');
SELECT * FROM pg_temp.map_names('map3');

-- kernel addresses (above 2^63, negative as bigint) sort above user ones
SELECT intern_address('vmlinux', x'ffffffff9fa00a67'::bigint) AS k,
       intern_address('vmlinux', x'0000000000400000'::bigint) AS low \gset
SELECT count(*) AS merged FROM symbolicate('vmlinux',
       ARRAY[x'ffffffff9fa00a00'::bigint, x'0000000000001000'::bigint], '{native_irq_return_iret,user_code}');
SELECT to_hex(fr.address) AS address, f.name FROM frame fr JOIN func f ON f.id = fr.func_id
 WHERE fr.id IN (:k, :low) ORDER BY 2;

-- an importer's frame with the symbol already known and the address frame
-- end with the same func and address: two frame rows, one CallNode
SELECT intern_frame(intern_func('dup', NULL, 'dup.so'), 4096) AS known,
       intern_address('dup.so', 4096) AS by_address \gset
SELECT count(*) AS merged FROM symbolicate('dup.so', '{4096}', '{dup}');
SELECT fr.id = :known AS known, fr.func_id = intern_func('dup', NULL, 'dup.so') AS func_dup,
       fr.address, fr.implementation
  FROM frame fr WHERE fr.id IN (:known, :by_address) ORDER BY fr.id;
SELECT intern_stack(NULL, :known) AS s_known, intern_stack(NULL, :by_address) AS s_by_address \gset
SELECT :s_known <> :s_by_address AS two_stacks;
SELECT label, running, self FROM report((SELECT stack_agg(s) FROM (VALUES (:s_known), (:s_by_address)) AS v(s)));

-- After import_perf_script: its [unknown] frames are address frames of
-- their dso, named by address until the dso's symbols arrive.  Four
-- samples (periods 10, 10, 5, 1; root first):
--   main@400500 → 7f0000002040 → 7f0000001010   10
--   main@400500 → 7f0000002048 → 7f0000001020   10
--   main@400510 → 7f0000003000                   5
--   main@400520                                  1
-- Symbols of libdemo.so: leaf_work at 7f0000001000, dispatch at
-- 7f0000002000, cleanup at 7f0000003000.  Before: main 26/1 (running/self)
-- and five address funcs, 10/0, 10/0, 10/10, 10/10, 5/5.  After: the two
-- frames in dispatch and the two in leaf_work each become one func,
-- main → dispatch → leaf_work 20/20 and main → cleanup 5/5.
\set demo_perf 'app 100/100 1.000000: 10 cycles:u:\n\t    7f0000001010 [unknown] (/opt/demo/libdemo.so)\n\t    7f0000002040 [unknown] (/opt/demo/libdemo.so)\n\t    400500 main (/opt/demo/app)\n\napp 100/100 1.001000: 10 cycles:u:\n\t    7f0000001020 [unknown] (/opt/demo/libdemo.so)\n\t    7f0000002048 [unknown] (/opt/demo/libdemo.so)\n\t    400500 main (/opt/demo/app)\n\napp 100/100 1.002000: 5 cycles:u:\n\t    7f0000003000 [unknown] (/opt/demo/libdemo.so)\n\t    400510 main (/opt/demo/app)\n\napp 100/100 1.003000: 1 cycles:u:\n\t    400520 main (/opt/demo/app)\n'
SELECT import_perf_script(E:'demo_perf', name => 'demo before symbols') AS perf \gset
SELECT f.name, f.resource, fn.running, fn.self
  FROM functions(pg_temp.tree(:perf)) fn JOIN func f ON f.id = fn.func ORDER BY fn.running DESC, f.name;
SELECT label, running, self FROM report(pg_temp.tree(:perf));
-- the CallNode main → 0x7f0000002040 → 0x7f0000001010
SELECT n.running, n.self FROM nodes(pg_temp.tree(:perf)) n
 WHERE n.path = ARRAY[intern_func('main', NULL, '/opt/demo/app'),
                      (SELECT func_id FROM frame WHERE id = intern_address('/opt/demo/libdemo.so', x'7f0000002040'::bigint)),
                      (SELECT func_id FROM frame WHERE id = intern_address('/opt/demo/libdemo.so', x'7f0000001010'::bigint))];
CREATE TEMP TABLE perf_saved AS SELECT pg_temp.tree(:perf) AS tree;

CREATE TEMP TABLE perf_map AS
SELECT * FROM symbolicate('/opt/demo/libdemo.so',
                          ARRAY[x'7f0000003000'::bigint, x'7f0000001000'::bigint, x'7f0000002000'::bigint],
                          '{cleanup,leaf_work,dispatch}');
-- two funcs merged away: the second address of dispatch and of leaf_work
SELECT n.name AS new_name, count(*) AS merged FROM perf_map m JOIN func n ON n.id = m.new_func GROUP BY 1 ORDER BY 1;
SELECT f.name, f.resource, fn.running, fn.self
  FROM functions(pg_temp.tree(:perf)) fn JOIN func f ON f.id = fn.func ORDER BY fn.running DESC, f.name;
SELECT label, running, self FROM report(pg_temp.tree(:perf));
SELECT n.running, n.self FROM nodes(pg_temp.tree(:perf)) n
 WHERE n.path = ARRAY[intern_func('main', NULL, '/opt/demo/app'), intern_func('dispatch', NULL, '/opt/demo/libdemo.so'),
                      intern_func('leaf_work', NULL, '/opt/demo/libdemo.so')];
-- the tree saved before, remapped, is the tree after; the same file
-- imported again gets the symbols' funcs at once
SELECT remap_functions(tree, (SELECT array_agg(old_func) FROM perf_map), (SELECT array_agg(new_func) FROM perf_map))
       = pg_temp.tree(:perf) AS saved_tree_carried_over,
       pg_temp.tree(import_perf_script(E:'demo_perf', name => 'demo after symbols')) = pg_temp.tree(:perf) AS reimport_same_tree
  FROM perf_saved;

-- bad input: an error, and nothing changes
SELECT symbolicate('example', '{1,2}', '{a}');
SELECT symbolicate('example', '{1,NULL}', '{a,b}');
SELECT symbolicate('example', '{1,2}', '{a,NULL}');
SELECT symbolicate('example', '{5,7,5}', '{a,b,c}');
SELECT symbolicate('example', '{{1,2}}', '{{a,b}}');
SELECT count(*) AS symbols FROM symbol WHERE resource = 'example';
-- an empty table, an unknown resource: nothing to do
SELECT count(*) FROM symbolicate('example', '{}', '{}');
SELECT count(*) FROM symbolicate('no such library', '{1}', '{x}');
