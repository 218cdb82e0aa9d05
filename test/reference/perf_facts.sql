-- perf_facts(profile, wanted): the facts of test/reference/perf_script_reference.py
-- ("samples|N", "total|N", "threads|N", "func|name|resource|running|self",
-- "node|name@resource;...|running|self"), computed by calltree for the same
-- keys, in the same order; NULL where calltree has no such func or node.
CREATE FUNCTION pg_temp.perf_facts(p bigint, wanted text[]) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    t calltree.calltree;
    w text;
    parts text[];
    ids int4[];
BEGIN
    SELECT calltree.stack_agg(stack_id, weight) INTO t FROM calltree.sample WHERE profile_id = p;
    FOREACH w IN ARRAY wanted LOOP
        parts := string_to_array(w, '|');
        CASE parts[1]
        WHEN 'samples' THEN
            RETURN NEXT 'samples|' || (SELECT count(*) FROM calltree.sample WHERE profile_id = p);
        WHEN 'total' THEN
            RETURN NEXT 'total|' || calltree.total(t);
        WHEN 'threads' THEN
            RETURN NEXT 'threads|' || (SELECT count(DISTINCT thread) FROM calltree.sample WHERE profile_id = p);
        WHEN 'func' THEN
            RETURN NEXT (SELECT format('func|%s|%s|%s|%s', f.name, f.resource, fn.running, fn.self)
                           FROM calltree.functions(t) fn JOIN calltree.func f ON f.id = fn.func
                          WHERE f.name = parts[2] AND f.resource = parts[3] AND f.file IS NULL);
        WHEN 'node' THEN
            ids := array(SELECT f.id
                           FROM unnest(string_to_array(parts[2], ';')) WITH ORDINALITY AS u(x, i)
                           JOIN calltree.func f ON f.name = substring(u.x FROM '^(.*)@[^@]*$')
                                              AND f.resource = substring(u.x FROM '@([^@]*)$')
                                              AND f.file IS NULL
                          ORDER BY u.i);
            RETURN NEXT (SELECT format('node|%s|%s|%s', parts[2], n.running, n.self)
                           FROM calltree.nodes(t) n WHERE n.path = ids);
        END CASE;
    END LOOP;
END
$$;
