-- Protobuf for hand-made profiles (\ir from a test): pg_temp.varint(v)
-- is v as a varint (a negative v as its 64-bit two's complement),
-- pg_temp.v(field, value) a varint field, pg_temp.m(field, body) a
-- length-delimited one, pg_temp.packed(field, values) a packed repeated
-- varint field.
CREATE FUNCTION pg_temp.varint(v numeric) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE
AS $$
DECLARE
    u numeric := CASE WHEN v < 0 THEN v + 18446744073709551616 ELSE v END;
    r bytea := '';
    b int;
BEGIN
    LOOP
        b := (u % 128)::int;
        u := div(u, 128);
        r := r || set_byte('\x00'::bytea, 0, CASE WHEN u > 0 THEN b + 128 ELSE b END);
        EXIT WHEN u = 0;
    END LOOP;
    RETURN r;
END
$$;
CREATE FUNCTION pg_temp.v(field int, value numeric) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$ SELECT pg_temp.varint(field * 8) || pg_temp.varint(value) $$;
CREATE FUNCTION pg_temp.m(field int, body bytea) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$ SELECT pg_temp.varint(field * 8 + 2) || pg_temp.varint(length(body)) || body $$;
CREATE FUNCTION pg_temp.packed(field int, vals numeric[]) RETURNS bytea
LANGUAGE sql IMMUTABLE AS $$
    SELECT pg_temp.m(field, coalesce((SELECT string_agg(pg_temp.varint(x), ''::bytea ORDER BY i)
                                        FROM unnest(vals) WITH ORDINALITY AS u(x, i)), ''))
$$;
