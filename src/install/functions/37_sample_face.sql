--------------------------------------------------------------------------
-- The triggers of calltree.sample, the view that shows packed samples a
-- row each (bindings/37_sample_face.sql): a statement's inserted, updated
-- and deleted rows are gathered per profile and thread, then written into
-- sample_set when the executor finishes the statement, or, for a COPY, by
-- the statement trigger (src/store/sample_face.c).
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION sample_face_row() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_sample_face_row' LANGUAGE C;
COMMENT ON FUNCTION sample_face_row() IS 'INSTEAD OF trigger of calltree.sample: gathers an inserted, updated or deleted row for the end of the statement';

CREATE OR REPLACE FUNCTION sample_face_write() RETURNS trigger
AS 'MODULE_PATHNAME', 'calltree_sample_face_write' LANGUAGE C;
COMMENT ON FUNCTION sample_face_write() IS 'statement trigger of calltree.sample: writes the rows a COPY gathered into calltree.sample_set, a set per profile and thread (a statement''s executor writes them when it finishes)';
