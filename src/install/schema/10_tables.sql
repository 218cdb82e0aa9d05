--------------------------------------------------------------------------
-- Tables: every table and index of the extension.  Funcs, frames, stacks
-- and label sets are interned and shared by every profile; samples, trace
-- events and symbols belong to a profile or a resource.  Ids come from
-- plain sequences (CACHE 1, so that an id handed out later is always
-- larger: `prefix_id < id` relies on it).  Every table and sequence is
-- marked for pg_dump, which then dumps their rows and values.
--------------------------------------------------------------------------

-- A SHA-256 digest: 32 bytes.  A domain rather than a CHECK on the
-- column: a table's CHECK is read back from the catalog and planned again
-- by every statement that inserts a row, a domain's constraint once per
-- backend (it is cached with the type), and every import inserts a profile.
CREATE DOMAIN sha256_digest AS bytea
    CONSTRAINT sha256_digest_length CHECK (pg_catalog.octet_length(VALUE) OPERATOR(pg_catalog.=) 32);
COMMENT ON DOMAIN sha256_digest IS 'a SHA-256 digest, 32 bytes';

CREATE SEQUENCE profile_id_seq;
CREATE TABLE profile (
    id          bigint PRIMARY KEY DEFAULT nextval('@extschema@.profile_id_seq'),
    name        text,
    format      text,
    started_at  timestamptz,
    weight_unit text NOT NULL DEFAULT 'samples',
    meta        jsonb NOT NULL DEFAULT '{}',
    imported_at timestamptz NOT NULL DEFAULT now(),
    -- SHA-256 of the imported file's bytes, gzip undone (NULL: imported before 0.3)
    content_sha256 sha256_digest,
    -- the first profile of the import that made this one, when that one is not it
    first_of_import bigint
);
ALTER SEQUENCE profile_id_seq OWNED BY profile.id;
COMMENT ON TABLE profile IS 'one row per imported profile; meta holds build id, host, service, commit';
COMMENT ON COLUMN profile.content_sha256 IS 'SHA-256 of the imported file (after gunzip): an import of the same content names the earlier profile';
COMMENT ON COLUMN profile.first_of_import IS 'the first profile of the import that made this one, when one file made several (a JFR recording, an OTLP request, a pprof file of several sample types); NULL for that first one and a file of one profile';
-- every import looks up the profiles of the same content (import_duplicates.c)
-- (digest, id): the earliest profile of a digest is the first entry, however
-- many profiles share it (a hash index would return them all to be sorted)
CREATE INDEX profile_content_sha256_idx ON profile (content_sha256, id);
-- calltree-receiver stores each sample ID of a Pyroscope Push once, kept
-- in meta->>'push_id' and looked up before every import (docs/ingest.md).
-- A hash index: an ID of any length is a hash code in it.
CREATE INDEX profile_push_id_idx ON profile USING hash ((meta OPERATOR(pg_catalog.->>) 'push_id'));

-- The keys of interned funcs and frames, as one value each.  A btree
-- entry holds the whole key and fails past about 2.7kB (C++ and Rust
-- symbols can be longer), so func_key and frame_key are exclusion
-- constraints over a hash index of these values instead: the index holds
-- hash codes, and every candidate is compared in full with the row, so
-- two keys that differ are two rows even when their hashes are equal.
-- Record equality takes two NULL fields as equal: NULLS NOT DISTINCT.
CREATE TYPE func_identity AS (name text, file text, resource text);
CREATE TYPE frame_identity AS (func_id int4, address bigint, line int4, col int4, implementation text);

