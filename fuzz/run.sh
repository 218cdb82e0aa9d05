#!/usr/bin/env bash
# `make fuzz`: build the libFuzzer harnesses and fuzz each one for a set time.
#
#   FUZZ_SECONDS=60      seconds per harness
#   FUZZ_HARNESSES="…"   which harnesses (default: all of fuzz/Makefile)
#   FUZZ_WORK=fuzz/work  the growing corpora, logs and crashes (gitignored)
#   FUZZ_MAX_LEN=8192    the largest input tried, in bytes
#   FUZZ_BUILD=fuzz/build  where the harnesses are built
#
#   fuzz/run.sh seeds    only write the seed corpora into $FUZZ_WORK/seeds
#
# Seeds: the profiles of other tools in ../shared/data (pprof, gzip files,
# collapsed stacks, perf script, and the small .cpuprofile, speedscope,
# Firefox and trace-event files), the examples, the trace-event files of
# test/data, the hand-made Firefox profiles of test/json_importer_fuzz.py,
# and the calltree literals of sql/*.sql; plus fuzz/regressions/HARNESS, the inputs of crashes found
# before.  A crash stops its harness: the input is saved as
# $FUZZ_WORK/crashes/HARNESS/crash-…, and the summary names the command that
# replays it.  The exit status is 1 if any harness crashed.
set -euo pipefail

fuzz_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/lib.sh
. "$fuzz_dir/../test/lib.sh"

seconds=${FUZZ_SECONDS:-60}
work=${FUZZ_WORK:-$fuzz_dir/work}
build=${FUZZ_BUILD:-$fuzz_dir/build}
shared=$CALLTREE_SHARED

# every harness of the Makefile, unless named
harnesses=${FUZZ_HARNESSES:-$(make -s -C "$fuzz_dir" -f Makefile -f - print-harnesses <<<'print-harnesses: ; @echo $(HARNESSES)')}

# seed HARNESS FILE...: copies the readable files into the harness's seeds
seed() {
	local h=$1 f
	shift
	mkdir -p "$work/seeds/$h"
	for f in "$@"; do
		[ -r "$f" ] && cp "$f" "$work/seeds/$h/"
	done
	return 0
}

