-- Every query calltree runs (SPI from C, SQL and PL/pgSQL functions,
-- triggers) names only pg_catalog's and calltree's objects, whatever the
-- caller's search_path.  An unprivileged role plants decoys: a function,
-- aggregate and operator of the same name as each of pg_catalog's (and the
-- same with concrete types where pg_catalog's are polymorphic, which win
-- even behind pg_catalog), types named as the built-in ones, and views
-- named as calltree's tables, in a schema of its own and in pg_temp.  Each
-- decoy notes that it ran: a NOTICE and a row in evil.ran.  A superuser
-- whose path holds that schema, before pg_catalog and then after it, runs
-- every public function, every importer and the statements that fire
-- calltree's triggers.  No decoy may run.
--
-- The statements run under the hostile path write every operator as
-- OPERATOR(pg_catalog.x) and use no type name but keywords (bigint,
-- integer) and calltree.calltree: the test's own queries must not call a
-- decoy either.
SET client_min_messages = notice;
CREATE ROLE regress_calltree_attacker;
CREATE SCHEMA evil AUTHORIZATION regress_calltree_attacker;

------------------------------------------------------------------------
-- What the superuser will run: the inputs, made under the default path
------------------------------------------------------------------------
CREATE TEMP TABLE sec_inputs (
    run        text PRIMARY KEY,
    collapsed  text,
    perf       text,
    lib        text,
    labels     jsonb,
    pprof      bytea,
    chunks     regclass
);
CREATE TABLE public.sec_chunks (seq bigint, chunk text);
INSERT INTO public.sec_chunks
SELECT 1, encode(convert_to(E'chunk;stream 3\nchunk;x 2\n', 'UTF8'), 'base64');
INSERT INTO sec_inputs
SELECT r, format(E'%s;main;work 5\n%s;main 2\n', r, r),
       format(E'app 1/1 1.000000: 10 cycles:u:\n\t    7f0000001010 [unknown] (/opt/%s/libsec.so)\n'
              '\t    400500 main (/opt/sec/app)\n\n'
              'app 1/1 1.001000: 5 cycles:u:\n\t    7f0000002000 [unknown] (/opt/%s/libsec.so)\n'
              '\t    400500 main (/opt/sec/app)\n', r, r),
       format('/opt/%s/libsec.so', r), jsonb_build_object('run', r),
       calltree.to_pprof('{1:5/2 {2:3/3}}'::calltree.calltree), 'public.sec_chunks'::regclass
  FROM unnest(ARRAY['sec_before', 'sec_after']) AS u(r);
-- one row: JSON files of each format, small
CREATE TEMP TABLE sec_json AS SELECT
  $${"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": ""}, "children": [2]},
               {"id": 2, "callFrame": {"functionName": "sec_js", "url": "file:///sec.js", "lineNumber": 0, "columnNumber": 1}}],
     "startTime": 0, "endTime": 30, "samples": [2, 2, 1], "timeDeltas": [0, 10, 10]}$$::text AS cpuprofile,
  $${"$schema": "https://www.speedscope.app/file-format-schema.json",
     "shared": {"frames": [{"name": "sec_a"}, {"name": "sec_b"}]},
     "profiles": [
       {"type": "sampled", "name": "s", "unit": "none", "startValue": 0, "endValue": 3,
        "samples": [[0, 1], [0]], "weights": [2, 1]},
       {"type": "evented", "name": "e", "unit": "none", "startValue": 0, "endValue": 10,
        "events": [{"type": "O", "frame": 0, "at": 0}, {"type": "O", "frame": 1, "at": 2},
                   {"type": "C", "frame": 1, "at": 5}, {"type": "C", "frame": 0, "at": 10}]}]}$$::text AS speedscope,
  $${"meta": {"preprocessedProfileVersion": 20, "startTime": 0},
     "threads": [{"name": "T", "stringArray": ["sec_x", "sec_y"],
       "funcTable": {"length": 2, "name": [0, 1], "resource": [-1, -1], "fileName": [null, null]},
       "frameTable": {"length": 2, "func": [0, 1]},
       "stackTable": {"length": 2, "frame": [0, 1], "prefix": [null, 0]},
       "samples": {"length": 3, "stack": [1, 1, 0], "time": [1, 2, 3]}}]}$$::text AS firefox,
  $${"traceEvents": [{"ph": "M", "name": "thread_name", "pid": 7, "tid": "1", "args": {"name": "js"}}],
     "samples": [{"ts": "100", "pid": 7, "tid": "1", "sf": 2}, {"ts": "130", "pid": 7, "tid": "1", "sf": 1}],
     "stackFrames": {"1": {"name": "[root]", "category": "root"},
                     "2": {"name": "sec_f", "category": "JavaScript", "parent": 1}}}$$::text AS trace_samples,
  $$[{"ph": "B", "name": "sec_outer", "ts": 0, "pid": 1, "tid": 1},
     {"ph": "X", "name": "sec_inner", "ts": 2, "dur": 3, "pid": 1, "tid": 1},
     {"ph": "E", "name": "sec_outer", "ts": 10, "pid": 1, "tid": 1}]$$::text AS trace_events;

