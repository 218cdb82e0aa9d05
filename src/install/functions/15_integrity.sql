--------------------------------------------------------------------------
-- Integrity: the triggers that check the references between the tables.
-- The references of stack rows (to their prefix stack and their frame)
-- and of samples (to their profile and label set, and to their stack,
-- read from the dictionaries of packed values in sample_set) are
-- checked a statement at a time by triggers rather than row by row by
-- foreign keys: src/store/integrity.c says why and how.  interned_refuse
-- refuses what such checks could not follow: an update of a stack or of
-- the id of a frame, profile or label set, and TRUNCATE of frame, profile
-- or labels.  frame.func_id stays a foreign key.  On Citus, which refuses
-- such triggers, distribute() (95_citus.sql) replaces those that read
-- other tables with the foreign keys they stand for.
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION stack_insert_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_stack_insert_check' LANGUAGE C
-- index probes for the new rows, never a scan of the whole table
SET enable_hashjoin = off SET enable_mergejoin = off;

CREATE OR REPLACE FUNCTION interned_delete_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_interned_delete_check' LANGUAGE C;

CREATE OR REPLACE FUNCTION interned_refuse() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_interned_refuse' LANGUAGE C;

CREATE OR REPLACE FUNCTION sample_refs_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_sample_refs_check' LANGUAGE C;

CREATE OR REPLACE FUNCTION sample_set_refs_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_sample_set_refs_check' LANGUAGE C;

CREATE OR REPLACE FUNCTION profile_delete_cascade() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_profile_delete_cascade' LANGUAGE C;

CREATE OR REPLACE FUNCTION labels_delete_check() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_labels_delete_check' LANGUAGE C;

CREATE OR REPLACE FUNCTION labels_delete_hold() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_labels_delete_hold' LANGUAGE C;
