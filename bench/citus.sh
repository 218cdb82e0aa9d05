#!/usr/bin/env bash
# bench/citus.sh: calltree's aggregates on Citus against one node, on one
# machine.  Not part of `make test`; see bench/README.md, "Citus".
#
#   CT_PG_ROOT=... CT_PORT=5621 test/run.sh shell bench/citus.sh
#
# test/run.sh builds and installs the extension and starts the one-node
# cluster (PGHOST, PGPORT); this script generates the benchmark's data there
# when it is missing (bench/generate.sql, as bench/run.sh does), starts a
# Citus coordinator and two workers (clusters of test/lib.sh: Unix sockets
# in a folder of their own, always stopped), distributes calltree there
# (calltree.distribute(), 32 shards), and measures:
#
#   1. ingest: the 10 million samples, packed into a sample set per
#      profile and thread, copied into calltree.sample_set through the
#      coordinator (binary COPY, sets routed to their shards);
#   2. stack_agg(samples) over all sample sets on Citus against one node
#      (serial, and with two parallel workers), in new sessions and in
#      sessions that ran it before (on Citus keeping their connections to
#      the workers, as a pool's sessions do), and stack_agg(stack_id,
#      weight) over the same samples a row each (the view calltree.sample);
#   3. the bytes the workers send the coordinator per query (the partial
#      states' text) against the sample sets' size, and what they would be
#      if the workers resolved stacks and sent trees;
#   4. the coordinator's merge against the shard count (8, 32, 128).
#
# Citus must be installed in the PostgreSQL of PGHOST (citus.so in its
# pkglibdir).  Variables: BENCH_RUNS (3), BENCH_SHARDS ("8 32 128"),
# BENCH_PROFILES (64: the samples are spread over this many profile ids, so
# that they spread over the shards).
# The report goes to standard output and to bench/out/citus.txt.
set -euo pipefail

GEN_VERSION=1
BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT_DIR="$BENCH_DIR/out"
RUNS=${BENCH_RUNS:-3}
SHARDS=${BENCH_SHARDS:-8 32 128}
PROFILES=${BENCH_PROFILES:-64}
# a session's connections to each worker: as many as the workers have
# cores, kept from one query to the next (docs/citus.md)
CITUS_KEPT="SET citus.max_adaptive_executor_pool_size = 4; SET citus.max_cached_conns_per_worker = 4;"
# shellcheck source=test/lib.sh
. "$BENCH_DIR/../test/lib.sh"
CITUS_DIR=""

say() { printf '%s\n' "$*" | tee -a "$OUT_DIR/citus.txt"; }
note() { printf '%s\n' "$*" >&2; }
# one CMD...: CMD against the one node (the libpq variables' server and
# database); citus CMD...: against the Citus coordinator's database
one() { "$@"; }
citus() { PGDATABASE=postgres ct_on "$CITUS_DIR/coordinator" "$@"; }

[ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] ||
	{ note "bench/citus.sh: Citus is not installed in $("$PG_CONFIG" --pkglibdir); see ../shared/vendor"; exit 2; }
ct_query "" 'SELECT 1' >/dev/null || { note "bench/citus.sh: cannot reach the one-node cluster (PGHOST, PGPORT)"; exit 1; }
mkdir -p "$OUT_DIR"
: >"$OUT_DIR/citus.txt"

# ------------------------------------------------------------ the Citus cluster
start_citus() {
	local node
	ct_make_tmp
	CITUS_DIR=$CT_TMP
	for node in coordinator worker1 worker2; do
		ct_cluster_start "$CITUS_DIR/$node" "shared_preload_libraries = 'citus'" "max_worker_processes = 16" \
			"jit = off" "work_mem = '256MB'" "max_parallel_workers_per_gather = 0"
		ct_on "$CITUS_DIR/$node" ct_query postgres 'CREATE EXTENSION citus' >/dev/null
	done
	citus ct_psql "" <<-EOF >/dev/null
		SELECT citus_set_coordinator_host('$CITUS_DIR/coordinator', $CT_PORT);
		SELECT citus_add_node('$CITUS_DIR/worker1', $CT_PORT);
		SELECT citus_add_node('$CITUS_DIR/worker2', $CT_PORT);
		CREATE EXTENSION calltree;
		SELECT calltree.distribute(shard_count => 32);
	EOF
}

