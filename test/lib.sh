# shellcheck shell=bash
# The one shell library of calltree's tests and benchmarks.  test/run.sh (the
# runner behind `make run`, `make test`, `make bench`), every script test
# test/t_*.sh, bench/*.sh and fuzz/run.sh source it, from bash running under
# `set -euo pipefail`.  It finds PostgreSQL's programs, the repository and
# the shared data; runs psql one way; starts every throwaway cluster (the
# runner's, t_cron.sh's with pg_cron, t_citus.sh's and bench/citus.sh's
# Citus nodes); and undoes what it did at exit.  Sourcing it installs the
# EXIT, INT and TERM traps: register more work for the exit with ct_at_exit,
# never with a trap of your own (the runner's EXIT trap calls ct_cleanup).
#
# Found when sourced:
#   PG_BIN           PostgreSQL 15's programs, exported: those of CT_PG_ROOT
#                    when it is set (a copy of the installation,
#                    lib/postgresql/15, share/postgresql/15 and
#                    include/postgresql under one folder: PostgreSQL finds
#                    its files relative to its programs, so several checkouts
#                    can install and test at once), else PG_BIN when set,
#                    else Debian's /usr/lib/postgresql/15/bin
#   PG_CONFIG        $PG_BIN/pg_config, exported (bin/calltree-load finds
#                    psql through it)
#   CT_PORT          the port of every cluster started here (default 54329);
#                    each cluster listens only on its own socket folder
#   CT_REPO          the repository
#   CALLTREE_SHARED  the real profiles of other tools, absolute (the server
#                    reads them with pg_read_file): ../shared beside the
#                    repository unless set; exported
#
# psql: the database first ("" for libpq's default, PGDATABASE), then psql's
# own options; the server is that of PGHOST and PGPORT (see ct_on).
#   ct_psql DB [PSQL-ARGS...]       SQL from stdin, -c or -f: no psqlrc, quiet,
#                                   stops at the first error (add
#                                   -v ON_ERROR_STOP=0 to go on)
#   ct_query DB SQL [PSQL-ARGS...]  the rows of SQL, unaligned, without header
#                                   (ct_psql DB -At -c SQL)
#
# Clusters.  A cluster is a folder DIR: its data in DIR/data, its Unix
# socket in DIR (PGHOST=DIR), its log DIR/server.log.  DIR must be reachable
# by the cluster's owner: put it under CT_TMP (ct_make_tmp).  The owner is
# postgres when we are root (initdb and the server refuse root), else us.
#   ct_cluster_init DIR [SETTING...]   initdb, then the configuration: socket
#                   only, port CT_PORT, fsync off, 8 worker processes, then
#                   each SETTING, a postgresql.conf line such as
#                   "shared_preload_libraries = 'pg_cron'" (later lines win)
#   ct_cluster_start DIR [SETTING...]  starts it (ct_cluster_init first when
#                   DIR/data is not there); it is stopped at exit
#   ct_cluster_ctl DIR PG_CTL-ARGS...  pg_ctl on it as its owner (restart,
#                   -m fast stop, ...)
#   ct_on DIR CMD...  runs CMD with the cluster of DIR as libpq's default
#                   server (PGHOST, PGPORT, PGUSER=postgres)
#   ct_as_pg CMD... runs CMD as the clusters' owner
#
# Scratch and exit:
#   ct_make_tmp     makes CT_TMP, the throwaway folder (the clusters' owner's),
#                   removed at exit
#   ct_createdb DB  a new empty database on PGHOST's cluster (dropped first
#                   when left over from an earlier run), dropped at exit
#   ct_at_exit COMMAND   runs COMMAND (a string, by eval) at exit, after the
#                   databases are dropped and before the clusters stop; its
#                   failure is ignored
#   ct_keep         at exit, leaves the clusters running and CT_TMP in place
#   fail MESSAGE [LOGFILE]  prints "NAME: MESSAGE" (NAME: CT_NAME, by
#                   default the script's name) and the log's tail on
#                   stderr; exits 1
#
# A script test (test/t_*.sh) starts with
#   set -euo pipefail
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#   ct_script_init
# which needs the runner's cluster (test/run.sh test, or test/run.sh shell
# test/t_NAME.sh for one alone; --no-cluster for a script that does not use
# it), makes CT_TMP, sets client_min_messages to warning for every session
# (PGOPTIONS) and the scripts' short names: repo (CT_REPO), shared
# (CALLTREE_SHARED) and work (CT_TMP).  ct_use_go readies go in it.
# The runner's own steps: ct_ensure_packages, ct_build, ct_install.

CT_NAME=${CT_NAME:-$(basename "$0" .sh)}
if [ -n "${CT_PG_ROOT:-}" ]; then
	PG_BIN=$CT_PG_ROOT/lib/postgresql/15/bin
