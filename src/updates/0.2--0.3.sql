-- calltree 0.2 -> 0.3: the changes of objects that are made once (types,
-- tables, indexes, triggers, operators), written by hand.  The functions
-- of src/install/functions/ are replayed after this file by the generated
-- upgrade script, so a function whose arguments or result change is
-- dropped here first (with what depends on it); a new function that a new
-- trigger or operator names is created here before it.

-- ==== rollups (issue 29, items 2 to 4): a profile once per level,
-- skipped profiles listed, tree_between checks coarser rows ====
-- the ids each level reading raw samples has taken, from its rows
CREATE TABLE rollup_taken (
    width    interval       NOT NULL,
    group_by text[]         NOT NULL,
    profiles int8multirange NOT NULL,
    CONSTRAINT rollup_taken_key PRIMARY KEY (width, group_by),
    CONSTRAINT rollup_taken_level FOREIGN KEY (width, group_by)
        REFERENCES rollup_level (width, group_by) ON DELETE CASCADE
);
COMMENT ON TABLE rollup_taken IS 'per rollup level that reads raw samples, the ids of the profiles it has taken';
INSERT INTO rollup_taken (width, group_by, profiles)
SELECT l.width, l.group_by, r.profiles
  FROM rollup_level l,
       LATERAL (SELECT range_agg(r.profiles) AS profiles FROM rollup r
                 WHERE r.width = l.width
                   AND ARRAY(SELECT k FROM jsonb_object_keys(r.group_key) AS k ORDER BY k COLLATE "C") = l.group_by) AS r
 WHERE l.source_width IS NULL AND r.profiles IS NOT NULL;
SELECT pg_catalog.pg_extension_config_dump('rollup_taken', '');
CREATE TABLE rollup_skipped (
    width       interval    NOT NULL,
    group_by    text[]      NOT NULL,
    profile_id  bigint      NOT NULL,
    bucket      timestamptz NOT NULL,
    group_key   jsonb       NOT NULL,
    weight_unit text        NOT NULL,
    sqlstate    text        NOT NULL,
    reason      text        NOT NULL,
    skipped_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rollup_skipped_key PRIMARY KEY (width, group_by, profile_id),
    CONSTRAINT rollup_skipped_level FOREIGN KEY (width, group_by)
        REFERENCES rollup_level (width, group_by) ON DELETE CASCADE
);
COMMENT ON TABLE rollup_skipped IS 'the profiles a rollup level could not take (key too long for the index, weight out of range), with the error';
SELECT pg_catalog.pg_extension_config_dump('rollup_skipped', '');
-- new arguments
DROP FUNCTION rollup_rows_within(jsonb, interval, timestamptz, timestamptz, text, tstzmultirange);

--------------------------------------------------------------------------
-- samples: the packed type calltree.samples (src/install/schema/36_samples.sql);
-- its readers, samples_agg and stack_agg(samples) come with the replayed functions.
--------------------------------------------------------------------------
CREATE TYPE samples;

CREATE FUNCTION samples_in(cstring) RETURNS samples
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION samples_out(samples) RETURNS cstring
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION samples_recv(internal) RETURNS samples
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION samples_send(samples) RETURNS bytea
AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE samples (
    INPUT          = samples_in,
    OUTPUT         = samples_out,
    RECEIVE        = samples_recv,
    SEND           = samples_send,
    INTERNALLENGTH = VARIABLE,
    ALIGNMENT      = int4,
    STORAGE        = extended
);

COMMENT ON TYPE samples IS 'a multiset of samples packed column-wise: each a stack id, a weight and optionally a time and a label set id, written {stack_id:weight@ts#labels_id,...}';
COMMENT ON FUNCTION samples_in(cstring) IS 'text input of samples: {stack_id:weight@ts#labels_id,...}, time and label set optional, samples in any order';
COMMENT ON FUNCTION samples_out(samples) IS 'text output of samples: {stack_id:weight@ts#labels_id,...} in canonical order (untimed samples by stack, then the others by time)';
COMMENT ON FUNCTION samples_recv(internal) IS 'binary input of samples: the packed bytes, checked';
COMMENT ON FUNCTION samples_send(samples) IS 'binary output of samples: the packed bytes';

