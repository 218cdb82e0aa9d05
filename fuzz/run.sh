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
# collapsed stacks, perf script), the examples, and the calltree literals
# of sql/*.sql; plus fuzz/regressions/HARNESS, the inputs of crashes found
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
	return 0
}

build() {
	CT_PACKAGES=(clang-14 libclang-rt-14-dev zlib1g-dev postgresql-server-dev-15)
	ct_ensure_packages
	make -s -C "$fuzz_dir" PG_CONFIG="$PG_CONFIG" BUILD="$build" >"$work/build.log" 2>&1 ||
		ct_die "building the harnesses failed" "$work/build.log"
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
