-- calltree 0.2 -> 0.3: the changes of objects that are made once (types,
-- tables, indexes, triggers, operators), written by hand.  The functions
-- of src/install/functions/ are replayed after this file by the generated
-- upgrade script, so a function whose arguments or result change is
-- dropped here first (with what depends on it); a new function that a new
-- trigger or operator names is created here before it.

-- Fleet ingest (calltree-receiver): the index that finds a Push's sample ID
CREATE INDEX profile_push_id_idx ON profile USING hash ((meta OPERATOR(pg_catalog.->>) 'push_id'));
