#!/usr/bin/env bash
# calltree-receiver against an attacker and a demanding operator: each
# part is a way a running receiver was broken, which failed before its fix.
# - A Push gzipped in two members (as gzip -c a b, pigz): both stored, not
#   the first alone answered 200; bytes after the last member: 400.
# - A query parameter with a NUL (%00): 400, not cut short where it is.
# - A path with %0a: no line of its own in the --verbose log.
# - Clients that dribble their headers, a line a second: dropped after
#   --request-timeout, as a slow body is, so that --max-clients of them no
#   longer lock out every other client.
# - More clients than select() takes (1,024 descriptors): --max-clients
#   of them served.
# - One address opening --max-clients connections: only
#   --max-clients-per-address of them taken, another address served.
# - Two Content-Lengths that differ, or one beside a Transfer-Encoding,
#   or a bare CR inside a header line: 400, not the first length read and
#   the rest taken for the next request.
# - A chunked body past --max-body: 413 as it passes it and the connection
#   closed, not read to its end.
# - Every connection PostgreSQL allows taken: 503 with Retry-After, and
#   pushes stored again once one is free.
# - A lock not had within lock_timeout, a server made read-only: 503,
#   which agents retry, not 500.
# - A credential mapped to a role that does not exist: 403, not 400.
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
# hold_profile SECONDS: a session holding calltree.profile locked that long, in the background
hold_profile() {
	ct_query "" 'BEGIN' -c 'LOCK TABLE calltree.profile IN ACCESS EXCLUSIVE MODE' -c "SELECT pg_sleep($1)" -c 'COMMIT' >/dev/null &
	holder=$!
	sleep 0.3
}

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

# ---------------------------------------------------------------- query parameters
# A NUL (%00) in a parameter: 400, not the name or spyName cut short there
# (as a C string ends) and the push stored under what came before it
for query in 'name=nul%00x&format=pprof' 'name=nul&format=pprof&spyName=a%00b' 'name=nul&format=pprof&x%00y=1'; do
	expect "a NUL in the query: $query" "$(post "$url/ingest?$query" --data-binary "@$pprof")" 400
	grep -q 'holds a NUL byte (%00)' "$work/body" || fail "a NUL in the query: $query: $(cat "$work/body")"
done
expect "a NUL in the query: nothing stored" "$(stored nul)" 0

