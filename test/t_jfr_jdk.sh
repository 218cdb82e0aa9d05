#!/usr/bin/env bash
# import_jfr against the JDK's own reader: a recording the JDK writes
# (java -XX:StartFlightRecording, settings=profile) of a small CPU-bound
# program (test/jfr/Hot.java), read by `jfr print --json` and by
# import_jfr.  The CPU profile must have as many samples as the JDK's
# reading has execution samples with a stack, the same threads, and every
# function (class.method, compared with `.` for `/`) the same self and
# running count; sample_rate => 1000000000 makes each sample weigh 1 ns.
#
# Needs Debian's openjdk-17-jdk-headless (java, jfr).  Runs against the
# cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
db=calltree_jfr_jdk
command -v java >/dev/null && command -v jfr >/dev/null ||
	fail "no java or jfr (apt-get install openjdk-17-jdk-headless)"


rec=$work/hot.jfr
(cd "$work" && java -XX:StartFlightRecording=filename="$rec",settings=profile "$here/jfr/Hot.java" >/dev/null 2>&1) ||
	fail "java could not record"
chmod a+rx "$work"
chmod a+r "$rec"
expected=$(jfr print --json --stack-depth 2048 --events jdk.ExecutionSample "$rec" | "$here/jfr_jdk_expected.py")

ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'
got=$(ct_psql "$db" -At -v file="$rec" <<-'SQL'
	CREATE TEMP TABLE ids AS
	SELECT calltree.import_jfr(pg_read_binary_file(:'file'), sample_rate => 1000000000) AS ids;
	CREATE TEMP TABLE tree AS
	SELECT calltree.stack_agg(s.stack_id, s.weight) AS t FROM ids, calltree.sample s WHERE s.profile_id = ids.ids[1];
	SELECT replace(f.name, '/', '.') || E'\t' || sum(x.self) || E'\t' || sum(x.running)
	  FROM tree, calltree.functions(tree.t) x JOIN calltree.func f ON f.id = x.func
	 GROUP BY replace(f.name, '/', '.');
	SELECT 'TOTAL' || E'\t' || calltree.total(t) FROM tree;
	SELECT 'THREADS' || E'\t' || string_agg(t, ',' ORDER BY t COLLATE "C")
	  FROM (SELECT DISTINCT coalesce(thread, '') AS t FROM ids, calltree.sample WHERE profile_id = ids.ids[1]) d;
SQL
)
sorted() { grep -v -E '^(TOTAL|THREADS)' | LC_ALL=C sort -t$'\t' -k1,1; }
e=$(printf '%s\n' "$expected" | sorted; printf '%s\n' "$expected" | grep -E '^(TOTAL|THREADS)')
g=$(printf '%s\n' "$got" | sorted; printf '%s\n' "$got" | grep -E '^(TOTAL|THREADS)')
if [ "$e" != "$g" ]; then
	diff <(echo "$e") <(echo "$g") | head -20 >&2
	fail "import_jfr differs from jfr print --json"
fi
samples=$(printf '%s\n' "$expected" | sed -n 's/^TOTAL\t//p')
[ "$samples" -ge 20 ] || fail "only $samples samples recorded: too few to compare"
printf '%s\n' "$expected" | grep -q '^Hot\.fib	' || fail "Hot.fib was not sampled"
echo "t_jfr_jdk: ok ($samples samples, $(printf '%s\n' "$expected" | grep -vc -E '^(TOTAL|THREADS)') functions agree with jfr print --json)"
