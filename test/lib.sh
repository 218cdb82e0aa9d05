# shellcheck shell=bash
# Helpers shared by test/run.sh and the test scripts: packages, build and
# install, and a throwaway PostgreSQL 15 cluster that is always stopped.
#
# Source it from a bash script running under `set -euo pipefail`.  Before
# calling ct_cluster_start, install the trap:  trap ct_cleanup EXIT

# CT_PG_ROOT: a copy of PostgreSQL's installation to build into and run
# (lib/postgresql/15, share/postgresql/15 and include/postgresql copied
# under one folder; PostgreSQL finds its files relative to its programs),
# so that several checkouts can run their tests at once.  Default: Debian's.
PG_BIN=${CT_PG_ROOT:+$CT_PG_ROOT/lib/postgresql/15/bin}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
PG_CONFIG="$PG_BIN/pg_config"
# shellcheck disable=SC2034  # used by the scripts that source this file
PGXS_DIR=$(dirname "$PG_BIN")/lib/pgxs
CT_PORT=${CT_PORT:-54329}
CT_PACKAGES=(postgresql-15 postgresql-server-dev-15 postgresql-15-cron libipc-run-perl zlib1g-dev make gcc chromium golang-go gzip python3 clang-14 libclang-rt-14-dev libmicrohttpd-dev libpq-dev protobuf-compiler python3-protobuf curl openjdk-17-jdk-headless)
export PG_BIN

CT_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The real profiles of other tools, beside the repository (tests read them
# with pg_read_file, so the path must be absolute and readable by postgres).
CALLTREE_SHARED=$(cd "$CT_REPO/../shared" 2>/dev/null && pwd || echo "$CT_REPO/../shared")
export CALLTREE_SHARED
CT_TMP=""             # the throwaway folder: data dir, sockets, logs
CT_CLUSTER_UP=0

ct_say() { printf '%s\n' "$*"; }

# ct_die MESSAGE [LOGFILE]: print the message (and the log's tail), exit 1.
ct_die() {
	printf 'error: %s\n' "$1" >&2
	if [ $# -gt 1 ] && [ -s "$2" ]; then
		printf -- '--- last lines of %s ---\n' "$2" >&2
		tail -n 40 "$2" >&2
	fi
	exit 1
}

ct_is_root() { [ "$(id -u)" -eq 0 ]; }

# Run a command as the cluster's owner: postgres when we are root (initdb
# and the server refuse to run as root), ourselves otherwise.
ct_as_pg() {
	if ct_is_root; then
		(cd "$CT_TMP" && runuser -u postgres -- "$@")
	else
		"$@"
	fi
}

ct_ensure_packages() {
	local missing=() p
	for p in "${CT_PACKAGES[@]}"; do
		dpkg -s "$p" 2>/dev/null | grep -qx 'Status: install ok installed' || missing+=("$p")
	done
	if [ ${#missing[@]} -eq 0 ]; then
		ct_say "packages: all present"
		return
	fi
	ct_is_root || ct_die "missing packages: ${missing[*]}; install them as root (apt-get install ${missing[*]}) or run this as root"
	ct_say "packages: installing ${missing[*]}"
	local log
	log=$(mktemp)
	if ! { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
		ct_die "apt-get failed" "$log"
	fi
	rm -f "$log"
}

# ct_build [MAKE-ARGS...]: build the extension (log in the temp folder).
ct_build() {
	local log="$CT_TMP/build.log"
	make -C "$CT_REPO" PG_CONFIG="$PG_CONFIG" "$@" >"$log" 2>&1 ||
		ct_die "build failed (make $*)" "$log"
	ct_say "build: ok${*:+ ($*)}"
}

ct_install() {
	local log="$CT_TMP/install.log" sudo=()
	if ! ct_is_root && command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
	fi
	"${sudo[@]}" make -C "$CT_REPO" PG_CONFIG="$PG_CONFIG" install >"$log" 2>&1 ||
		ct_die "make install failed${sudo[*]:+ (with sudo)}" "$log"
	ct_say "install: ok ($("$PG_CONFIG" --pkglibdir))"
}

# The throwaway folder; call this first, then set the EXIT trap.
ct_make_tmp() {
	CT_TMP=$(mktemp -d "${TMPDIR:-/tmp}/calltree.XXXXXX")
	if ct_is_root; then
		id -u postgres >/dev/null 2>&1 ||
			useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/bash postgres
		chown postgres: "$CT_TMP"
	fi
}

ct_cluster_start() {
	local data="$CT_TMP/data" log="$CT_TMP/server.log"
	ct_as_pg "$PG_BIN/initdb" -D "$data" --auth=trust -U postgres --no-sync \
		-E UTF8 --locale=C >"$CT_TMP/initdb.log" 2>&1 ||
		ct_die "initdb failed" "$CT_TMP/initdb.log"
	cat >>"$data/postgresql.conf" <<-EOF

		# throwaway cluster of test/run.sh
		listen_addresses = ''
		unix_socket_directories = '$CT_TMP'
		port = $CT_PORT
		fsync = off
		max_worker_processes = 8
		max_parallel_workers_per_gather = 2
	EOF
	ct_as_pg "$PG_BIN/pg_ctl" -D "$data" -l "$log" -w -t 60 start >/dev/null 2>&1 ||
		ct_die "the server did not start" "$log"
	CT_CLUSTER_UP=1
	export PGHOST="$CT_TMP" PGPORT="$CT_PORT" PGUSER=postgres PGDATABASE=postgres
	ct_say "cluster: up (socket $CT_TMP, port $CT_PORT)"
}

# Silent: it runs from the EXIT trap, after the last line was printed.
ct_cleanup() {
	if [ "$CT_CLUSTER_UP" = 1 ]; then
		ct_as_pg "$PG_BIN/pg_ctl" -D "$CT_TMP/data" -m fast -w stop >/dev/null 2>&1 || true
		CT_CLUSTER_UP=0
	fi
	if [ -n "$CT_TMP" ]; then
		rm -rf "$CT_TMP"
		CT_TMP=""
	fi
}

# psql as scripts want it: no psqlrc, stop at the first error, quiet.
ct_psql() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
