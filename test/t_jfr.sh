#!/usr/bin/env bash
# import_jfr against an independent reading: real async-profiler recordings
# of ../shared/data/jfr with the collapsed stacks that another parser
# (Grafana's jfr-parser, the one Pyroscope uses) reads from them.  Each
# profile import_jfr makes must have that reading's total and, for every
# function (class.method), the same self and running weight, computed from
# the reading by test/jfr_expected.py.  The reading merges the classes the
# JVM generates (ManagementFactory$$Lambda$93.0x00007f479400ed90, $$Lambda$613/672746064 and
# GeneratedMethodAccessor8 become ...$$Lambda_ and ...GeneratedMethodAccessor_);
# calltree keeps the class as the recording writes it, so the comparison
# merges them as the reading does; dump2 is imported with its labels,
# which must not change its weights.  Then: the label sets of dump2's
# samples against an independent reading of the labels part (protoc) and
# of the recording (the JDK's jfr print), meta, line numbers on frames,
# threads, sample_rate, the recording's own sampling interval, its start
# (the chunk header's, read here too), import_profile's detection, and
# damaged data.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN,
# CALLTREE_SHARED).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_jfr
data=$CALLTREE_SHARED/data/jfr
here=$(dirname "${BASH_SOURCE[0]}")


ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'

# The recordings, decompressed by the server itself (import_jfr reads gzip)
for name in FastSlow_2024_01_16_180855 async-profiler dump2 dump2.labels; do
	ext=jfr
	[ "$name" != dump2.labels ] || ext=pb
	gzip -dc "$data/$name.$ext.gz" >"$work/$name.$ext"
	chmod a+r "$work/$name.$ext"
done
chmod a+rx "$work"

# compare RECORDING ORDINAL PROFILE_TYPE READING [LABELS]: profile ORDINAL
# of import_jfr(RECORDING, labels => LABELS) is of PROFILE_TYPE and agrees
# with READING.
compare() {
	local recording=$1 ordinal=$2 type=$3 reading=$4 labels=${5:-} got expected
	got=$(ct_psql "$db" -At -v file="$work/$recording.jfr" -v n="$ordinal" -v labels="$labels" <<-'SQL'
		CREATE TEMP TABLE ids AS
		SELECT u.id, u.n
		  FROM unnest(calltree.import_jfr(pg_read_binary_file(:'file'),
		                                  labels => CASE WHEN :'labels' <> '' THEN pg_read_binary_file(:'labels') END))
		       WITH ORDINALITY AS u(id, n);
		CREATE TEMP TABLE tree AS
		SELECT calltree.stack_agg(s.stack_id, s.weight) AS t
		  FROM calltree.sample s JOIN ids ON ids.id = s.profile_id AND ids.n = :n;
		SELECT p.meta->>'profile_type' FROM calltree.profile p JOIN ids ON ids.id = p.id AND ids.n = :n;
		SELECT n.name || E'\t' || sum(x.self) || E'\t' || sum(x.running)
		  FROM tree, calltree.functions(tree.t) x JOIN calltree.func f ON f.id = x.func,
		       regexp_replace(regexp_replace(f.name, '\$\$Lambda\$[0-9]+(/[0-9]+|\.0x[0-9a-f]+)?\.', '$$Lambda_.'),
		                      'GeneratedMethodAccessor[0-9]+\.', 'GeneratedMethodAccessor_.') AS n(name)
		 GROUP BY n.name ORDER BY n.name COLLATE "C";
		SELECT 'TOTAL' || E'\t' || calltree.total(t) FROM tree;
	SQL
	)
	expected=$(printf '%s\n' "$type"; LC_ALL=C "$here/jfr_expected.py" "$data/$reading" | LC_ALL=C sort -t$'\t' -k1,1 | grep -v '^TOTAL'; "$here/jfr_expected.py" "$data/$reading" | grep '^TOTAL')
	got=$(printf '%s\n' "$got" | { read -r first; printf '%s\n' "$first"; LC_ALL=C sort -t$'\t' -k1,1 | grep -v '^TOTAL' || true; } ; printf '%s\n' "$got" | grep '^TOTAL')
	if [ "$got" != "$expected" ]; then
		diff <(echo "$expected") <(echo "$got") | head -20 >&2
		fail "$recording profile $ordinal ($type) differs from $reading"
	fi
	[ "$(echo "$expected" | wc -l)" -gt 5 ] || fail "$reading: too few functions to compare"
	echo "$recording $type: $(echo "$expected" | wc -l) functions and the total agree"
}

