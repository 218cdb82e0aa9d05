
CREATE FUNCTION flamegraph(tree calltree, title text DEFAULT NULL, icicle boolean DEFAULT false,
                           min_width float8 DEFAULT 0.1)
RETURNS text
AS 'MODULE_PATHNAME', 'calltree_flamegraph'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION flamegraph(calltree, text, boolean, float8) IS 'an interactive flame graph (icicle graph with icicle => true) as a self-contained SVG document';