write_seeds() {
	local d=$shared/data f
	rm -rf "$work/seeds"
	mkdir -p "$work/seeds"
	seed pprof "$d"/pprof/sample.cpu "$d"/speedscope-samples/pprof/simple.prof
	for f in "$d"/pprof/sample.cpu "$d"/speedscope-samples/pprof/simple.prof; do
		[ -r "$f" ] && gzip -dc "$f" >"$work/seeds/pprof/$(basename "$f").raw"
	done
	seed jfr "$d"/jfr/FastSlow_2024_01_16_180855.jfr.gz
	# the OTLP requests of sql/import_otlp.sql: its decode('...' '...', 'hex') literals
	mkdir -p "$work/seeds/otlp"
	python3 - "$fuzz_dir/../sql/import_otlp.sql" "$work/seeds/otlp" <<'PY'
import re
import sys
sql = open(sys.argv[1]).read()
for n, m in enumerate(re.finditer(r"decode\(\s*((?:'[0-9a-f]*'\s*)+), 'hex'\)", sql)):
    with open(f"{sys.argv[2]}/sql-{n}", "wb") as f:
        f.write(bytes.fromhex("".join(re.findall(r"'([0-9a-f]*)'", m.group(1)))))
PY
	# any bytes choose a profile to encode: the examples' and the pprof files
	seed pprof_encode "$fuzz_dir"/../examples/*.pprof "$fuzz_dir"/../examples/*.collapsed "$d"/pprof/sample.cpu
	seed gzip "$d"/pprof/sample.cpu "$d"/speedscope-samples/pprof/simple.prof
	for f in "$d"/speedscope-samples/stackcollapse/simple.txt "$d"/speedscope-samples/linux-perf/one-sample.linux-perf.txt; do
		[ -r "$f" ] && gzip -c "$f" >"$work/seeds/gzip/$(basename "$f").gz"
		# two members in a row, as gzip(1) writes when appending
		[ -r "$f" ] && { gzip -c "$f"; gzip -c "$f"; } >"$work/seeds/gzip/$(basename "$f").2.gz"
	done
	seed lines "$d"/speedscope-samples/stackcollapse/*.txt "$d"/speedscope-samples/linux-perf/*.txt \
		"$d"/speedscope-samples/callgrind/*.log
	seed collapsed "$d"/speedscope-samples/stackcollapse/*.txt "$fuzz_dir"/../examples/*.collapsed
	seed perf_script "$d"/speedscope-samples/linux-perf/*.txt
	[ -r "$d/firefox-profiler/test.perf.gz" ] &&
		gzip -dc "$d/firefox-profiler/test.perf.gz" >"$work/seeds/perf_script/test.perf"
	seed symbols
	# the JSON importers: the small real files (a few kB; Chrome/69 and sucrase are not)
	local ss=$d/speedscope-samples
	seed cpuprofile "$ss"/Chrome/65/simple.cpuprofile "$ss"/node/10.11.0/example.cpuprofile \
		"$d"/firefox-profiler/*.cpuprofile
	seed speedscope "$ss"/speedscope/*/*.json
	seed firefox "$ss"/Firefox/*/*.json
	seed trace_events "$ss"/trace-event/*.json "$fuzz_dir"/../test/data/chrome/*.json
	# and the hand-made Firefox profiles (Gecko, processed, shared tables, threads as strings)
	python3 - "$fuzz_dir/../test" "$work/seeds/firefox" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import json_importer_fuzz
for name, text in json_importer_fuzz.HAND_MADE:
    with open(f"{sys.argv[2]}/{name}.json", "w", encoding="utf-8") as f:
        f.write(text)
PY
	# the calltree literals of the regression tests, as text inputs (first byte even)
	mkdir -p "$work/seeds/calltree"
	grep -ohE "'\{[^']*\}'::([a-z_]+\.)?calltree" "$fuzz_dir"/../sql/*.sql | sort -u |
		sed -E "s/^'//; s/'::.*//" | {
		local n=0 literal
		while IFS= read -r literal; do
			printf '\0%s' "$literal" >"$work/seeds/calltree/sql-$n"
			n=$((n + 1))
		done
	}
	# the stack_weights literals of the regression tests, as text inputs (first byte even)
	mkdir -p "$work/seeds/stack_weights"
	grep -ohE "'\{[^']*\}'::([a-z_]+\.)?stack_weights" "$fuzz_dir"/../sql/*.sql | sort -u |
		sed -E "s/^'//; s/'::.*//" | {
		local n=0 literal
		while IFS= read -r literal; do
			printf '\0%s' "$literal" >"$work/seeds/stack_weights/sql-$n"
			n=$((n + 1))
		done
	}
	# samples: the literals of the regression tests as text inputs (first
	# byte 0), the packed values they receive as binary ones (first byte 1),
	# and lists of samples (first byte 2; see fuzz_samples.c)
	mkdir -p "$work/seeds/samples"
	{
		grep -ohE "'\{[^']*\}'(::([a-z_]+\.)?samples)?" "$fuzz_dir"/../sql/samples_type.sql | sed -E "s/^'//; s/'(::.*)?$//"
		printf '%s\n' '{5:1,3:2,3:2}' '{7:10@5000#-2,7:-10@6000#-2}' '{9:1,4:1@50,2:3}'
	} | sort -u | {
		local n=0 literal
		while IFS= read -r literal; do
			printf '\0%s' "$literal" >"$work/seeds/samples/sql-$n"
			n=$((n + 1))
		done
	}
	grep -ohE "receive\('\\\\x[0-9a-f]+'\)" "$fuzz_dir"/../sql/samples_type.sql | sed -E "s/^receive\('\\\\x//; s/'\)$//" | sort -u | {
		local n=0 hex
		while IFS= read -r hex; do
			# shellcheck disable=SC2059
			printf "\\x01$(sed 's/../\\x&/g' <<<"$hex")" >"$work/seeds/samples/packed-$n"
			n=$((n + 1))
		done
	}
	printf '\x02\x00\x03\x05\x01\x03\x07\x02\x03\x05\x01\x09\x3f\xff\xff\xff\xff\xff\xff\xff\x7f\x00\x00\x00\x00\x00\x00\x00\x80\x01\x02\x03\x04\x05\x06\x07\x08\x10\x20' \
		>"$work/seeds/samples/list-0"
	# the hash tables: operations of three bytes (what, length, variant; see fuzz_buckets.c):
	# 700 keys put (the buckets double four times), then looked up in that order and
	# the next record taken; and short keys (the hash's tails) put twice, looked up
	mkdir -p "$work/seeds/buckets"
	python3 - "$work/seeds/buckets" <<'PY'