-- Everything, once per run, in steps: a step that fails says so in a
-- NOTICE and the next one runs.  PL/pgSQL plans its statements under the
-- caller's path, as a client's statements would be.
CREATE FUNCTION pg_temp.run_all(run_name text) RETURNS void LANGUAGE plpgsql AS $body$
DECLARE
    inp record;
    js record;
    p bigint;
    perf bigint;
    ev bigint;
    fr bigint;
    unused_frame bigint;
    s bigint;
    s2 bigint;
    l bigint;
    unused_labels bigint;
    t calltree.calltree;
    tt calltree.calltree;
    stack_funcs integer[];
    leaf integer;
BEGIN
    SELECT * INTO inp FROM pg_temp.sec_inputs i WHERE i.run OPERATOR(pg_catalog.=) run_name;
    SELECT * INTO js FROM pg_temp.sec_json;

    BEGIN -- every importer
        p := calltree.import_collapsed(inp.collapsed, run_name);
        PERFORM calltree.import_collapsed(inp.collapsed, run_name, '{"again": true}', false);
        PERFORM calltree.import_pprof(inp.pprof, NULL, run_name);
        PERFORM calltree.import_cpuprofile(js.cpuprofile, run_name);
        PERFORM calltree.import_speedscope(js.speedscope, run_name);
        PERFORM calltree.import_firefox(js.firefox, run_name);
        perf := calltree.import_perf_script(inp.perf, NULL, run_name);
        PERFORM calltree.import_trace_events(js.trace_samples, run_name);
        ev := calltree.import_trace_events(js.trace_events, run_name, NULL, 'events');
        PERFORM calltree.import_profile(inp.pprof, run_name);
        PERFORM calltree.import_stream(inp.chunks, run_name);
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'imports failed: %', SQLERRM;
    END;

    BEGIN -- symbols: the perf file's [unknown] frames move to their symbols,
          -- and a symbol renamed replaces the stored one
        PERFORM calltree.symbolicate(inp.lib, ARRAY[139637976731648, 139637976735744]::bigint[],
                                     ARRAY['sec_leaf', 'sec_dispatch']);
        PERFORM calltree.symbolicate(inp.lib, ARRAY[139637976735744]::bigint[], ARRAY['sec_dispatch_renamed']);
        PERFORM calltree.intern_address(inp.lib, 139637976739840);
        PERFORM calltree.address_name(inp.lib, 139637976731664);
        PERFORM calltree.intern_lock();
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'symbols failed: %', SQLERRM;
    END;

    BEGIN -- interning
        fr := calltree.intern_frame(calltree.intern_func(run_name, 'sec.c', inp.lib), 1, 2, 3, 'sec');
        unused_frame := calltree.intern_frame(calltree.intern_func(run_name), 7);
        s := calltree.intern_stack(NULL, fr);
        PERFORM calltree.intern_stack(ARRAY['sec_root', run_name]);
        l := calltree.intern_labels(inp.labels);
        unused_labels := calltree.intern_labels(pg_catalog.jsonb_build_object('unused', run_name));
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'interning failed: %', SQLERRM;
    END;

    BEGIN -- trees and everything read from them
        SELECT calltree.stack_agg(x.stack_id, x.weight) INTO t
          FROM calltree.sample x WHERE x.profile_id OPERATOR(pg_catalog.=) perf;
        PERFORM calltree.stack_agg(x.stack_id) FROM calltree.sample x WHERE x.profile_id OPERATOR(pg_catalog.=) p;
        SELECT calltree.stack_path(x.stack_id) INTO stack_funcs FROM calltree.sample x
         WHERE x.profile_id OPERATOR(pg_catalog.=) perf ORDER BY x.ts LIMIT 1;
        leaf := stack_funcs[1];
        PERFORM calltree.calltree_agg(stack_funcs, 3), calltree.calltree_agg(stack_funcs), calltree.calltree_merge(t);
        PERFORM * FROM calltree.nodes(t);
        PERFORM * FROM calltree.functions(t);
        PERFORM calltree.total(t);
        PERFORM * FROM calltree.report(t);
        PERFORM calltree.merge_call_node(t, stack_funcs), calltree.merge_call_node(stack_funcs, stack_funcs),
                calltree.merge_function(t, leaf), calltree.merge_function(stack_funcs, leaf),
                calltree.merge_functions(t, stack_funcs), calltree.merge_functions(stack_funcs, stack_funcs),
                calltree.merge_subtree(t, stack_funcs), calltree.merge_subtree(stack_funcs, stack_funcs),
                calltree.collapse_function_subtree(t, leaf), calltree.collapse_function_subtree(stack_funcs, leaf),
                calltree.hide_call_node(t, stack_funcs), calltree.hide_call_node(stack_funcs, stack_funcs),
                calltree.drop_function(t, leaf), calltree.drop_function(stack_funcs, leaf),
                calltree.focus_subtree(t, stack_funcs), calltree.focus_subtree(stack_funcs, stack_funcs),
                calltree.focus_function(t, leaf), calltree.focus_function(stack_funcs, leaf),
                calltree.collapse_direct_recursion(t, leaf), calltree.collapse_direct_recursion(stack_funcs, leaf),
                calltree.collapse_recursion(t, leaf), calltree.collapse_recursion(stack_funcs, leaf),
                calltree.remap_functions(t, stack_funcs, stack_funcs),
                calltree.remap_functions(stack_funcs, stack_funcs, stack_funcs),
                calltree.invert(t), calltree.invert(stack_funcs),
                t OPERATOR(calltree.=) t, t OPERATOR(calltree.<>) t, t OPERATOR(calltree.+) t,
                t OPERATOR(calltree.%>) stack_funcs, t OPERATOR(calltree.%!) stack_funcs,
                t OPERATOR(calltree.%-) stack_funcs, stack_funcs OPERATOR(calltree.%>) stack_funcs,
                stack_funcs OPERATOR(calltree.%!) stack_funcs, stack_funcs OPERATOR(calltree.%-) stack_funcs,
                calltree.calltree_in(calltree.calltree_out(t));
        PERFORM * FROM calltree.callers(t, leaf);
        PERFORM * FROM calltree.callees(t, leaf);
        PERFORM * FROM calltree.outgoing_calls(t, leaf);
        PERFORM calltree.backtraces(t, leaf), calltree.backtraces(t, leaf, 'self');
        PERFORM * FROM calltree.collapse_recursions(t);
        SELECT calltree.trace_agg(e.func_id, e.enter, e.ts ORDER BY e.ts, e.seq) INTO tt
          FROM calltree.event e WHERE e.profile_id OPERATOR(pg_catalog.=) ev;
        PERFORM * FROM calltree.latency(tt);
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'reading failed: %', SQLERRM;
    END;

    BEGIN -- exports and the functions that read samples and frames
        PERFORM calltree.to_collapsed(t), calltree.flamegraph(t), calltree.flamegraph(t, 'sec', true, 0),
                calltree.to_speedscope(t), calltree.to_speedscope(t, run_name), calltree.to_pprof(t),
                calltree.to_pprof(t, 'cpu', 'nanoseconds');
        PERFORM * FROM calltree.estimated_calls(perf);
        PERFORM * FROM calltree.estimated_calls(perf, 'app 1/1');
        PERFORM * FROM calltree.lines(perf, stack_funcs);
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'exports failed: %', SQLERRM;
    END;

    BEGIN -- comparing trees, funcs by name, and the aggregates' states
        PERFORM * FROM calltree.diff(t, t OPERATOR(calltree.+) t);
        PERFORM * FROM calltree.diff(t, t, true);
        PERFORM * FROM calltree.regressions(t, t OPERATOR(calltree.+) t);
        PERFORM * FROM calltree.significant_changes(ARRAY[t, t OPERATOR(calltree.+) t, t], ARRAY[t, t, t, t]);
        PERFORM t OPERATOR(calltree.-) t, calltree.funcs('^sec_'), calltree.unify_funcs(t),
                calltree.unify_funcs(t, 'file'), calltree.running_of(t, leaf), calltree.running_of(t, run_name),
                calltree.self_of(t, stack_funcs), calltree.merge_function(t, run_name),
                calltree.focus_function(t, stack_funcs), calltree.drop_function(stack_funcs, run_name),
                calltree.backtraces(t, run_name), calltree.flamegraph_diff(t, t OPERATOR(calltree.+) t);
        PERFORM * FROM calltree.callers(t, run_name);
        PERFORM * FROM calltree.grafana_flamegraph(t);
        PERFORM * FROM calltree.grafana_flamegraph_diff(t, t);
        -- the answers in one call
        PERFORM calltree.tree_of(perf), calltree.tree_of(ARRAY[perf, perf]), calltree.weight_unit_of(ARRAY[perf]),
                calltree.tree_of(NULL::pg_catalog.timestamptz, NULL, pg_catalog.jsonb_build_object('again', true), run_name),
                calltree.profile_ids(meta => pg_catalog.jsonb_build_object('again', true)),
                calltree.format_weight(1536, 'bytes'), calltree.format_weight(-1500, 'nanoseconds', 'us'),
                calltree.report_scale(10, 1140, 'nanoseconds');
        -- functions without SET, inlined into this statement and planned
        -- under its path: their bodies are bound when they are created
        PERFORM u.unit FROM calltree.weight_units() u WHERE 'ms' OPERATOR(pg_catalog.=) ANY (u.aliases);
        PERFORM calltree.weight_unit_alias('Nanoseconds'), calltree.scale_weight(1500, 'bytes'),
                calltree.rollup_bucket(pg_catalog.now(), interval '1 hour'),
                calltree.rollup_bucket_fits(pg_catalog.now(), interval '1 hour'),
                calltree.rollup_bucket_fits('infinity'::pg_catalog.timestamptz, interval '1 hour');
        PERFORM * FROM calltree.top(perf);
        PERFORM * FROM calltree.top(ARRAY[perf], 0, 3);
        PERFORM * FROM calltree.top(t OPERATOR(calltree.-) t, 'nanoseconds', 0, NULL, 10);
        PERFORM * FROM calltree.peek(perf, '^sec_');
        PERFORM * FROM calltree.peek(t, '.', 'bytes');
        PERFORM calltree.stack_agg(x.stack_id, x.weight), calltree.calltree_merge(tt)
          FROM calltree.sample x WHERE x.profile_id OPERATOR(pg_catalog.=) perf;
        PERFORM calltree.stack_weights_out(calltree.stack_weights_in('{1:2,3:4}'));
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'comparing failed: %', SQLERRM;
    END;

    BEGIN -- reports and retention, rolled back (collect_garbage would
          -- delete what other tests use)
        PERFORM calltree.rollup(interval '1 hour', ARRAY['again']);
        PERFORM calltree.rollup(interval '1 day', ARRAY['again']);
        PERFORM calltree.tree_between(pg_catalog.jsonb_build_object('again', true),
                                      pg_catalog.now() OPERATOR(pg_catalog.-) interval '1 day',
                                      pg_catalog.now() OPERATOR(pg_catalog.+) interval '1 day');
        PERFORM * FROM calltree.sample_partitions();
        PERFORM calltree.new_sample_partition();
        PERFORM * FROM calltree.expire(interval '100 years');
        PERFORM * FROM calltree.collect_garbage();
        RAISE EXCEPTION USING ERRCODE = 'P0004';
    EXCEPTION WHEN assert_failure THEN
        NULL;
    WHEN OTHERS THEN
        RAISE NOTICE 'reports failed: %', SQLERRM;
    END;

    BEGIN -- statements that fire calltree's triggers
        INSERT INTO calltree.sample (profile_id, stack_id, weight, labels_id) VALUES (p, s, 1, l);
        UPDATE calltree.sample SET weight = 2
         WHERE profile_id OPERATOR(pg_catalog.=) p AND stack_id OPERATOR(pg_catalog.=) s;
        INSERT INTO calltree.stack (prefix_id, frame_id) VALUES (s, fr) RETURNING id INTO s2;
        DELETE FROM calltree.stack WHERE id OPERATOR(pg_catalog.=) s2;
        DELETE FROM calltree.frame WHERE id OPERATOR(pg_catalog.=) unused_frame;
        DELETE FROM calltree.labels WHERE id OPERATOR(pg_catalog.=) unused_labels;
        BEGIN
            UPDATE calltree.stack SET frame_id = fr WHERE id OPERATOR(pg_catalog.=) s;
        EXCEPTION WHEN feature_not_supported THEN
            RAISE NOTICE 'refused: %', SQLERRM;
        END;
        BEGIN
            TRUNCATE calltree.frame;
        EXCEPTION WHEN feature_not_supported THEN
            RAISE NOTICE 'refused: %', SQLERRM;
        END;
        BEGIN
            TRUNCATE calltree.labels;
        EXCEPTION WHEN feature_not_supported THEN
            RAISE NOTICE 'refused: %', SQLERRM;
        END;
        DELETE FROM calltree.profile WHERE id OPERATOR(pg_catalog.=) p;
    EXCEPTION WHEN OTHERS THEN
        RAISE NOTICE 'triggers failed: %', SQLERRM;
    END;
