
CREATE FUNCTION import_profile(data bytea, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                               strict boolean DEFAULT NULL, event text DEFAULT NULL,
                               sample_type text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_profile'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_profile(bytea, text, jsonb, boolean, text, text) IS 'imports a profile of any supported format, recognized from its content (gzip and UTF-16 unwrapped), passing strict (collapsed), event (perf script) or sample_type (pprof) to its importer; returns the profile id';