# ------------------------------------------------------------ timing
# best_ms RUNS WHERE SETUP SQL: the best of RUNS timings of SQL after the
# statements SETUP, in ms (psql's \timing), WHERE one or citus
best_ms() {
	local runs=$1 where=$2 setup=$3 sql=$4 best="" t
	for _ in $(seq "$runs"); do
		t=$(printf '%s\n\\timing on\n%s\n%s\n' "$setup" "${WARM:+$sql;}" "$sql" | "$where" ct_psql "" -At 2>&1 |
			sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1)
		[ -n "$t" ] || { note "bench/citus.sh: no timing for: $sql"; printf '%s\n%s\n' "$setup" "$sql" | "$where" ct_psql "" -At >&2; exit 1; }
		best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b < a) ? b : a }')
	done
	printf '%s\n' "$best"
}

# ------------------------------------------------------------ one node: the data
have_data() {
	ct_psql "" -At -v v="$GEN_VERSION" <<-'SQL'
		SELECT count(*) FROM calltree.profile
		 WHERE name = 'bench'
		   AND meta @> jsonb_build_object('generator', 'calltree-bench', 'version', :'v'::int, 'complete', true);
	SQL
}
[ -n "$(ct_query "" "SELECT 1 FROM pg_extension WHERE extname = 'calltree'")" ] || ct_psql "" -c 'CREATE EXTENSION calltree'
if [ "$(have_data)" = 0 ]; then
	note "bench/citus.sh: generating the benchmark's data on one node (bench/generate.sql, a few minutes)"
	ct_psql "" -v gen_version="$GEN_VERSION" -f "$BENCH_DIR/generate.sql" >"$OUT_DIR/citus-generate.log" 2>&1 ||
		{ tail -n 30 "$OUT_DIR/citus-generate.log" >&2; exit 1; }
fi
ct_psql "" -c 'VACUUM (ANALYZE) calltree.func, calltree.frame, calltree.stack, calltree.sample_set' -c CHECKPOINT
# The one node's samples packed again over $PROFILES profiles, a set per
# profile and thread: the sets that Citus gets, kept on the one node too
# so that both aggregate the same sets
ct_psql "" <<-SQL >/dev/null
	DROP TABLE IF EXISTS bench_sets;
	CREATE TABLE bench_sets AS
	SELECT 1 + (n % $PROFILES) AS profile_id, thread, calltree.samples_agg(stack_id, weight, ts, labels_id) AS samples
	  FROM (SELECT row_number() OVER () AS n, s.* FROM calltree.sample s) AS s
	 GROUP BY 1, 2;
	VACUUM (ANALYZE) bench_sets;
SQL

note "bench/citus.sh: starting a Citus coordinator and two workers (port $CT_PORT)"
start_citus
[ "$(citus ct_query "" "SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = 'calltree.sample_set'::regclass")" = 1 ] ||
	{ note "bench/citus.sh: calltree.sample_set is not distributed on the coordinator"; exit 1; }

# ------------------------------------------------------------ 1. ingest
# Through the coordinator, into the tables calltree.distribute() made: the
# interned rows into the reference tables (a copy on every node), then the
# sample sets of bench_sets, spread over $PROFILES profiles so that they
# spread over the shards, into calltree.sample_set (binary COPY: Citus
# routes each set to its shard, whose foreign key checks its profile).
# The writer's path (an import) vouches for the stacks inside the sets;
# a COPY does not check them, as on one node under a superuser's COPY.
start=$(date +%s.%N)
for t in func frame stack; do
	ct_psql "" -c "COPY (SELECT * FROM calltree.$t ORDER BY id) TO STDOUT (FORMAT binary)" |
		citus ct_psql "" -c "COPY calltree.$t FROM STDIN (FORMAT binary)"
done
interned_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
citus ct_psql "" -c "INSERT INTO calltree.profile (id, name, weight_unit)
          SELECT g, 'bench-' || g, 'ns' FROM generate_series(1, $PROFILES) AS g" >/dev/null
rows=$(ct_query "" 'SELECT sum(calltree.sample_count(samples)) FROM bench_sets')
sets=$(ct_query "" 'SELECT count(*) FROM bench_sets')
start=$(date +%s.%N)
ct_psql "" -c "COPY (SELECT profile_id, thread, samples FROM bench_sets) TO STDOUT (FORMAT binary)" |
	citus ct_psql "" -c 'COPY calltree.sample_set (profile_id, thread, samples) FROM STDIN (FORMAT binary)'
