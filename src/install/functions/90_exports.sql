--------------------------------------------------------------------------
-- Exporters: a tree written out in the formats of other tools.  Collapsed
-- stacks, a pprof profile and a speedscope file can be read back by the
-- importers; the flame graph is an SVG document to look at.
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION to_collapsed(tree calltree) RETURNS text
AS 'MODULE_PATHNAME', 'calltree_to_collapsed'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION to_collapsed(calltree) IS 'collapsed stacks ("a;b;c 42" lines), one per node with self weight or without children; the inverse of import_collapsed';

-- unit: the weights' (weight_unit_of() of the tree's profiles), which the
-- tooltips print them in as format_weight() does; NULL: as numbers.
CREATE OR REPLACE FUNCTION flamegraph(tree calltree, title text DEFAULT NULL, icicle boolean DEFAULT false,
                           min_width float8 DEFAULT 0.1, unit text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'calltree_flamegraph'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION flamegraph(calltree, text, boolean, float8, text) IS 'an interactive flame graph (icicle graph with icicle => true) as a self-contained SVG document; its tooltips print weights in unit as format_weight() does (NULL: as numbers)';

CREATE OR REPLACE FUNCTION flamegraph_diff(base calltree, test calltree, title text DEFAULT NULL,
                                icicle boolean DEFAULT false, min_width float8 DEFAULT 0.1,
                                unit text DEFAULT NULL)
RETURNS text
AS 'MODULE_PATHNAME', 'calltree_flamegraph_diff'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION flamegraph_diff(calltree, calltree, text, boolean, float8, text) IS 'a differential flame graph as a self-contained SVG document: widths from test, red where a node''s share of the total grew since base, blue where it shrank; tooltips in unit as format_weight() prints (NULL: numbers)';

-- The data frame of Grafana's flame graph panel in its diff mode: the rows
-- of grafana_flamegraph() with base's weights in value and self and test's
-- in valueRight and selfRight, one row per CallNode of either tree.
CREATE OR REPLACE FUNCTION grafana_flamegraph_diff(base calltree, test calltree,
    OUT level int4, OUT value bigint, OUT self bigint, OUT label text,
    OUT "valueRight" bigint, OUT "selfRight" bigint)
RETURNS SETOF record
LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 1000
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    SELECT f.level, f.value, f.self, f.label, f.value_right, f.self_right
      FROM (SELECT 0 AS ord, 0 AS level, @extschema@.total(base) AS value, 0::bigint AS self,
                   'total' AS label, @extschema@.total(test) AS value_right, 0::bigint AS self_right
            UNION ALL
            SELECT d.node, d.depth + 1, d.base_running, d.base_self, COALESCE(fn.name, '#' || d.func),
                   d.test_running, d.test_self
              FROM @extschema@.diff(base, test) AS d
              LEFT JOIN @extschema@.func AS fn ON fn.id = d.func) AS f
     ORDER BY f.ord;
END;
COMMENT ON FUNCTION grafana_flamegraph_diff(calltree, calltree) IS 'the rows of Grafana''s flame graph data frame in diff mode: level, value and self (base), label, valueRight and selfRight (test), in depth-first order over the union of both trees under a total root';

CREATE OR REPLACE FUNCTION to_pprof(tree calltree, sample_type text DEFAULT 'samples', unit text DEFAULT 'count')
RETURNS bytea
AS 'MODULE_PATHNAME', 'calltree_to_pprof'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION to_pprof(calltree, text, text) IS 'the tree as a gzip-compressed pprof profile: one sample per node with self weight, of the sample type and unit given (meta.sample_type and weight_unit of the profiles it came from; default samples/count)';

CREATE OR REPLACE FUNCTION to_speedscope(tree calltree, name text DEFAULT NULL, unit text DEFAULT NULL)
RETURNS json
AS 'MODULE_PATHNAME', 'calltree_to_speedscope'
LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION to_speedscope(calltree, text, text) IS 'a speedscope file with one sampled profile: one sample per node with self weight, in the unit given (profile.weight_unit; NULL or a count: none)';
