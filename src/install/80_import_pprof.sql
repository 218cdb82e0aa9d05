
CREATE FUNCTION import_pprof(data bytea, sample_type text DEFAULT NULL, name text DEFAULT NULL,
                             meta jsonb DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_pprof'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_pprof(bytea, text, text, jsonb) IS 'imports a pprof profile (gzip-compressed or raw protobuf), one sample type (default: the profile''s default, else the last); returns the profile id';
