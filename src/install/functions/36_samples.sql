--------------------------------------------------------------------------
-- Reading a samples value: its rows, its sample count, and the distinct
-- stacks and label sets it refers to (what reference checks and garbage
-- collection need, read from the value's dictionaries without unpacking
-- its samples).  Packing rows is the aggregate samples_agg, and
-- stack_agg(samples) sums packed values into a tree (40_aggregates.sql).
--------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION unnest(samples samples,
    OUT stack_id bigint, OUT weight bigint, OUT ts bigint, OUT labels_id bigint) RETURNS SETOF record
AS 'MODULE_PATHNAME', 'samples_unnest' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1000;
CREATE OR REPLACE FUNCTION sample_count(samples samples) RETURNS bigint
AS 'MODULE_PATHNAME', 'samples_count' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION stack_ids(samples samples) RETURNS bigint[]
AS 'MODULE_PATHNAME', 'samples_stack_id_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION label_set_ids(samples samples) RETURNS bigint[]
AS 'MODULE_PATHNAME', 'samples_label_set_id_array' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION unnest(samples) IS 'the samples of a packed value as rows (stack_id, weight, ts, labels_id), untimed samples first by stack, then the others in time order; ts and labels_id NULL where a sample has none';
COMMENT ON FUNCTION sample_count(samples) IS 'the number of samples in a packed value, duplicates counted';
COMMENT ON FUNCTION stack_ids(samples) IS 'the distinct stack ids of a packed value, ascending';
COMMENT ON FUNCTION label_set_ids(samples) IS 'the distinct label set ids of a packed value, ascending (empty when no sample has one)';

CREATE OR REPLACE FUNCTION with_label_sets(samples samples, label_sets bigint[]) RETURNS samples
AS 'MODULE_PATHNAME', 'samples_with_label_sets' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION with_label_sets(samples, bigint[]) IS 'the samples whose label set is one of label_sets, packed; read from the dictionary alone when the value has none of them';

CREATE OR REPLACE FUNCTION sample_of(stack_id bigint, weight bigint, ts bigint, labels_id bigint) RETURNS samples
AS 'MODULE_PATHNAME', 'samples_of_one' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION sample_of(bigint, bigint, bigint, bigint) IS 'the samples value of one sample (NULL without a stack or a weight); a NULL time or label set is none';
