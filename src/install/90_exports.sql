--------------------------------------------------------------------------
-- Exporters: a tree written out in the formats of other tools.  Collapsed
-- stacks, a pprof profile and a speedscope file can be read back by the
-- importers; the flame graph is an SVG document to look at.
--------------------------------------------------------------------------

CREATE FUNCTION to_collapsed(tree calltree) RETURNS text
AS 'MODULE_PATHNAME', 'calltree_to_collapsed'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION to_collapsed(calltree) IS 'collapsed stacks ("a;b;c 42" lines), one per node with self weight or without children; the inverse of import_collapsed';

CREATE FUNCTION flamegraph(tree calltree, title text DEFAULT NULL, icicle boolean DEFAULT false,
                           min_width float8 DEFAULT 0.1)
RETURNS text
AS 'MODULE_PATHNAME', 'calltree_flamegraph'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION flamegraph(calltree, text, boolean, float8) IS 'an interactive flame graph (icicle graph with icicle => true) as a self-contained SVG document';

CREATE FUNCTION flamegraph_diff(base calltree, test calltree, title text DEFAULT NULL,
                                icicle boolean DEFAULT false, min_width float8 DEFAULT 0.1)
RETURNS text
AS 'MODULE_PATHNAME', 'calltree_flamegraph_diff'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION flamegraph_diff(calltree, calltree, text, boolean, float8) IS 'a differential flame graph as a self-contained SVG document: widths from test, red where a node''s share of the total grew since base, blue where it shrank';

CREATE FUNCTION to_pprof(tree calltree, sample_type text DEFAULT 'samples', unit text DEFAULT 'count')
RETURNS bytea
AS 'MODULE_PATHNAME', 'calltree_to_pprof'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION to_pprof(calltree, text, text) IS 'the tree as a gzip-compressed pprof profile: one sample per node with self weight';

CREATE FUNCTION to_speedscope(tree calltree, name text DEFAULT NULL)
RETURNS json
AS 'MODULE_PATHNAME', 'calltree_to_speedscope'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION to_speedscope(calltree, text) IS 'a speedscope file with one sampled profile: one sample per node with self weight';
