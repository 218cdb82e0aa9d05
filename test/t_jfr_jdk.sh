#!/usr/bin/env bash
# import_jfr against the JDK's own reader: a recording the JDK writes
# (java -XX:StartFlightRecording, settings=profile with the TLAB
# allocation events enabled) of a small CPU-bound and allocating program
# (test/jfr/Hot.java), read by `jfr print --json` and by import_jfr.  The
# CPU profile must have as many samples as the JDK's reading has execution
# samples with a stack, the same threads, and every function (class.method,
# compared with `.` for `/`) the same self and running count;
# sample_rate => 1000000000 makes each sample weigh 1 ns.  The memory
# profile must have the same bytes in total and by function (tlabSize,
# allocationSize or weight of the allocation events with a stack).
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
jfc=$work/alloc.jfc
sed -e '/jdk.ObjectAllocationInNewTLAB\|jdk.ObjectAllocationOutsideTLAB/,/<\/event>/s/>false</>true</' \
	"$(dirname "$(readlink -f "$(command -v java)")")/../lib/jfr/profile.jfc" >"$jfc"
[ "$(grep -A1 'jdk.ObjectAllocation.*TLAB"' "$jfc" | grep -c '>true<')" = 2 ] ||
	fail "could not enable the TLAB allocation events"
(cd "$work" && java -XX:StartFlightRecording=filename="$rec",settings="$jfc" "$here/jfr/Hot.java" >/dev/null 2>&1) ||
	fail "java could not record"
chmod a+rx "$work"
chmod a+r "$rec"
jfr print --json --stack-depth 2048 --events jdk.ExecutionSample,jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB,jdk.ObjectAllocationSample \
	"$rec" >"$work/hot.json"

ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'
ct_psql "$db" -At -v file="$rec" >/dev/null <<-'SQL'
	CREATE TABLE ids AS SELECT calltree.import_jfr(pg_read_binary_file(:'file'), sample_rate => 1000000000) AS ids;
SQL

# compare PROFILE_TYPE EXPECTED_MODE: the profile of that type agrees with
# jfr_jdk_expected.py's reading in that mode
compare() {
	local type=$1 mode=$2 expected got e g total
	expected=$("$here/jfr_jdk_expected.py" "$mode" <"$work/hot.json")
	got=$(ct_psql "$db" -At -v type="$type" <<-'SQL'
		CREATE TEMP TABLE tree AS
		SELECT calltree.stack_agg(s.stack_id, s.weight) AS t
		  FROM ids, calltree.profile p, calltree.sample s
		 WHERE p.id = ANY (ids.ids) AND p.meta->>'profile_type' = :'type' AND s.profile_id = p.id;
		SELECT replace(f.name, '/', '.') || E'\t' || sum(x.self) || E'\t' || sum(x.running)
		  FROM tree, calltree.functions(tree.t) x JOIN calltree.func f ON f.id = x.func
		 GROUP BY replace(f.name, '/', '.');
		SELECT 'TOTAL' || E'\t' || calltree.total(t) FROM tree;
		SELECT 'THREADS' || E'\t' || string_agg(t, ',' ORDER BY t COLLATE "C")
		  FROM (SELECT DISTINCT coalesce(s.thread, '') AS t FROM ids, calltree.profile p, calltree.sample s
		         WHERE p.id = ANY (ids.ids) AND p.meta->>'profile_type' = :'type' AND s.profile_id = p.id) d;
	SQL
	)
	e=$(printf '%s\n' "$expected" | sorted; printf '%s\n' "$expected" | grep -E '^(TOTAL|THREADS)')
	g=$(printf '%s\n' "$got" | sorted; printf '%s\n' "$got" | grep -E '^(TOTAL|THREADS)')
	if [ "$e" != "$g" ]; then
		diff <(echo "$e") <(echo "$g") | head -20 >&2
		fail "import_jfr's $type profile differs from jfr print --json"
	fi
	total=$(printf '%s\n' "$expected" | sed -n 's/^TOTAL\t//p')
	echo "t_jfr_jdk: $type ok (total $total, $(printf '%s\n' "$expected" | grep -vc -E '^(TOTAL|THREADS)') functions agree with jfr print --json)"
	LAST_EXPECTED=$expected
}
sorted() { grep -v -E '^(TOTAL|THREADS)' | LC_ALL=C sort -t$'\t' -k1,1; }

compare process_cpu cpu
samples=$(printf '%s\n' "$LAST_EXPECTED" | sed -n 's/^TOTAL\t//p')
[ "$samples" -ge 20 ] || fail "only $samples samples recorded: too few to compare"
printf '%s\n' "$LAST_EXPECTED" | grep -q '^Hot\.fib	' || fail "Hot.fib was not sampled"

compare memory alloc
printf '%s\n' "$LAST_EXPECTED" | grep -q '^Hot\.small	' || fail "Hot.small's allocations were not recorded"
printf '%s\n' "$LAST_EXPECTED" | grep -q '^Hot\.large	' || fail "Hot.large's allocations were not recorded"
for event in InNewTLAB OutsideTLAB Sample; do
	grep -q "\"jdk.ObjectAllocation$event\"" "$work/hot.json" || fail "no jdk.ObjectAllocation$event event recorded"
done
check_meta=$(ct_psql "$db" -At -c "SELECT string_agg(p.meta->>'profile_type' || '/' || (p.meta->>'sample_type') || '/' || p.weight_unit || '/' || coalesce(p.meta->>'sample_rate', '-'), ',' ORDER BY u.n)
	FROM ids, unnest(ids.ids) WITH ORDINALITY u(id, n) JOIN calltree.profile p ON p.id = u.id")
[ "$check_meta" = "process_cpu/cpu/nanoseconds/1000000000,memory/alloc_in_new_tlab_bytes/bytes/-" ] ||
	fail "profiles and meta: got [$check_meta]"
echo "t_jfr_jdk: ok (profiles $check_meta)"
