#!/usr/bin/env bash
# calltree on Citus: a coordinator and two workers, their results compared
# with one node's.
#
# Citus is installed first when it is not (test/citus_build.sh builds the
# vendored source once into a cache folder); without Citus and without its
# source the test prints one SKIP line and passes.  The three nodes run in
# a scratch folder (Unix sockets only; the socket folders are the node
# names) and are always stopped.  The coordinator's database distributes
# calltree (calltree.distribute()); a plain database of the cluster of
# test/run.sh is the single node.  Then, from test/citus/:
#
#   load/*.sql     run on both, in name order: the data every check reads;
#   load/*.sh      likewise, by bash, with PGHOST, PGPORT and PGDATABASE set
#                  to the database (bin/calltree-load, \i examples/...)
#   same/*.sql     run on both; the two outputs (stdout) must be
#                  byte-identical, and free of errors: that identity is the
#                  assertion
#   after/*.sql    like same/, once, after the operations below (they
#                  change the data: retention)
#   expect/*.sql   run on the coordinator only, echoed with its errors as
#                  pg_regress does; the output must equal expect/NAME.out
#                  (EXPLAIN's pushdown, Citus-only errors), with the nodes'
#                  folder written <nodes>, their port <port> and the shard
#                  ids of names (sample_0_102029) <shard>
#
# psql runs them in the repository's folder with -X -q -v ON_ERROR_STOP=1
# (expect/: -a, errors go on), and the variables :shared (the real
# profiles, ../shared) and :repo.
# Then the operations: where the samples are, an import that fails half
# way, concurrent imports, collect_garbage() against a transaction writing
# samples, a third worker and a rebalance (same/ again), and a stopped
# worker.
#
#   test/run.sh shell test/t_citus.sh [NAME ...]
# With names, only those same/ and expect/ files run, and no operations.
# CITUS_KEEP=1 leaves the nodes running and prints how to reach them.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init
# shellcheck source=test/citus_build.sh
. "$(dirname "${BASH_SOURCE[0]}")/citus_build.sh"

if ! citus_ensure; then
	echo "t_citus: SKIP: $citus_missing"
	exit 0
fi

checks=("$@")
started=$SECONDS
# phase NAME: how long the last phase took, for the log
phase() {
	echo "t_citus: $1 ($((SECONDS - started)) s)"
	started=$SECONDS
}
single=calltree_citus_single
db=postgres          # on every node of the Citus cluster
port=$CT_PORT
# The nodes: clusters of test/lib.sh in the scratch folder, each with its
# socket in $nodes_dir/NAME
nodes_dir=$work
nodes_up=()
if [ "${CITUS_KEEP:-0}" = 1 ]; then
	ct_keep
fi

# node_init NAME: a new node's data folder, its socket in $nodes_dir/NAME
node_init() {
	local dir="$nodes_dir/$1"
	ct_cluster_init "$dir" \
		"# a node of test/t_citus.sh" \
		"shared_preload_libraries = 'citus'" \
		"max_connections = 60" \
		"max_parallel_workers_per_gather = 0" \
		"citus.node_conninfo = 'sslmode=disable'" \
		"# how its background tasks (the rebalancer) reach the node itself" \
		"citus.local_hostname = '$dir'" \
		"citus.max_background_task_executors_per_node = 2" \
		"citus.background_task_queue_interval = '200ms'"
}

# node_start NAME: the node of node_init up, with Citus in its database
node_start() {
	[ -d "$nodes_dir/$1/data" ] || node_init "$1"
	ct_cluster_start "$nodes_dir/$1"
	nodes_up+=("$1")
	on "$1" ct_query "$db" 'CREATE EXTENSION citus' >/dev/null
}

# on NODE CMD...: CMD with that node as libpq's default server
on() {
	local node=$1
	shift
	ct_on "$nodes_dir/$node" "$@"
}
# run_file TARGET FILE [PSQL-ARGS...]: a file on the coordinator (TARGET
# citus) or the single node (TARGET single)
run_file() {
	local target=$1 file=$2
	shift 2
	local vars=(-v shared="$shared" -v repo="$repo" -P pager=off)
	if [[ $file == *.sh ]]; then
		(
			cd "$repo"
			export PATH="$PG_BIN:$PATH"
			if [ "$target" = citus ]; then
				export PGHOST="$nodes_dir/coordinator" PGPORT="$port" PGDATABASE="$db"
			else
				export PGDATABASE="$single"
			fi
			bash -e "$file"
		)
	elif [ "$target" = citus ]; then
		(cd "$repo" && on coordinator ct_psql "$db" "${vars[@]}" "$@" <"$file")
	else
		(cd "$repo" && ct_psql "$single" "${vars[@]}" "$@" <"$file")
	fi
}