compare FastSlow_2024_01_16_180855 1 process_cpu FastSlow_2024_01_16_180855_1_process_cpu_cpu__nanoseconds_expected_collapsed.txt.gz
compare FastSlow_2024_01_16_180855 2 wall FastSlow_2024_01_16_180855_2_wall_wall__nanoseconds_expected_collapsed.txt.gz
compare async-profiler 1 process_cpu async-profiler_2_process_cpu_cpu__nanoseconds_expected_collapsed.txt.gz
compare dump2 1 process_cpu dump2_2_process_cpu_cpu__nanoseconds_expected_collapsed.txt.gz "$work/dump2.labels.pb"
compare dump2 2 wall dump2_3_wall_wall__nanoseconds_expected_collapsed.txt.gz "$work/dump2.labels.pb"
compare dump2 4 memory dump2_1_memory_live__count_expected_collapsed.txt.gz "$work/dump2.labels.pb"

# The label sets of dump2's samples: the labels part read by protoc, the
# samples' contextId by the JDK's jfr; the count of samples per label set
# (CPU: 10 ms each, sleeping threads left out; wall: every sample)
command -v protoc >/dev/null && command -v jfr >/dev/null ||
	fail "no protoc or jfr (apt-get install protobuf-compiler openjdk-17-jdk-headless)"
protoc --proto_path="$data" --decode=LabelsSnapshot jfr_labels.proto <"$work/dump2.labels.pb" >"$work/labels.txt"
jfr print --json --events jdk.ExecutionSample "$work/dump2.jfr" >"$work/dump2.json"
expected=$("$here/jfr_labels_expected.py" "$work/labels.txt" "$work/dump2.json")
# (the labels part gzip-compressed here, as the agent may send it)
got=$(ct_psql "$db" -At -v file="$work/dump2.jfr" -v labels="$data/dump2.labels.pb.gz" <<-'SQL'
	CREATE TEMP TABLE ids AS
	SELECT calltree.import_jfr(pg_read_binary_file(:'file'), labels => pg_read_binary_file(:'labels')) AS ids;
	SELECT k.kind || E'\t' || coalesce(l.set, '') || E'\t' || sum(s.weight)::bigint / 10000000
	  FROM ids, (VALUES (1, 'cpu'), (2, 'wall')) k(n, kind)
	  JOIN calltree.sample s ON true
	  LEFT JOIN LATERAL (SELECT string_agg(e.key || '=' || e.value, ',' ORDER BY e.key COLLATE "C") AS set
	                       FROM calltree.labels lb, jsonb_each_text(lb.labels) e WHERE lb.id = s.labels_id) l ON true
	 WHERE s.profile_id = ids.ids[k.n]
	 GROUP BY k.kind, l.set;
SQL
)
got=$(LC_ALL=C sort <<<"$got")
if [ "$got" != "$(LC_ALL=C sort <<<"$expected")" ]; then
	diff <(LC_ALL=C sort <<<"$expected") <(echo "$got") | head -20 >&2
	fail "dump2's label sets differ from the reading of its labels part"
fi
[ "$(grep -c $'^cpu\tprofile_id=' <<<"$got")" -gt 20 ] || fail "too few label sets to compare"
echo "dump2 labels: $(wc -l <<<"$got") (kind, label set) counts agree"

# The rest on dump2: how many profiles, their meta, lines, threads, rates
check() {
	local what=$1 want=$2 got
	got=$(ct_psql "$db" -At -v file="$work/dump2.jfr" -v gz="$data/dump2.jfr.gz" <<<"$3;" 2>&1 |
		grep -v -E '^(DETAIL|HINT|CONTEXT|NOTICE):') || true
	[ "$got" = "$want" ] || fail "$what: expected [$want], got [$got]"
	echo "ok: $what"
}
check "four profiles, CPU first, then wall, allocations and live objects (no sample rate), with meta" \
	'process_cpu|cpu|100|jfr|nanoseconds
wall|wall|100|jfr|nanoseconds
memory|alloc_in_new_tlab_bytes||jfr|bytes
memory|live||jfr|count' \
	"CREATE TEMP TABLE ids AS SELECT * FROM unnest(calltree.import_jfr(pg_read_binary_file(:'file'))) WITH ORDINALITY u(id, n);
	 SELECT p.meta->>'profile_type', p.meta->>'sample_type', p.meta->>'sample_rate', p.format, p.weight_unit
	   FROM ids u JOIN calltree.profile p ON p.id = u.id ORDER BY u.n"