CREATE SEQUENCE func_id_seq AS int4;
CREATE TABLE func (
    id       int4 PRIMARY KEY DEFAULT nextval('@extschema@.func_id_seq'),
    name     text NOT NULL,
    file     text,
    resource text,
    CONSTRAINT func_key EXCLUDE USING hash ((ROW(name, file, resource)::@extschema@.func_identity) WITH OPERATOR(pg_catalog.=))
);
ALTER SEQUENCE func_id_seq OWNED BY func.id;
-- funcs looked up by name alone (symbolicate, users' queries)
CREATE INDEX func_name_idx ON func USING hash (name);
COMMENT ON TABLE func IS 'interned functions: the nodes of call trees are funcs';

CREATE SEQUENCE frame_id_seq;
CREATE TABLE frame (
    id             bigint PRIMARY KEY DEFAULT nextval('@extschema@.frame_id_seq'),
    func_id        int4 NOT NULL REFERENCES func (id),
    address        bigint,
    line           int4,
    col            int4,
    implementation text,
    CONSTRAINT frame_key EXCLUDE USING hash
        ((ROW(func_id, address, line, col, implementation)::@extschema@.frame_identity) WITH OPERATOR(pg_catalog.=))
);
ALTER SEQUENCE frame_id_seq OWNED BY frame.id;
-- the frames of a func (its foreign key, symbolicate)
CREATE INDEX frame_func_idx ON frame (func_id);
COMMENT ON TABLE frame IS 'interned frames: many frames (addresses, lines, JIT tiers) share a func';

CREATE SEQUENCE stack_id_seq;
CREATE TABLE stack (
    id        bigint PRIMARY KEY DEFAULT nextval('@extschema@.stack_id_seq'),
    prefix_id bigint,           -- a stack; checked by stack_insert_check
    frame_id  bigint NOT NULL,  -- a frame; likewise
    -- INCLUDE (id): imports find known stacks by index-only reads
    CONSTRAINT stack_key UNIQUE NULLS NOT DISTINCT (prefix_id, frame_id) INCLUDE (id),
    CONSTRAINT stack_prefix_before CHECK (prefix_id < id)
);
ALTER SEQUENCE stack_id_seq OWNED BY stack.id;
COMMENT ON TABLE stack IS 'interned stacks, prefix-linked: a stack is its leaf frame on top of its prefix stack';

CREATE SEQUENCE labels_id_seq;
CREATE TABLE labels (
    id     bigint PRIMARY KEY DEFAULT nextval('@extschema@.labels_id_seq'),
    labels jsonb NOT NULL,
    -- a hash index, as func_key: label values can be long
    CONSTRAINT labels_key EXCLUDE USING hash (labels WITH OPERATOR(pg_catalog.=))
);
ALTER SEQUENCE labels_id_seq OWNED BY labels.id;
COMMENT ON TABLE labels IS 'interned label sets (pprof tags, Pyroscope labels)';

-- Samples as rows, one each: how versions 0.1 and 0.2 kept them.  From
-- 0.3 on, samples are packed into calltree.sample_set (37_sample_set.sql)
-- and this table holds only the rows of a database updated from 0.2 that
-- pack_samples() has not packed yet; calltree.sample, a view, reads both.
-- It keeps the layout it had: partitioned by ranges of profile ids,
-- sample_0 for the ids below 10,000,000,000 and the windows that 0.2's
-- new_sample_partition() made, sample_default for the ids no window holds.
-- The partitioned table has no index and no foreign key of its own: each
-- partition gets its index, and the references are checked by triggers
-- (15_integrity.sql).
CREATE TABLE sample_row (
    profile_id bigint NOT NULL, -- a profile; checked by sample_refs_check, deleted with it
    thread     text,
    ts         bigint,
    stack_id   bigint NOT NULL, -- a stack; checked by sample_refs_check and stack_delete_check
    weight     bigint NOT NULL DEFAULT 1,
    labels_id  bigint           -- a label set; checked by sample_refs_check
) PARTITION BY RANGE (profile_id);
COMMENT ON TABLE sample_row IS 'samples as rows, as version 0.2 kept them, until pack_samples() packs them into sample_set';

CREATE TABLE sample_0 PARTITION OF sample_row FOR VALUES FROM (MINVALUE) TO (10000000000);
CREATE INDEX sample_0_profile_idx ON sample_0 (profile_id, thread, ts);
COMMENT ON TABLE sample_0 IS 'the sample rows of profile ids below 10,000,000,000, not packed yet';
CREATE TABLE sample_default PARTITION OF sample_row DEFAULT;
CREATE INDEX sample_default_profile_idx ON sample_default (profile_id, thread, ts);
COMMENT ON TABLE sample_default IS 'the sample rows of profile ids that no partition of a window holds, not packed yet';
-- Rows are read through sample, and written by pack_samples() (which
-- deletes them) or a restore; a partition's row-level security with no
-- policy keeps every role but the owner (and BYPASSRLS) out of it, also
-- one that GRANT ... ON ALL TABLES IN SCHEMA reached.
ALTER TABLE sample_0 ENABLE ROW LEVEL SECURITY;
ALTER TABLE sample_default ENABLE ROW LEVEL SECURITY;

-- Symbol tables received by symbolicate() (85_symbols.sql), kept per
-- resource so that one may arrive in several parts, in any order.
CREATE TABLE symbol (
    resource text NOT NULL,
    start    bigint NOT NULL,
    name     text NOT NULL,
    CONSTRAINT symbol_key PRIMARY KEY (resource, start)
);
COMMENT ON TABLE symbol IS 'symbol tables received by symbolicate(), per resource: start address and name';
-- the address frames waiting for their symbols, found by address
CREATE INDEX frame_address_idx ON frame (address) WHERE implementation = 'address';

-- Instrumented traces: the enter and exit events of each call, from
-- which trace_agg builds a call tree.
CREATE TABLE event (
    profile_id bigint NOT NULL REFERENCES profile (id) ON DELETE CASCADE,
    thread     text,
    ts         bigint NOT NULL,
    func_id    int4 NOT NULL REFERENCES func (id),
    enter      boolean NOT NULL,
    seq        bigint NOT NULL    -- order of events with equal timestamps
);
CREATE INDEX event_profile_idx ON event (profile_id, thread, ts, seq);
COMMENT ON TABLE event IS 'enter/exit events of instrumented traces; ts in ns from profile start';

-- pg_dump dumps the rows of these tables and the values of these
-- sequences.  The list keeps the order in which version 0.1 made them, so
-- that a fresh install and an updated one have the same catalog.
SELECT pg_catalog.pg_extension_config_dump('profile', '');
SELECT pg_catalog.pg_extension_config_dump('profile_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('func', '');
SELECT pg_catalog.pg_extension_config_dump('func_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('frame', '');
SELECT pg_catalog.pg_extension_config_dump('frame_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('stack', '');
SELECT pg_catalog.pg_extension_config_dump('stack_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('labels', '');
SELECT pg_catalog.pg_extension_config_dump('labels_id_seq', '');
SELECT pg_catalog.pg_extension_config_dump('sample_0', '');
SELECT pg_catalog.pg_extension_config_dump('sample_default', '');
SELECT pg_catalog.pg_extension_config_dump('symbol', '');
SELECT pg_catalog.pg_extension_config_dump('event', '');
