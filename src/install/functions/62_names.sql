--------------------------------------------------------------------------
-- Functions by name.  Users know function names, and one function can be
-- several funcs: a func is keyed by name, file and resource, and a native
-- func's resource carries its build id.  funcs() finds the funcs of a
-- pattern, for any argument that takes a func array; unify_funcs() makes
-- a tree's funcs one per name, so that trees of several builds compare
-- node by node and functions() counts a function once.
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION funcs(pattern text) RETURNS int4[]
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT COALESCE(pg_catalog.array_agg(f.id ORDER BY f.id), '{}'::int4[])
      FROM @extschema@.func f
     WHERE f.name OPERATOR(pg_catalog.~) pattern;
END;
COMMENT ON FUNCTION funcs(text) IS 'the ids of the funcs whose names match a POSIX regular expression, sorted (like pprof''s -focus=regex)';

CREATE OR REPLACE FUNCTION unify_funcs(tree calltree, by text DEFAULT 'name') RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_unify_funcs'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION unify_funcs(calltree, text) IS 'each func replaced by the smallest id of its name (by ''name'') or of its name and file (by ''file''), equal CallNodes merged; by ''func'' leaves the tree as it is';