check "allocations: the bytes of its 4 jdk.ObjectAllocationInNewTLAB events (tlabSize), as jfr print --json reads them" \
	'4|2097148|Attach Listener,pool-2-thread-1,pool-2-thread-6' \
	"CREATE TEMP TABLE ids AS SELECT calltree.import_jfr(pg_read_binary_file(:'file')) AS ids;
	 SELECT count(*), sum(s.weight), string_agg(DISTINCT s.thread, ',' ORDER BY s.thread) FROM ids, calltree.sample s WHERE s.profile_id = ids[3]"
check "gzip read; name and meta given, the caller's meta over ours" \
	'app|x|process_cpu' \
	"CREATE TEMP TABLE ids AS SELECT calltree.import_jfr(pg_read_binary_file(:'gz'), 'app', '{\"sample_type\": \"x\"}') AS ids;
	 SELECT p.name, p.meta->>'sample_type', p.meta->>'profile_type' FROM ids, calltree.profile p WHERE p.id = ids[1]"
check "line numbers on frames (App.fib at lines 74 and 84)" \
	'74,84' \
	"SELECT string_agg(DISTINCT fr.line::text, ',') FROM calltree.frame fr JOIN calltree.func f ON f.id = fr.func_id
	  WHERE f.name = 'App.fib' AND fr.line IN (74, 84)"
check "every CPU sample has its thread" \
	'0' \
	"SELECT count(*) FROM calltree.sample s JOIN calltree.profile p ON p.id = s.profile_id
	  WHERE p.meta->>'profile_type' = 'process_cpu' AND s.thread IS NULL"
# a chunk header's start (nanoseconds since 1970, big-endian at byte 32), read here, in UTC
chunk_start() {
	python3 -c 'import datetime, struct, sys
ns = struct.unpack(">q", open(sys.argv[1], "rb").read(40)[32:40])[0]
print((datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=ns // 1000)).isoformat(" "))' "$1"
}
check "every profile starts when the recording does: its chunk header's start" \
	"4|$(chunk_start "$work/dump2.jfr")" \
	"CREATE TEMP TABLE ids AS SELECT * FROM unnest(calltree.import_jfr(pg_read_binary_file(:'file'))) AS u(id);
	 SELECT count(*) FILTER (WHERE p.started_at = min) || '|' || min(p.started_at AT TIME ZONE 'UTC')
	   FROM ids JOIN calltree.profile p ON p.id = ids.id, (SELECT min(q.started_at) FROM calltree.profile q JOIN ids i ON q.id = i.id) AS m(min)"
check "two chunks: the profiles start with the earlier, here the second (FastSlow's, then dump2's)" \
	"$(chunk_start "$work/dump2.jfr")" \
	"CREATE TEMP TABLE ids AS SELECT calltree.import_jfr(pg_read_binary_file('$work/FastSlow_2024_01_16_180855.jfr')
	                                                     || pg_read_binary_file(:'file')) AS ids;
	 SELECT string_agg(DISTINCT (p.started_at AT TIME ZONE 'UTC')::text, ',') FROM ids, calltree.profile p WHERE p.id = ANY (ids.ids)"
check "sample_rate 1000: a sample weighs 1 ms" \
	'3358000000' \
	"CREATE TEMP TABLE ids AS SELECT calltree.import_jfr(pg_read_binary_file(:'file'), sample_rate => 1000) AS ids;
	 SELECT sum(weight) FROM ids, calltree.sample WHERE profile_id = ids[1]"
check "the recording's own interval: async-profiler's \"interval\" setting made 20000000 ns, a CPU and a wall sample weigh 20 ms" \
	'process_cpu|50|20000000
wall|50|20000000' \
	"CREATE TEMP TABLE ids AS SELECT calltree.import_jfr(overlay(d PLACING '\\x32'::bytea
	        FROM position('\\x696e74657276616c03083130303030303030'::bytea IN d) + 10)) AS ids
	   FROM pg_read_binary_file(:'file') d;
	 SELECT p.meta->>'profile_type', p.meta->>'sample_rate', min(s.weight)
	   FROM ids, calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
	  WHERE p.id IN (ids[1], ids[2]) GROUP BY 1, 2 ORDER BY 1"
got=$(ct_psql "$db" -At -v gz="$data/dump2.jfr.gz" <<<"SET client_min_messages = notice;
	SELECT calltree.import_profile(pg_read_binary_file(:'gz'));" 2>&1 |
	grep '^NOTICE') || true
