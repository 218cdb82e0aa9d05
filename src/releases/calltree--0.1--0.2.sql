-- calltree 0.1 -> 0.2.  Every change of an SQL object between the two
-- versions, in the order of the install fragments (src/install/); a fresh
-- 0.2 install and an updated 0.1 must have the same catalog, which
-- test/t_upgrade.sh checks.
\echo Use "ALTER EXTENSION calltree UPDATE TO '0.2'" to load this file. \quit
