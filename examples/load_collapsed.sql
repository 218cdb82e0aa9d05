-- STAND-IN LOADER, to be replaced by calltree.import_collapsed() once it lands.
--
-- Loads Brendan Gregg collapsed stacks ("root;child;leaf 42" per line) from
-- psql's standard input into a new calltree.profile row and its
-- calltree.sample rows (one sample per line), and prints the profile id:
--
--   psql -qAt -v name=NAME -f examples/load_collapsed.sql < FILE.collapsed
--
-- Func names may contain spaces: a line splits at its LAST space.  Lines that
-- do not end in " <integer>" are skipped.
\set ON_ERROR_STOP on
BEGIN;

CREATE TEMP TABLE collapsed_line (n bigserial, line text) ON COMMIT DROP;
-- CSV whose delimiter and quote bytes never occur in text: every line is read
-- verbatim (no backslash escapes, tabs and quotes kept).
\copy collapsed_line (line) FROM pstdin WITH (FORMAT csv, DELIMITER E'\x01', QUOTE E'\x02')

INSERT INTO calltree.profile (name, format, weight_unit)
VALUES (:'name', 'collapsed', 'samples')
RETURNING id AS profile_id \gset

INSERT INTO calltree.sample (profile_id, stack_id, weight)
SELECT :profile_id, calltree.intern_stack(string_to_array(m[1], ';')), m[2]::bigint
  FROM collapsed_line,
       regexp_match(rtrim(line, E'\r'), '^(.*) ([0-9]+)$') AS m
 WHERE m IS NOT NULL
 ORDER BY n;

COMMIT;
SELECT :profile_id;
