#!/usr/bin/env bash
# bin/calltree-load: files, gzip, standard input, several files at once,
# --name, --meta and --format, a failing file (non-zero exit, nothing left
# behind); what the user is told in the user's terms (an unknown --format,
# an empty file, a database without the extension, hints naming --option);
# 40 small files through one session; a role that is not a superuser, the
# progress bar on a terminal only; then a collapsed file over 1 GB and a large perf script, whose
# samples must all arrive while the server's backend and the client each stay
# under 500 MB (peak RSS; the backend's counts the shared buffers it touched).
#
# CALLTREE_LOAD_BIG_MB sets the collapsed file's size in MB (default 1100),
# CALLTREE_LOAD_PERF_MB the perf script's (default 300),
# CALLTREE_LOAD_MANY_MB that of a collapsed file of 60,000 distinct stacks
# loaded with a small calltree.import_work_mem (default 40); 0 skips each.  On
# 2 cores, the collapsed file loads in about 40 s, the perf script in about
# 35 s (1100 MB of it: about 2 minutes).
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN);
# CALLTREE_SHARED is the shared folder (default: ../shared of the repo).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

loader=$repo/bin/calltree-load
big_mb=${CALLTREE_LOAD_BIG_MB:-1100}
perf_mb=${CALLTREE_LOAD_PERF_MB:-300}
many_mb=${CALLTREE_LOAD_MANY_MB:-40}
limit_kb=$((500 * 1024))
db=calltree_load
role=calltree_load_user
# the loader connects to PGDATABASE; its backend is told apart by name
export PGDATABASE=$db
unset PGAPPNAME

# profile ID: "name|format|meta|samples|total weight"
profile() {
	ct_query "$db" "SELECT concat_ws('|', coalesce(p.name, '<null>'), p.format, p.meta::text, count(s.*), sum(s.weight))
	     FROM calltree.profile p LEFT JOIN calltree.sample s ON s.profile_id = p.id
	    WHERE p.id = $1 GROUP BY p.id"
}

# same_tree ID ID: the two profiles have the same call tree
same_tree() {
	[ "$(ct_query "$db" "SELECT (SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = $1)
	             OPERATOR(calltree.=) (SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = $2)")" = t ] ||
		fail "profiles $1 and $2 should have the same call tree"
}

expect() { # expect WHAT ACTUAL EXPECTED
	[ "$2" = "$3" ] || fail "$1: expected \"$3\", got \"$2\""
}

ct_createdb "$db"
ct_at_exit "ct_query postgres 'DROP ROLE IF EXISTS $role'"
ct_query "$db" 'CREATE EXTENSION calltree' >/dev/null

# ---------------------------------------------------------------- small files
example=$repo/examples/perf-vertx.collapsed
cp "$example" "$work/vertx.collapsed"
gzip -c "$example" >"$work/vertx.collapsed.gz"

plain=$("$loader" "$work/vertx.collapsed" 2>"$work/err") || fail "loading a file failed: $(cat "$work/err")"
expect "a collapsed file" "$(profile "$plain")" 'vertx.collapsed|collapsed|{}|199|285'
# the same as import_collapsed of the whole text
whole=$(ct_psql "$db" -At -v file="$example" <<-'SQL'
	\set data `cat :'file'`
	SELECT calltree.import_collapsed(:'data');
SQL
)
same_tree "$plain" "$whole"

gz=$("$loader" "$work/vertx.collapsed.gz")
expect "a .gz file (named without .gz)" "$(profile "$gz")" 'vertx.collapsed|collapsed|{}|199|285'
same_tree "$plain" "$gz"

piped=$(cat "$work/vertx.collapsed.gz" | "$loader")
expect "gzip on standard input" "$(profile "$piped")" '<null>|collapsed|{}|199|285'
dash=$("$loader" - --name 'from stdin' <"$example")
expect "standard input as -" "$(profile "$dash")" 'from stdin|collapsed|{}|199|285'

# several files: one id per file, in order; --name and --meta for each
perf=$shared/data/speedscope-samples/linux-perf/forks.linux-perf.txt
cpuprofile=$shared/data/firefox-profiler/hello.cjs-20231120T211435.cpuprofile
[ -r "$perf" ] && [ -r "$cpuprofile" ] || fail "cannot read the shared data (set CALLTREE_SHARED)"
"$loader" "$example" "$perf" "$cpuprofile" --name "it's \"several\"" \
	--meta host=ci-1 --meta 'note=a=b; DROP TABLE x' --meta host=ci-2 >"$work/ids"
