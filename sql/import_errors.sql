-- Errors that say what to do (issue 32): when import_profile guessed the
-- format, the error says so and from what, and names the importers; a
-- format given that the file plainly is not says what the file looks
-- like; import_stream (bin/calltree-load's) says it in the loader's terms
-- (--format); a func name that matches none suggests the closest names.
-- Nothing is left behind by any of them.
SET search_path = calltree, public;
\set SHOW_CONTEXT never
SELECT count(*) AS profiles_before FROM profile \gset

-- a script: an indented line looks like a perf script address ("add ")
SELECT import_profile(convert_to(E'// a script\nfunction main() {\n    add (total, i);\n}\n', 'UTF8'));
-- a README: taken for collapsed stacks, and said so
SELECT import_profile(convert_to(E'# calltree\n\nTurns profiles into call trees.\n', 'UTF8'));
-- invalid UTF-8 in a guessed format: its line and byte, and the guess
SELECT import_profile('\x6d61696e3b61203120ff0a'::bytea);
-- binary data: taken for pprof, from its NUL byte
SELECT import_profile('\x0a0400ff0102'::bytea);
-- JSON of no profile format: the importers of the JSON formats
SELECT import_profile(convert_to('{"hello": [1, 2, 3]}', 'UTF8'));
-- a truncated gzip stream says so (the loader unwraps gzip itself: test/t_errors.sh)
SELECT import_profile('\x1f8b0800000000000003cb4dcccc'::bytea);
-- an importer given text it does not read: what the file looks like
SELECT import_cpuprofile(E'main;work 1\n');
SELECT import_speedscope(E'app 1/1 1.0: 7 cycles:u:\n\t 400600 leaf (/opt/app)\n\n');
-- JSON given to a text importer: it looks like JSON, of no known format
SELECT import_collapsed('{"nodes": []}');

-- import_stream, bin/calltree-load's: --format in the hints
CREATE TEMP TABLE chunks (seq bigserial, chunk text);
INSERT INTO chunks (chunk) VALUES (encode(convert_to(E'// a script\n    add (total, i);\n', 'UTF8'), 'base64'));
SELECT import_stream('chunks');
DELETE FROM chunks;
-- --format pprof on a .cpuprofile: the file is JSON, and says which
INSERT INTO chunks (chunk) VALUES (encode(convert_to('{"nodes": [{"id": 1, "callFrame": {"functionName": "f"}}], "samples": []}', 'UTF8'), 'base64'));
SELECT import_stream('chunks', format => 'pprof');
DELETE FROM chunks;
-- --format collapsed on binary data: invalid UTF-8 named, with what it looks like
INSERT INTO chunks (chunk) VALUES (encode('\x0a0400ff0102'::bytea, 'base64'));
SELECT import_stream('chunks', format => 'collapsed');
DELETE FROM chunks;
INSERT INTO chunks (chunk) VALUES (encode(convert_to('{"hello": 1}', 'UTF8'), 'base64'));
SELECT import_stream('chunks');
-- invalid UTF-8 in a stream read a line at a time: the format and line, not
-- PostgreSQL's bare encoding error
DELETE FROM chunks;
INSERT INTO chunks (chunk) VALUES (encode('\x6d61696e3b6120310a6d61696e3b6220ff20320a'::bytea, 'base64'));
SELECT import_stream('chunks');
SELECT import_stream('chunks', format => 'collapsed');

SELECT count(*) = :profiles_before AS nothing_left FROM profile;

-- a func name that matches none: the closest names
SELECT import_collapsed(E'suggest.main;suggest.handleRequest;suggest.parseHeaders 5\nsuggest.main;suggest.handleResponse 2\n',
                        'suggestions') AS sid \gset
\set t '(SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = ' :sid ')'
-- a typo
SELECT merge_function(:t, 'suggest.handelRequest');
-- the package left out; case ignored
SELECT merge_function(:t, 'parseheaders');
SELECT focus_function(:t, 'SUGGEST.HANDLEREQUEST');
-- nothing close: the usual hint
SELECT merge_function(:t, 'zzqqxxyy');
DELETE FROM profile WHERE id = :sid;