END
$body$;

------------------------------------------------------------------------
-- The decoys, planted by the unprivileged role
------------------------------------------------------------------------
SET ROLE regress_calltree_attacker;
CREATE TABLE evil.ran (what text);
GRANT SELECT, INSERT, DELETE ON evil.ran TO PUBLIC;
CREATE FUNCTION evil.noted(what text) RETURNS boolean
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    RAISE NOTICE 'decoy ran: %', what;
    INSERT INTO evil.ran VALUES (what);
    RETURN true;
END
$$;

-- The type a decoy takes for `t`: `t` itself; where `t` is polymorphic,
-- `elem` or its array type (or `t` again when elem is 0); NULL where a
-- PL/pgSQL function cannot take it.
CREATE FUNCTION evil.decoy_type(t oid, elem oid) RETURNS text
LANGUAGE sql STABLE SET search_path = pg_catalog AS $$
    SELECT CASE
        WHEN t IN ('anyelement'::regtype, 'anynonarray'::regtype, 'anycompatible'::regtype,
                   'anycompatiblenonarray'::regtype, '"any"'::regtype)
            THEN CASE WHEN elem <> 0 THEN elem::regtype::text
                      WHEN t <> '"any"'::regtype THEN t::regtype::text END
        WHEN t IN ('anyarray'::regtype, 'anycompatiblearray'::regtype)
            THEN CASE WHEN elem <> 0 THEN (SELECT typarray FROM pg_type WHERE oid = elem)::regtype::text
                      ELSE t::regtype::text END
        WHEN (SELECT typtype FROM pg_type WHERE oid = t) <> 'p' THEN t::regtype::text
    END
