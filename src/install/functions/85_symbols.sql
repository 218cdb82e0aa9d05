--------------------------------------------------------------------------
-- Symbolication: address frames, and the functions that name them.  A
-- profiler does not always know the symbol at an address, and the symbols
-- may arrive long after the samples.  A frame known only by its address
-- in a resource (a library, ideally named with its build id) gets a func
-- of its own, named by the address in hex ('0x7f3a12'), until symbols
-- arrive; symbolicate() then moves such frames to the funcs of their
-- symbols.
--
-- Address frames are the frames whose implementation is 'address'.  The
-- mark keeps them apart from frames an importer created with the symbol
-- already known: after symbolication both may have the same func and
-- address, and as distinct rows (a frame is unique on func, address, line,
-- col and implementation) neither the frame rows nor the stacks that point
-- at them ever need merging.  Both kinds resolve to the same func, so call
-- trees are the same.
--
-- Symbols are kept per resource in the symbol table (10_tables.sql), so
-- that a symbol table may arrive in several parts in any order, and so
-- that an address interned after symbolication gets its symbol's func at
-- once.  Addresses are unsigned
-- 64-bit values stored in bigint (kernel addresses are negative numbers);
-- they are compared as unsigned: the non-negative bigints come first, then
-- the negative ones.
--------------------------------------------------------------------------

-- The name of the func an address frame gets: the symbol with the highest
-- start not above the address, in unsigned order (two ranges of the
-- primary key, so no sort), else the address in hex.  PL/pgSQL, so that
-- its plans are kept from call to call (an SQL function with SET is
-- planned again at every call).
CREATE OR REPLACE FUNCTION address_name(resource text, address bigint)
RETURNS text
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    symbol_name text;
BEGIN
    SELECT s.name INTO symbol_name FROM @extschema@.symbol s
     WHERE s.resource = address_name.resource AND s.start <= address_name.address
       AND (s.start >= 0 OR address_name.address < 0)
     ORDER BY s.start DESC LIMIT 1;
    IF NOT FOUND AND address_name.address < 0 THEN
        SELECT s.name INTO symbol_name FROM @extschema@.symbol s
         WHERE s.resource = address_name.resource AND s.start >= 0
         ORDER BY s.start DESC LIMIT 1;
    END IF;
    RETURN coalesce(symbol_name, '0x' || to_hex(address_name.address));
END
$$;
COMMENT ON FUNCTION address_name(text, bigint) IS 'the func name of an address frame: its symbol''s name, else the address in hex';

CREATE OR REPLACE FUNCTION intern_address(resource text, address bigint)
RETURNS bigint
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found_id bigint;
BEGIN
    IF intern_address.resource IS NULL OR intern_address.address IS NULL THEN
        RAISE EXCEPTION 'address frame resource and address must not be null'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    -- A frame found keeps its id when symbolicate() moves it.  A new one is
    -- named under the intern lock, which symbolicate() takes too: either
    -- symbolicate() committed before, and the name comes from its symbols,
    -- or it runs after our commit and sees the frame.  Look again under
    -- the lock (a new snapshot): another session may have made the frame
    -- while we waited.
    FOR attempt IN 1 .. 2 LOOP
        SELECT fr.id INTO found_id
          FROM @extschema@.frame fr JOIN @extschema@.func f ON f.id = fr.func_id
         WHERE fr.address = intern_address.address AND fr.implementation = 'address'
           AND fr.line IS NULL AND fr.col IS NULL
           AND f.resource = intern_address.resource;
        IF FOUND THEN
            RETURN found_id;
        END IF;
        IF attempt = 1 THEN
            PERFORM @extschema@.intern_lock();
        END IF;
    END LOOP;
    RETURN @extschema@.intern_frame(
        @extschema@.intern_func(@extschema@.address_name(intern_address.resource, intern_address.address),
                                NULL, intern_address.resource),
        intern_address.address, NULL, NULL, 'address');
END
$$;
COMMENT ON FUNCTION intern_address(text, bigint) IS 'interns a frame known by its address in a resource; its func is named by the address until symbolicate() assigns one';

CREATE OR REPLACE FUNCTION symbolicate(resource text, starts bigint[], names text[])
RETURNS TABLE (old_func int4, new_func int4)
AS 'MODULE_PATHNAME', 'calltree_symbolicate'
LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;
COMMENT ON FUNCTION symbolicate(text, bigint[], text[]) IS 'moves the address frames of a resource to the funcs of their symbols; returns the old to new func map for remap_functions';
