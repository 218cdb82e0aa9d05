-- calltree 0.2 -> 0.3: the changes of objects that are made once (types,
-- tables, indexes, triggers, operators), written by hand.  The functions
-- of src/install/functions/ are replayed after this file by the generated
-- upgrade script, so a function whose arguments or result change is
-- dropped here first (with what depends on it); a new function that a new
-- trigger or operator names is created here before it.

-- ==== Backups: the record of row-level security (issue 29, item 7) ====
-- Its tables, as schema/80_row_security.sql; its triggers and event
-- trigger come after the functions, in 0.2--0.3.post.sql.
CREATE TABLE row_security_flags (
    table_name name    PRIMARY KEY,  -- a table of the extension
    enabled    boolean NOT NULL,     -- ENABLE ROW LEVEL SECURITY
    forced     boolean NOT NULL      -- FORCE ROW LEVEL SECURITY
);
COMMENT ON TABLE row_security_flags IS 'the row-level security of each table of calltree, kept for pg_dump';

CREATE TABLE row_security_policy (
    table_name  name   NOT NULL,
    policy_name name   NOT NULL,
    permissive  text   NOT NULL,  -- PERMISSIVE or RESTRICTIVE
    cmd         text   NOT NULL,  -- ALL, SELECT, INSERT, UPDATE or DELETE
    roles       name[] NOT NULL,  -- by name; {public} for all
    qual        text,             -- USING, deparsed with only pg_catalog on the path
    with_check  text,             -- WITH CHECK, likewise
    CONSTRAINT row_security_policy_key PRIMARY KEY (table_name, policy_name)
);
COMMENT ON TABLE row_security_policy IS 'the policies on the tables of calltree, kept for pg_dump';

SELECT pg_catalog.pg_extension_config_dump('row_security_flags', '');
SELECT pg_catalog.pg_extension_config_dump('row_security_policy', '');
