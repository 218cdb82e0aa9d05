
CREATE FUNCTION import_profile(data bytea, name text DEFAULT NULL, meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_profile'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_profile(bytea, text, jsonb) IS 'imports a profile of any supported format, recognized from its content (gzip and UTF-16 unwrapped); returns the profile id';
