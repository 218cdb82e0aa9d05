-- calltree.distribute() in a database without Citus: a clear error that
-- says how to set Citus up, and nothing changed (test/t_citus.sh runs it
-- on Citus).
\set SHOW_CONTEXT never
SELECT calltree.distribute();
SELECT calltree.distribute(0);
-- the integrity triggers are all there still (15_integrity.sql,
-- 16_intern_cache.sql, 20_interning.sql)
SELECT tgrelid::regclass AS table_name, count(*) AS triggers
  FROM pg_trigger
 WHERE tgrelid IN ('calltree.sample'::regclass, 'calltree.stack'::regclass, 'calltree.profile'::regclass)
   AND NOT tgisinternal
 GROUP BY 1 ORDER BY tgrelid::regclass::text;
