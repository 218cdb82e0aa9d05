
CREATE FUNCTION import_stream(chunks regclass, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                              format text DEFAULT NULL, strict boolean DEFAULT NULL,
                              event text DEFAULT NULL, sample_type text DEFAULT NULL)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_stream'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_stream(regclass, text, jsonb, text, boolean, text, text) IS 'imports a profile file sent as base64 chunks in a table (seq, chunk), as bin/calltree-load does: collapsed stacks and perf script as a stream, other formats whole, with the options of import_profile; returns the profile id';