-- ==== Backups: the record of row-level security (issue 29, item 7) ====
-- Its tables, as schema/80_row_security.sql; its triggers and event
-- trigger come after the functions, in 0.2--0.3.post.sql.
CREATE TABLE row_security_flags (
    table_name name    PRIMARY KEY,  -- a table of the extension
    enabled    boolean NOT NULL,     -- ENABLE ROW LEVEL SECURITY
    forced     boolean NOT NULL      -- FORCE ROW LEVEL SECURITY
);
COMMENT ON TABLE row_security_flags IS 'the row-level security of each table of calltree, kept for pg_dump';

CREATE TABLE row_security_policy (
    table_name  name   NOT NULL,
    policy_name name   NOT NULL,
    permissive  text   NOT NULL,  -- PERMISSIVE or RESTRICTIVE
    cmd         text   NOT NULL,  -- ALL, SELECT, INSERT, UPDATE or DELETE
    roles       name[] NOT NULL,  -- by name; {public} for all
    qual        text,             -- USING, deparsed with only pg_catalog on the path
    with_check  text,             -- WITH CHECK, likewise
    CONSTRAINT row_security_policy_key PRIMARY KEY (table_name, policy_name)
);
COMMENT ON TABLE row_security_policy IS 'the policies on the tables of calltree, kept for pg_dump';

SELECT pg_catalog.pg_extension_config_dump('row_security_flags', '');
SELECT pg_catalog.pg_extension_config_dump('row_security_policy', '');

-- Fleet ingest (calltree-receiver): the index that finds a Push's sample ID
CREATE INDEX profile_push_id_idx ON profile USING hash ((meta OPERATOR(pg_catalog.->>) 'push_id'));

-- ==== Storage (issue 30): samples packed into sample_set ====
-- The sample table of 0.2 becomes sample_row, which keeps its rows until
-- pack_samples() packs them; its partitions keep their names.  The new
-- table sample_set gets a partition for each window that 0.2 opened, so
-- that the profile ids of the current window have theirs.  The view
-- calltree.sample, which reads both, comes after the functions it calls
-- (0.2--0.3.post.sql), with the triggers of sample_set.
ALTER TABLE sample RENAME TO sample_row;
COMMENT ON TABLE sample_row IS 'samples as rows, as version 0.2 kept them, until pack_samples() packs them into sample_set';
COMMENT ON TABLE sample_0 IS 'the sample rows of profile ids below 10,000,000,000, not packed yet';
COMMENT ON TABLE sample_default IS 'the sample rows of profile ids that no partition of a window holds, not packed yet';

CREATE TABLE sample_set (
    profile_id bigint NOT NULL,  -- a profile; checked by sample_set_refs_check, deleted with it
    thread     text,
    samples    samples NOT NULL  -- stacks and label sets checked likewise
) PARTITION BY RANGE (profile_id);
COMMENT ON TABLE sample_set IS 'the samples of a profile and thread, packed: a profile''s samples are the union of its rows';
CREATE TABLE sample_set_0 PARTITION OF sample_set FOR VALUES FROM (MINVALUE) TO (10000000000);
CREATE INDEX sample_set_0_profile_idx ON sample_set_0 (profile_id);
COMMENT ON TABLE sample_set_0 IS 'the sample sets of the profiles imported before the first window of new_sample_partition()';
CREATE TABLE sample_set_default PARTITION OF sample_set DEFAULT;
CREATE INDEX sample_set_default_profile_idx ON sample_set_default (profile_id);
COMMENT ON TABLE sample_set_default IS 'the sample sets of profile ids that no partition of a window holds';
ALTER TABLE sample_set_0 ENABLE ROW LEVEL SECURITY;
ALTER TABLE sample_set_default ENABLE ROW LEVEL SECURITY;
SELECT pg_catalog.pg_extension_config_dump('sample_set_0', '');
SELECT pg_catalog.pg_extension_config_dump('sample_set_default', '');

-- a partition of sample_set for each window of sample_row (not members of
-- the extension, as the windows themselves: pg_dump dumps them)
DO $$
DECLARE
    w record;
    name text;