$$;

-- A decoy of each of pg_catalog's functions and plain aggregates (those
-- without OUT arguments), and of each of its operators: with the same
-- types, and where they are polymorphic, also with int4, int8, text and
-- bool in their place.  An aggregate and a function of the same name and
-- types cannot both exist: the aggregate is made.
CREATE FUNCTION evil.decoy_variants(types oid[]) RETURNS SETOF oid
LANGUAGE sql STABLE SET search_path = pg_catalog AS $$
    SELECT 0::oid
    UNION ALL
    SELECT unnest(ARRAY['int4'::regtype, 'int8'::regtype, 'text'::regtype, 'bool'::regtype]::oid[])
     WHERE types && ARRAY['anyelement'::regtype, 'anynonarray'::regtype, 'anyarray'::regtype,
                          'anycompatible'::regtype, 'anycompatiblenonarray'::regtype,
                          'anycompatiblearray'::regtype, '"any"'::regtype]::oid[]
$$;
DO $gen$
DECLARE
    d record;
    k int := 0;
BEGIN
    PERFORM set_config('check_function_bodies', 'off', true);
    FOR d IN
        WITH typed AS (
            SELECT p.proname AS name, p.prokind AS kind, p.proretset AS setof, v.elem,
                   ARRAY(SELECT evil.decoy_type(t, v.elem) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS u(t, i)
                          ORDER BY i) AS args,
                   CASE WHEN p.prorettype IN ('void'::regtype, 'record'::regtype) THEN p.prorettype::regtype::text
                        ELSE evil.decoy_type(p.prorettype, v.elem) END AS ret
              FROM pg_catalog.pg_proc p
              LEFT JOIN pg_catalog.pg_aggregate a ON a.aggfnoid = p.oid
             CROSS JOIN evil.decoy_variants(p.prorettype || p.proargtypes::oid[]) AS v(elem)
             WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proallargtypes IS NULL
               AND (p.prokind = 'f' OR (p.prokind = 'a' AND a.aggkind = 'n'))
        )
        SELECT DISTINCT ON (name, args) * FROM typed
         WHERE ret IS NOT NULL AND array_position(args, NULL) IS NULL
           AND NOT (kind = 'a' AND ret IN ('void', 'record'))
           AND NOT (kind = 'a' AND elem = 0 AND ret || args && ARRAY['anyelement', 'anynonarray', 'anyarray',
                    'anycompatible', 'anycompatiblenonarray', 'anycompatiblearray'])
         ORDER BY name, args, kind
    LOOP
        k := k + 1;
        IF d.kind = 'f' THEN
            EXECUTE format('CREATE FUNCTION evil.%I(%s) RETURNS %s%s LANGUAGE plpgsql AS %L',
                           d.name, array_to_string(d.args, ', '), CASE WHEN d.setof THEN 'SETOF ' ELSE '' END, d.ret,
                           format('BEGIN PERFORM evil.noted(%L); RETURN%s; END',
                                  format('function %s(%s)', d.name, array_to_string(d.args, ', ')),
                                  CASE WHEN d.setof OR d.ret = 'void' THEN '' ELSE ' NULL' END));
        ELSE
            EXECUTE format('CREATE FUNCTION evil.decoy_step_%s(%s) RETURNS %s LANGUAGE plpgsql AS %L',
                           k, array_to_string(d.ret || d.args, ', '), d.ret,
                           format('BEGIN PERFORM evil.noted(%L); RETURN $1; END',
                                  format('aggregate %s(%s)', d.name, array_to_string(d.args, ', '))));
            EXECUTE format('CREATE AGGREGATE evil.%I(%s) (SFUNC = evil.decoy_step_%s, STYPE = %s)',
                           d.name, CASE WHEN cardinality(d.args) = 0 THEN '*' ELSE array_to_string(d.args, ', ') END,
                           k, d.ret);
        END IF;
    END LOOP;

    FOR d IN
        WITH typed AS (
            SELECT o.oprname AS name,
                   CASE WHEN o.oprleft = 0 THEN 'NONE' ELSE evil.decoy_type(o.oprleft, v.elem) END AS lefttype,
                   evil.decoy_type(o.oprright, v.elem) AS righttype,
                   evil.decoy_type(o.oprresult, v.elem) AS ret
              FROM pg_catalog.pg_operator o
             CROSS JOIN evil.decoy_variants(ARRAY[o.oprleft, o.oprright, o.oprresult]) AS v(elem)
             WHERE o.oprnamespace = 'pg_catalog'::regnamespace
        )
        SELECT DISTINCT ON (name, lefttype, righttype) * FROM typed
         WHERE lefttype IS NOT NULL AND righttype IS NOT NULL AND ret IS NOT NULL
         ORDER BY name, lefttype, righttype
    LOOP
        k := k + 1;
        EXECUTE format('CREATE FUNCTION evil.decoy_op_%s(%s) RETURNS %s LANGUAGE plpgsql AS %L',
                       k, array_to_string(array_remove(ARRAY[d.lefttype, d.righttype], 'NONE'), ', '), d.ret,
                       format('BEGIN PERFORM evil.noted(%L); RETURN NULL; END',
                              format('operator %s(%s, %s)', d.name, d.lefttype, d.righttype)));
        EXECUTE format('CREATE OPERATOR evil.%s (%s RIGHTARG = %s, FUNCTION = evil.decoy_op_%s)',
                       d.name, CASE WHEN d.lefttype = 'NONE' THEN '' ELSE format('LEFTARG = %s,', d.lefttype) END,
                       d.righttype, k);
    END LOOP;
