
CREATE FUNCTION import_firefox(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_firefox'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_firefox(text, text, jsonb) IS 'imports a Firefox Profiler profile (Gecko or processed format); returns the profile id';
