--------------------------------------------------------------------------
-- The record of the row-level security of calltree's tables (tables:
-- schema/80_row_security.sql; triggers: bindings/90_row_security.sql;
-- how: src/store/row_security_record.c).
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION row_security_ddl_end() RETURNS event_trigger
AS 'MODULE_PATHNAME', 'calltree_row_security_ddl_end' LANGUAGE C;

CREATE OR REPLACE FUNCTION row_security_apply() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_row_security_apply' LANGUAGE C;

CREATE OR REPLACE FUNCTION record_row_security() RETURNS void
AS 'MODULE_PATHNAME', 'calltree_record_row_security' LANGUAGE C VOLATILE;
COMMENT ON FUNCTION record_row_security() IS
    'writes the row-level security and policies of calltree''s tables into the record that pg_dump dumps (done after every DDL command)';