END
$gen$;

-- Views named as calltree's tables and as the transition tables of its
-- triggers, in evil and in pg_temp (searched first for relations unless
-- the path places it)
DO $gen$
DECLARE
    rel text;
BEGIN
    FOREACH rel IN ARRAY ARRAY['profile', 'func', 'frame', 'stack', 'labels', 'sample', 'symbol', 'event',
                               'new_stacks', 'new_samples', 'old_rows', 'sec_chunks']
    LOOP
        EXECUTE format('CREATE VIEW evil.%I AS SELECT 1 AS id WHERE evil.noted(%L)', rel, 'relation evil.' || rel);
        EXECUTE format('CREATE TEMP VIEW %I AS SELECT 1 AS id WHERE evil.noted(%L)', rel, 'relation pg_temp.' || rel);
    END LOOP;
END
$gen$;

-- Types named as the built-in ones, last (the statements above name
-- them): pg_temp is searched first for types too.  A value cast to one
-- runs its CHECK.
DO $gen$
DECLARE
    typ text;
BEGIN
    FOREACH typ IN ARRAY ARRAY['text', 'int2', 'int4', 'int8', 'bool', 'jsonb', 'json', 'bytea', 'float8',
                               'numeric', 'name', 'oid', 'regclass', 'timestamptz', 'varchar']
    LOOP
        EXECUTE format('CREATE DOMAIN evil.%I AS pg_catalog.%I CHECK (evil.noted(%L))', typ, typ, 'type evil.' || typ);
        EXECUTE format('CREATE DOMAIN pg_temp.%I AS pg_catalog.%I CHECK (evil.noted(%L))', typ, typ, 'type pg_temp.' || typ);
    END LOOP;
