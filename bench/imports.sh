#!/usr/bin/env bash
# bench/imports.sh: import speed of collapsed stacks, perf script and pprof
# (see "Imports" in bench/README.md).
#
# Generates three files deterministically (bench/gen_*.py, cached in
# bench/out/import-data/), then, per format, in a scratch database of its
# own (created and dropped here): uploads the file once from the client,
# times a first import (every stack new), repeat imports (every stack
# known), the floor (COPY of the same sample rows into an UNLOGGED table)
# and the write floor (COPY of the same stack and sample rows into logged
# tables with calltree's indexes), checks every import against the
# generator's totals, and for pprof times `go tool pprof -raw` on the same
# file.  The report goes to standard output and to bench/out/imports.txt.
#
# Connects with the usual libpq variables (PGHOST, PGPORT, PGUSER,
# PGDATABASE); needs the right to create databases.
#
# Environment (sizes in MB, 10^6 bytes):
#   BENCH_IMPORT_PERF_MB=500       perf script file
#   BENCH_IMPORT_COLLAPSED_MB=200  collapsed file
#   BENCH_IMPORT_PPROF_MB=50       pprof file, uncompressed protobuf
#   BENCH_IMPORT_STACKS=100000     distinct stacks in each file
#   BENCH_IMPORT_FORMATS="collapsed perf pprof"   which formats, in order
#   BENCH_IMPORT_REPEATS=1         repeat imports (and go runs); best counts
#   BENCH_IMPORT_DB=calltree_bench_imports        the scratch database
#   BENCH_IMPORT_DATA=bench/out/import-data       where files are cached
#   BENCH_IMPORT_KEEP_DB=1         keep the last scratch database
#   BENCH_IMPORT_WORK_MEM=1GB      calltree.import_work_mem of the imports
# Exit status 1 when an import or a sanity check fails; a missed target
# is printed as MISSED and does not change it (bench/run.sh's
# BENCH_STRICT=1 does).
set -euo pipefail

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR="$BENCH_DIR/out"
DATA_DIR=${BENCH_IMPORT_DATA:-$OUT_DIR/import-data}
REPORT="$OUT_DIR/imports.txt"
FORMATS=${BENCH_IMPORT_FORMATS:-collapsed perf pprof}
STACKS=${BENCH_IMPORT_STACKS:-100000}
REPEATS=${BENCH_IMPORT_REPEATS:-1}
FLOOR_RUNS=3
DB=${BENCH_IMPORT_DB:-calltree_bench_imports}
DB_COMMENT='calltree import benchmark scratch database (bench/imports.sh drops it)'
declare -A MB=([collapsed]=${BENCH_IMPORT_COLLAPSED_MB:-200} [perf]=${BENCH_IMPORT_PERF_MB:-500} [pprof]=${BENCH_IMPORT_PPROF_MB:-50})
declare -A GEN=([collapsed]=gen_collapsed.py [perf]=gen_perf_script.py [pprof]=gen_pprof.py)
declare -A FILE=([collapsed]=profile.collapsed [perf]=perf-script.txt [pprof]=profile.pb.gz)
declare -A TARGET_MBS=([collapsed]=50 [perf]=50 [pprof]=100)
TARGET_FLOOR=2
# the imports' caches get room for the files' stacks, as the main benchmark
# gives its queries work_mem: speed is measured here, memory by test/t_load.sh
IMPORT_WORK_MEM=${BENCH_IMPORT_WORK_MEM:-1GB}

# shellcheck source=test/lib.sh
. "$BENCH_DIR/../test/lib.sh"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
die() { printf 'imports: %s\n' "$*" | tee -a "$REPORT" >&2; exit 1; }
calc() { awk "BEGIN { printf $1 }"; }

for f in $FORMATS; do
	[ -n "${GEN[$f]:-}" ] || die "unknown format '$f' in BENCH_IMPORT_FORMATS (collapsed, perf, pprof)"
