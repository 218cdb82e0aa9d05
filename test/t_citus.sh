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
#   expect/*.sql   run on the coordinator only, echoed with its errors as
#                  pg_regress does; the output must equal expect/NAME.out
#                  (EXPLAIN's pushdown, Citus-only errors)
#
# psql runs them in the repository's folder with -X -q -v ON_ERROR_STOP=1
# (expect/: -a, errors go on), and the variables :shared (the real
# profiles, ../shared) and :repo.
# Then the operations: where the samples are, an import that fails half
# way, concurrent imports, a third worker and a rebalance (same/ again),
# and a stopped worker.
#
#   test/run.sh shell test/t_citus.sh [NAME ...]
# With names, only those same/ and expect/ files run, and no operations.
# CITUS_KEEP=1 leaves the nodes running and prints how to reach them.
set -euo pipefail
# shellcheck source=test/script_lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/script_lib.sh"
# shellcheck source=test/citus_build.sh
. "$(dirname "${BASH_SOURCE[0]}")/citus_build.sh"
trap 'exit 130' INT
trap 'exit 143' TERM

if ! citus_ensure; then
	echo "t_citus: SKIP: $citus_missing"
	exit 0
fi

checks=("$@")
single=calltree_citus_single
db=postgres          # on every node of the Citus cluster
port=${CT_PORT:-54329}
# The nodes' folders: readable by postgres when we are root ($work is not)
nodes_dir=$(mktemp -d "${TMPDIR:-/tmp}/ct-citus.XXXXXX")
nodes_up=()
if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$nodes_dir"
fi