# ---------------------------------------------------------------- the log
# --verbose logs each request's method and path: one with %0a in its path
# writes no line of its own (a forged entry), nor an escape sequence
start_receiver vurl --dbname "dbname=$db" --verbose
expect "a path with a line of its own" "$(post "$vurl/ingest%0a2001-01-01%2000:00:00%20UTC%20calltree-receiver:%20forged%1b[31m" --data-binary x)" 404
grep -q '^2001-01-01' "$work/receiver.log" && fail "a client wrote a line of the log: $(grep -A1 -B1 '^2001-01-01' "$work/receiver.log")"
grep -qF 'POST /ingest\x0a2001-01-01 00:00:00 UTC calltree-receiver: forged\x1b[31m: 404' "$work/receiver.log" ||
	fail "the request is not logged with its control bytes escaped: $(tail -n 3 "$work/receiver.log")"

# ---------------------------------------------------------------- slow clients
# --max-clients clients send their headers a line a second: the receiver
# drops them after --timeout + --request-timeout (5 s), and a client
# refused meanwhile (every connection taken) is served then, not after
# they finish (15 s).
start_receiver surl --dbname "dbname=$db" --max-clients 4 --timeout 2 --request-timeout 3
expect "clients dribbling their headers" "$(python3 - "${surl##*:}" <<'PY'
import socket, sys, threading, time
port = int(sys.argv[1])
start = time.monotonic()
dropped = []

def dribble():
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /ingest?name=slow HTTP/1.1\r\nHost: x\r\n")
    try:
        for i in range(15):
            time.sleep(1)
            s.sendall(b"X-Slow-%d: y\r\n" % i)
        dropped.append(None)
    except OSError:
        dropped.append(time.monotonic() - start)

slow = [threading.Thread(target=dribble) for _ in range(4)]
for t in slow:
    t.start()
reply = b""
while not reply and time.monotonic() - start < 20:
    time.sleep(0.5)
    try:  # refused while every connection is taken
        s = socket.create_connection(("127.0.0.1", port), timeout=20)
        s.sendall(b"GET /ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        reply = s.recv(100)
    except OSError:
        pass
served = time.monotonic() - start
for t in slow:
    t.join()
late = [d for d in dropped if d is None or d > 10]
print(f"served {reply[:12]!r} within 7 s" if served < 7 and not late else
      f"served {reply[:12]!r} after {served:.1f} s; dropped after {dropped}")
PY
)" "served b'HTTP/1.1 200' within 7 s"
grep -q 'dropped a client that took over 3 s to send its request' "$work/receiver.log" ||
	fail "the slow clients' drop is not logged: $(tail -n 5 "$work/receiver.log")"

# The watchdog cuts requests being sent, not pushes being imported: one
# that waits for a lock past --request-timeout is answered; nor a client
# that keeps its connection open between pushes, idle for longer than
# --request-timeout but within --timeout.
start_receiver lurl --dbname "dbname=$db" --request-timeout 1 --timeout 4
hold_profile 2.5
expect "a push waiting in the database past --request-timeout" "$(post "$lurl/ingest?name=waited&format=pprof" --data-binary "@$pprof") $(stored waited)" "200 1"
wait "$holder"
expect "pushes on one connection, 2 s apart" "$(python3 - "${lurl##*:}" "$pprof" <<'PY'
import http.client, sys, time
conn = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
body = open(sys.argv[2], "rb").read()
statuses = []
for i in range(2):
    if i:
        time.sleep(2)
    conn.request("POST", f"/ingest?name=kept&format=pprof&from={1700000000 + i}", body)
    reply = conn.getresponse()
    reply.read()
    statuses.append(reply.status)
print(*statuses)
PY
) $(stored kept)" "200 200 2"

# ---------------------------------------------------------------- many clients
# 1,100 clients at once, past select()'s 1,024 descriptors: served, the
# receiver raising its limit of open files to what --max-clients needs
# (the hard limit allowing it)
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 1300 ] || fail "ulimit -Hn is $(ulimit -Hn): 1,300 files are needed"
start_receiver murl --dbname "dbname=$db" --max-clients 1200 --max-clients-per-address 1200 --timeout 60 --request-timeout 60
expect "1,100 clients at once" "$(python3 - "${murl##*:}" <<'PY'
import resource, socket, sys
port = int(sys.argv[1])
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (1300 if hard == resource.RLIM_INFINITY else min(hard, 1300), hard))
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(1099)]
s = socket.create_connection(("127.0.0.1", port), timeout=10)
try:
    s.sendall(b"GET /ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    print(s.recv(100)[:12])
except OSError as e:
    print(e)
PY
)" "b'HTTP/1.1 200'"
kill -TERM "$murl_pid"
wait "$murl_pid" || fail "the receiver of 1,100 clients exited with status $? on SIGTERM"