expect "ids printed for 3 files" "$(wc -l <"$work/ids")" 3
mapfile -t ids <"$work/ids"
expect "ids in order" "$(sort -n "$work/ids" | uniq | tr '\n' ' ')" "${ids[0]} ${ids[1]} ${ids[2]} "
meta='{"host": "ci-2", "note": "a=b; DROP TABLE x"}'
expect "collapsed, --name, --meta" "$(profile "${ids[0]}")" "it's \"several\"|collapsed|$meta|199|285"
expect "perf script" "$(profile "${ids[1]}")" "it's \"several\"|perf script|$meta|561|561561561"
expect "a .cpuprofile (read whole)" "$(profile "${ids[2]}" | cut -d'|' -f2,4)" 'cpuprofile|150'

# --format says it
forced=$("$loader" --format collapsed "$example")
same_tree "$plain" "$forced"

# ---------------------------------------------------------------- failures
before=$(ct_query "$db" 'SELECT count(*) FROM calltree.profile')
printf 'main;a 1\nmain;b 2\nmain;c three\nmain;d 4\n' >"$work/bad.collapsed"
rc=0
"$loader" "$example" "$work/bad.collapsed" "$example" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -ne 0 ] || fail "a malformed file should make the exit status non-zero"
grep -q 'malformed collapsed stack at line 3' "$work/err" || fail "psql's error should be shown: $(cat "$work/err")"
grep -q '1 more file(s) not loaded' "$work/err" || fail "the files not loaded should be told: $(cat "$work/err")"
expect "ids printed before the failure" "$(wc -l <"$work/out")" 1
expect "profiles after the failure" "$(ct_query "$db" 'SELECT count(*) FROM calltree.profile')" "$((before + 1))"
expect "the failed file's profile" "$(ct_query "$db" "SELECT count(*) FROM calltree.profile WHERE name = 'bad.collapsed'")" 0
rc=0
"$loader" --format pprof "$example" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" -ne 0 ] || fail "--format pprof of a text file should fail"
rc=0
"$loader" "$work/missing.txt" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" -ne 0 ] && grep -q 'missing.txt: No such file' "$work/err" || fail "a missing file: $(cat "$work/err")"
# a truncated .gz: the loader's own error, the transaction never committed
head -c 2000 "$work/vertx.collapsed.gz" >"$work/cut.collapsed.gz"
rc=0
"$loader" "$work/cut.collapsed.gz" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" -ne 0 ] && grep -q 'cut.collapsed.gz: the gzip data is truncated' "$work/err" || fail "a truncated .gz: $(cat "$work/err")"
expect "profiles after the failures" "$(ct_query "$db" 'SELECT count(*) FROM calltree.profile')" "$((before + 1))"

# ---------------------------------------------------------------- in the user's terms
# an unknown --format is refused by the loader itself, before psql starts
rc=0
PG_CONFIG=/nonexistent "$loader" --format chrome "$example" >/dev/null 2>"$work/err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "invalid choice: 'chrome'" "$work/err" || fail "an unknown --format: $(cat "$work/err")"
# an empty file, plain or gzip: said so, nothing sent
: >"$work/empty.collapsed"
gzip -c "$work/empty.collapsed" >"$work/empty.collapsed.gz"
for f in "$work/empty.collapsed" "$work/empty.collapsed.gz"; do
	rc=0
	"$loader" "$f" >/dev/null 2>"$work/err" || rc=$?
	[ "$rc" -ne 0 ] && grep -q "$f: the file is empty; nothing was loaded from it" "$work/err" &&
		! grep -q calltree_load_chunks "$work/err" || fail "an empty file: $(cat "$work/err")"
done
# hints name the loader's options: --option strict=false, then it loads
rc=0
"$loader" "$work/bad.collapsed" >/dev/null 2>"$work/err" || rc=$?
grep -q 'HINT:  Pass --option strict=false to skip malformed lines.' "$work/err" ||
	fail "the hint should name --option strict=false: $(cat "$work/err")"
lenient=$("$loader" --option strict=false "$work/bad.collapsed" 2>/dev/null)
expect "--option strict=false" "$(profile "$lenient" | cut -d'|' -f4,5)" '3|7'
# --option source=events: a trace's B/E/X events instead of its CPU samples
chrome66=$repo/test/data/chrome/chrome66-cpuprofile-events.json
samples=$(PGOPTIONS= "$loader" "$chrome66" 2>"$work/err")
grep -q 'HINT:  --option source=events imports the events instead.' "$work/err" ||
	fail "the trace hint should name --option source=events: $(cat "$work/err")"
expect "a Chrome 66 trace: its CPU samples" "$(profile "$samples" | cut -d'|' -f4,5)" '10|850000'
events=$("$loader" --option source=events "$chrome66" 2>/dev/null)
expect "--option source=events" "$(ct_query "$db" "SELECT count(*) FROM calltree.event WHERE profile_id = $events")" 6
# a database without the extension: said so, nothing sent
"$PG_BIN/dropdb" --if-exists calltree_load_bare >/dev/null
ct_createdb calltree_load_bare
rc=0
PGDATABASE=calltree_load_bare "$loader" "$example" "$example" >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" -ne 0 ] && grep -q 'database "calltree_load_bare" has no calltree extension' "$work/err" &&
	grep -q 'HINT:  Run CREATE EXTENSION calltree' "$work/err" && ! grep -q 'psql:<stdin>' "$work/err" &&
	[ ! -s "$work/out" ] || fail "a database without the extension: $(cat "$work/err")"

