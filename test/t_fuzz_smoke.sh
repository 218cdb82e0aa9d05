#!/usr/bin/env bash
# The libFuzzer harnesses of fuzz/, built and run once over every stored
# input: fuzz/regressions (each crashed a harness once, and must not any
# more) and the seed corpora that `make fuzz` starts from.  A harness
# aborts on a sanitizer report, on an internal error (XX000) and on a
# failed round trip, so this fails when any of those comes back.
#
# Needs clang 14 and its libFuzzer runtime (libclang-rt-14-dev), which
# test/run.sh installs with the other packages; without them it fails, so
# that the stored inputs are never silently left unplayed.  It does not use
# the cluster of test/run.sh.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init --no-cluster

clang=$(command -v clang-14 || command -v clang || true)
if [ -z "$clang" ] || [ ! -f "$("$clang" -print-file-name=libclang_rt.fuzzer-x86_64.a)" ]; then
	echo "t_fuzz_smoke: no clang with libFuzzer (apt-get install clang-14 libclang-rt-14-dev)" >&2
	exit 1
fi

FUZZ_WORK=$work "$repo/fuzz/run.sh" seeds
make -s -j"$(nproc)" -C "$repo/fuzz" PG_CONFIG="$PG_CONFIG" CLANG="$clang" >"$work/build.log" 2>&1 || {
	tail -n 30 "$work/build.log" >&2
	echo "t_fuzz_smoke: building the harnesses failed" >&2
	exit 1
}

total=0
for binary in "$repo"/fuzz/build/fuzz_*; do
	[ -x "$binary" ] && [ -f "$binary" ] || continue
	h=${binary##*/fuzz_}
	dirs=()
	for d in "$repo/fuzz/regressions/$h" "$work/seeds/$h"; do
		[ -d "$d" ] && [ -n "$(ls -A "$d")" ] && dirs+=("$d")
	done
	[ ${#dirs[@]} -gt 0 ] || continue
	n=$(find "${dirs[@]}" -type f | wc -l)
	if ! "$binary" -runs=0 -artifact_prefix="$work/" "${dirs[@]}" >"$work/$h.log" 2>&1; then
		grep -E -A1 'fuzz check failed|runtime error|^SUMMARY' "$work/$h.log" | head -n 20 >&2
		echo "t_fuzz_smoke: fuzz_$h crashed on one of its $n stored inputs (log above)" >&2
		exit 1
	fi
	total=$((total + n))
done
[ "$total" -gt 0 ] || { echo "t_fuzz_smoke: no stored input was run" >&2; exit 1; }
echo "t_fuzz_smoke: ok ($total stored inputs, no crash)"
