--------------------------------------------------------------------------
-- JSON formats: V8/Chrome .cpuprofile and speedscope files, parsed with
-- PostgreSQL's own JSON parser; speedscope files out.
--------------------------------------------------------------------------

CREATE FUNCTION import_cpuprofile(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_cpuprofile'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_cpuprofile(text, text, jsonb) IS 'imports a V8/Chrome/Node .cpuprofile (weights in ns, samples keep their ts); returns the profile id';

CREATE FUNCTION import_speedscope(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_speedscope'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_speedscope(text, text, jsonb) IS 'imports a speedscope file (sampled and evented profiles, one thread each); returns the profile id';

CREATE FUNCTION to_speedscope(tree calltree, name text DEFAULT NULL)
RETURNS json
AS 'MODULE_PATHNAME', 'calltree_to_speedscope'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION to_speedscope(calltree, text) IS 'a speedscope file with one sampled profile: one sample per node with self weight';