# ---------------------------------------------------------------- many small files
# one psql session for all: 40 small files, 40 ids in order, each its own profile
for i in $(seq 1 40); do printf 'main;f%d %d\n' "$i" "$i" >"$work/small_$i.collapsed"; done
start_ns=$(date +%s%N)
"$loader" $(for i in $(seq 1 40); do echo "$work/small_$i.collapsed"; done) >"$work/ids" 2>"$work/err" ||
	fail "loading 40 small files: $(cat "$work/err")"
batch_ms=$((($(date +%s%N) - start_ns) / 1000000))
expect "ids for 40 small files" "$(wc -l <"$work/ids")" 40
expect "their names and weights, in order" \
	"$(ct_query "$db" "SELECT string_agg(p.name || '=' || s.weight, ' ' ORDER BY p.id) FROM calltree.profile p
	       JOIN calltree.sample s ON s.profile_id = p.id WHERE p.id BETWEEN $(head -1 "$work/ids") AND $(tail -1 "$work/ids")")" \
	"$(for i in $(seq 1 40); do printf 'small_%d.collapsed=%d ' "$i" "$i"; done | sed 's/ $//')"

# ---------------------------------------------------------------- no superuser
# a role with the rights of the calltree tables only: no file access
ct_query "$db" "DROP ROLE IF EXISTS $role; CREATE ROLE $role LOGIN;
   GRANT USAGE ON SCHEMA calltree TO $role;
   GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA calltree TO $role;
   GRANT USAGE ON ALL SEQUENCES IN SCHEMA calltree TO $role" >/dev/null
user=$("$loader" -U "$role" "$work/vertx.collapsed.gz" 2>"$work/err") || fail "loading as $role failed: $(cat "$work/err")"
same_tree "$plain" "$user"

# ---------------------------------------------------------------- progress bar
# on a terminal only (script(1) gives the loader one)
"$loader" "$example" 2>"$work/err" >/dev/null
[ ! -s "$work/err" ] || fail "no progress bar when stderr is not a terminal: $(cat "$work/err")"
if command -v script >/dev/null; then
	script -qec "$(printf '%q ' "$loader" "$example")" /dev/null >"$work/tty" </dev/null ||
		fail "loading on a terminal failed: $(cat "$work/tty")"
	grep -q '100%' "$work/tty" || fail "no progress bar on a terminal: $(cat -v "$work/tty")"
fi

# ---------------------------------------------------------------- big files
# load_measured FILE NAME: loads FILE under a parent that reports its
# children's peak RSS (the loader's and psql's), reading the backend's peak
# RSS (VmHWM) and peak private memory (RssAnon) while it runs.  Sets id,
# seconds, server_kb, private_kb, client_kb.
load_measured() {
	local file=$1 name=$2 client backend="" start=$SECONDS rc=0 kb anon
	python3 - "$loader" "$file" --name "$name" >"$work/big.id" 2>"$work/big.err" <<-'EOF' &
		import resource, subprocess, sys
		rc = subprocess.run(sys.argv[1:]).returncode
		print(f"client_kb {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}", file=sys.stderr)
		sys.exit(rc)
	EOF
	client=$!
	server_kb=0 private_kb=0
	while kill -0 "$client" 2>/dev/null; do
		if [ -z "$backend" ]; then
			backend=$(ct_query "$db" "SELECT pid FROM pg_stat_activity WHERE application_name = 'calltree-load'" 2>/dev/null || true)
		fi
		if [ -n "$backend" ]; then
			read -r kb anon < <(awk '/^VmHWM:/ { h = $2 } /^RssAnon:/ { a = $2 } END { print h + 0, a + 0 }' \
				"/proc/$backend/status" 2>/dev/null || echo 0 0)
			[ "$kb" -eq 0 ] || server_kb=$kb
			[ "$anon" -le "$private_kb" ] || private_kb=$anon
		fi
		sleep 0.2
	done
	wait "$client" || rc=$?
	seconds=$((SECONDS - start))
	[ "$rc" -eq 0 ] || fail "loading $name failed (exit $rc): $(cat "$work/big.err")"
	[ -n "$backend" ] && [ "$server_kb" -gt 0 ] || fail "the loader's backend was not seen in pg_stat_activity"
	client_kb=$(awk '/^client_kb/ { print $2 }' "$work/big.err")
	id=$(cat "$work/big.id")
	[ "$server_kb" -lt "$limit_kb" ] || fail "$name: the backend's peak RSS is $((server_kb / 1024)) MB, over 500 MB"
	[ "$client_kb" -lt "$limit_kb" ] || fail "$name: the client's peak RSS is $((client_kb / 1024)) MB, over 500 MB"
}