END
$gen$;
RESET ROLE;

-- the decoys of the issue's reproduction, among the others
SELECT count(*) FILTER (WHERE p.prokind = 'f') > 3000 AS functions,
       count(*) FILTER (WHERE p.prokind = 'a') > 100 AS aggregates,
       (SELECT count(*) FROM pg_catalog.pg_operator o WHERE o.oprnamespace = 'evil'::regnamespace) > 700 AS operators,
       to_regprocedure('evil.unnest(pg_catalog.text[])') IS NOT NULL AS unnest_text,
       to_regprocedure('evil.array_agg(bigint)') IS NOT NULL AS array_agg_int8,
       to_regprocedure('evil.count(bigint)') IS NOT NULL AS count_int8,
       to_regoperator('evil.=(bigint,bigint)') IS NOT NULL AS equals_int8
  FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'evil'::regnamespace;

------------------------------------------------------------------------
-- The decoy schema before pg_catalog
------------------------------------------------------------------------
SET search_path = evil, pg_catalog, public;
-- the decoys work: a function, an operator, a type in pg_temp
SELECT pg_catalog.count(*) FROM unnest('{a}'::pg_catalog.text[]) AS u;
SELECT 1::bigint = 1::bigint AS equal;
SELECT 'x'::text IS NULL AS is_null;
DELETE FROM evil.ran;
SELECT pg_temp.run_all('sec_before');
SELECT what FROM evil.ran;

