-- import_collapsed() on the real files of speedscope-samples/stackcollapse/:
-- malformed lines, cuts, flipped bytes, empty input.  The numbers of every
-- file are checked against test/reference/collapsed_stacks.py by
-- test/t_collapsed_reference.sh; the expected counts here were worked out
-- with the same reference reader.
SET search_path = calltree, public;
\getenv shared_dir CALLTREE_SHARED
\set dir :shared_dir '/data/speedscope-samples/stackcollapse/'
\set ECHO none
\ir test/reference/helpers.sql
\set ECHO all

-- a profile's call tree as indented lines "name running/self"
CREATE FUNCTION pg_temp.show(profile bigint) RETURNS SETOF text
LANGUAGE sql AS $$
  SELECT repeat('  ', n.depth) || n.running || '/' || n.self || ' ' || f.name
    FROM nodes((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = profile)) AS n
    JOIN func f ON f.id = n.func
   ORDER BY n.node
$$;

SELECT count(*) AS profiles_before FROM profile \gset

-- simple-with-invalids.txt: two comment lines first, "invalid line" last.
-- Strictly, the first is the error; with strict => false the three are
-- skipped and the five sample lines kept: a;b;c 1+1+3, a;b;d 4, a;b 5, so
-- a 14/0 > b 14/5 > {c 5/5, d 4/4}, as simple.txt.
SELECT import_collapsed(pg_read_file(:'dir' || 'simple-with-invalids.txt'));
SELECT import_collapsed(pg_read_file(:'dir' || 'simple-with-invalids.txt'), 'invalids',
                        strict => false) AS lenient \gset
SELECT pg_temp.show(:lenient);
SELECT count(*) AS samples, sum(weight) AS total FROM sample WHERE profile_id = :lenient;
-- the same through import_profile, which passes strict on
SELECT import_profile(pg_read_binary_file(:'dir' || 'simple-with-invalids.txt'));
SELECT import_profile(pg_read_binary_file(:'dir' || 'simple-with-invalids.txt'), 'invalids 2',
                      strict => false) AS lenient2 \gset
SELECT (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :lenient2)
     = (SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = :lenient) AS same_tree;

-- Empty input, and input with no sample line, is an error (as it is for
-- import_profile); import_speedscope says so too.
SELECT import_collapsed('');
SELECT import_collapsed(E'  \n\t\r\n ');
SELECT import_collapsed(E'\n');
SELECT import_collapsed(pg_read_file(:'dir' || 'simple-with-invalids.txt', 0, 72), strict => false);
SELECT import_speedscope('');
SELECT import_speedscope('   ');

-- Cuts at every 1/50th of each file (at least one character): a cut at the
-- end of a line is a valid file and imports, one sample per line; any other
-- is an error naming the line it was cut in.  simple.txt: 10 of 49 cuts
-- import, simple-crlf.txt 16 (a cut between CR and LF is whole), recursion.txt
-- 9, alternating.txt 13, tall.txt (one line) and the vertx file (long lines)
-- none.
SELECT f, c.*
  FROM unnest(ARRAY['simple.txt', 'simple-crlf.txt', 'recursion.txt', 'alternating.txt', 'tall.txt',
                    'perf-vertx-stacks-01-collapsed-all.txt']) AS f,
       pg_temp.line_cuts('import_collapsed', 'malformed collapsed stack', pg_read_file(:'dir' || f)) AS c;
-- outside of a savepoint, a failed import leaves nothing behind
SELECT import_collapsed(left(pg_read_file(:'dir' || 'perf-vertx-stacks-01-collapsed-all.txt'), 5000));

-- Flipped bits (0x01, 0x20, 0x80 in turn) at every 1/50th, through
-- import_profile: an import, or an error that names the format and, for
-- text, the line.  0x80 makes ASCII invalid UTF-8; 0x20 makes a digit or a
-- space a control character, NUL included: not text, so pprof, which it is
-- not.  A flipped byte-order mark leaves NUL bytes: pprof again.
SELECT f, b.*
  FROM unnest(ARRAY['recursion.txt', 'alternating.txt', 'simple-crlf.txt', 'simple-utf16-le.txt',
                    'simple-utf16-be.txt', 'perf-vertx-stacks-01-collapsed-all.txt']) AS f,
       pg_temp.byte_flips(pg_read_binary_file(:'dir' || f)) AS b;
-- invalid UTF-8 names its line, past the first 64 kB too
SELECT import_profile(set_byte(pg_read_binary_file(:'dir' || 'perf-vertx-stacks-01-collapsed-all.txt'),
                               200000, 200));
SELECT import_profile(convert_to(E'a;b 1\na;c 2\n', 'UTF8') || '\xff'::bytea || convert_to(E' 3\n', 'UTF8'));

-- nothing left behind but the two lenient imports
SELECT count(*) - :profiles_before AS new_profiles FROM profile;
