-- Every profile of every format, read every way: its tree (text), report,
-- functions, exports and a few transforms; every interned table's rows.
SET search_path = public, calltree;

SELECT p.id, p.name, p.format, p.weight_unit, count(s.stack_id) AS samples, sum(s.weight) AS weight
  FROM profile p LEFT JOIN sample s ON s.profile_id = p.id
 GROUP BY p.id ORDER BY p.id;

CREATE TEMP TABLE trees AS
SELECT profile_id, stack_agg(stack_id, weight) AS tree FROM sample GROUP BY profile_id;

SELECT profile_id, md5(tree::text) AS tree, total(tree) FROM trees ORDER BY profile_id;
SELECT 'merge ' || md5(calltree_merge(tree)::text) FROM trees;
SELECT 'paths ' || md5(calltree_agg(stack_path(stack_id), weight)::text) FROM sample;
SELECT profile_id, md5(string_agg(r::text, ',')) AS report FROM trees, report(tree) r GROUP BY profile_id ORDER BY profile_id;
SELECT profile_id, md5(string_agg(f::text, ',' ORDER BY f::text)) AS functions FROM trees, functions(tree) f GROUP BY profile_id ORDER BY profile_id;
SELECT profile_id, md5(to_collapsed(tree)) AS collapsed, md5(flamegraph(tree)) AS flamegraph,
       md5(to_pprof(tree)) AS pprof, md5(to_speedscope(tree)::text) AS speedscope
  FROM trees ORDER BY profile_id;
SELECT profile_id, md5(invert(tree)::text) AS inverted
  FROM trees ORDER BY profile_id;

-- one node's trees against grouping by profile (pushed down whole on Citus)
SELECT profile_id, md5(stack_agg(stack_id, weight)::text) FROM sample GROUP BY profile_id ORDER BY profile_id;
-- and across profiles (partial aggregates, or pulled to the coordinator)
SELECT md5(stack_agg(stack_id, weight)::text) AS all_samples FROM sample;
SELECT p.format, md5(stack_agg(s.stack_id, s.weight)::text)
  FROM profile p JOIN sample s ON s.profile_id = p.id GROUP BY p.format ORDER BY p.format;

SELECT t || ' ' || (xpath('/row/c/text()', query_to_xml(format(
         'SELECT count(*) || '' '' || coalesce(md5(string_agg(x::text, '','' ORDER BY x::text)), ''-'') AS c FROM calltree.%I AS x', t),
         false, true, '')))[1]::text AS table_rows
  FROM unnest(ARRAY['func', 'frame', 'stack', 'labels', 'event', 'symbol']) AS t;
SELECT 'stack_path ' || md5(string_agg(stack_path(id)::text, ',' ORDER BY id)) FROM stack;