done
case "$REPEATS$STACKS" in *[!0-9]*) die "BENCH_IMPORT_REPEATS and BENCH_IMPORT_STACKS must be positive integers" ;; esac
[ "$REPEATS" -ge 1 ] || die "BENCH_IMPORT_REPEATS must be at least 1"
case "$DATA_DIR" in *"'"* | *' '*) die "BENCH_IMPORT_DATA must not hold quotes or spaces: $DATA_DIR" ;; esac

mkdir -p "$OUT_DIR" "$DATA_DIR"
: >"$REPORT"
ct_make_tmp
work=$CT_TMP
if [ "${BENCH_IMPORT_KEEP_DB:-0}" != 1 ]; then
	ct_at_exit 'drop_db >/dev/null'
fi

ct_query "" 'SELECT 1' >/dev/null ||
	die "cannot connect (PGHOST=${PGHOST:-} PGPORT=${PGPORT:-} PGDATABASE=${PGDATABASE:-})"

# ---------------------------------------------------------------- the database
# Each format gets a fresh database: its first import finds empty calltree
# tables (every stack new), and no format sees another's rows.  Only a
# database that this script made (its comment says so) is ever dropped.
drop_db() {
	local found
	found=$(ct_psql "" -At -v db="$DB" <<-'SQL'
		SELECT coalesce(shobj_description(oid, 'pg_database'), '(no comment)') FROM pg_database WHERE datname = :'db';
	SQL
	)
	[ -n "$found" ] || return 0
	if [ "$found" != "$DB_COMMENT" ]; then
		printf 'imports: database %s exists and is not this benchmark'"'"'s scratch database; set BENCH_IMPORT_DB\n' "$DB" >&2
		return 1
	fi
	ct_psql "" -c "DROP DATABASE \"$DB\""
}
fresh_db() {
	drop_db || exit 1
	ct_psql "" -c "CREATE DATABASE \"$DB\" TEMPLATE template0 ENCODING 'UTF8'" \
		-c "COMMENT ON DATABASE \"$DB\" IS '$DB_COMMENT'" \
		-c "ALTER DATABASE \"$DB\" SET calltree.import_work_mem = '$IMPORT_WORK_MEM'"
	ct_psql "$DB" <<-'SQL'
		CREATE EXTENSION calltree;
		-- the file, uploaded once; EXTERNAL: stored uncompressed
		CREATE UNLOGGED TABLE bench_file (bin bytea);
		ALTER TABLE bench_file ALTER COLUMN bin SET STORAGE EXTERNAL;
		-- one import, timed in the server: the file is read from bench_file
		-- into memory first (read_s), then the importer runs on it (import_s)
		CREATE FUNCTION bench_import(fmt text, pname text,
		                             OUT profile_id bigint, OUT read_s float8, OUT import_s float8)
		LANGUAGE plpgsql AS $$
		DECLARE
		    t0 timestamptz;
		    t1 timestamptz;
		    t2 timestamptz;
		    txt text;
		    bin bytea;
		BEGIN
		    t0 := clock_timestamp();
		    IF fmt = 'pprof' THEN
		        SELECT f.bin || '\x'::bytea INTO STRICT bin FROM bench_file f;     -- detoasted
		    ELSE
		        SELECT convert_from(f.bin, 'UTF8') INTO STRICT txt FROM bench_file f;  -- detoasted, UTF-8 checked
		    END IF;
		    t1 := clock_timestamp();
		    IF fmt = 'collapsed' THEN
		        profile_id := calltree.import_collapsed(txt, name => pname);
		    ELSIF fmt = 'perf' THEN
		        profile_id := calltree.import_perf_script(txt, name => pname);
		    ELSE
		        profile_id := calltree.import_pprof(bin, name => pname);
		    END IF;
		    t2 := clock_timestamp();
		    read_s := extract(epoch FROM t1 - t0);
		    import_s := extract(epoch FROM t2 - t1);
		END
		$$;
		CREATE UNLOGGED TABLE import_floor (LIKE calltree.sample);
		-- the write floor: the same rows into tables shaped like calltree's
		-- own, logged and with their indexes (not their triggers)
		CREATE TABLE write_floor_stack (LIKE calltree.stack INCLUDING INDEXES INCLUDING CONSTRAINTS);
		CREATE TABLE write_floor_sample (LIKE calltree.sample INCLUDING INDEXES);
	SQL
}
settle() {
	ct_psql "$DB" -c 'VACUUM (ANALYZE) calltree.profile, calltree.func, calltree.frame, calltree.stack, calltree.labels, calltree.sample_set, calltree.sample_row'
	ct_psql "$DB" -c 'CHECKPOINT' >/dev/null 2>&1 || true
}