------------------------------------------------------------------------
-- Behind pg_catalog, as in the report: SET search_path = pg_catalog,
-- public, evil; symbolicate() aggregated with evil.array_agg(bigint) and
-- unnested with evil.unnest(text[])
------------------------------------------------------------------------
SET search_path = pg_catalog, public, evil;
SELECT pg_catalog.count(*) FROM unnest('{a}'::pg_catalog.text[]) AS u;
DELETE FROM evil.ran;
SELECT * FROM calltree.symbolicate('libzz.so', array[8000]::bigint[], array['zz_a']);
SELECT calltree.intern_address('libzz.so', 8000) OPERATOR(pg_catalog.>) 0 AS interned;
SELECT pg_catalog.count(*) AS moved FROM calltree.symbolicate('libzz.so', array[8000]::bigint[], array['zz_b']);
SELECT pg_temp.run_all('sec_after');
SELECT what FROM evil.ran;

------------------------------------------------------------------------
-- Where Citus is installed, calltree reads its metadata (pg_dist_partition
-- and pg_dist_shard in pg_catalog) to learn how each table is held.  The
-- two tables are faked here, in a transaction rolled back, with a row of
-- another table so that the query's conditions are evaluated.  Their
-- columns are of type regclass: an = taking regclass is an exact match,
-- chosen over pg_catalog's = of oid wherever it is on the path.
------------------------------------------------------------------------
RESET search_path;
SET ROLE regress_calltree_attacker;
CREATE FUNCTION evil.decoy_regclass_eq(pg_catalog.regclass, pg_catalog.oid) RETURNS boolean
LANGUAGE plpgsql AS $$BEGIN PERFORM evil.noted('operator =(regclass, oid)'); RETURN NULL; END$$;
CREATE OPERATOR evil.= (LEFTARG = pg_catalog.regclass, RIGHTARG = pg_catalog.oid,
                        FUNCTION = evil.decoy_regclass_eq);
CREATE FUNCTION evil.decoy_regclasses_eq(pg_catalog.regclass, pg_catalog.regclass) RETURNS boolean
LANGUAGE plpgsql AS $$BEGIN PERFORM evil.noted('operator =(regclass, regclass)'); RETURN NULL; END$$;
CREATE OPERATOR evil.= (LEFTARG = pg_catalog.regclass, RIGHTARG = pg_catalog.regclass,
                        FUNCTION = evil.decoy_regclasses_eq);
