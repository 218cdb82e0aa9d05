# shellcheck shell=bash
# What the script tests (test/t_*.sh) share: the cluster test/run.sh started
# (PGHOST, PGPORT, PGUSER, PG_BIN), a scratch folder, scratch databases
# dropped at exit, and fail().
#
# Source it right after `set -euo pipefail`.  It sets:
#   PG_BIN  the PostgreSQL programs (default: Debian's 15)
#   repo    the repository
#   shared  the real profiles of other tools (CALLTREE_SHARED, default
#           ../shared beside the repository), absolute
#   work    a scratch folder, removed at exit
# and defines fail MESSAGE, t_createdb DB, t_at_exit COMMAND and t_use_go.
# shellcheck disable=SC2034  # the variables are for the scripts

: "${PGHOST:?run me from test/run.sh test (PGHOST, PGPORT, PGUSER are needed)}"
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared=$(cd "${CALLTREE_SHARED:-$repo/../shared}" 2>/dev/null && pwd || echo "${CALLTREE_SHARED:-$repo/../shared}")
work=$(mktemp -d)
export PGOPTIONS="-c client_min_messages=warning"

t_name=$(basename "$0" .sh)
t_databases=()
t_exit_commands=()

# fail MESSAGE: the script's name and the message on stderr; exit 1.
fail() {
	echo "$t_name: $*" >&2
	exit 1
}

# t_createdb DB: a new empty database DB (dropped first if left over from
# an earlier run), dropped again at exit.
t_createdb() {
	"$PG_BIN/dropdb" --if-exists "$1" >/dev/null
	"$PG_BIN/createdb" "$1"
	t_databases+=("$1")
}

# t_at_exit COMMAND: run COMMAND (a string, by eval) at exit, after the
# databases are dropped (a role can be dropped then); its failure is ignored.
t_at_exit() {
	t_exit_commands+=("$1")
}

t_cleanup() {
	local command db
	for db in ${t_databases[@]+"${t_databases[@]}"}; do
		"$PG_BIN/dropdb" --if-exists "$db" >/dev/null 2>&1 || true
	done
	for command in ${t_exit_commands[@]+"${t_exit_commands[@]}"}; do
		eval "$command" >/dev/null 2>&1 || true
	done
	rm -rf "$work"
}
trap t_cleanup EXIT

# t_use_go: go with a writable cache and home in the scratch folder, also
# when HOME is not ours; fails when go is not installed.
t_use_go() {
	export GOCACHE="$work/gocache" GOPATH="$work/gopath" HOME="$work" GOFLAGS=-mod=mod GOTOOLCHAIN=local
	command -v go >/dev/null 2>&1 || fail "go is not installed (Debian package golang-go)"
}
