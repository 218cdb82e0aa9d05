
CREATE FUNCTION to_pprof(tree calltree, sample_type text DEFAULT 'samples', unit text DEFAULT 'count')
RETURNS bytea
AS 'MODULE_PATHNAME', 'calltree_to_pprof'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION to_pprof(calltree, text, text) IS 'the tree as a gzip-compressed pprof profile: one sample per node with self weight';