ingest_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
citus ct_psql "" -c 'VACUUM (ANALYZE) calltree.func, calltree.frame, calltree.stack, calltree.profile, calltree.sample_set' -c CHECKPOINT
# (the shards of sample_set's partitions hold its sets; the parent's are
# empty); the size of a table includes its TOAST
heap_bytes=$(citus ct_query "" "SELECT sum(r.result::bigint)
                             FROM unnest(ARRAY['calltree.sample_set_0', 'calltree.sample_set_default']) AS t,
                                  run_command_on_shards(t::regclass, \$q\$SELECT pg_table_size('%s')\$q\$) AS r" 2>/dev/null || echo '?')
one_heap=$(ct_query "" "SELECT pg_table_size('bench_sets')")

say "machine: $(ct_machine) at the start; one node and Citus (a coordinator, 2 workers) on it"
say "ingest: $rows samples in $sets sample sets in $ingest_s s through the coordinator: $(awk -v r="$rows" -v s="$ingest_s" 'BEGIN { printf "%.0f", r / s }') samples/s, $(awk -v b="$one_heap" -v s="$ingest_s" 'BEGIN { printf "%.1f", b / s / 1048576 }') MB/s of packed sets (binary COPY into calltree.sample_set, 32 shards, foreign key of the profile checked); the interned rows (funcs, frames, stacks) before them in $interned_s s"

# ------------------------------------------------------------ 2. stack_agg
# The packed sets (bench_sets on one node, sample_set on Citus: the same
# sets), and the same samples a row each through the view sample
Q_ONE='SELECT calltree.total(calltree.stack_agg(samples)) FROM bench_sets'
Q_CITUS='SELECT calltree.total(calltree.stack_agg(samples)) FROM calltree.sample_set'
Q_ROWS='SELECT calltree.total(calltree.stack_agg(stack_id, weight)) FROM calltree.sample'
md5_one=$(ct_query "" 'SELECT md5(calltree.stack_agg(samples)::text) FROM bench_sets')
same=$(
	[ "$(ct_query "" "$Q_ONE")" = "$(citus ct_query "" "$Q_CITUS")" ] &&
		[ "$md5_one" = "$(citus ct_query "" 'SELECT md5(calltree.stack_agg(samples)::text) FROM calltree.sample_set')" ] &&
		[ "$md5_one" = "$(citus ct_query "" 'SELECT md5(calltree.stack_agg(stack_id, weight)::text) FROM calltree.sample')" ] &&
		[ "$md5_one" = "$(ct_query "" 'SELECT md5(calltree.stack_agg(stack_id, weight)::text) FROM calltree.sample')" ] &&
		echo ok || echo DIFFERENT
)
citus ct_psql "" -c "EXPLAIN (VERBOSE, COSTS OFF) $Q_CITUS" >"$OUT_DIR/citus-explain.txt"
grep -q 'worker_partial_agg' "$OUT_DIR/citus-explain.txt" || same="$same; NOT PUSHED DOWN (bench/out/citus-explain.txt)"
SETTINGS="SET jit = off; SET work_mem = '256MB';"
one_ms=$(best_ms "$RUNS" one "$SETTINGS SET max_parallel_workers_per_gather = 0;" "$Q_ONE")
one_par_ms=$(best_ms "$RUNS" one "$SETTINGS SET max_parallel_workers_per_gather = 2;" "$Q_ONE")
citus_ms=$(best_ms "$RUNS" citus "$SETTINGS" "$Q_CITUS")
# A dashboard's query runs in a session that ran it before (a pool's):
# timed the second time in its session, both sides, and on Citus with the
# connections to the workers kept (docs/citus.md): a query no longer
# starts a backend per connection on each worker.
one_warm_ms=$(WARM=1 best_ms "$RUNS" one "$SETTINGS SET max_parallel_workers_per_gather = 0;" "$Q_ONE")
citus_warm_ms=$(WARM=1 best_ms "$RUNS" citus "$SETTINGS $CITUS_KEPT" "$Q_CITUS")
one_rows_ms=$(best_ms "$RUNS" one "$SETTINGS SET max_parallel_workers_per_gather = 0;" "$Q_ROWS")
citus_rows_ms=$(best_ms "$RUNS" citus "$SETTINGS" "$Q_ROWS")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
say "stack_agg(samples) over $rows samples in $sets sets, best of $RUNS (ms): one node $one_ms, one node with 2 parallel workers $one_par_ms, Citus (32 shards) $citus_ms"
say "the same, each timed the second time in its session, Citus keeping its connections ($CITUS_KEPT): one node $one_warm_ms, Citus $citus_warm_ms"
say "stack_agg(stack_id, weight) over the same samples a row each (the view sample), best of $RUNS (ms): one node $one_rows_ms, Citus (32 shards) $citus_rows_ms"
say "stack_agg(samples): Citus / one node $(ratio "$citus_warm_ms" "$one_warm_ms")x in sessions that ran it before (target <= 1.5x), $(ratio "$citus_ms" "$one_ms")x in new sessions; the same tree on both, packed or a row each: $same"

# ------------------------------------------------------------ 3 and 4: per shard count
# What the workers send: each shard's partial state as text.  What they
# would send if they resolved stacks: each shard's tree as text (resolved
# here on the coordinator, from the same states).  The coordinator's merge:
# reading the states back, combining and finishing, timed on their own.
citus ct_psql "" <<-'SQL' >/dev/null
	CREATE AGGREGATE coord_merge(calltree.stack_weights) (
	    SFUNC = calltree.stack_agg_combinefn, STYPE = calltree.stack_weights,
	    FINALFUNC = calltree.stack_agg_finalfn);
	CREATE AGGREGATE coord_combine(calltree.stack_weights) (
	    SFUNC = calltree.stack_agg_combinefn, STYPE = calltree.stack_weights);
SQL
say "sample sets' size: $heap_bytes bytes on Citus (the shards' heap and TOAST), $one_heap on one node"
say "per shard count: stack_agg(samples) (best of $RUNS, ms) | bytes sent per query (partial states) | share of the sets' size (one node's table) | bytes if trees were sent | merge on the coordinator (ms): read + combine, then + final"
for n in $SHARDS; do
	t="bench_sets_$n"
	citus ct_psql "" <<-SQL >/dev/null
		CREATE TABLE $t (profile_id bigint NOT NULL, thread text, samples calltree.samples NOT NULL);
		SELECT create_distributed_table('$t', 'profile_id', shard_count => $n, colocate_with => 'none');
		INSERT INTO $t SELECT profile_id, thread, samples FROM calltree.sample_set;
		VACUUM (ANALYZE) $t;
		CREATE TABLE states_$n AS
		SELECT shardid, result AS state
		  FROM run_command_on_shards('$t', \$q\$SELECT worker_partial_agg('calltree.stack_agg(calltree.samples)'::regprocedure, samples)::text FROM %s\$q\$)
		 WHERE success AND result IS NOT NULL AND result <> '';
	SQL
	ms=$(best_ms "$RUNS" citus "$SETTINGS" "SELECT calltree.total(calltree.stack_agg(samples)) FROM $t")
	state_bytes=$(citus ct_query "" "SELECT sum(octet_length(state)) FROM states_$n")
	tree_bytes=$(citus ct_query "" "SELECT sum(octet_length(calltree.stack_agg_finalfn(state::calltree.stack_weights)::text)) FROM states_$n")
	combine_ms=$(best_ms "$RUNS" citus "$SETTINGS" "SELECT coord_combine(state::calltree.stack_weights) IS NULL FROM states_$n")
	merge_ms=$(best_ms "$RUNS" citus "$SETTINGS" "SELECT calltree.total(coord_merge(state::calltree.stack_weights)) FROM states_$n")
	say "$(printf '%4d shards: %9s | %10s | %5s%% | %10s | %8s, %8s' "$n" "$ms" "$state_bytes" \
		"$(awk -v a="$state_bytes" -v b="$one_heap" 'BEGIN { printf "%.2f", 100 * a / b }')" \
		"$tree_bytes" "$combine_ms" "$merge_ms")"
	citus ct_psql "" -c "DROP TABLE $t, states_$n" >/dev/null
done
ct_psql "" -c 'DROP TABLE bench_sets' >/dev/null
say "load average $(ct_loadavg) at the end"