BEGIN
    FOR w IN
        SELECT substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \(''?([0-9]+)''?\)')::bigint AS first_id,
               substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \(''?([0-9]+)''?\)')::bigint AS end_id
          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
         WHERE i.inhparent = '@extschema@.sample_row'::regclass
           AND pg_get_expr(c.relpartbound, c.oid) ~ '^FOR VALUES FROM \(''?[0-9]'
         ORDER BY 1
    LOOP
        name := 'sample_set_' || (w.first_id / 10000000000);
        EXECUTE format('CREATE TABLE @extschema@.%I (LIKE @extschema@.sample_set INCLUDING DEFAULTS)', name);
        EXECUTE format('CREATE INDEX %I ON @extschema@.%I (profile_id)', name || '_profile_idx', name);
        EXECUTE format('ALTER TABLE @extschema@.%I ENABLE ROW LEVEL SECURITY', name);
        EXECUTE format('COMMENT ON TABLE @extschema@.%I IS %L', name,
                       format('the sample sets of profile ids %s to %s', w.first_id, w.end_id - 1));
        EXECUTE format('ALTER TABLE @extschema@.sample_set ATTACH PARTITION @extschema@.%I FOR VALUES FROM (%s) TO (%s)',
                       name, w.first_id, w.end_id);
        -- made by the extension's script, but not a member: as a window
        EXECUTE format('ALTER EXTENSION calltree DROP TABLE @extschema@.%I', name);
    END LOOP;
END
$$;

-- ==== Duplicates seen (issue 32, item 5): the digest of each imported
-- file on its profile, as schema/10_tables.sql; import_profile and
-- import_stream take on_duplicate ====
-- Its type, the domain sha256_digest, gets its constraint after the column is
-- added: a column added with a domain that has constraints rewrites the
-- table, a constraint added to the domain only reads it.  Neither is
-- allowed while a function of BEGIN ATOMIC takes profile's row type:
-- rolled_up(profile) has a body of text until the functions that follow
-- give it its own again.  Replaced, not dropped: it keeps its privileges.
CREATE OR REPLACE FUNCTION rolled_up(p profile) RETURNS boolean
LANGUAGE sql AS 'SELECT NULL::boolean';
CREATE DOMAIN sha256_digest AS bytea;
COMMENT ON DOMAIN sha256_digest IS 'a SHA-256 digest, 32 bytes';
ALTER TABLE profile ADD COLUMN content_sha256 sha256_digest;
-- A DBA's own objects may take profile's row type too (a column of type
-- calltree.profile, a function of BEGIN ATOMIC taking one): PostgreSQL then
-- refuses to check the domain's new constraint against the rows, whose
-- values it cannot all reach.  The column is new, NULL in every row, which
-- the constraint accepts: it is then added NOT VALID, and holds for every
-- value written from now on all the same.  (It cannot be validated later:
-- rolled_up(profile) takes the row type again once the functions follow.)
DO $$
BEGIN
    ALTER DOMAIN @extschema@.sha256_digest
        ADD CONSTRAINT sha256_digest_length CHECK (pg_catalog.octet_length(VALUE) OPERATOR(pg_catalog.=) 32);
EXCEPTION WHEN feature_not_supported THEN
    ALTER DOMAIN @extschema@.sha256_digest
        ADD CONSTRAINT sha256_digest_length CHECK (pg_catalog.octet_length(VALUE) OPERATOR(pg_catalog.=) 32)
        NOT VALID;
END
$$;
COMMENT ON COLUMN profile.content_sha256 IS 'SHA-256 of the imported file (after gunzip): an import of the same content names the earlier profile';
CREATE INDEX profile_content_sha256_idx ON profile (content_sha256, id);
-- new argument on_duplicate
DROP FUNCTION import_profile(bytea, text, jsonb, boolean, text, text);
DROP FUNCTION import_stream(regclass, text, jsonb, text, boolean, text, text, text);
-- userhour2: the flame graphs' tooltips in the profiles' unit (new argument unit)
DROP FUNCTION flamegraph(calltree, text, boolean, float8);
DROP FUNCTION flamegraph_diff(calltree, calltree, text, boolean, float8);
-- ==== loadids: import_stream returns every profile a file made (SETOF
-- bigint, a JFR recording's and an OTLP request's several), as
-- bin/calltree-load prints them: its 0.2 signature is dropped above
-- (new argument on_duplicate), which its new result type needs too ====

-- ==== smallfixes: profile.first_of_import, by which on_duplicate 'skip'
-- (calltree load --skip-duplicates) gives every profile of the import
-- that made the earliest of a digest ====
ALTER TABLE profile ADD COLUMN first_of_import bigint;
COMMENT ON COLUMN profile.first_of_import IS 'the first profile of the import that made this one, when one file made several (a JFR recording, an OTLP request, a pprof file of several sample types); NULL for that first one and a file of one profile';