# ---------------------------------------------------------------- the files
# gen FORMAT: the file of the format, generated unless the cached one was
# made by the same generators with the same parameters.
gen() {
	local fmt=$1 file="$DATA_DIR/${FILE[$1]}" key start
	key="$(cat "$BENCH_DIR/gen_common.py" "$BENCH_DIR/${GEN[$fmt]}" | sha256sum | cut -c1-16) ${MB[$fmt]} $STACKS"
	if [ -f "$file" ] && [ -f "$file.expect.json" ] && [ "$(cat "$file.key" 2>/dev/null)" = "$key" ]; then
		say "imports: $fmt: reusing $file"
		return
	fi
	rm -f "$file" "$file.expect.json" "$file.key"
	start=$(date +%s%N)
	python3 "$BENCH_DIR/${GEN[$fmt]}" "$file" "${MB[$fmt]}" "$STACKS" || die "$fmt: the generator failed"
	printf '%s\n' "$key" >"$file.key"
	say "imports: $fmt: generated $file in $(calc "\"%.1f\", ($(date +%s%N) - $start) / 1e9") s"
}
# expect FORMAT KEY: a fact from the generator's side file
expect() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$DATA_DIR/${FILE[$1]}.expect.json" "$2"
}
# the file as one row, one bytea column, of a binary COPY: a header and a
# trailer around the file's bytes, which are streamed as they are
copy_frame() {
	python3 - "$1" "$work/copyhead" "$work/copytail" <<-'PY'
		import os, struct, sys
		size = os.path.getsize(sys.argv[1])
		assert size < 2**31 - 1
		open(sys.argv[2], 'wb').write(b'PGCOPY\n\xff\r\n\x00' + struct.pack('!iihi', 0, 0, 1, size))
		open(sys.argv[3], 'wb').write(struct.pack('!h', -1))
	PY
}

# ---------------------------------------------------------------- timing
# timed_copy SQL-COPY-COMMAND: seconds, between two clock_timestamp()
# readings of the server in the same session around a psql \copy (which
# reads the client file, sends it, and commits).
timed_copy() {
	ct_psql "$DB" -At <<-SQL
		SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
		$1
		SELECT round((extract(epoch FROM clock_timestamp()) - :t0)::numeric, 3);
	SQL
}
best() { printf '%s\n' "$@" | sort -g | head -n 1; }