import sys
keys = [(n % 80, n // 80) for n in range(700)]
grow = b"".join(bytes([0, n, v]) for n, v in keys) + b"".join(bytes([1 + i % 3, n, v]) for i, (n, v) in enumerate(keys))
short = [(n, v) for n in range(9) for v in range(16)]
tails = b"".join(bytes([op, n, v]) for op in (0, 1, 0, 2, 3) for n, v in short)
for name, data in (("grow", grow), ("tails", tails)):
    with open(f"{sys.argv[1]}/{name}", "wb") as f:
        f.write(data)
PY
	# calltree-receiver's parsers: one small input of each (first byte: which; see fuzz_receiver.c)
	mkdir -p "$work/seeds/receiver"
	python3 - "$work/seeds/receiver" <<'PY'
import gzip
import sys


def field(number, payload):
    out, n = bytes([number << 3 | 2]), len(payload)
    while n > 0x7F:
        out, n = out + bytes([n & 0x7F | 0x80]), n >> 7
    return out + bytes([n]) + payload


label = field(1, b"service_name") + field(2, b"cart")
sample = field(1, b"raw profile bytes") + field(2, b"id-1")
seeds = {
    "push-proto": b"\x00" + field(1, field(1, label) + field(2, sample)),
    "push-json": b'\x01{"series": [{"labels": [{"name": "service_name", "value": "a\\u00e9"}],'
                 b' "samples": [{"rawProfile": "cmF3", "ID": "i"}]}]}',
    "multipart": b"\x02multipart/form-data; boundary=XX\n--XX\r\nContent-Disposition: form-data;"
                 b' name="profile"; filename="p.pprof"\r\nContent-Type: application/octet-stream\r\n\r\nabc\r\n--XX--\r\n',
    "ingest-params": b"\x03shop{region=eu,host=h1}\npprof\n100\ngospy\nsamples\nsum\n1700000000\n1700000010",
    "base64": b"\x04aGVsbG8gd29ybGQ_-w==",
    "gunzip": b"\x05" + gzip.compress(b"main;work 1\n" * 20),
    "pb-writer": b"\x06\x03the message",
    "auth-bearer": b"\x07Bearer tok-1\n-",
    "auth-basic": b"\x07Basic Ym9iOnMzY3JldA==\n-",
    "auth-orgid": b"\x07-\norg-1",
    "tenants-file": b"\x08# kind credential role\nbearer tok-1 team_a\nbasic bob:s3cret team_b  # c\norgid org-9 team_a\n",
    "otlp-json": b'\x09{"resourceProfiles": [{"resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "a"}},'
                 b' {"key": "d", "value": {"doubleValue": "NaN"}}, {"key": "l", "value": {"arrayValue": {"values": [{"intValue": "-1"}]}}}]},'
                 b' "scopeProfiles": [{"profiles": [{"timeUnixNano": "1700000000000000000", "profileId": "0f0f", "samples":'
                 b' [{"stackIndex": 1, "values": [3, "-4"], "timestampsUnixNano": [1]}]}]}]}],'
                 b' "dictionary": {"stringTable": ["", "x"], "linkTable": [{}, {"traceId": "01ab", "spanId": "CD"}],'
                 b' "mappingTable": [{"memoryStart": "4096", "attributeIndices": []}]}}',
}
for name, data in seeds.items():
    with open(f"{sys.argv[1]}/{name}", "wb") as f:
        f.write(data)
PY
	return 0
}

build() {
	CT_PACKAGES=(clang-14 libclang-rt-14-dev zlib1g-dev libdeflate-dev postgresql-server-dev-15)
	ct_ensure_packages
	make -s -C "$fuzz_dir" PG_CONFIG="$PG_CONFIG" BUILD="$build" >"$work/build.log" 2>&1 ||
		fail "building the harnesses failed" "$work/build.log"
}

# fuzz HARNESS: one harness for $seconds; prints its summary line
fuzz() {
	local h=$1 log=$work/logs/$1.log crashes=$work/crashes/$1 rc=0 dict=() dirs=() execs found
	mkdir -p "$work/corpus/$h" "$work/logs" "$crashes"
	[ -f "$fuzz_dir/dict/$h.dict" ] && dict=(-dict="$fuzz_dir/dict/$h.dict")
	dirs=("$work/corpus/$h" "$work/seeds/$h")
	[ -d "$fuzz_dir/regressions/$h" ] && dirs+=("$fuzz_dir/regressions/$h")
	nice -n 10 "$build/fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-max_len="${FUZZ_MAX_LEN:-8192}" -print_final_stats=1 \
		-artifact_prefix="$crashes/" ${dict[@]+"${dict[@]}"} "${dirs[@]}" >"$log" 2>&1 || rc=$?
	execs=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
	found=$(grep -hoE "Test unit written to [^ ]+" "$log" | sed 's/Test unit written to //' || true)
	if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
		printf '%-12s %12s executions  %5s s  CRASH (exit %s): %s\n' "$h" "$execs" "$seconds" "$rc" "${found:-see $log}"
		[ -z "$found" ] || printf '             replay: %s %s\n' "$build/fuzz_$h" "$found"
		return 1
	fi
	printf '%-12s %12s executions  %5s s  no crash\n' "$h" "$execs" "$seconds"
}

mkdir -p "$work"
write_seeds
[ "${1:-}" = seeds ] && exit 0
build
ct_say "fuzzing ${seconds} s per harness: $harnesses (corpora, logs and crashes in $work)"
failed=0
for h in $harnesses; do
	fuzz "$h" || failed=1
done
exit "$failed"