# "N MB in N s; backend N MB (N MB private), client N MB"
figures() {
	echo "$(($(stat -c %s "$1") / 1000000)) MB in $seconds s; peak RSS: backend $((server_kb / 1024)) MB" \
		"($((private_kb / 1024)) MB private), client $((client_kb / 1024)) MB"
}

report=()

# Collapsed stacks: 8 stacks of 401 frames (~16 kB a line), repeated: few
# distinct stacks, so it generates fast and the time goes to reading and
# parsing.  Weights 1..8.
if [ "$big_mb" -gt 0 ]; then
	awk -v depth=400 'BEGIN {
		for (k = 1; k <= 8; k++) {
			line = "main"
			for (d = 1; d < depth; d++)
				line = line ";" sprintf("module_%02d::function_%03d_in_a_deep_stack", (d * k) % 17, d)
			printf "%s;leaf_%d %d\n", line, k, k
		}
	}' >"$work/block8"
	for _ in $(seq 64); do cat "$work/block8"; done >"$work/block"
	block_size=$(stat -c %s "$work/block")
	reps=$(((big_mb * 1000 * 1000 + block_size - 1) / block_size))
	for _ in $(seq "$reps"); do cat "$work/block"; done >"$work/big.collapsed"
	rm "$work/block"
	load_measured "$work/big.collapsed" big.collapsed
	expect "the big collapsed file" "$(profile "$id")" "big.collapsed|collapsed|{}|$((reps * 64 * 8))|$((reps * 64 * 36))"
	expect "its distinct stacks" "$(ct_query "$db" "SELECT count(DISTINCT stack_id) FROM calltree.sample WHERE profile_id = $id")" 8
	report+=("collapsed $(figures "$work/big.collapsed")")
	rm "$work/big.collapsed"
fi

# perf script: forks (561 samples, 4 threads, kernel and [unknown] frames)
# repeated; every sample is a row, so it is slower per MB.
if [ "$perf_mb" -gt 0 ]; then
	reps=$(((perf_mb * 1000 * 1000 + $(stat -c %s "$perf") - 1) / $(stat -c %s "$perf")))
	for _ in $(seq "$reps"); do cat "$perf"; done >"$work/big.perf"
	load_measured "$work/big.perf" big.perf
	expect "the big perf script" "$(profile "$id")" "big.perf|perf script|{}|$((reps * 561))|$((reps * 561561561))"
	expect "its threads" "$(ct_query "$db" "SELECT count(DISTINCT thread) FROM calltree.sample WHERE profile_id = $id")" 4
	report+=("perf script $(figures "$work/big.perf")")
	rm "$work/big.perf"
fi

# Collapsed stacks, every line a stack of its own (bench/gen_collapsed.py:
# 60,000 distinct stacks, 1.1 million stack rows): the import's caches
# would grow with them; calltree.import_work_mem = 16MB keeps the backend's
# private memory near its usual size (about 48 MB measured here, 157 MB
# with the default 128MB).
if [ "$many_mb" -gt 0 ]; then
	python3 "$repo/bench/gen_collapsed.py" "$work/many.collapsed" "$many_mb" 60000
	stacks_before=$(ct_query "$db" "SELECT count(*) FROM calltree.stack")
	PGOPTIONS="$PGOPTIONS -c calltree.import_work_mem=16MB" load_measured "$work/many.collapsed" many.collapsed
	facts=$(python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))
print("%d|%d %d %d" % (e["samples"], e["total_weight"], e["distinct_stacks"], e["stack_rows"]))' "$work/many.collapsed.expect.json")
	expect "the file of many stacks" "$(profile "$id")" "many.collapsed|collapsed|{}|${facts%% *}"
	expect "its distinct stacks and new stack rows" \
		"$(ct_query "$db" "SELECT count(DISTINCT stack_id) FROM calltree.sample WHERE profile_id = $id") $(($(ct_query "$db" "SELECT count(*) FROM calltree.stack") - stacks_before))" \
		"${facts#* }"
	[ "$private_kb" -lt $((100 * 1024)) ] ||
		fail "many.collapsed: the backend's private memory peaked at $((private_kb / 1024)) MB with calltree.import_work_mem = 16MB"
	report+=("many stacks $(figures "$work/many.collapsed")")
	rm "$work/many.collapsed"
fi

report+=("40 small files in $batch_ms ms")
if [ ${#report[@]} -eq 0 ]; then
	echo "t_load: ok (big files skipped)"
else
	(IFS=';'; echo "t_load: ok (${report[*]})")
fi
