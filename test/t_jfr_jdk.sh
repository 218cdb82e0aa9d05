#!/usr/bin/env bash
# import_jfr against the JDK's own reader: recordings the JDK writes
# (java -XX:StartFlightRecording), read by `jfr print --json` and by
# import_jfr, each profile compared with test/jfr_jdk_expected.py's reading:
# the same total, the same threads, and every function (class.method,
# compared with `.` for `/`) the same self and running weight.
# - test/jfr/Hot.java, CPU-bound and allocating (settings=profile with the
#   TLAB allocation events enabled), imported with sample_rate =>
#   1000000000 so that a sample weighs 1 ns: the CPU profile counts the
#   execution samples with a stack; the memory profile has the bytes of
#   the allocation events (tlabSize, allocationSize or weight).
# - test/jfr/Contended.java, four threads contending for a monitor and
#   parking (settings=profile with jdk.ExecutionSample every 20 ms),
#   imported without a sample rate: a CPU sample weighs the recording's own
#   20 ms; mutex contentions and delay (jdk.JavaMonitorEnter: 1 and its
#   duration), block contentions and delay (jdk.ThreadPark) and live
#   objects (jdk.OldObjectSample: 1 each) agree with the JDK's reading.
# - test/jfr/Spans.java, wall-clock events written by hand with the span
#   context of Pyroscope's async-profiler (spanId, spanName): each
#   sample's labels (profile_id, span_name) agree with the JDK's reading.
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


jdk_jfc="$(dirname "$(readlink -f "$(command -v java)")")/../lib/jfr/profile.jfc"
# record NAME JFC: runs test/jfr/NAME.java with the settings of JFC into
# $work/NAME.jfr, and prints its events as JSON into $work/NAME.json
record() {
	local name=$1 jfc=$2
	(cd "$work" && java -XX:StartFlightRecording=filename="$work/$name.jfr",settings="$jfc" "$here/jfr/$name.java" >/dev/null 2>&1) ||
		fail "java could not record $name"
	chmod a+r "$work/$name.jfr"
	jfr print --json --stack-depth 2048 \
		--events jdk.ExecutionSample,jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB,jdk.ObjectAllocationSample,jdk.OldObjectSample,jdk.JavaMonitorEnter,jdk.ThreadPark \
		"$work/$name.jfr" >"$work/$name.json"
}
chmod a+rx "$work"

sed -e '/jdk.ObjectAllocationInNewTLAB\|jdk.ObjectAllocationOutsideTLAB/,/<\/event>/s/>false</>true</' \
	"$jdk_jfc" >"$work/alloc.jfc"
