--------------------------------------------------------------------------
-- Aggregates: the ways to build a call tree from rows.  calltree_agg
-- builds it from func paths, calltree_merge from trees, stack_agg from
-- stack ids, trace_agg from the enter and exit events of a trace.  All
-- but trace_agg share one shape: a state of a real type (calltree, or
-- stack_weights for stack_agg), kept expanded in the aggregate's memory
-- context and updated in place, and a combine function for partial
-- aggregation.  Parallel workers hand their states to the leader as
-- values, and Citus workers theirs to the coordinator as text.  The final
-- functions only read the state (FINALFUNC_MODIFY = READ_ONLY).
--------------------------------------------------------------------------

-- calltree_agg and calltree_merge build the same state: a calltree under
-- construction.
CREATE OR REPLACE FUNCTION calltree_agg_transfn(calltree, int4[], bigint) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION calltree_agg_transfn(calltree, int4[]) RETURNS calltree
AS 'MODULE_PATHNAME', 'calltree_agg_transfn_unit' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION calltree_merge_transfn(calltree, calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION calltree_agg_combinefn(calltree, calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION calltree_agg_finalfn(calltree) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION calltree_agg_transfn(calltree, int4[], bigint) IS 'transition function of calltree_agg(int4[], bigint): adds a path with its weight to the state';
COMMENT ON FUNCTION calltree_agg_transfn(calltree, int4[]) IS 'transition function of calltree_agg(int4[]): adds a path with weight 1 to the state';
COMMENT ON FUNCTION calltree_merge_transfn(calltree, calltree) IS 'transition function of calltree_merge: adds a tree to the state';
COMMENT ON FUNCTION calltree_agg_combinefn(calltree, calltree) IS 'combine function of calltree_agg and calltree_merge: adds a partial state to the state';
COMMENT ON FUNCTION calltree_agg_finalfn(calltree) IS 'final function of calltree_agg and calltree_merge: the finished tree';

CREATE OR REPLACE AGGREGATE calltree_agg(path int4[], weight bigint) (
    SFUNC = calltree_agg_transfn, STYPE = calltree,
    FINALFUNC = calltree_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = calltree_agg_combinefn,
    PARALLEL = SAFE
);
CREATE OR REPLACE AGGREGATE calltree_agg(path int4[]) (
    SFUNC = calltree_agg_transfn, STYPE = calltree,
    FINALFUNC = calltree_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = calltree_agg_combinefn,
    PARALLEL = SAFE
);
CREATE OR REPLACE AGGREGATE calltree_merge(calltree) (
    SFUNC = calltree_merge_transfn, STYPE = calltree,
    FINALFUNC = calltree_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = calltree_agg_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE calltree_agg(int4[], bigint) IS 'the call tree of func paths (root first) with their weights; NULL paths and weights and empty paths are skipped';
COMMENT ON AGGREGATE calltree_agg(int4[]) IS 'the call tree of func paths (root first), each with weight 1';
COMMENT ON AGGREGATE calltree_merge(calltree) IS 'the sum of call trees';

-- stack_agg sums weights per stack id; the final function resolves each
-- distinct stack to its func path once, through the stack table.
CREATE OR REPLACE FUNCTION stack_agg_transfn(stack_weights, bigint, bigint) RETURNS stack_weights
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION stack_agg_transfn(stack_weights, bigint) RETURNS stack_weights
AS 'MODULE_PATHNAME', 'stack_agg_transfn_unit' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION stack_agg_combinefn(stack_weights, stack_weights) RETURNS stack_weights
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION stack_agg_finalfn(stack_weights) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C STABLE PARALLEL SAFE;
COMMENT ON FUNCTION stack_agg_transfn(stack_weights, bigint, bigint) IS 'transition function of stack_agg(bigint, bigint): adds a weight to its stack''s sum';
COMMENT ON FUNCTION stack_agg_transfn(stack_weights, bigint) IS 'transition function of stack_agg(bigint): adds 1 to its stack''s sum';
COMMENT ON FUNCTION stack_agg_combinefn(stack_weights, stack_weights) IS 'combine function of stack_agg: adds a partial state''s sums to the state';
COMMENT ON FUNCTION stack_agg_finalfn(stack_weights) IS 'final function of stack_agg: the call tree of the summed stacks, each resolved through calltree.stack once';

CREATE OR REPLACE AGGREGATE stack_agg(stack_id bigint, weight bigint) (
    SFUNC = stack_agg_transfn, STYPE = stack_weights,
    FINALFUNC = stack_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = stack_agg_combinefn,
    PARALLEL = SAFE
);
CREATE OR REPLACE AGGREGATE stack_agg(stack_id bigint) (
    SFUNC = stack_agg_transfn, STYPE = stack_weights,
    FINALFUNC = stack_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = stack_agg_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE stack_agg(bigint, bigint) IS 'the call tree of stored stacks with their weights: weights summed per stack id, each distinct stack resolved once at the end; NULL stacks and weights are skipped';
COMMENT ON AGGREGATE stack_agg(bigint) IS 'the call tree of stored stacks, each sample with weight 1';

-- stack_agg(samples) sums packed sample sets into the same state, so that
-- packed values and rows mix through the same combine and final functions.
CREATE OR REPLACE FUNCTION stack_agg_transfn(stack_weights, samples) RETURNS stack_weights
AS 'MODULE_PATHNAME', 'stack_agg_samples_transfn' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION stack_agg_transfn(stack_weights, samples) IS 'transition function of stack_agg(samples): adds a packed value''s weights, summed per distinct stack';
CREATE OR REPLACE AGGREGATE stack_agg(samples samples) (
    SFUNC = stack_agg_transfn, STYPE = stack_weights,
    FINALFUNC = stack_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    COMBINEFUNC = stack_agg_combinefn,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE stack_agg(samples) IS 'the call tree of packed sample sets: the same tree as stack_agg(stack_id, weight) over their rows, read without unpacking them; NULL values are skipped';

-- samples_agg packs rows into a samples value: the rows are gathered, then
-- sorted and packed once at the end.  No combine function: a value is
-- packed whole.
CREATE OR REPLACE FUNCTION samples_agg_transfn(internal, bigint, bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION samples_agg_transfn(internal, bigint, bigint, bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION samples_agg_transfn(internal, bigint, bigint, bigint, bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION samples_agg_finalfn(internal) RETURNS samples
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION samples_agg_transfn(internal, bigint, bigint) IS 'transition function of samples_agg(bigint, bigint): gathers a sample';
COMMENT ON FUNCTION samples_agg_transfn(internal, bigint, bigint, bigint) IS 'transition function of samples_agg(bigint, bigint, bigint): gathers a sample with its time';
COMMENT ON FUNCTION samples_agg_transfn(internal, bigint, bigint, bigint, bigint) IS 'transition function of samples_agg(bigint, bigint, bigint, bigint): gathers a sample with its time and label set';
COMMENT ON FUNCTION samples_agg_finalfn(internal) IS 'final function of samples_agg: the gathered samples packed';
CREATE OR REPLACE AGGREGATE samples_agg(stack_id bigint, weight bigint) (
    SFUNC = samples_agg_transfn, STYPE = internal,
    FINALFUNC = samples_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);
CREATE OR REPLACE AGGREGATE samples_agg(stack_id bigint, weight bigint, ts bigint) (
    SFUNC = samples_agg_transfn, STYPE = internal,
    FINALFUNC = samples_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);
CREATE OR REPLACE AGGREGATE samples_agg(stack_id bigint, weight bigint, ts bigint, labels_id bigint) (
    SFUNC = samples_agg_transfn, STYPE = internal,
    FINALFUNC = samples_agg_finalfn, FINALFUNC_MODIFY = READ_ONLY,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE samples_agg(bigint, bigint) IS 'the rows (stack id, weight) packed into one samples value, duplicates kept; at most 4194304 samples';
COMMENT ON AGGREGATE samples_agg(bigint, bigint, bigint) IS 'the rows (stack id, weight, time) packed into one samples value; a NULL time is a sample without one';
COMMENT ON AGGREGATE samples_agg(bigint, bigint, bigint, bigint) IS 'the rows (stack id, weight, time, label set id) packed into one samples value; a NULL time or label set is a sample without one';

-- trace_agg replays the enter and exit events of a trace (the event table)
-- into a call tree that also counts the calls of each node and keeps the
-- distribution of their durations, which latency() reads.
CREATE OR REPLACE FUNCTION trace_agg_transfn(internal, int4, boolean, bigint) RETURNS internal
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE OR REPLACE FUNCTION trace_agg_finalfn(internal) RETURNS calltree
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- The events of one thread, in time order (the ORDER BY is the caller's):
--   trace_agg(func_id, enter, ts ORDER BY ts, seq)
-- No combine function: the trie is built by replaying events in order.
-- Trees of several threads merge with calltree_merge.
CREATE OR REPLACE AGGREGATE trace_agg(func int4, enter boolean, ts bigint) (
    SFUNC = trace_agg_transfn, STYPE = internal,
    FINALFUNC = trace_agg_finalfn, FINALFUNC_MODIFY = READ_WRITE,
    PARALLEL = SAFE
);
COMMENT ON AGGREGATE trace_agg(int4, boolean, bigint) IS 'the XRay function call trie of one thread''s enter/exit events: calls, self (local time) and running (tree time) per CallNode';
