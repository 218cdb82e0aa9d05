-- import_collapsed(): the line format, repeated stacks, and malformed lines.
SET search_path = calltree, public;

-- a profile's call tree as indented lines "name running/self"
CREATE FUNCTION pg_temp.show(profile bigint) RETURNS SETOF text
LANGUAGE sql AS $$
  SELECT repeat('  ', n.depth) || quote_literal(f.name) || ' ' || n.running || '/' || n.self
    FROM nodes((SELECT stack_agg(stack_id, weight) FROM sample WHERE profile_id = profile)) AS n
    JOIN func f ON f.id = n.func
   ORDER BY n.node
$$;

-- repeated stacks are one stack: a;b;c is named on lines 1 and 3 (7 in all),
-- a;b on line 2 (self 2); the tree is a 9/0 > b 9/2 > c 7/7
SELECT import_collapsed(E'a;b;c 3\na;b 2\na;b;c 4\n', 'collapsed basic') AS basic \gset
SELECT pg_temp.show(:basic);
SELECT count(*) AS samples, count(DISTINCT stack_id) AS stacks FROM sample WHERE profile_id = :basic;

-- names with spaces, Unicode and an empty name; CRLF, blank lines, several
-- spaces before the count, trailing blanks after it
SELECT import_collapsed(E'main;do work;ünïcode fn 5\r\n\r\n   \nmain;;x   2  \r\nmain;do work 1',
                        'collapsed names') AS names \gset
SELECT pg_temp.show(:names);

-- malformed lines name their line number ...
SELECT import_collapsed(E'a;b 1\na;b x\n');
SELECT import_collapsed(E'a;b 1\n\na;b\n');
SELECT import_collapsed(E'7\n');
SELECT import_collapsed(E'a --3\n');
SELECT import_collapsed(E'a +3\n');
SELECT import_collapsed(E'a\t3\n');
SELECT import_collapsed(E'a 1\na 99999999999999999999\n');
SELECT count(*) AS left_behind FROM profile WHERE name IS NULL AND format = 'collapsed';
-- ... unless strict => false: skipped, counted in a NOTICE, the rest kept
-- (a 1 and a 4 are a's self 5, a;b 2 is below it)
SELECT import_collapsed(E'a 1\na;b x\nnot a line\na;b 2\na 99999999999999999999\na 4\n',
                        'collapsed lenient', strict => false) AS lenient \gset
SELECT pg_temp.show(:lenient);
-- the largest bigint is a count
SELECT import_collapsed(E'a 9223372036854775807\n', 'collapsed max') AS max \gset
SELECT weight FROM sample WHERE profile_id = :max;
-- spaces only before the count are no stack, like nothing before it ("7")
SELECT import_collapsed(E'a;b 1\n  5\n');
