--------------------------------------------------------------------------
-- calltree.sample: every sample a row, as versions 0.1 and 0.2 kept them,
-- read from the packed sets of sample_set and from the rows of sample_row
-- that pack_samples() has not packed yet, each such row a set of one.  The
-- union is of single tables and the unnesting a lateral join, so that the
-- planner flattens the view into the query: a join to it by profile_id
-- reads the sets of the profiles joined through the index, not every
-- sample (a union of a join would be scanned whole).  A view with security_invoker:
-- the reader's privileges and the policies on sample_set and sample_row
-- apply.  INSERT, UPDATE and DELETE go through its triggers
-- (functions/37_sample_face.sql) into sample_set, a statement's rows
-- together, written when the statement's executor finishes, before any
-- AFTER trigger fires; the statement trigger writes those of a COPY, and
-- is named to fire before the statement triggers a user is likely to
-- name.  What only a table takes (BEFORE and AFTER row triggers,
-- constraints, indexes, policies, TRUNCATE) is sample_set's.
--------------------------------------------------------------------------

CREATE VIEW sample WITH (security_invoker = true) AS
SELECT s.profile_id, s.thread, u.ts, u.stack_id, u.weight, u.labels_id
  FROM (SELECT t.profile_id, t.thread, t.samples FROM @extschema@.sample_set t
        UNION ALL
        SELECT r.profile_id, r.thread, @extschema@.sample_of(r.stack_id, r.weight, r.ts, r.labels_id)
          FROM @extschema@.sample_row r) AS s
 CROSS JOIN LATERAL @extschema@.unnest(s.samples) AS u;
ALTER VIEW sample ALTER COLUMN weight SET DEFAULT 1;
COMMENT ON VIEW sample IS 'samples a row each: a stack and a weight (1, nanoseconds, bytes); ts in ns from profile start; read from sample_set, written into it';

CREATE TRIGGER sample_write INSTEAD OF INSERT OR UPDATE OR DELETE ON sample
    FOR EACH ROW EXECUTE FUNCTION sample_face_row();
CREATE TRIGGER _sample_write_sets AFTER INSERT OR UPDATE OR DELETE ON sample
    FOR EACH STATEMENT EXECUTE FUNCTION sample_face_write();
