-- calltree 0.2 -> 0.3: what comes after the functions are replayed.

-- ---- partitions (issue 29, items 5 and 6): sample_default refuses the
-- samples of profile ids past the last window (bindings/77_retention.sql).
-- Those that 0.2 let in are moved by the next new_sample_partition().
CREATE TRIGGER sample_window_check BEFORE INSERT OR UPDATE OF profile_id ON sample_default
    FOR EACH ROW EXECUTE FUNCTION sample_window_check();
