-- The trigger of sample_set_default (its function: functions/77_retention.sql):
-- no sample set of a profile id past the last time window, where it would
-- stop the next window from opening.  Only rows that land in
-- sample_set_default pay for it.
CREATE TRIGGER sample_window_check BEFORE INSERT OR UPDATE OF profile_id ON sample_set_default
    FOR EACH ROW EXECUTE FUNCTION sample_window_check();
