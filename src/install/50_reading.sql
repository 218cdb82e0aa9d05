--------------------------------------------------------------------------
-- Reading trees
--------------------------------------------------------------------------

CREATE FUNCTION nodes(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT calls bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_nodes'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION nodes(calltree) IS 'the CallNodes of a tree in depth-first preorder, siblings by running desc then func';

CREATE FUNCTION functions(tree calltree,
    OUT func int4, OUT running bigint, OUT self bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'calltree_functions'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;

COMMENT ON FUNCTION functions(calltree) IS 'per func: running (each sample once, even under recursion) and self';

CREATE FUNCTION total(tree calltree) RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_total'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION report(tree calltree,
    OUT node int4, OUT parent int4, OUT depth int4, OUT func int4, OUT path int4[],
    OUT running bigint, OUT self bigint, OUT calls bigint,
    OUT name text, OUT running_pct numeric, OUT self_pct numeric, OUT label text)
RETURNS SETOF record
LANGUAGE sql STABLE STRICT PARALLEL SAFE ROWS 1000
SET search_path = pg_catalog, pg_temp
AS $$
    SELECT n.node, n.parent, n.depth, n.func, n.path, n.running, n.self, n.calls,
           coalesce(f.name, '#' || n.func) AS name,
           round(100.0 * n.running / nullif(t.total, 0), 2) AS running_pct,
           round(100.0 * n.self / nullif(t.total, 0), 2) AS self_pct,
           repeat('  ', n.depth) || coalesce(f.name, '#' || n.func) AS label
      FROM @extschema@.nodes(tree) AS n
      CROSS JOIN (SELECT @extschema@.total(tree) AS total) AS t
      LEFT JOIN @extschema@.func AS f ON f.id = n.func
     ORDER BY n.node
$$;

COMMENT ON FUNCTION report(calltree) IS 'nodes() with func names, percentages of the total and an indented label';