# Checks: each import's checks go on one line, "ok" or the failures.
FAILED=0
CHECKED=() CHECK_FAILS=()
check() {	# check LABEL EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then
		CHECKED+=("$1 $3")
	else
		CHECK_FAILS+=("$1: expected $2, got $3")
		FAILED=1
	fi
}
checks_done() {	# checks_done WHAT
	if [ ${#CHECK_FAILS[@]} -eq 0 ]; then
		say "  check, $1: $(IFS=';'; printf '%s' "${CHECKED[*]}" | sed 's/;/, /g'): ok"
	else
		say "  check, $1: $(IFS=';'; printf '%s' "${CHECK_FAILS[*]}" | sed 's/;/; /g'): FAILED"
	fi
	CHECKED=() CHECK_FAILS=()
}
counts() {
	ct_psql "$DB" -At -F' ' -c 'SELECT (SELECT count(*) FROM calltree.stack), (SELECT count(*) FROM calltree.frame),
	                         (SELECT count(*) FROM calltree.func), (SELECT count(*) FROM calltree.labels)'
}
# check_import FORMAT PROFILE-ID COUNTS-BEFORE FIRST(1/0): the sample rows
# against the generator's totals, and the new stack, frame and func rows
check_import() {
	local fmt=$1 id=$2 before=$3 first=$4 row after n w s t ts l s0 f0 u0 l0 s1 f1 u1 l1
	row=$(ct_psql "$DB" -At -F' ' -v id="$id" <<-'SQL'
		SELECT count(*), coalesce(sum(weight), 0), count(DISTINCT stack_id), count(DISTINCT thread),
		       coalesce(max(ts), 0), count(DISTINCT labels_id)
		  FROM calltree.sample WHERE profile_id = :id;
	SQL
	)
	after=$(counts)
	read -r n w s t ts l <<<"$row"
	read -r s0 f0 u0 l0 <<<"$before"
	read -r s1 f1 u1 l1 <<<"$after"
	check "samples" "$(expect "$fmt" samples)" "$n"
	check "weight" "$(expect "$fmt" total_weight)" "$w"
	check "distinct stacks" "$(expect "$fmt" distinct_stacks)" "$s"
	[ "$fmt" != perf ] || check "threads/last ts" "$(expect "$fmt" threads) $(expect "$fmt" last_ts)" "$t $ts"
	[ "$fmt" != pprof ] || check "label sets" "$(expect "$fmt" label_sets)" "$l"
	if [ "$first" = 1 ]; then
		check "new stack/frame/func rows" \
			"$(expect "$fmt" stack_rows) $(expect "$fmt" frames) $(expect "$fmt" funcs)" \
			"$((s1 - s0)) $((f1 - f0)) $((u1 - u0))"
	else
		check "new stack/frame/func/label rows" "0 0 0 0" \
			"$((s1 - s0)) $((f1 - f0)) $((u1 - u0)) $((l1 - l0))"
	fi
}

# ---------------------------------------------------------------- one format
declare -A R    # results: R[fmt.key]
run_format() {
	local fmt=$1 file="$DATA_DIR/${FILE[$1]}" bytes ubytes before out id read_s import_s r runs floors
	bytes=$(stat -c %s "$file")
	ubytes=$bytes
	[ "$fmt" != pprof ] || ubytes=$(expect pprof uncompressed_bytes)
	R[$fmt.mb]=$(calc "\"%.1f\", $ubytes / 1e6")
	R[$fmt.gz_mb]=$(calc "\"%.1f\", $bytes / 1e6")
	say ""
	if [ "$fmt" = pprof ]; then
		say "== pprof: ${R[$fmt.mb]} MB of protobuf, ${R[$fmt.gz_mb]} MB gzip-compressed; $(expect "$fmt" samples) samples, $(expect "$fmt" distinct_stacks) distinct stacks, $(expect "$fmt" stack_rows) stack rows, $(expect "$fmt" frames) frames, $(expect "$fmt" funcs) funcs, $(expect "$fmt" label_sets) label sets"
	else
		say "== $fmt: ${R[$fmt.mb]} MB; $(expect "$fmt" samples) samples, $(expect "$fmt" distinct_stacks) distinct stacks, $(expect "$fmt" stack_rows) stack rows, $(expect "$fmt" frames) frames, $(expect "$fmt" funcs) funcs"
	fi

	fresh_db >/dev/null
	copy_frame "$file"
	r=$(timed_copy "\\copy bench_file (bin) FROM PROGRAM 'cat $work/copyhead $file $work/copytail' WITH (FORMAT binary)")
	check "uploaded bytes" "$bytes" "$(ct_query "$DB" 'SELECT octet_length(bin) FROM bench_file')"
	R[$fmt.upload]=$r
	say "  upload: ${r} s (client file -> bench_file, once; not in the import times)"
	checks_done upload
	settle

	# first import: a fresh database, so every func, frame and stack is new
	before=$(counts)
	out=$(ct_psql "$DB" -At -F' ' -c "SELECT * FROM bench_import('$fmt', 'import bench first')") ||
		die "$fmt: the first import failed"
	read -r id read_s import_s <<<"$out"
	R[$fmt.read]=$(calc "\"%.3f\", $read_s")
	R[$fmt.first]=$(calc "\"%.3f\", $import_s")
	say "  first import: ${R[$fmt.first]} s (reading the file from bench_file before it: ${R[$fmt.read]} s, not included)"
	check_import "$fmt" "$id" "$before" 1
	checks_done "first import"
	local first_id=$id
	ct_query "$DB" "\\copy (SELECT * FROM calltree.sample WHERE profile_id = $id) TO '$work/rows.copy'"
	# the database was fresh: every stack row is the first import's
	ct_query "$DB" "\\copy (SELECT id, prefix_id, frame_id FROM calltree.stack ORDER BY id) TO '$work/stacks.copy'"
	R[$fmt.rows]=$(wc -l <"$work/rows.copy")
	R[$fmt.rows_mb]=$(calc "\"%.1f\", $(stat -c %s "$work/rows.copy") / 1e6")
	settle

	# repeat imports: every stack known
	runs=()
	for ((i = 1; i <= REPEATS; i++)); do
		before=$(counts)
		out=$(ct_psql "$DB" -At -F' ' -c "SELECT * FROM bench_import('$fmt', 'import bench repeat $i')") ||
			die "$fmt: repeat import $i failed"
		read -r id read_s import_s <<<"$out"
		runs+=("$(calc "\"%.3f\", $import_s")")
		say "  repeat import $i: ${runs[-1]} s"
		check_import "$fmt" "$id" "$before" 0
		check "rows differing from the first import's" 0 "$(ct_psql "$DB" -At -v a="$first_id" -v b="$id" <<-'SQL'
			SELECT count(*) FROM (
			  (SELECT thread, ts, stack_id, weight, labels_id FROM calltree.sample WHERE profile_id = :a
			   EXCEPT ALL
			   SELECT thread, ts, stack_id, weight, labels_id FROM calltree.sample WHERE profile_id = :b)
			  UNION ALL
			  (SELECT thread, ts, stack_id, weight, labels_id FROM calltree.sample WHERE profile_id = :b
			   EXCEPT ALL
			   SELECT thread, ts, stack_id, weight, labels_id FROM calltree.sample WHERE profile_id = :a)) d;
		SQL
		)"
		checks_done "repeat import $i"
		settle
	done
	R[$fmt.repeat]=$(best "${runs[@]}")
	R[$fmt.repeat_runs]="${runs[*]}"

	# the floor: COPY of the first import's sample rows, prepared on the
	# client above, into an UNLOGGED table without indexes
	floors=()
	for ((i = 1; i <= FLOOR_RUNS; i++)); do
		ct_psql "$DB" -c 'TRUNCATE import_floor'
		ct_psql "$DB" -c 'CHECKPOINT' >/dev/null 2>&1 || true
		floors+=("$(timed_copy "\\copy import_floor FROM '$work/rows.copy'")")
	done
	check "floor rows" "${R[$fmt.rows]}" "$(ct_query "$DB" 'SELECT count(*) FROM import_floor')"
	R[$fmt.floor]=$(best "${floors[@]}")
	say "  floor: COPY of the ${R[$fmt.rows]} sample rows (${R[$fmt.rows_mb]} MB of COPY text) into an UNLOGGED table: ${R[$fmt.floor]} s [runs: ${floors[*]}]"
	checks_done floor
	write_floor "$fmt"

	if [ "$fmt" = pprof ]; then run_go "$file"; fi
	[ "${BENCH_IMPORT_KEEP_DB:-0}" = 1 ] || drop_db >/dev/null || exit 1
}

# write_floor FORMAT: what any import into calltree's tables must pay at
# least, its rows alone: COPY of the first import's stack rows and of its
# sample rows into logged tables with the indexes of calltree.stack and
# calltree.sample.  The first import writes both, a repeat import the
# samples only; no parsing, no look-up, no trigger.
write_floor() {
	local fmt=$1 stacks=() samples=() i
	for ((i = 1; i <= FLOOR_RUNS; i++)); do
		ct_psql "$DB" -c 'TRUNCATE write_floor_stack, write_floor_sample'
		ct_psql "$DB" -c 'CHECKPOINT' >/dev/null 2>&1 || true
		stacks+=("$(timed_copy "\\copy write_floor_stack FROM '$work/stacks.copy'")")
		samples+=("$(timed_copy "\\copy write_floor_sample FROM '$work/rows.copy'")")
	done
	check "write floor rows" "$(wc -l <"$work/stacks.copy") ${R[$fmt.rows]}" \
		"$(ct_psql "$DB" -At -F' ' -c 'SELECT (SELECT count(*) FROM write_floor_stack), (SELECT count(*) FROM write_floor_sample)')"
	ct_psql "$DB" -c 'TRUNCATE write_floor_stack, write_floor_sample'
	R[$fmt.wf_stack]=$(best "${stacks[@]}")
	R[$fmt.wf_sample]=$(best "${samples[@]}")
	say "  write floor: COPY into tables with calltree's indexes, logged: the $(wc -l <"$work/stacks.copy") stack rows ${R[$fmt.wf_stack]} s [runs: ${stacks[*]}], the sample rows ${R[$fmt.wf_sample]} s [runs: ${samples[*]}]"
	checks_done "write floor"
}

# go tool pprof -raw on the same file: wall time, output to /dev/null
run_go() {
	local file=$1 runs=() start out
	if ! command -v go >/dev/null 2>&1; then
		say "  go tool pprof: go is not installed (Debian package golang-go); skipped"
		return
	fi
	# go wants a writable cache and home
	local -x HOME="$work" GOCACHE="$work/gocache" GOPATH="$work/gopath" GOTOOLCHAIN=local GOFLAGS=
	for ((i = 1; i <= REPEATS; i++)); do
		start=$(date +%s%N)
		go tool pprof -symbolize=none -raw "$file" >/dev/null 2>"$work/go.err" ||
			{ cat "$work/go.err" >&2; die "go tool pprof -raw failed"; }
		runs+=("$(calc "\"%.3f\", ($(date +%s%N) - $start) / 1e9")")
	done
	R[pprof.go]=$(best "${runs[@]}")
	say "  go tool pprof -symbolize=none -raw FILE >/dev/null: ${R[pprof.go]} s [runs: ${runs[*]}]"
	# Go reads the whole file: its samples, their counts and cpu total
	out=$(go tool pprof -symbolize=none -raw "$file" 2>/dev/null |
		awk '/^ *[0-9]+ +[0-9]+: / { n++; c += $1; w += $2 } END { printf "%d %.0f %.0f", n, c, w }')
	check "go tool pprof -raw: samples/count/cpu" \
		"$(expect pprof samples) $(expect pprof total_count) $(expect pprof total_weight)" "$out"
	out=$(go tool pprof -symbolize=none -sample_index=samples -top -nodecount=1 "$file" 2>/dev/null |
		sed -n 's/.* of \([0-9]*\) total.*/\1/p')
	check "go tool pprof -top: total samples" "$(expect pprof total_count)" "$out"
	checks_done "go reads the file"
}

# ---------------------------------------------------------------- main
started=$(date +%s)
say "imports: $(date -u '+%Y-%m-%d %H:%M UTC'); calltree at $(git -C "$BENCH_DIR" rev-parse --short HEAD 2>/dev/null || echo '?'); $(ct_machine)"
say "imports: $(ct_query "" "SELECT split_part(version(), ' on ', 1) || '; shared_buffers=' || current_setting('shared_buffers') || ', fsync=' || current_setting('fsync') || ', synchronous_commit=' || current_setting('synchronous_commit') || ', jit=' || current_setting('jit')"); calltree.import_work_mem=$IMPORT_WORK_MEM"
for f in $FORMATS; do gen "$f"; done
for f in $FORMATS; do run_format "$f"; done
load_after=$(ct_loadavg)

# ---------------------------------------------------------------- report
verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN { ok = (op == ">=") ? v >= t : v <= t; print ok ? "OK" : "MISSED" }'; }
say ""
say "== summary (MB = 10^6 bytes; pprof MB/s of uncompressed protobuf; import times in the server, file already there)"
printf '%-10s %8s | %9s %8s %-6s | %9s %8s %-6s | %8s %9s %-6s\n' \
	format MB 'first s' 'MB/s' '' 'repeat s' 'MB/s' '' 'floor s' 'rep/floor' '' | tee -a "$REPORT"
for f in $FORMATS; do
	mb=${R[$f.mb]} t=${TARGET_MBS[$f]}
	first_mbs=$(calc "\"%.1f\", $mb / ${R[$f.first]}")
	repeat_mbs=$(calc "\"%.1f\", $mb / ${R[$f.repeat]}")
	ratio=$(calc "\"%.1f\", ${R[$f.repeat]} / ${R[$f.floor]}")
	printf '%-10s %8s | %9s %8s %-6s | %9s %8s %-6s | %8s %8sx %-6s\n' \
		"$f" "$mb" "${R[$f.first]}" "$first_mbs" "$(verdict "$first_mbs" "$t" '>=')" \
		"${R[$f.repeat]}" "$repeat_mbs" "$(verdict "$repeat_mbs" "$t" '>=')" \
		"${R[$f.floor]}" "$ratio" "$(verdict "$ratio" "$TARGET_FLOOR" '<=')" | tee -a "$REPORT"
done
say "targets: first and repeat >= 50 MB/s (collapsed, perf script), >= 100 MB/s of uncompressed pprof; repeat / floor <= ${TARGET_FLOOR}x"
say ""
say "== the write floor: the best any import into calltree's tables could do, writing its rows and nothing else"
printf '%-10s | %9s %8s %-6s | %9s %8s %-6s | %9s\n' \
	format 'first s' 'MB/s' '' 'repeat s' 'MB/s' '' 'rep/floor' | tee -a "$REPORT"
for f in $FORMATS; do
	mb=${R[$f.mb]} t=${TARGET_MBS[$f]}
	wf_first=$(calc "\"%.3f\", ${R[$f.wf_stack]} + ${R[$f.wf_sample]}")
	wf_first_mbs=$(calc "\"%.1f\", $mb / $wf_first")
	wf_repeat_mbs=$(calc "\"%.1f\", $mb / ${R[$f.wf_sample]}")
	wf_ratio=$(calc "\"%.1f\", ${R[$f.wf_sample]} / ${R[$f.floor]}")
	printf '%-10s | %9s %8s %-6s | %9s %8s %-6s | %8sx %-6s\n' \
		"$f" "$wf_first" "$wf_first_mbs" "$(verdict "$wf_first_mbs" "$t" '>=')" \
		"${R[$f.wf_sample]}" "$wf_repeat_mbs" "$(verdict "$wf_repeat_mbs" "$t" '>=')" \
		"$wf_ratio" "$(verdict "$wf_ratio" "$TARGET_FLOOR" '<=')" | tee -a "$REPORT"
done
say "(a target MISSED here cannot be met by an import that keeps calltree's tables and indexes, however fast it parses)"
if [ -n "${R[pprof.go]:-}" ]; then
	for k in first repeat; do
		say "pprof: import_pprof $k ${R[pprof.$k]} s vs go tool pprof -raw ${R[pprof.go]} s: $(calc "\"%.2f\", ${R[pprof.$k]} / ${R[pprof.go]}")x the time of go (target: faster than go, < 1x): $(verdict "${R[pprof.$k]}" "${R[pprof.go]}" '<=')"
	done
fi
for f in $FORMATS; do
	say "$f: upload ${R[$f.upload]} s, read from bench_file ${R[$f.read]} s; end to end (upload + repeat import): $(calc "\"%.1f\", ${R[$f.mb]} / (${R[$f.upload]} + ${R[$f.repeat]})") MB/s; repeat runs: ${R[$f.repeat_runs]}"
done
say "imports: done in $(($(date +%s) - started)) s; load average $load_after at the end"
if [ "$FAILED" = 1 ]; then
	say "imports: a sanity check FAILED"
	exit 1
fi