fi
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_CONFIG="$PG_BIN/pg_config"
export PG_BIN PG_CONFIG
CT_PORT=${CT_PORT:-54329}
CT_PACKAGES=(postgresql-15 postgresql-server-dev-15 postgresql-15-cron zlib1g-dev libdeflate-dev make gcc chromium golang-go gzip python3 clang-14 libclang-rt-14-dev libmicrohttpd-dev libpq-dev protobuf-compiler python3-protobuf python3-scipy curl openjdk-17-jdk-headless nodejs)
CT_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CALLTREE_SHARED=${CALLTREE_SHARED:-$CT_REPO/../shared}
CALLTREE_SHARED=$(cd "$CALLTREE_SHARED" 2>/dev/null && pwd || echo "$CALLTREE_SHARED")
export CALLTREE_SHARED

CT_TMP=""
CT_CLUSTERS=()
CT_DATABASES=()
CT_EXIT_COMMANDS=()
CT_KEEP=0

ct_say() { printf '%s\n' "$*"; }

fail() {
	printf '%s: %s\n' "$CT_NAME" "$1" >&2
	if [ $# -gt 1 ] && [ -s "$2" ]; then
		printf -- '--- last lines of %s ---\n' "$2" >&2
		tail -n 40 "$2" >&2
	fi
	exit 1
}

ct_is_root() { [ "$(id -u)" -eq 0 ]; }

# The machine, for a benchmark's report: its CPUs and their model (a rate
# measured on one CPU model says little of another), and the load average.
ct_loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'; }
ct_machine() {
	local model
	model=$(awk -F': ' '/^model name/ { n = $2 } /^cpu family/ { f = $2 } /^model\t/ { m = $2 }
		END { if (n != "") printf "%s, family %s model %s", n, f, m }' /proc/cpuinfo 2>/dev/null)
	printf '%s CPUs (%s), load average %s' "$(nproc 2>/dev/null || echo '?')" "${model:-model unknown}" "$(ct_loadavg)"
}

# ---------------------------------------------------------------- psql
ct_psql() {
	local db=$1
	shift
	"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"
}

ct_query() {
	local db=$1 sql=$2
	shift 2
	ct_psql "$db" -At -c "$sql" "$@"
}

# ---------------------------------------------------------------- scratch and exit
ct_make_tmp() {
	[ -z "$CT_TMP" ] || return 0
	CT_TMP=$(mktemp -d "${TMPDIR:-/tmp}/calltree.XXXXXX")
	if ct_is_root; then
		id -u postgres >/dev/null 2>&1 ||
			useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/bash postgres
		chown postgres: "$CT_TMP"
	fi
}

ct_createdb() {
	"$PG_BIN/dropdb" --if-exists "$1" >/dev/null
	"$PG_BIN/createdb" "$1"
	CT_DATABASES+=("$1")
}

ct_at_exit() { CT_EXIT_COMMANDS+=("$1"); }

ct_keep() { CT_KEEP=1; }

# Silent: it runs from the EXIT trap, after the last line was printed.
ct_cleanup() {
	local db command dir
	# --force: a session still open (a receiver, a background psql, killed
	# only by the exit commands below) no longer keeps the database, nor
	# with it the roles its grants name, for the next run
	for db in ${CT_DATABASES[@]+"${CT_DATABASES[@]}"}; do
		"$PG_BIN/dropdb" --if-exists --force "$db" >/dev/null 2>&1 || true
	done
	CT_DATABASES=()
	for command in ${CT_EXIT_COMMANDS[@]+"${CT_EXIT_COMMANDS[@]}"}; do
		eval "$command" >/dev/null 2>&1 || true
	done
	CT_EXIT_COMMANDS=()
	[ "$CT_KEEP" = 0 ] || return 0
	for dir in ${CT_CLUSTERS[@]+"${CT_CLUSTERS[@]}"}; do
		if [ -f "$dir/data/postmaster.pid" ]; then
			ct_cluster_ctl "$dir" -m fast stop >/dev/null 2>&1 || true
		fi
	done
	CT_CLUSTERS=()
	if [ -n "$CT_TMP" ]; then
		rm -rf "$CT_TMP"
		CT_TMP=""
	fi
}
trap ct_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- clusters
ct_as_pg() {
	if ct_is_root; then
		(cd "${CT_TMP:-/}" && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

ct_cluster_init() {
	local dir=$1 setting
	shift
	ct_as_pg mkdir -p "$dir"
	ct_as_pg "$PG_BIN/initdb" -D "$dir/data" --auth=trust -U postgres --no-sync \
		-E UTF8 --locale=C >"$dir/initdb.log" 2>&1 ||
		fail "initdb of $dir failed" "$dir/initdb.log"
	{
		cat <<-EOF

			# a throwaway cluster of test/lib.sh
			listen_addresses = ''
			unix_socket_directories = '$dir'
			port = $CT_PORT
			fsync = off
			max_worker_processes = 8
			max_parallel_workers_per_gather = 2
		EOF
		for setting in "$@"; do
			printf '%s\n' "$setting"
		done
	} >>"$dir/data/postgresql.conf"
}

ct_cluster_start() {
	local dir=$1
	[ -d "$dir/data" ] || ct_cluster_init "$@"
	ct_cluster_ctl "$dir" start >/dev/null 2>&1 ||
		fail "the server of $dir did not start" "$dir/server.log"
	CT_CLUSTERS+=("$dir")
}

# -c: a server process that crashes leaves a core file in the data
# directory where the kernel writes one there, for ct_crash_report.
ct_cluster_ctl() {
	local dir=$1 cores=() arg
	shift
	for arg in "$@"; do
		case "$arg" in start | restart) cores=(-c) ;; esac
	done
	ct_as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 "$@" ${cores[@]+"${cores[@]}"}
}

# ct_crash_report DIR [FROM-LINE]: what the server of DIR logged of a
# server process that died (signal, PANIC), from line FROM-LINE of its log,
# and the stack of each core file it left (gdb, when installed).  A crash
# ends every session of the cluster, so the test that fails is not always
# the one that crashed it: this names the statement that did.
ct_crash_report() {
	local dir=$1 from=${2:-1} core
	[ -f "$dir/server.log" ] || return 0
	tail -n +"$from" "$dir/server.log" |
		grep -E -A2 'terminated by signal|was terminated by exception|PANIC:' |
		head -n 30 || true
	for core in "$dir"/data/core*; do
		[ -f "$core" ] || continue
		echo "--- stack of $(basename "$core") ---"
		if command -v gdb >/dev/null 2>&1; then
			gdb -batch -nx -ex 'bt 30' "$PG_BIN/postgres" "$core" 2>/dev/null | grep -E '^#' | awk '!seen[$0]++' | head -n 30 || true
		else
			echo "(gdb is not installed)"
		fi
		rm -f "$core"
	done
}

ct_on() {
	local dir=$1
	shift
	PGHOST=$dir PGPORT=$CT_PORT PGUSER=postgres "$@"
}

# ---------------------------------------------------------------- script tests
# shellcheck disable=SC2120  # --no-cluster is optional
ct_script_init() {
	if [ "${1:-}" != --no-cluster ] && [ -z "${PGHOST:-}" ]; then
		fail "run me from test/run.sh (test, or shell $0): PGHOST, PGPORT and PGUSER are needed"
	fi
	ct_make_tmp
	export PGOPTIONS="-c client_min_messages=warning"
	# shellcheck disable=SC2034  # the scripts' short names
	repo=$CT_REPO shared=$CALLTREE_SHARED work=$CT_TMP
}

# go with a writable cache and home in the scratch folder, also when HOME
# is not ours; fails when go is not installed.
ct_use_go() {
	export GOCACHE="$CT_TMP/gocache" GOPATH="$CT_TMP/gopath" HOME="$CT_TMP" GOFLAGS=-mod=mod GOTOOLCHAIN=local
	command -v go >/dev/null 2>&1 || fail "go is not installed (Debian package golang-go)"
}

# ---------------------------------------------------------------- the runner's steps
ct_ensure_packages() {
	local missing=() p
	for p in "${CT_PACKAGES[@]}"; do
		dpkg -s "$p" 2>/dev/null | grep -qx 'Status: install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		ct_say "packages: all present"
		return
	fi
	ct_is_root || fail "missing packages: ${missing[*]}; install them as root (apt-get install ${missing[*]}) or run this as root"
	ct_say "packages: installing ${missing[*]}"
	local log
	log=$(mktemp)
	if ! { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
		fail "apt-get failed" "$log"
	fi
	rm -f "$log"
}

# ct_build [MAKE-ARGS...]: build the extension (log in CT_TMP), a make job
# per core (a clean clone's build took 48 s on 2 cores so, 84 s serially).
ct_build() {
	local log="$CT_TMP/build.log"
	make -j"$(nproc)" -C "$CT_REPO" PG_CONFIG="$PG_CONFIG" "$@" >"$log" 2>&1 ||
		fail "build failed (make $*)" "$log"
	ct_say "build: ok${*:+ ($*)}"
}

ct_install() {
	local log="$CT_TMP/install.log" sudo=()
	if ! ct_is_root && command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
	fi
	"${sudo[@]}" make -C "$CT_REPO" PG_CONFIG="$PG_CONFIG" install >"$log" 2>&1 ||
		fail "make install failed${sudo[*]:+ (with sudo)}" "$log"
	ct_say "install: ok ($("$PG_CONFIG" --pkglibdir))"
}