[ "$(grep -A1 'jdk.ObjectAllocation.*TLAB"' "$work/alloc.jfc" | grep -c '>true<')" = 2 ] ||
	fail "could not enable the TLAB allocation events"
sed -e '/"jdk.ExecutionSample"/,/<\/event>/s/>10 ms</>20 ms</' "$jdk_jfc" >"$work/contended.jfc"
grep -A3 '"jdk.ExecutionSample"' "$work/contended.jfc" | grep -q '>20 ms<' ||
	fail "could not set the execution sampling period to 20 ms"
record Hot "$work/alloc.jfc"
# The JDK's sampler takes few of Contended's execution samples on a loaded
# machine (2 in 1.5 s once): the recording, the input of the comparison, is
# made again, up to three times, until it holds enough to compare.
execution_samples() {
	python3 -c 'import json, sys
print(sum(e["type"] == "jdk.ExecutionSample" for e in json.load(open(sys.argv[1]))["recording"]["events"]))' "$1"
}
for attempt in 1 2 3; do
	record Contended "$work/contended.jfc"
	samples=$(execution_samples "$work/Contended.json")
	[ "$samples" -lt 5 ] || break
	echo "t_jfr_jdk: Contended's recording $attempt holds $samples execution samples; recording it again"
done

ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'
ct_psql "$db" -At -v hot="$work/Hot.jfr" -v contended="$work/Contended.jfr" >/dev/null <<-'SQL'
	CREATE TABLE hot AS SELECT calltree.import_jfr(pg_read_binary_file(:'hot'), sample_rate => 1000000000) AS ids;
	CREATE TABLE contended AS SELECT calltree.import_jfr(pg_read_binary_file(:'contended')) AS ids;
SQL

# compare RECORDING PROFILE_TYPE SAMPLE_TYPE EXPECTED_MODE: the profile of
# that type imported from RECORDING (the table of its ids) agrees with
# jfr_jdk_expected.py's reading of it in that mode
compare() {
	local recording=$1 type=$2 sample_type=$3 mode=$4 expected got e g total
	expected=$("$here/jfr_jdk_expected.py" "$mode" <"$work/${recording^}.json")
	got=$(ct_psql "$db" -At -v ids="$recording" -v type="$type" -v sample_type="$sample_type" <<-'SQL'
		CREATE TEMP TABLE this AS
		SELECT p.id FROM :"ids" i, calltree.profile p
		 WHERE p.id = ANY (i.ids) AND p.meta->>'profile_type' = :'type' AND p.meta->>'sample_type' = :'sample_type';
		CREATE TEMP TABLE tree AS
		SELECT calltree.stack_agg(s.stack_id, s.weight) AS t FROM this, calltree.sample s WHERE s.profile_id = this.id;
		SELECT replace(f.name, '/', '.') || E'\t' || sum(x.self) || E'\t' || sum(x.running)
		  FROM tree, calltree.functions(tree.t) x JOIN calltree.func f ON f.id = x.func
		 GROUP BY replace(f.name, '/', '.');
		SELECT 'TOTAL' || E'\t' || calltree.total(t) FROM tree;
		SELECT 'THREADS' || E'\t' || string_agg(t, ',' ORDER BY t COLLATE "C")
		  FROM (SELECT DISTINCT coalesce(s.thread, '') AS t FROM this, calltree.sample s WHERE s.profile_id = this.id) d;
	SQL
	)
	e=$(printf '%s\n' "$expected" | sorted; printf '%s\n' "$expected" | grep -E '^(TOTAL|THREADS)')
	g=$(printf '%s\n' "$got" | sorted; printf '%s\n' "$got" | grep -E '^(TOTAL|THREADS)')
	if [ "$e" != "$g" ]; then
		diff <(echo "$e") <(echo "$g") | head -20 >&2
		fail "import_jfr's $type $sample_type profile of $recording differs from jfr print --json"
	fi
	total=$(printf '%s\n' "$expected" | sed -n 's/^TOTAL\t//p')
	echo "t_jfr_jdk: $recording $type $sample_type ok (total $total, $(printf '%s\n' "$expected" | grep -vc -E '^(TOTAL|THREADS)') functions agree with jfr print --json)"
	LAST_EXPECTED=$expected
	LAST_TOTAL=$total
}
sorted() { grep -v -E '^(TOTAL|THREADS)' | LC_ALL=C sort -t$'\t' -k1,1; }

# meta RECORDING: profile_type/sample_type/unit/sample_rate of each of its profiles, in order
meta() {
	ct_query "$db" "SELECT string_agg(p.meta->>'profile_type' || '/' || (p.meta->>'sample_type') || '/' || p.weight_unit || '/' || coalesce(p.meta->>'sample_rate', '-'), ',' ORDER BY u.n)
		FROM $1, unnest($1.ids) WITH ORDINALITY u(id, n) JOIN calltree.profile p ON p.id = u.id"
}

compare hot process_cpu cpu cpu
[ "$LAST_TOTAL" -ge 20 ] || fail "only $LAST_TOTAL samples recorded: too few to compare"
printf '%s\n' "$LAST_EXPECTED" | grep -q '^Hot\.fib	' || fail "Hot.fib was not sampled"

compare hot memory alloc_in_new_tlab_bytes alloc
printf '%s\n' "$LAST_EXPECTED" | grep -q '^Hot\.small	' || fail "Hot.small's allocations were not recorded"
printf '%s\n' "$LAST_EXPECTED" | grep -q '^Hot\.large	' || fail "Hot.large's allocations were not recorded"
for event in InNewTLAB OutsideTLAB Sample; do
	grep -q "\"jdk.ObjectAllocation$event\"" "$work/Hot.json" || fail "no jdk.ObjectAllocation$event event recorded"
done
got=$(meta hot)
[[ "$got" == process_cpu/cpu/nanoseconds/1000000000,memory/alloc_in_new_tlab_bytes/bytes/-* ]] ||
	fail "Hot's profiles and meta: got [$got]"
echo "t_jfr_jdk: ok (Hot's profiles $got)"

# Contended: CPU at the recording's own 20 ms, locks, parks, live objects
compare contended process_cpu cpu cpu:20000000
[ "$LAST_TOTAL" -ge 100000000 ] || fail "only $((LAST_TOTAL / 20000000)) CPU samples of Contended: too few"
compare contended mutex contentions mutex-count
[ "$LAST_TOTAL" -ge 10 ] || fail "only $LAST_TOTAL monitor contentions recorded: too few to compare"
printf '%s\n' "$LAST_EXPECTED" | grep -q '^Contended\.holdMonitor	' || fail "Contended.holdMonitor's waits were not recorded"
compare contended mutex delay mutex-delay
compare contended block contentions block-count
[ "$LAST_TOTAL" -ge 10 ] || fail "only $LAST_TOTAL parks recorded: too few to compare"
printf '%s\n' "$LAST_EXPECTED" | grep -q '^Contended\.parkAWhile	' || fail "Contended.parkAWhile's parks were not recorded"
compare contended block delay block-delay
compare contended memory live live
[ "$LAST_TOTAL" -ge 1 ] || fail "no live object sampled"
got=$(meta contended)
want=process_cpu/cpu/nanoseconds/50,memory/alloc_in_new_tlab_bytes/bytes/-,memory/live/count/-,mutex/contentions/count/-,mutex/delay/nanoseconds/-,block/contentions/count/-,block/delay/nanoseconds/-
[ "$got" = "$want" ] || fail "Contended's profiles and meta: expected [$want], got [$got]"
echo "t_jfr_jdk: ok (Contended's profiles $got)"

# Spans: async-profiler's wall-clock events with the span context that
# Pyroscope's async-profiler writes on them (spanId, and spanName, a
# string id of the agent's labels, beside contextId), written by the JDK
# for test/jfr/Spans.java, as no recording at hand carries them.  With the
# agent's labels, each sample's label set is its context's labels plus
# profile_id and span_name, as test/jfr_spans.py reads the events from
# `jfr print --json`; without the labels, none (as Pyroscope's reader).
cat >"$work/spans.jfc" <<'JFC'
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0">
  <event name="profiler.WallClockSample"><setting name="enabled">true</setting><setting name="stackTrace">true</setting></event>
</configuration>
JFC
(cd "$work" && java -XX:StartFlightRecording=filename="$work/Spans.jfr",settings="$work/spans.jfc" "$here/jfr/Spans.java" >/dev/null 2>&1) ||
	fail "java could not record Spans"
(cd "$here" && python3 jfr_spans.py labels "$work/spans-labels.pb")
chmod a+r "$work/Spans.jfr" "$work/spans-labels.pb"
expected=$(jfr print --json --events profiler.WallClockSample "$work/Spans.jfr" | (cd "$here" && python3 jfr_spans.py expected) | LC_ALL=C sort)
# spans_labels [LABELS-ARGUMENT]: per sample, the function that made it and its labels
spans_labels() {
	ct_psql "$db" -At -v rec="$work/Spans.jfr" <<-SQL | LC_ALL=C sort
		CREATE TEMP TABLE spans AS SELECT unnest(calltree.import_jfr(pg_read_binary_file(:'rec')$1)) AS id;
		SELECT f.name || E'\t' || coalesce((SELECT string_agg(key || '=' || value, ',' ORDER BY key COLLATE "C") FROM jsonb_each_text(l.labels)), '')
		  FROM spans JOIN calltree.sample s ON s.profile_id = spans.id
		  JOIN calltree.stack leaf ON leaf.id = s.stack_id JOIN calltree.stack caller ON caller.id = leaf.prefix_id
		  JOIN calltree.frame fr ON fr.id = caller.frame_id JOIN calltree.func f ON f.id = fr.func_id
		  LEFT JOIN calltree.labels l ON l.id = s.labels_id;
	SQL
}
[ "$(printf '%s\n' "$expected" | grep -c profile_id)" = 2 ] || fail "Spans: the JDK's reading has no span ids: [$expected]"
got=$(spans_labels ", labels => pg_read_binary_file('$work/spans-labels.pb')")
[ "$got" = "$expected" ] || fail "Spans: expected the samples [$expected], got [$got]"
got=$(spans_labels "")
want=$(printf '%s\n' "$expected" | cut -f1 | sed 's/$/\t/')
[ "$got" = "$want" ] || fail "Spans without the labels: expected [$want], got [$got]"
echo "t_jfr_jdk: ok (Spans: span_name and profile_id of each sample as jfr print --json reads them)"