as_pg() {
	if [ "$(id -u)" -eq 0 ]; then
		(cd "$nodes_dir" && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

nodes_stop() {
	local node
	for node in ${nodes_up[@]+"${nodes_up[@]}"}; do
		as_pg "$PG_BIN/pg_ctl" -D "$nodes_dir/$node/data" -m immediate -w stop >/dev/null 2>&1 || true
	done
	nodes_up=()
	rm -rf "$nodes_dir"
}
if [ "${CITUS_KEEP:-0}" != 1 ]; then
	t_at_exit nodes_stop
fi

# node_start NAME: a new node, its socket in $nodes_dir/NAME
node_start() {
	local dir="$nodes_dir/$1"
	as_pg mkdir -p "$dir"
	as_pg "$PG_BIN/initdb" -D "$dir/data" --auth=trust -U postgres --no-sync -E UTF8 --locale=C \
		>"$work/initdb-$1.log" 2>&1 || fail "initdb of $1 failed: $(tail -n 5 "$work/initdb-$1.log")"
	as_pg tee -a "$dir/data/postgresql.conf" >/dev/null <<-EOF

		# a node of test/t_citus.sh
		listen_addresses = ''
		unix_socket_directories = '$dir'
		port = $port
		fsync = off
		shared_preload_libraries = 'citus'
		max_connections = 60
		max_worker_processes = 8
		max_parallel_workers_per_gather = 0
		citus.node_conninfo = 'sslmode=disable'
		citus.max_background_task_executors_per_node = 2
	EOF
	as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start >/dev/null 2>&1 ||
		fail "node $1 did not start: $(tail -n 5 "$dir/server.log")"
	nodes_up+=("$1")
	on "$1" -c 'CREATE EXTENSION citus' >/dev/null
}

# on NODE PSQL-ARGS...: psql on that node's database
on() {
	local node=$1
	shift
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$nodes_dir/$node" -p "$port" -U postgres -d "$db" "$@"
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
			export PATH="$PG_BIN:$PATH" PG_CONFIG="$PG_BIN/pg_config"
			if [ "$target" = citus ]; then
				export PGHOST="$nodes_dir/coordinator" PGPORT="$port" PGDATABASE="$db"
			else
				export PGDATABASE="$single"
			fi
			bash -e "$file"
		)
	elif [ "$target" = citus ]; then
		(cd "$repo" && on coordinator "${vars[@]}" "$@" <"$file")
	else
		(cd "$repo" && "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$single" "${vars[@]}" "$@" <"$file")
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
node_start coordinator
node_start worker1
node_start worker2
on coordinator >/dev/null <<-SQL
	SELECT citus_set_coordinator_host('$nodes_dir/coordinator', $port);
	SELECT citus_add_node('$nodes_dir/worker1', $port);
	SELECT citus_add_node('$nodes_dir/worker2', $port);
	CREATE EXTENSION calltree;
	SELECT calltree.distribute();
SQL
t_createdb "$single"
"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$single" -c 'CREATE EXTENSION calltree'

for f in "$repo"/test/citus/load/*; do
	[[ $f == *.sql || $f == *.sh ]] || continue
	run_file citus "$f" >"$work/load-citus.out" 2>&1 || fail "load/$(basename "$f") on Citus: $(tail -n 20 "$work/load-citus.out")"
	run_file single "$f" >"$work/load-single.out" 2>&1 || fail "load/$(basename "$f") on one node: $(tail -n 20 "$work/load-single.out")"
done

# same_outputs: every same/ file, on both; the failures on stderr
same_outputs() {
	local f name bad=0
	for f in "$repo"/test/citus/same/*.sql; do
		[ -f "$f" ] && wanted "$f" || continue
		name=$(basename "$f" .sql)
		# stdout only: Citus adds its own notices and warnings
		if ! run_file citus "$f" >"$work/$name.citus" 2>"$work/$name.citus.err"; then
			echo "same/$name: failed on Citus:" >&2
			tail -n 20 "$work/$name.citus.err" >&2
			bad=1
			continue
		fi
		run_file single "$f" >"$work/$name.single" 2>"$work/$name.single.err" ||
			fail "same/$name: failed on one node: $(tail -n 20 "$work/$name.single.err")"
		[ -s "$work/$name.single" ] || fail "same/$name: no output"
		if ! cmp -s "$work/$name.single" "$work/$name.citus"; then
			echo "same/$name: Citus and one node differ (diff one-node Citus):" >&2
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
		run_file citus "$f" -a -v ON_ERROR_STOP=0 -v VERBOSITY=terse >"$work/$name.out" 2>&1 || true
		if ! cmp -s "${f%.sql}.out" "$work/$name.out"; then
			echo "expect/$name: the output is not expect/$name.out (diff expected actual):" >&2
			diff -u "${f%.sql}.out" "$work/$name.out" | head -n 60 >&2 || true
			bad=1
		fi
	done
	return "$bad"
}

# ---------------------------------------------------------------- operations
q_citus() { on coordinator -At -c "$1"; }
q_single() { "$PG_BIN/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$single" -c "$1"; }

# Where the rows are: every sample in a shard on a worker, as many as one
# node holds; nothing in the heaps of the coordinator's own tables, which
# Citus keeps as empty shells (a direct write would land there)
check_placement() {
	local n
	# (citus_shards leaves out the tables of extensions)
	n=$(q_citus "SELECT count(DISTINCT n.nodename) FILTER (WHERE n.nodename LIKE '%/worker%') || ' '
	                    || count(*) FILTER (WHERE n.nodename NOT LIKE '%/worker%')
	               FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
	               JOIN pg_dist_node n ON n.groupid = p.groupid
	              WHERE s.logicalrelid = 'calltree.sample'::regclass")
	[ "$n" = "2 0" ] || fail "placement: the samples' shards are not all on the two workers (workers, shards elsewhere: $n)"
	[ "$(q_citus "SELECT sum(result::bigint) FROM run_command_on_shards('calltree.sample', 'SELECT count(*) FROM %s')")" = \
		"$(q_single "SELECT count(*) FROM calltree.sample")" ] ||
		fail "placement: the shards of sample do not hold one node's samples"
	n=$(q_citus "SELECT string_agg(c.relname, ' ') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	              WHERE n.nspname = 'calltree' AND c.relkind = 'r' AND pg_relation_size(c.oid) > 0
	                AND c.relname IN ('profile', 'sample_0', 'sample_default', 'event', 'func', 'frame', 'stack', 'labels', 'symbol')")
	[ -z "$n" ] || fail "placement: rows were written into the coordinator's shells: $n"
}

status=0
same_outputs || status=1
expect_outputs || status=1
if [ ${#checks[@]} -eq 0 ]; then
	check_placement
fi

if [ "${CITUS_KEEP:-0}" = 1 ]; then
	echo "t_citus: nodes left running: psql -h $nodes_dir/coordinator -p $port -U postgres $db"
	echo "  stop them with: for n in ${nodes_up[*]}; do pg_ctl -D $nodes_dir/\$n/data stop; done"
fi
[ "$status" = 0 ] || fail "some checks failed (above)"
echo "t_citus: ok"
