--------------------------------------------------------------------------
-- Formats.  Each importer returns the new profile's id; the import commits
-- whole with the caller's transaction or leaves nothing behind.
--------------------------------------------------------------------------

CREATE FUNCTION import_collapsed(data text, name text DEFAULT NULL, meta jsonb DEFAULT NULL,
                                 strict boolean DEFAULT true)
RETURNS bigint
AS 'MODULE_PATHNAME', 'calltree_import_collapsed'
LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION import_collapsed(text, text, jsonb, boolean) IS 'imports collapsed stacks ("a;b;c 42" lines); returns the profile id';
