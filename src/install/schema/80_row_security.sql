--------------------------------------------------------------------------
-- The record of the row-level security of calltree's tables, for pg_dump,
-- which dumps neither the flags nor the policies of an extension's tables.
-- An event trigger keeps it equal to the catalog, and a row inserted into
-- it, as a restore does, is applied (src/store/row_security_record.c).
-- Columns as pg_policies has them.  pg_dump loads an extension's tables
-- in the order of their names: the flags before the policies, so that a
-- restore that cannot make a policy leaves its table's row-level security
-- on.  No foreign key between them: under REPEATABLE READ its check would
-- fail DDL that records after a concurrent transaction recorded.
--------------------------------------------------------------------------

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