# One address holding --max-clients-per-address (2) connections: its
# third is closed unanswered, while a client from another address
# (127.0.0.2, loopback too) is served; --max-clients is not reached.
start_receiver purl --dbname "dbname=$db" --max-clients 8 --max-clients-per-address 2 --timeout 20
expect "one address past --max-clients-per-address" "$(python3 - "${purl##*:}" <<'PY'
import socket, sys, time
port = int(sys.argv[1])

def ready(source):
    s = socket.socket()
    s.settimeout(10)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    try:
        s.sendall(b"GET /ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return s.recv(100)[:12] or b"closed"
    except OSError:
        return b"closed"

idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
time.sleep(0.3)
print(ready("127.0.0.1"), ready("127.0.0.2"))
PY
)" "b'closed' b'HTTP/1.1 200'"
grep -q '^ *--max-clients-per-address N .*(default 16)' <("$receiver" --help) || fail "--help does not name --max-clients-per-address's default"

# ---------------------------------------------------------------- request framing
# raw REQUEST...: each request sent alone on a connection; the status
# line's code of each reply, or "closed"
raw() {
	python3 - "${url##*:}" "$@" <<'PY'
import socket, sys
port = int(sys.argv[1])
codes = []
for request in sys.argv[2:]:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(request.encode().decode("unicode_escape").encode("latin-1"))
    reply = s.recv(100)
    codes.append(reply.split(b" ")[1].decode() if reply else "closed")
print(*codes)
PY
}
# Two Content-Lengths that differ (one reads a profile of a line, the
# other of two, the rest of which would be the next request), and one
# beside a Transfer-Encoding: 400, nothing stored.  Two that agree: stored.
folded='POST /ingest?name=NAME&format=folded HTTP/1.1\r\nHost: x\r\nConnection: close\r\n'
expect "ambiguous lengths" "$(raw "${folded/NAME/twolengths}Content-Length: 6\r\nContent-Length: 10\r\n\r\na;b 1\nc 1\n" \
	"${folded/NAME/chunkedlength}Content-Length: 6\r\nTransfer-Encoding: chunked\r\n\r\n6\r\na;b 1\n\r\n0\r\n\r\n" \
	"${folded/NAME/samelengths}Content-Length: 6\r\nContent-Length: 6\r\n\r\na;b 1\n") $(stored twolengths) $(stored chunkedlength) $(stored samelengths)" \
	"400 400 200 0 0 1"
# A bare carriage return inside a header line: libmicrohttpd reads one
# header (Connection) and the body of 6 bytes; a proxy ending lines at the
# CR reads a Content-Length of 99.  400, nothing stored.
expect "a bare CR in a header line" "$(raw "${folded/NAME/barecr}Connection: close\rContent-Length: 99\r\nContent-Length: 6\r\n\r\na;b 1\n") $(stored barecr)" \
	"400 0"

# A chunked body past --max-body (200000): 413 once it passes it, the
# connection closed, not read to its end (4 MB, a chunk of 4 kB a
# millisecond) before the refusal
expect "a chunked body past --max-body" "$(python3 - "${url##*:}" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"POST /ingest?name=chunked&format=pprof HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
sent = 0
try:
    while sent < 4 << 20:
        s.sendall(b"1000\r\n" + b"x" * 4096 + b"\r\n")
        sent += 4096
        time.sleep(0.001)
except OSError:
    pass
try:
    reply = s.recv(100)[:12]
except OSError as e:
    reply = str(e).encode()
print(reply, "refused within 1 MB" if sent < 1 << 20 else f"refused after {sent} bytes")
PY
)" "b'HTTP/1.1 413' refused within 1 MB"
expect "a push after the chunked body" "$(post "$url/ingest?name=afterchunked&format=pprof" --data-binary "@$pprof") $(stored chunked)" "200 0"

# ---------------------------------------------------------------- every database connection taken
# PostgreSQL refuses a connection past its limits (max_connections, or
# a role's or database's CONNECTION LIMIT, here a role's of 1) with
# SQLSTATE 53300: the push gets 503 with Retry-After, which agents retry,
# and is stored once a connection is free again.
few=calltree_attacks_few
ct_at_exit "ct_query postgres 'DROP ROLE IF EXISTS $few'"
ct_query postgres "CREATE ROLE $few LOGIN CONNECTION LIMIT 1" -c "GRANT postgres TO $few" >/dev/null
echo "bearer tok-few postgres" >"$work/few"
start_receiver furl --dbname "dbname=$db user=$few" --connections 1 --tenants "$work/few"
ct_query "" "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '$few'" >/dev/null
sleep 0.3
PGUSER=$few ct_query "" 'SELECT pg_sleep(2)' >/dev/null &
holder=$!
sleep 0.5
expect "a push with every connection taken" "$(post "$furl/ingest?name=few&format=pprof" -H 'Authorization: Bearer tok-few' --data-binary "@$pprof") $(stored few)" "503 0"
grep -qi '^Retry-After: [0-9]' "$work/headers" || fail "a 503 without Retry-After: $(cat "$work/headers")"
grep -q 'too many connections' "$work/body" || fail "a push with every connection taken: $(cat "$work/body")"
wait "$holder"
sleep 1.1
expect "the push once a connection is free" "$(post "$furl/ingest?name=few&format=pprof" -H 'Authorization: Bearer tok-few' --data-binary "@$pprof") $(stored few)" "200 1"

# ---------------------------------------------------------------- a database that will not write
# A lock not had within lock_timeout, and a server made read-only
# (default_transaction_read_only, as for maintenance): 503 with
# Retry-After, which agents retry, not 500, after which they drop the push
start_receiver wurl --dbname "dbname=$db options='-c lock_timeout=200'"
hold_profile 2
expect "a lock not had within lock_timeout" "$(post "$wurl/ingest?name=locked&format=pprof" --data-binary "@$pprof")" 503
grep -qi '^Retry-After: [0-9]' "$work/headers" || fail "a 503 without Retry-After: $(cat "$work/headers")"
wait "$holder"
ct_at_exit "ct_query postgres 'ALTER SYSTEM RESET default_transaction_read_only' -c 'SELECT pg_reload_conf()'"
ct_query postgres 'ALTER SYSTEM SET default_transaction_read_only = on' -c 'SELECT pg_reload_conf()' >/dev/null
sleep 0.5
expect "a push to a read-only server" "$(post "$wurl/ingest?name=readonly&format=pprof" --data-binary "@$pprof")" 503
grep -q 'read-only transaction' "$work/body" || fail "a push to a read-only server: $(cat "$work/body")"
ct_query postgres 'ALTER SYSTEM RESET default_transaction_read_only' -c 'SELECT pg_reload_conf()' >/dev/null
sleep 0.5
expect "the push once the server writes again" "$(post "$wurl/ingest?name=readonly&format=pprof" --data-binary "@$pprof") $(stored readonly)" "200 1"

# ---------------------------------------------------------------- a tenant without a role
# A credential mapped to a role that does not exist (the operator's slip):
# 403, as for a role the login role may not take, not 400, which told the
# agent its push was bad
echo 'bearer tok-ghost calltree_attacks_no_such_role' >"$work/ghost"
start_receiver gurl --dbname "dbname=$db" --tenants "$work/ghost"
expect "a tenant whose role does not exist" "$(post "$gurl/ingest?name=ghost&format=pprof" -H 'Authorization: Bearer tok-ghost' --data-binary "@$pprof")" 403
grep -q 'role "calltree_attacks_no_such_role" does not exist' "$work/body" || fail "a tenant whose role does not exist: $(cat "$work/body")"
expect "a tenant whose role does not exist: nothing stored" "$(stored ghost)" 0

# ---------------------------------------------------------------- SIGHUP
# The tenants file read again: a push in flight meanwhile is answered and
# stored, the old credential refused after it, the new one taken; a file
# with a fault leaves the tenants as they were.  (The login role, a
# superuser, may take the role postgres for each tenant.)
echo 'bearer tok-old postgres' >"$work/tenants"
start_receiver hurl --dbname "dbname=$db" --tenants "$work/tenants"
hold_profile 2
post "$hurl/ingest?name=inflight&format=pprof" -H 'Authorization: Bearer tok-old' --data-binary "@$pprof" -o /dev/null >"$work/inflight" &
pusher=$!
sleep 0.3
echo 'bearer tok-new postgres' >"$work/tenants"
kill -HUP "$hurl_pid"
wait "$pusher" "$holder"
expect "a push in flight on SIGHUP" "$(cat "$work/inflight") $(stored inflight)" "200 1"
expect "the old token after SIGHUP" "$(post "$hurl/ingest?name=old&format=pprof" -H 'Authorization: Bearer tok-old' --data-binary "@$pprof")" 401
expect "the new token after SIGHUP" "$(post "$hurl/ingest?name=new&format=pprof" -H 'Authorization: Bearer tok-new' --data-binary "@$pprof")" 200
echo 'bearer tok-bad' >"$work/tenants"
kill -HUP "$hurl_pid"
sleep 0.3
expect "the new token after a SIGHUP with a bad file" "$(post "$hurl/ingest?name=new2&format=pprof" -H 'Authorization: Bearer tok-new' --data-binary "@$pprof")" 200
grep -q 'SIGHUP: 1 credentials in' "$work/receiver.log" || fail "the reload is not logged: $(tail -n 5 "$work/receiver.log")"
grep -q 'not read again' "$work/receiver.log" || fail "the bad file is not logged: $(tail -n 5 "$work/receiver.log")"
kill -TERM "$hurl_pid"
wait "$hurl_pid" || fail "the receiver exited with status $? on SIGTERM after SIGHUP"

# ---------------------------------------------------------------- SIGTERM
# A push waiting for a lock past --drain-timeout (1 s): canceled, 503,
# nothing stored, and the receiver gone within a few seconds, not once
# the lock is released (8 s) with the push committed after it stopped.
start_receiver durl --dbname "dbname=$db" --drain-timeout 1
hold_profile 8
post "$durl/ingest?name=stuck&format=pprof" --data-binary "@$pprof" -o /dev/null >"$work/stuck" &
pusher=$!
sleep 0.5
SECONDS=0
kill -TERM "$durl_pid"
wait "$durl_pid" || fail "the receiver exited with status $? on SIGTERM with a push stuck"
stopped_after=$SECONDS
wait "$pusher" "$holder"
expect "SIGTERM with a push stuck: its answer, what is stored, the receiver gone within 5 s" \
	"$(cat "$work/stuck") $(stored stuck) $((stopped_after < 5))" "503 0 1"
