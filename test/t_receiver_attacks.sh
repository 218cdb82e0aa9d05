#!/usr/bin/env bash
# calltree-receiver against an attacker and a demanding operator: each
# part is a way a running receiver was broken, which failed before its fix.
# - A Push gzipped in two members (as gzip -c a b, pigz): both stored, not
#   the first alone answered 200; bytes after the last member: 400.
# - A query parameter with a NUL (%00): 400, not cut short where it is.
# - Clients that dribble their headers, a byte a second: dropped after
#   --request-timeout, as a slow body is, so that --max-clients of them no
#   longer lock out every other client.
# - More clients than select() takes (1,024 descriptors): --max-clients
#   of them served.
# - SIGHUP: the tenants file read again (a bad one keeps the old), not
#   the receiver killed with its pushes in flight.
# - SIGTERM while a push waits in the database past --drain-timeout: the
#   push canceled (503, nothing stored), the receiver gone in time, not
#   waiting for the push and committing it after it said it stopped.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_receiver_attacks
receiver=$PG_BIN/calltree-receiver
[ -x "$receiver" ] || fail "$receiver is not installed (make install)"
pprof=$shared/data/pprof/sample.cpu
export PGDATABASE=$db
# shellcheck source=test/receiver_lib.sh
. "$repo/test/receiver_lib.sh"

stored() { ct_query "" "SELECT count(*) FROM calltree.profile WHERE name = '$1'"; }

ct_createdb "$db"
ct_query "" 'CREATE EXTENSION calltree'
start_receiver url --dbname "dbname=$db" --max-body 200000

# ---------------------------------------------------------------- gzip members
pushreq() { python3 "$repo/test/receiver_push.py" "$@"; }
pushreq --series 'service_name=member1' --sample "$pprof:m-1" >"$work/member1"
pushreq --series 'service_name=member2' --sample "$pprof:m-2" >"$work/member2"
{ gzip -c "$work/member1"; gzip -c "$work/member2"; } >"$work/members.gz"
expect "a Push of two gzip members" "$(post "$url/push.v1.PusherService/Push" -H 'Content-Type: application/proto' \
	-H 'Content-Encoding: gzip' --data-binary "@$work/members.gz")" 200
expect "a Push of two gzip members: both stored" "$(stored member1) $(stored member2)" "1 1"
pushreq --series 'service_name=trailing' --sample "$pprof:t-1" | gzip -c >"$work/trailing.gz"
echo garbage >>"$work/trailing.gz"
expect "a gzipped Push with bytes after its member" "$(post "$url/push.v1.PusherService/Push" -H 'Content-Type: application/proto' \
	-H 'Content-Encoding: gzip' --data-binary "@$work/trailing.gz")" 400
grep -q 'not valid gzip' "$work/body" || fail "a gzipped Push with bytes after its member: $(cat "$work/body")"
expect "a gzipped Push with bytes after its member: nothing stored" "$(stored trailing)" 0