grep -q -E '^NOTICE:  imported 4 JFR profiles; the first, ([0-9]+), is returned, the others are [0-9]+, [0-9]+, [0-9]+$' <<<"$got" ||
	fail "import_profile's NOTICE does not name the other profiles: [$got]"
echo "ok: import_profile names the other profiles in a NOTICE"
check "import_profile recognizes JFR and returns the CPU profile" \
	'process_cpu' \
	"CREATE TEMP TABLE ids AS SELECT calltree.import_profile(pg_read_binary_file(:'gz')) AS id;
	 SELECT meta->>'profile_type' FROM ids, calltree.profile p WHERE p.id = ids.id"
check "sample_rate 0 is refused" \
	'ERROR:  sample_rate 0 is out of range' \
	"SELECT calltree.import_jfr(pg_read_binary_file(:'file'), sample_rate => 0)"
check "labels: a length past the end" \
	'ERROR:  invalid JFR labels data at byte 1' \
	"SELECT calltree.import_jfr(pg_read_binary_file(:'file'), labels => '\\x0a05'::bytea)"
check "labels: a label whose key is not among the strings" \
	'ERROR:  invalid JFR labels data at byte 6' \
	"SELECT calltree.import_jfr(pg_read_binary_file(:'file'), labels => '\\x0a0a080112060a0408011002'::bytea)"
check "labels: a string that is not UTF-8 (its byte 0xff at byte 18)" \
	'ERROR:  invalid JFR labels data at byte 18' \
	"SELECT calltree.import_jfr(pg_read_binary_file(:'file'), labels => '\\x0a0a080112060a0408011001120508011201ff'::bytea)"
check "labels: an empty snapshot gives no label set" \
	'0' \
	"CREATE TEMP TABLE ids AS SELECT calltree.import_jfr(pg_read_binary_file(:'file'), labels => ''::bytea) AS ids;
	 SELECT count(s.labels_id) FROM ids, calltree.sample s WHERE s.profile_id = ids[1]"

# async-profiler's allocations: 16 in new TLABs (tlabSize), 1 outside
# (allocationSize), 21388112 bytes as `jfr print --json` reads them
got=$(ct_psql "$db" -At -v file="$work/async-profiler.jfr" <<-'SQL'
	CREATE TEMP TABLE ids AS SELECT calltree.import_jfr(pg_read_binary_file(:'file')) AS ids;
	SELECT p.meta->>'profile_type', count(*), sum(s.weight)
	  FROM ids, calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
	 WHERE p.id = ids[2] GROUP BY 1;
SQL
)
[ "$got" = 'memory|17|21388112' ] || fail "async-profiler allocations: got [$got]"
echo "ok: async-profiler allocations"

# Damaged data: an error with the byte offset, nothing written
before=$(ct_query "$db" 'SELECT count(*) FROM calltree.profile')
check "bad magic" \
	'ERROR:  invalid JFR data at byte 0' \
	"SELECT calltree.import_jfr('\\x464c5201'::bytea || substr(pg_read_binary_file(:'file'), 5))"
check "truncated in the middle: the chunk's size runs past the data" \
	'ERROR:  invalid JFR data at byte 8' \
	"SELECT calltree.import_jfr(substr(pg_read_binary_file(:'file'), 1, 400000))"
check "truncated inside the header" \
	'ERROR:  invalid JFR data at byte 0' \
	"SELECT calltree.import_jfr(substr(pg_read_binary_file(:'file'), 1, 40))"
check "metadata offset outside the chunk" \
	'ERROR:  invalid JFR data at byte 16' \
	"SELECT calltree.import_jfr(overlay(pg_read_binary_file(:'file') PLACING '\\x7fffffffffffffff'::bytea FROM 25))"
check "metadata event of size 0 (it starts at byte 68)" \
	'ERROR:  invalid JFR data at byte 68' \
	"SELECT calltree.import_jfr(overlay(pg_read_binary_file(:'file') PLACING '\\x00'::bytea FROM 69))"
check "a second chunk cut short" \
	'ERROR:  invalid JFR data at byte 785138' \
	"SELECT calltree.import_jfr(pg_read_binary_file(:'file') || '\\x464c520000020000'::bytea)"
after=$(ct_query "$db" 'SELECT count(*) FROM calltree.profile')
[ "$before" = "$after" ] || fail "a failed import wrote profiles ($before, then $after)"
echo "ok: failed imports wrote nothing"
