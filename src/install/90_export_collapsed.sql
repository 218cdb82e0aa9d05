
CREATE FUNCTION to_collapsed(tree calltree) RETURNS text
AS 'MODULE_PATHNAME', 'calltree_to_collapsed'
LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION to_collapsed(calltree) IS 'collapsed stacks ("a;b;c 42" lines), one per node with self weight or without children; the inverse of import_collapsed';