RESET ROLE;
BEGIN;
SET LOCAL allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid pg_catalog.regclass, partmethod pg_catalog."char");
CREATE TABLE pg_catalog.pg_dist_shard (logicalrelid pg_catalog.regclass, shardid bigint);
INSERT INTO pg_catalog.pg_dist_partition VALUES ('pg_catalog.pg_class', 'h');
INSERT INTO pg_catalog.pg_dist_shard VALUES ('pg_catalog.pg_class', 1);
DELETE FROM evil.ran;
SET LOCAL search_path = pg_catalog, public, evil;
-- (the import's own id: tests before this one may leave profiles of higher ids)
SELECT calltree.import_collapsed(E'sec_citus;sec_work 4\n', 'sec_citus') AS sec_citus_id \gset
SELECT :sec_citus_id OPERATOR(pg_catalog.>) 0 AS imported;
SELECT calltree.total(calltree.stack_agg(s.stack_id, s.weight)) AS total FROM calltree.sample s
 WHERE s.profile_id OPERATOR(pg_catalog.=) :sec_citus_id;
SET LOCAL search_path = evil, pg_catalog, public;
SELECT calltree.import_collapsed(E'sec_citus;sec_work 4\n', 'sec_citus') OPERATOR(pg_catalog.>) 0 AS imported;
SELECT what FROM evil.ran;
ROLLBACK;

------------------------------------------------------------------------
-- pack_samples(), a procedure that commits and so cannot set its path,
-- called with the decoys first.  Its PL/pgSQL variables' types are looked
-- up on that path: a composite type named record, whose columns are of
-- the decoy domains, was taken for a variable declared record, and the
-- domains' checks ran as the caller.
------------------------------------------------------------------------
SET ROLE regress_calltree_attacker;
CREATE TYPE evil.record AS (packed evil.int4, resume_after evil.int8);
RESET ROLE;
SET search_path = evil, pg_catalog, public;
DELETE FROM evil.ran;
SET client_min_messages = warning;
CALL calltree.pack_samples();
RESET client_min_messages;
SELECT what FROM evil.ran;

------------------------------------------------------------------------
-- Back to the default path: what the runs left, and no decoy ran
------------------------------------------------------------------------
RESET search_path;
DISCARD TEMP;
SELECT count(*) AS decoys_ran FROM evil.ran;
-- Every SQL or PL/pgSQL function of calltree either sets its search_path
-- or has a body bound when it is created (BEGIN ATOMIC, RETURN), which a
-- caller's path cannot change even where it is inlined (weight_units() has
-- no SET so that it is).  A body kept as text without SET would be parsed
-- under the caller's path: none but pack_samples(), a procedure that
-- commits and so cannot set its path (its names are qualified, and it
-- runs with the decoys first above).
SELECT p.oid::regprocedure AS unbound
  FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE p.pronamespace = 'calltree'::regnamespace AND l.lanname IN ('sql', 'plpgsql')
   AND p.prosqlbody IS NULL
   AND NOT EXISTS (SELECT FROM unnest(p.proconfig) AS c WHERE c LIKE 'search_path=%')
   AND p.oid <> 'calltree.pack_samples(integer)'::regprocedure
 ORDER BY 1;
SELECT p.name, p.format, count(s.*) AS samples, sum(s.weight) AS total
  FROM calltree.profile p LEFT JOIN calltree.sample s ON s.profile_id = p.id
 WHERE p.name IN ('sec_before', 'sec_after')
 GROUP BY p.name, p.format ORDER BY p.name DESC, p.format, samples;
SELECT f.name, f.resource FROM calltree.func f
 WHERE f.resource IN ('/opt/sec_before/libsec.so', '/opt/sec_after/libsec.so', 'libzz.so')
 ORDER BY f.resource, f.name;
SELECT * FROM calltree.symbol
 WHERE resource IN ('/opt/sec_before/libsec.so', '/opt/sec_after/libsec.so', 'libzz.so')
 ORDER BY resource, start;

-- clean up: the profiles, then what only they used
DELETE FROM calltree.profile WHERE name IN ('sec_before', 'sec_after');
DROP TABLE public.sec_chunks;
SET client_min_messages = warning;
DROP SCHEMA evil CASCADE;
DROP ROLE regress_calltree_attacker;
