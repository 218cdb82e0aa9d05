--------------------------------------------------------------------------
-- The intern cache's triggers.  Each backend remembers the ids of interned
-- rows from one import to the next (src/store/intern_cache.c).  A
-- statement that changes or removes such rows tells every backend to
-- forget them.
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION intern_cache_invalidate() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_intern_cache_invalidate' LANGUAGE C;