# wanted FILE: whether the names given on the command line include it
wanted() {
	local name want
	name=$(basename "$1" .sql)
	[ ${#checks[@]} -eq 0 ] && return 0
	for want in "${checks[@]}"; do
		[ "$want" = "$name" ] && return 0
	done
	return 1
}

# ---------------------------------------------------------------- set-up
# initdb three times at once: the longest part of the set-up
init_pids=()
for node in coordinator worker1 worker2; do
	node_init "$node" &
	init_pids+=($!)
done
for pid in "${init_pids[@]}"; do
	wait "$pid" || fail "initdb failed"
done
node_start coordinator
node_start worker1
node_start worker2
on coordinator ct_psql "$db" >/dev/null <<-SQL
	SELECT citus_set_coordinator_host('$nodes_dir/coordinator', $port);
	SELECT citus_add_node('$nodes_dir/worker1', $port);
	SELECT citus_add_node('$nodes_dir/worker2', $port);
	CREATE EXTENSION calltree;
	SELECT calltree.distribute(shard_count => 8);
SQL
ct_createdb "$single"
ct_psql "$single" -c 'CREATE EXTENSION calltree'

phase "three nodes, distribute()"
for f in "$repo"/test/citus/load/*; do
	[[ $f == *.sql || $f == *.sh ]] || continue
	run_file citus "$f" >"$work/load-citus.out" 2>&1 || fail "load/$(basename "$f") on Citus: $(tail -n 20 "$work/load-citus.out")"
	run_file single "$f" >"$work/load-single.out" 2>&1 || fail "load/$(basename "$f") on one node: $(tail -n 20 "$work/load-single.out")"
done

phase "load/"

# same_outputs: every same/ file, on both; the failures on stderr
same_outputs() {
	local f name bad=0 folder=${1:-same}
	for f in "$repo"/test/citus/"$folder"/*.sql; do
		[ -f "$f" ] && wanted "$f" || continue
		name=$(basename "$f" .sql)
		# stdout only: Citus adds its own notices and warnings
		if ! run_file citus "$f" >"$work/$name.citus" 2>"$work/$name.citus.err"; then
			echo "$folder/$name: failed on Citus:" >&2
			tail -n 20 "$work/$name.citus.err" >&2
			bad=1
			continue
		fi
		run_file single "$f" >"$work/$name.single" 2>"$work/$name.single.err" ||
			fail "$folder/$name: failed on one node: $(tail -n 20 "$work/$name.single.err")"
		[ -s "$work/$name.single" ] || fail "$folder/$name: no output"
		if ! cmp -s "$work/$name.single" "$work/$name.citus"; then
			echo "$folder/$name: Citus and one node differ (diff one-node Citus):" >&2
			diff -u "$work/$name.single" "$work/$name.citus" | head -n 60 >&2 || true
			bad=1
		fi
	done
	return "$bad"
}

expect_outputs() {
	local f name bad=0
	for f in "$repo"/test/citus/expect/*.sql; do
		[ -f "$f" ] && wanted "$f" || continue
		name=$(basename "$f" .sql)
		# the nodes' names and port vary from run to run
		run_file citus "$f" -a -v ON_ERROR_STOP=0 -v VERBOSITY=terse 2>&1 |
			sed -E -e "s|$nodes_dir/|<nodes>/|g" -e "s/(port=|:)$port\b/\1<port>/g" \
				-e 's/_10[0-9]{4,}\b/_<shard>/g' >"$work/$name.out" || true
		if ! cmp -s "${f%.sql}.out" "$work/$name.out"; then
			# kept, as pg_regress keeps its own (results/ is not committed)
			mkdir -p "$repo/results/citus"
			cp "$work/$name.out" "$repo/results/citus/$name.out"
			echo "expect/$name: the output is not expect/$name.out (diff expected results/citus/$name.out):" >&2
			diff -u "${f%.sql}.out" "$work/$name.out" | head -n 60 >&2 || true
			bad=1
		fi
	done
	return "$bad"
}

# ---------------------------------------------------------------- operations
# Where the rows are: every sample set in a shard on a worker, with as many
# samples as one node holds; nothing in the heaps of the coordinator's own tables, which
# Citus keeps as empty shells (a direct write would land there)
check_placement() {
	local n
	# (citus_shards leaves out the tables of extensions)
	n=$(on coordinator ct_query "$db" "SELECT count(DISTINCT n.nodename) FILTER (WHERE n.nodename LIKE '%/worker%') || ' '
	                    || count(*) FILTER (WHERE n.nodename NOT LIKE '%/worker%')
	               FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
	               JOIN pg_dist_node n ON n.groupid = p.groupid
	              WHERE s.logicalrelid = 'calltree.sample_set'::regclass")
	[ "$n" = "2 0" ] || fail "placement: the sample sets' shards are not all on the two workers (workers, shards elsewhere: $n)"
	[ "$(on coordinator ct_query "$db" "SELECT sum(result::bigint) FROM run_command_on_shards('calltree.sample_set', 'SELECT coalesce(sum(calltree.sample_count(samples)), 0) FROM %s')")" = \
		"$(ct_query "$single" "SELECT count(*) FROM calltree.sample")" ] ||
		fail "placement: the shards of sample_set do not hold one node's samples"
	n=$(on coordinator ct_query "$db" "SELECT string_agg(c.relname, ' ') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	              WHERE n.nspname = 'calltree' AND c.relkind = 'r' AND pg_relation_size(c.oid) > 0
	                AND c.relname IN ('profile', 'sample_set_0', 'sample_set_default', 'sample_0', 'sample_default', 'event', 'func', 'frame', 'stack', 'labels', 'symbol')")
	[ -z "$n" ] || fail "placement: rows were written into the coordinator's shells: $n"
}

# on_all TABLE SQL: SQL (%s for the table) on every placement of a Citus
# table, one result a line
on_all() {
	on coordinator ct_query "$db" "SELECT result FROM run_command_on_placements('calltree.$1', \$q\$$2\$q\$) ORDER BY nodename, shardid"
}

# What the failed imports must not leave: profiles, samples, funcs
footprint() {
	echo "profiles $(on coordinator ct_query "$db" "SELECT count(*) FROM calltree.profile")"
	echo "samples $(on coordinator ct_query "$db" "SELECT count(*) FROM calltree.sample")"
	echo "funcs $(on_all func "SELECT count(*) FROM %s WHERE name LIKE 'ct\_%%'" | tr '\n' ' ')"
}

# collapsed FILE PREFIX COUNT ORDER: COUNT stacks of two new funcs each,
# PREFIX_i;PREFIX_j, in ascending or descending order of i
collapsed() {
	local i
	for ((i = 0; i < $3; i++)); do
		if [ "$4" = desc ]; then
			echo "$2_$(($3 - i));$2_$((i % 50)) $((i % 7 + 1))"
		else
			echo "$2_$i;$2_$(($3 - i - 1 + 7)) $((i % 5 + 1))"
		fi
	done >"$1"
}

load_citus() {
	PGDATABASE=$db on coordinator "$repo/bin/calltree-load" "$@"
}

# An import that fails after it wrote sample sets (its samples pass a
# quarter of calltree.import_work_mem, src/writer/writer_sets.c, at the
# smallest setting) leaves nothing on any node: one distributed transaction.
check_failed_import() {
	local before after inserted
	before=$(footprint)
	inserted=$(samples_inserted)
	collapsed "$work/fail.collapsed" ct_fail 12000 asc
	echo 'this line is not a collapsed stack' >>"$work/fail.collapsed"
	if PGOPTIONS="$PGOPTIONS -c calltree.import_work_mem=1024" \
		load_citus --name failing "$work/fail.collapsed" >"$work/fail.out" 2>&1; then
		fail "failed import: the malformed file was imported"
	fi
	grep -q 'malformed collapsed stack' "$work/fail.out" ||
		fail "failed import: not the expected error: $(tail -n 3 "$work/fail.out")"
	after=$(footprint)
	[ "$before" = "$after" ] || fail "failed import: it left rows behind: before: $before; after: $after"
	# and it had written sample sets on a worker before it failed: the shards'
	# count of inserted rows grew (their backends report it as they end)
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(samples_inserted)" -gt "$inserted" ] && return 0
		sleep 0.2
	done
	fail "failed import: no sample reached a worker before the error; the test needs a bigger file"
}

# How many rows were ever inserted into the shards of sample_set (and
# sample_row) on the workers
samples_inserted() {
	local w total=0 n
	for w in worker1 worker2; do
		n=$(on "$w" ct_query "$db" "SET citus.show_shards_for_app_name_prefixes = '*'" \
			-c "SELECT coalesce(sum(n_tup_ins), 0) FROM pg_stat_user_tables WHERE relname LIKE 'sample%'")
		total=$((total + n))
	done
	echo "$total"
}

# Concurrent imports through the coordinator, of new funcs that overlap in
# opposite orders: no error (no deadlock), no key twice on any node, and
# each profile's tree that of the same file imported on one node.
check_concurrent_imports() {
	local i pids=() bad=0 dups
	# (a file's name is its profile's)
	for i in 1 2 3 4; do
		if [ $((i % 2)) = 0 ]; then
			collapsed "$work/ct_conc$i" ct_conc 400 desc
		else
			collapsed "$work/ct_conc$i" ct_conc 400 asc
		fi
	done
	for i in 1 2 3 4; do
		load_citus "$work/ct_conc$i" >"$work/conc$i.out" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || {
			echo "concurrent import $((i + 1)) failed: $(tail -n 3 "$work/conc$((i + 1)).out")" >&2
			bad=1
		}
	done
	[ "$bad" = 0 ] || fail "concurrent imports failed"
	# per table: the distinct counts of keys twice, over its placements,
	# and how many different copies of it the nodes hold
	dups=$(on coordinator ct_query "$db" "SELECT string_agg(t || ' ' || (SELECT string_agg(DISTINCT r.result, ',')
	                                      FROM run_command_on_placements('calltree.' || t, 'SELECT count(*) - count(DISTINCT ' || k || ') FROM %s') r)
	                                 || ' ' || (SELECT count(DISTINCT r.result)
	                                      FROM run_command_on_placements('calltree.' || t, 'SELECT md5(string_agg(x::text, '','' ORDER BY x::text)) FROM %s x') r),
	                           '; ' ORDER BY t)
	                  FROM (VALUES ('func', 'ROW(name, file, resource)'),
	                               ('frame', 'ROW(func_id, address, line, col, implementation)'),
	                               ('stack', 'ROW(prefix_id, frame_id)')) AS v(t, k)")
	[ "$dups" = "frame 0 1; func 0 1; stack 0 1" ] ||
		fail "concurrent imports: keys twice, or copies that differ (table, keys twice, copies): $dups"
	PGDATABASE=$single "$repo/bin/calltree-load" \
		"$work"/ct_conc1 "$work"/ct_conc2 "$work"/ct_conc3 "$work"/ct_conc4 >/dev/null
	# (by names: the funcs' ids, and so the order of siblings, depend on
	# which import interned them first)
	local sql="SELECT t.name, md5(string_agg(l, E'\\n' ORDER BY l))
	             FROM (SELECT p.name, calltree.to_collapsed(calltree.stack_agg(s.stack_id, s.weight)) AS c
	                     FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
	                    WHERE p.name LIKE 'ct_conc%' GROUP BY p.name) t,
	                  regexp_split_to_table(t.c, E'\\n') AS l
	            GROUP BY t.name ORDER BY t.name"
	[ "$(on coordinator ct_query "$db" "$sql")" = "$(ct_query "$single" "$sql")" ] ||
		fail "concurrent imports: their trees are not those of one node"
	# then gone again, on both: DELETE cascades to the samples, and
	# collect_garbage() deletes the funcs, frames and stacks left unused
	on coordinator ct_query "$db" "DELETE FROM calltree.profile WHERE name LIKE 'ct_conc%'" >/dev/null
	ct_query "$single" "DELETE FROM calltree.profile WHERE name LIKE 'ct_conc%'" >/dev/null
	[ "$(on coordinator ct_query "$db" "SELECT * FROM calltree.collect_garbage()")" = "$(ct_query "$single" "SELECT * FROM calltree.collect_garbage()")" ] ||
		fail "collect_garbage() deleted other rows on Citus than on one node"
}

# on_target TARGET CMD...: CMD (ct_query or ct_psql, then its arguments
# without the database) on the coordinator's database (TARGET citus) or the
# single node's (TARGET single)
on_target() {
	local target=$1 cmd=$2
	shift 2
	if [ "$target" = citus ]; then
		on coordinator "$cmd" "$db" "$@"
	else
		"$cmd" "$single" "$@"
	fi
}

# writer_waits NAME: the statement (psql, with the variable go set to a
# file's path) with which a writer's transaction stays open until the test
# creates that file, after its collect_garbage() has timed out waiting for
# the writer (at most 60 s); NAME is in its text, for pg_stat_activity
writer_waits() {
	cat <<-EOF
		SELECT set_config('calltree_test.go', :'go', false) IS NOT NULL AS $1_set \\gset
		DO \$\$ -- $1
		BEGIN
		    FOR i IN 1..1200 LOOP
		        EXIT WHEN (pg_catalog.pg_stat_file(current_setting('calltree_test.go'), true)).size IS NOT NULL;
		        PERFORM pg_catalog.pg_sleep(0.05);
		    END LOOP;
		END \$\$;
	EOF
}

# The references inside packed values under concurrency: collect_garbage()
# waits for a transaction that writes a sample set through the view (both
# take the lock on the coordinator's stack table), then keeps the new stack
# that the set names.  On both, so that ids stay those of one node.
check_gc_waits_for_writers() {
	local target i tree trees=()
	for target in citus single; do
		on_target "$target" ct_query "SELECT calltree.import_collapsed(E'gc_main;gc_old 1\n', 'ct_gc')" >/dev/null
		on_target "$target" ct_psql -v go="$work/gc-writer-go.$target" >"$work/gc-writer.out" 2>&1 <<-SQL &
			SELECT id AS p FROM calltree.profile WHERE name = 'ct_gc' \gset
			BEGIN;
			SELECT calltree.intern_stack('{gc_main,gc_new}') AS s \gset
			INSERT INTO calltree.sample (profile_id, stack_id, weight) VALUES (:p, :s, 2);
			$(writer_waits gc_writer_waits)
			COMMIT;
		SQL
		for ((i = 0; i < 100; i++)); do
			[ "$(on_target "$target" ct_query "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%gc_writer_waits%' AND state = 'active' AND pid <> pg_backend_pid()")" = 1 ] && break
			sleep 0.1
		done
		[ "$i" -lt 100 ] || fail "gc and a writer ($target): the writer did not start"
		PGOPTIONS="$PGOPTIONS -c lock_timeout=500ms" on_target "$target" ct_query "SELECT * FROM calltree.collect_garbage()" >"$work/gc.out" 2>&1 &&
			fail "gc and a writer ($target): collect_garbage() did not wait for the writer: $(cat "$work/gc.out")"
		grep -q 'lock timeout' "$work/gc.out" ||
			fail "gc and a writer ($target): not a lock timeout: $(cat "$work/gc.out")"
		touch "$work/gc-writer-go.$target"
		wait $! || fail "gc and a writer ($target): the writer failed: $(cat "$work/gc-writer.out")"
		on_target "$target" ct_query "SELECT * FROM calltree.collect_garbage()" >/dev/null
		tree=$(on_target "$target" ct_query "SELECT calltree.to_collapsed(calltree.stack_agg(s.stack_id, s.weight))
		                                      FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id WHERE p.name = 'ct_gc'")
		[ "$(sort <<<"$tree")" = "$(printf 'gc_main;gc_new 2\ngc_main;gc_old 1')" ] ||
			fail "gc and a writer ($target): the profile's tree is not the one written: $tree"
		on_target "$target" ct_query "DELETE FROM calltree.profile WHERE name = 'ct_gc'" >/dev/null
		trees+=("$(on_target "$target" ct_query "SELECT * FROM calltree.collect_garbage()")")
	done
	[ "${trees[0]}" = "${trees[1]}" ] ||
		fail "gc and a writer: collect_garbage() deleted other rows on Citus (${trees[0]}) than on one node (${trees[1]})"
}

# The same for a sample set written straight into sample_set, with the
# lock on stack taken first as docs/citus.md says (the check on the shard
# takes none): collect_garbage() waits for the writer, then keeps the
# stack, unused until then, that the new set names.
check_gc_waits_for_direct_writers() {
	local target i tree trees=()
	for target in citus single; do
		on_target "$target" ct_query "SELECT calltree.import_collapsed(E'gc_main;gc_old 1\n', 'ct_gc_direct')" >/dev/null
		on_target "$target" ct_query "SELECT calltree.intern_stack('{gc_main,gc_direct}')" >/dev/null
		on_target "$target" ct_psql -v go="$work/gc-direct-go.$target" >"$work/gc-direct.out" 2>&1 <<-SQL &
			SELECT id AS p FROM calltree.profile WHERE name = 'ct_gc_direct' \gset
			SELECT calltree.intern_stack('{gc_main,gc_direct}') AS s \gset
			BEGIN;
			LOCK TABLE calltree.stack IN ROW EXCLUSIVE MODE;
			INSERT INTO calltree.sample_set (profile_id, thread, samples) SELECT :p, 'direct', calltree.samples_agg(:s, 2);
			$(writer_waits gc_direct_waits)
			COMMIT;
		SQL
		for ((i = 0; i < 100; i++)); do
			[ "$(on_target "$target" ct_query "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%gc_direct_waits%' AND state = 'active' AND pid <> pg_backend_pid()")" = 1 ] && break
			sleep 0.1
		done
		[ "$i" -lt 100 ] || fail "gc and a direct writer ($target): the writer did not start: $(cat "$work/gc-direct.out")"
		PGOPTIONS="$PGOPTIONS -c lock_timeout=500ms" on_target "$target" ct_query "SELECT * FROM calltree.collect_garbage()" >"$work/gc.out" 2>&1 &&
			fail "gc and a direct writer ($target): collect_garbage() did not wait for the writer: $(cat "$work/gc.out")"
		grep -q 'lock timeout' "$work/gc.out" ||
			fail "gc and a direct writer ($target): not a lock timeout: $(cat "$work/gc.out")"
		touch "$work/gc-direct-go.$target"
		wait $! || fail "gc and a direct writer ($target): the writer failed: $(cat "$work/gc-direct.out")"
		on_target "$target" ct_query "SELECT * FROM calltree.collect_garbage()" >/dev/null
		tree=$(on_target "$target" ct_query "SELECT calltree.to_collapsed(calltree.stack_agg(s.stack_id, s.weight))
		                                      FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id WHERE p.name = 'ct_gc_direct'")
		[ "$(sort <<<"$tree")" = "$(printf 'gc_main;gc_direct 2\ngc_main;gc_old 1')" ] ||
			fail "gc and a direct writer ($target): the profile's tree is not the one written: $tree"
		on_target "$target" ct_query "DELETE FROM calltree.profile WHERE name = 'ct_gc_direct'" >/dev/null
		trees+=("$(on_target "$target" ct_query "SELECT * FROM calltree.collect_garbage()")")
	done
	[ "${trees[0]}" = "${trees[1]}" ] ||
		fail "gc and a direct writer: collect_garbage() deleted other rows on Citus (${trees[0]}) than on one node (${trees[1]})"
}

# collect_garbage() while a rollup run is under way (isolation spec
# gc_rollup): on Citus, where calltree.rollup stays on the coordinator, its
# SHARE NOWAIT lock fails inside a subtransaction of a distributed
# transaction that has deleted stacks and frames of the reference tables;
# it must go on, delete no func and commit, and the run's row keep the
# name of the func whose profile was deleted meanwhile.  On both, so that
# ids stay those of one node.
check_gc_during_rollup() {
	local target i out
	for target in citus single; do
		on_target "$target" ct_query "SELECT calltree.import_collapsed(E'ctgr_main;ctgr_gone 5\n', 'ct_gcr', '{\"ctgcr\": \"x\"}')" >/dev/null
		on_target "$target" ct_query "UPDATE calltree.profile SET started_at = '2031-02-02 10:00+00' WHERE name = 'ct_gcr'" >/dev/null
		on_target "$target" ct_psql -v go="$work/gc-rollup-go.$target" >"$work/gc-rollup.out" 2>&1 <<-SQL &
			BEGIN;
			SELECT calltree.rollup('1 hour', ARRAY['ctgcr'], '2031-02-02') AS rows;
			$(writer_waits gc_rollup_waits)
			COMMIT;
		SQL
		for ((i = 0; i < 100; i++)); do
			[ "$(on_target "$target" ct_query "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%gc_rollup_waits%' AND state = 'active' AND pid <> pg_backend_pid()")" = 1 ] && break
			sleep 0.1
		done
		[ "$i" -lt 100 ] || fail "gc during a rollup run ($target): the run did not start: $(cat "$work/gc-rollup.out")"
		on_target "$target" ct_query "DELETE FROM calltree.profile WHERE name = 'ct_gcr'" >/dev/null
		out=$(PGOPTIONS="$PGOPTIONS -c client_min_messages=notice" \
			on_target "$target" ct_query "SELECT funcs FROM calltree.collect_garbage()" 2>&1) ||
			fail "gc during a rollup run ($target): collect_garbage() failed: $out"
		[ "$(grep -v '^DETAIL:\|^HINT:' <<<"$out")" = "$(printf 'NOTICE:  collect_garbage() deletes no func: another transaction holds calltree.rollup\n0')" ] ||
			fail "gc during a rollup run ($target): not the notice and no func deleted: $out"
		touch "$work/gc-rollup-go.$target"
		wait $! || fail "gc during a rollup run ($target): the run failed: $(cat "$work/gc-rollup.out")"
		out=$(on_target "$target" ct_query "SELECT rtrim(calltree.to_collapsed(r.tree), E'\n') FROM calltree.rollup r WHERE r.group_key = '{\"ctgcr\": \"x\"}'")
		[ "$out" = "ctgr_main;ctgr_gone 5" ] || fail "gc during a rollup run ($target): the run's row is not whole: $out"
		on_target "$target" ct_query "DELETE FROM calltree.rollup WHERE group_key ? 'ctgcr'" >/dev/null
		on_target "$target" ct_query "DELETE FROM calltree.rollup_level WHERE group_by = ARRAY['ctgcr']" >/dev/null
		on_target "$target" ct_query "SELECT * FROM calltree.collect_garbage()" >/dev/null
	done
}

# new_citus_database NAME: a database of that name on the three nodes,
# with Citus, the coordinator and the two workers in its metadata
new_citus_database() {
	local node
	for node in coordinator worker1 worker2; do
		on "$node" ct_query postgres "CREATE DATABASE $1" >/dev/null 2>&1
		on "$node" ct_query "$1" 'CREATE EXTENSION citus' >/dev/null
	done
	on coordinator ct_psql "$1" >/dev/null <<-SQL
		SELECT citus_set_coordinator_host('$nodes_dir/coordinator', $port);
		SELECT citus_add_node('$nodes_dir/worker1', $port);
		SELECT citus_add_node('$nodes_dir/worker2', $port);
	SQL
}

# A database distributed under 0.2 moves to 0.3 by bin/calltree-move
# (docs/citus.md, "Version 0.2"): profiles of every kind of column (times,
# threads, label sets, events), and after the move each profile has the
# same samples, tree and time order, packed, and the ids go on.
check_move_from_02() {
	local sql before
	new_citus_database calltree_v02
	new_citus_database calltree_v03
	on coordinator ct_psql calltree_v02 -v shared="$shared" >/dev/null <<-'SQL'
		SET client_min_messages = warning;
		CREATE EXTENSION calltree VERSION '0.2';
		SELECT calltree.distribute(shard_count => 4);
		SELECT calltree.import_pprof(pg_read_binary_file(:'shared' || '/data/pprof/sample.cpu'), name => 'pprof');
		SELECT calltree.import_perf_script(pg_read_file(:'shared' || '/data/speedscope-samples/linux-perf/simple-with-header.linux-perf.txt'), name => 'perf_script');
		SELECT calltree.import_trace_events(pg_read_file(:'shared' || '/data/speedscope-samples/trace-event/simple.json'), 'trace');
		SELECT calltree.import_collapsed(pg_read_file(:'shared' || '/data/speedscope-samples/stackcollapse/perf-vertx-stacks-01-collapsed-all.txt'), 'collapsed');
	SQL
	on coordinator ct_psql calltree_v03 -c 'CREATE EXTENSION calltree' -c 'SELECT calltree.distribute(shard_count => 4)' >/dev/null
	PGHOST="$nodes_dir/coordinator" PGPORT=$port PATH="$PG_BIN:$PATH" \
		"$repo/bin/calltree-move" "dbname=calltree_v02" "dbname=calltree_v03" >"$work/move.out" 2>&1 ||
		fail "move from 0.2: bin/calltree-move failed: $(tail -n 5 "$work/move.out")"
	sql="SELECT p.id, p.name, count(s.stack_id), sum(s.weight), count(DISTINCT s.thread), count(s.labels_id),
	            md5(calltree.stack_agg(s.stack_id, s.weight)::text),
	            md5(string_agg(s.ts || ' ' || s.stack_id, ',' ORDER BY s.thread, s.ts, s.stack_id, s.weight)),
	            (SELECT count(*) FROM calltree.event e WHERE e.profile_id = p.id)
	       FROM calltree.profile p LEFT JOIN calltree.sample s ON s.profile_id = p.id GROUP BY p.id, p.name ORDER BY p.id"
	before=$(on coordinator ct_query calltree_v02 "$sql")
	[ "$(wc -l <<<"$before")" = 4 ] || fail "move from 0.2: not the four profiles of 0.2: $before"
	[ "$before" = "$(on coordinator ct_query calltree_v03 "$sql")" ] ||
		fail "move from 0.2: the profiles differ after the move: $(on coordinator ct_query calltree_v03 "$sql")"
	[ "$(on coordinator ct_query calltree_v03 "SELECT count(*) FROM calltree.sample_row")" = 0 ] &&
		[ "$(on coordinator ct_query calltree_v03 "SELECT count(*) > 0 FROM calltree.sample_set")" = t ] ||
		fail "move from 0.2: the samples are not packed into sample_set"
	local last new
	last=$(on coordinator ct_query calltree_v02 "SELECT max(id) FROM calltree.profile")
	new=$(on coordinator ct_query calltree_v03 "SELECT calltree.import_collapsed(E'moved;on 1\\n', 'after the move')")
	[ "$new" -gt "$last" ] || fail "move from 0.2: a new profile took id $new, not one past $last"
}

# The old placements of the shards a move left behind, dropped now, as
# docs/citus.md says to before collect_garbage(): Citus drops them later,
# every citus.defer_shard_delete_interval (15 s), and that drop deadlocks
# with a collect_garbage() under way (after/10_retention.sql calls it).
# A drop waits at most a second for the locks (Citus's lock_timeout), so
# a few tries.
drop_old_placements() {
	local i left
	for ((i = 0; i < 5; i++)); do
		on coordinator ct_query "$db" "CALL citus_cleanup_orphaned_resources()" >/dev/null 2>&1 || true
		left=$(on coordinator ct_query "$db" "SELECT count(*) FROM pg_dist_cleanup")
		[ "$left" = 0 ] && return 0
	done
	fail "rebalance: Citus did not drop the shards' old placements ($left left in pg_dist_cleanup)"
}

# A third worker, and the shards rebalanced onto it: same results
check_rebalance() {
	node_start worker3
	on coordinator ct_query "$db" "SELECT citus_add_node('$nodes_dir/worker3', $port)" >/dev/null
	# the old placements stay until they are dropped by hand: collect_garbage() refuses to run meanwhile
	on coordinator ct_query "$db" "ALTER SYSTEM SET citus.defer_shard_delete_interval = -1" >/dev/null
	on coordinator ct_query "$db" "SELECT pg_reload_conf()" >/dev/null
	on coordinator ct_query "$db" "SELECT citus_rebalance_start(shard_transfer_mode => 'block_writes')" >/dev/null
	on coordinator ct_query "$db" "SELECT citus_rebalance_wait()" >/dev/null
	if on coordinator ct_query "$db" "SELECT calltree.collect_garbage()" >"$work/gc-moved.out" 2>&1 ||
		! grep -q "HINT:  Run CALL citus_cleanup_orphaned_resources();" "$work/gc-moved.out"; then
		fail "rebalance: collect_garbage() before the old placements were dropped gave: $(cat "$work/gc-moved.out")"
	fi
	drop_old_placements
	on coordinator ct_query "$db" "ALTER SYSTEM RESET citus.defer_shard_delete_interval" >/dev/null
	on coordinator ct_query "$db" "SELECT pg_reload_conf()" >/dev/null
	local n
	n=$(on coordinator ct_query "$db" "SELECT count(*) FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
	              JOIN pg_dist_node n ON n.groupid = p.groupid
	             WHERE s.logicalrelid = 'calltree.sample_set'::regclass AND n.nodename LIKE '%/worker3'")
	[ "$n" -gt 0 ] || fail "rebalance: no shard of sample_set moved to the third worker"
	# the checks of new sample sets moved with their shards
	n=$(on_all sample_set "SELECT count(*) FROM pg_trigger WHERE tgrelid = '%s'::regclass AND tgname LIKE 'sample\_set\_citus\_%%check%%'" | sort -u | tr '\n' ' ')
	[ "$n" = "2 " ] || fail "rebalance: not every shard of sample_set has the two checks of new sample sets (counts: $n)"
	same_outputs || fail "rebalance: results differ from one node's after the rebalance"
}

# A worker down: a clear error, never a partial tree
check_worker_down() {
	ct_cluster_ctl "$nodes_dir/worker2" -m fast stop >/dev/null
	if on coordinator ct_query "$db" "SELECT md5(calltree.stack_agg(stack_id, weight)::text) FROM calltree.sample" >"$work/down.out" 2>&1; then
		fail "worker down: a tree came back without worker2: $(cat "$work/down.out")"
	fi
	grep -q "worker2" "$work/down.out" ||
		fail "worker down: the error does not name the worker: $(cat "$work/down.out")"
}

status=0
same_outputs || status=1
expect_outputs || status=1
phase "same/ and expect/"
if [ ${#checks[@]} -eq 0 ] && [ "$status" = 0 ]; then
	check_placement
	check_failed_import
	phase "placement and a failed import"
	check_concurrent_imports
	phase "concurrent imports"
	check_gc_waits_for_writers
	check_gc_waits_for_direct_writers
	check_gc_during_rollup
	phase "collect_garbage() and a writer or a rollup run"
	check_move_from_02
	phase "a database of 0.2 moved to 0.3"
	check_rebalance
	phase "a third worker and a rebalance"
	same_outputs after || fail "after/: results differ from one node's"
	phase "after/"
	check_worker_down
fi

if [ "${CITUS_KEEP:-0}" = 1 ]; then
	echo "t_citus: nodes left running: psql -h $nodes_dir/coordinator -p $port -U postgres $db"
	echo "  stop them with: for n in ${nodes_up[*]}; do pg_ctl -D $nodes_dir/\$n/data stop; done"
fi
[ "$status" = 0 ] || fail "some checks failed (above)"
echo "t_citus: ok"
