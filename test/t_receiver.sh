#!/usr/bin/env bash
# calltree-receiver end to end: real pprof, collapsed and speedscope files
# pushed to POST /ingest (raw, gzipped, multipart) and in PushRequests to
# POST /push.v1.PusherService/Push, each stored once with the name, meta,
# start and call tree that importing the same file in SQL gives; bad
# requests of every kind refused with their status and nothing written;
# 413 over the size limit, and for a Push that decodes past it; a retried
# or concurrent Push of one sample ID stored once, and a retried push
# without one (the same request again); OTLP profiles (made
# from the pprof file by an encoder of protoc's classes) pushed to POST
# /v1development/profiles, raw and gzipped, in protobuf and in OTLP/JSON
# (written by Google's json_format), stored as import_otlp stores the
# protobuf, refusals as google.rpc.Status; a real JFR recording of the
# Pyroscope Java agent pushed with format=jfr, raw and multipart, stored as
# import_jfr stores it; tenants: credentials to roles under row-level
# security, unknown credentials refused; then the receiver's sessions
# ended, the answer to a COMMIT lost (the push looked up: 200, stored
# once), the database refusing connections (503 with Retry-After, then
# recovery), every connection busy (429), a slow client dropped, and
# SIGTERM draining a push in flight; a load of 12 clients through a
# restart of PostgreSQL and a SIGKILL of the receiver; Pyroscope's
# Node.js SDK pushing with a token; and last the JFR push with the agent's
# labels part (import_jfr's parameter labels).
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_receiver
login=calltree_receiver_login
receiver=$PG_BIN/calltree-receiver
[ -x "$receiver" ] || fail "$receiver is not installed (make install)"
pprof=$shared/data/pprof/sample.cpu
collapsed=$shared/data/speedscope-samples/stackcollapse/simple.txt
speedscope=$shared/data/speedscope-samples/speedscope/0.6.0/two-sampled.speedscope.json
export PGDATABASE=$db

# shellcheck source=test/receiver_lib.sh
. "$repo/test/receiver_lib.sh"

profiles() { ct_query "" 'SELECT count(*) FROM calltree.profile'; }

# same_tree ID ID: the two profiles have the same call tree and total
same_tree() {
	expect "tree of $1 vs $2" "$(ct_query "" "SELECT (SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = $1)
	     OPERATOR(calltree.=) (SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = $2)")" t
}

last_id() { ct_query "" 'SELECT max(id) FROM calltree.profile'; }

ct_createdb "$db"
ct_query "" 'CREATE EXTENSION calltree'
start_receiver url --dbname "dbname=$db" --max-body 200000
ingest=$url/ingest

# ---------------------------------------------------------------- good pushes
# pprof as the Go and Node.js SDKs send it: gzipped, raw in the body
expect "pprof push" "$(post "$ingest?name=shop{region=eu,host=h1}&from=1700000000&until=1700000010&format=pprof&sampleRate=100&spyName=gospy&units=samples&aggregationType=sum" \
	-H 'Content-Type: application/octet-stream' --data-binary "@$pprof")" 200
id=$(last_id)
expect "pprof push stored once" "$(profiles)" 1
expect "pprof push: name, start, meta" "$(ct_query "" "SELECT concat_ws('|', name, format, started_at = to_timestamp(1700000000),
        meta = '{\"region\": \"eu\", \"host\": \"h1\", \"spyName\": \"gospy\", \"sampleRate\": 100, \"units\": \"samples\",
                 \"aggregationType\": \"sum\", \"duration\": 10, \"sample_type\": \"cpu\"}') FROM calltree.profile WHERE id = $id")" "shop|pprof|t|t"
direct=$(ct_query "" "SELECT calltree.import_pprof(pg_read_binary_file('$pprof'), name => 'direct')")
same_tree "$id" "$direct"
expect "pprof total" "$(ct_query "" "SELECT sum(weight) FROM calltree.sample WHERE profile_id = $id")" 1760000000
# The same request again, as an agent retries a push it got no answer to
# (the receiver killed after its COMMIT, before it answered): answered 200,
# nothing written.  The same but for until is another push.
written() { ct_query "" "SELECT (SELECT count(*) FROM calltree.profile) || ' profiles, ' || (SELECT count(*) FROM calltree.sample) || ' samples'"; }
before=$(written)
expect "pprof push retried" "$(post "$ingest?name=shop{region=eu,host=h1}&from=1700000000&until=1700000010&format=pprof&sampleRate=100&spyName=gospy&units=samples&aggregationType=sum" \
	-H 'Content-Type: application/octet-stream' --data-binary "@$pprof")" 200
expect "pprof push retried: nothing written" "$(written)" "$before"
expect "pprof push with another until" "$(post "$ingest?name=shop{region=eu,host=h1}&from=1700000000&until=1700000011&format=pprof&sampleRate=100&spyName=gospy&units=samples&aggregationType=sum" \
	-H 'Content-Type: application/octet-stream' --data-binary "@$pprof")" 200
expect "pprof push with another until: stored" "$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE name = 'shop'")" 2
ct_query "" "DELETE FROM calltree.profile WHERE id = $(last_id)"
# 4 copies of one new push at once (an agent's retry while its first
# attempt still runs): stored once, each waiting for the one before
racers=()
for i in 1 2 3 4; do
	post "$ingest?name=racer&from=1700000000&until=1700000010" --data-binary "@$pprof" -o /dev/null >"$work/ingest-race.$i" &
	racers+=($!)
done
wait "${racers[@]}"
expect "concurrent copies of a push" "$(cat "$work"/ingest-race.*)|$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE name = 'racer'")" "200200200200|1"

# multipart/form-data with the part profile (and one the receiver ignores);
# from in milliseconds
expect "multipart push" "$(post "$ingest?name=shop&from=1700000000000&until=1700000015000" \
	-F "profile=@$pprof;filename=profile.pprof" -F 'sample_type_config={};filename=sample_type_config.json')" 200
id=$(last_id)
same_tree "$id" "$direct"
expect "multipart meta and start" "$(ct_query "" "SELECT meta->>'duration' || '|' || (started_at = to_timestamp(1700000000)) FROM calltree.profile WHERE id = $id")" "15|true"
# sessions whose DateStyle names a zone by an abbreviation that reads back
# as another zone's (Asia/Kolkata's IST, read as Israel's): the start the
# receiver gives the import (calltree.import_started_at) is still exact
start_receiver zurl --dbname "dbname=$db options='-c DateStyle=SQL,DMY -c TimeZone=Asia/Kolkata'"
expect "push under another DateStyle" "$(post "$zurl/ingest?name=zoned&from=1700000000123&until=1700000010000" --data-binary "@$pprof")" 200
expect "push under another DateStyle: start" "$(ct_query "" "SELECT started_at = to_timestamp(1700000000.123) FROM calltree.profile WHERE name = 'zoned'")" t
ct_query "" "DELETE FROM calltree.profile WHERE name = 'zoned'"

# collapsed stacks, as folded, as lines, and gzipped (two pushes of one
# file, the same but for their start: not one push retried)
direct=$(ct_query "" "SELECT calltree.import_collapsed(pg_read_file('$collapsed'), 'direct')")
from=1700000100
for format in folded lines; do
	from=$((from + 10))
	expect "$format push" "$(post "$ingest?name=app.cpu{pod=p1}&format=$format&from=$from" --data-binary "@$collapsed")" 200
	same_tree "$(last_id)" "$direct"
done
gzip -c "$collapsed" >"$work/collapsed.gz"
expect "gzipped folded push" "$(post "$ingest?name=app.cpu&format=folded" --data-binary "@$work/collapsed.gz")" 200
same_tree "$(last_id)" "$direct"
expect "collapsed meta" "$(ct_query "" "SELECT string_agg(name || ' ' || format || ' ' || meta::text, ', ' ORDER BY id) FROM calltree.profile WHERE name = 'app.cpu'")" \
	'app.cpu collapsed {"pod": "p1"}, app.cpu collapsed {"pod": "p1"}, app.cpu collapsed {}'

# speedscope
direct=$(ct_query "" "SELECT calltree.import_speedscope(pg_read_file('$speedscope'), 'direct')")
expect "speedscope push" "$(post "$ingest?name=web&format=speedscope" --data-binary "@$speedscope")" 200
same_tree "$(last_id)" "$direct"
ct_query "" "DELETE FROM calltree.profile WHERE name = 'direct'"

# ---------------------------------------------------------------- bad requests
before=$(profiles)
head -c 1000 "$pprof" >"$work/truncated.gz"
gzip -dc "$pprof" | head -c 2000 >"$work/truncated.pprof"
printf 'main;caf\xe9 1\n' >"$work/latin1.txt"
printf -- '--XX\r\nContent-Disposition: form-data; name="profile"\r\n\r\nabc' >"$work/cut.multipart"
# bad_request STATUS MESSAGE-PART URL [CURL ARGS...]
bad_request() {
	local status=$1 message=$2 got
	shift 2
	got=$(post "$@")
	[ "$got" = "$status" ] || fail "$* gave $got, not $status: $(cat "$work/body")"
	grep -qF -- "$message" "$work/body" || fail "$*: the reply does not say \"$message\": $(cat "$work/body")"
	expect "profiles after $*" "$(profiles)" "$before"
}
bad_request 400 'invalid pprof data' "$ingest?name=x&format=pprof" --data-binary 'garbage'
bad_request 400 'gzip' "$ingest?name=x&format=pprof" --data-binary "@$work/truncated.gz"
bad_request 400 'pprof' "$ingest?name=x&format=pprof" --data-binary "@$work/truncated.pprof"
bad_request 400 'collapsed profile is not valid UTF-8 at line 1' "$ingest?name=x&format=folded" --data-binary "@$work/latin1.txt"
bad_request 400 'unknown format "svg"' "$ingest?name=x&format=svg" --data-binary "@$pprof"
bad_request 415 'format=trie is not supported' "$ingest?name=x&format=trie" --data-binary "@$pprof"
bad_request 400 'name is required' "$ingest?format=pprof" --data-binary "@$pprof"
bad_request 400 'is not APP{KEY=VALUE,...}' "$ingest?name=x{region}&format=pprof" --data-binary "@$pprof"
bad_request 400 'is not APP{KEY=VALUE,...}' "$ingest?name=x{a=b&format=pprof" --data-binary "@$pprof"
bad_request 400 'from "yesterday" is not a Unix time' "$ingest?name=x&from=yesterday" --data-binary "@$pprof"
bad_request 400 'until "99999999999" is not a Unix time' "$ingest?name=x&until=99999999999" --data-binary "@$pprof"
bad_request 400 'from " 5" is not a Unix time' "$ingest?name=x&from=%205" --data-binary "@$pprof"
bad_request 400 'until (1) is before from (2)' "$ingest?name=x&from=2&until=1" --data-binary "@$pprof"
bad_request 400 'sampleRate "-5"' "$ingest?name=x&sampleRate=-5" --data-binary "@$pprof"
bad_request 400 'the profile is empty' "$ingest?name=x&format=pprof" --data-binary ''
bad_request 400 'no closing boundary' "$ingest?name=x" -H 'Content-Type: multipart/form-data; boundary=XX' --data-binary "@$work/cut.multipart"
bad_request 400 'without a boundary' "$ingest?name=x" -H 'Content-Type: multipart/form-data' --data-binary "@$work/cut.multipart"
bad_request 400 'no part named "profile"' "$ingest?name=x" -F "jfr=@$pprof"
bad_request 415 'Content-Encoding "br"' "$ingest?name=x" -H 'Content-Encoding: br' --data-binary "@$pprof"
bad_request 405 '/ingest takes POST' "$ingest?name=x" -G
bad_request 404 'no such endpoint' "$url/api/v1/nothing" --data-binary x
# over the limit: declared (refused before the body is read) and chunked
head -c 300000 /dev/urandom >"$work/big"
bad_request 413 'larger than the limit of 200000 bytes' "$ingest?name=x&format=pprof" --data-binary "@$work/big"
bad_request 413 'larger than the limit of 200000 bytes' "$ingest?name=x&format=pprof" -H 'Transfer-Encoding: chunked' --data-binary "@$work/big"
# the receiver still serves after all that
expect "a push after the refusals" "$(post "$ingest?name=after&format=pprof" --data-binary "@$pprof")" 200
before=$(profiles)

# ---------------------------------------------------------------- Push (Connect)
push() { # push FILE [CURL ARGS...]: the status of POSTing FILE as a PushRequest
	local file=$1
	shift
	post "$url/push.v1.PusherService/Push" -H 'Content-Type: application/proto' -H 'Connect-Protocol-Version: 1' \
		--data-binary "@$file" "$@"
}
pushreq() { python3 "$repo/test/receiver_push.py" "$@"; }
pushreq --series 'service_name=cart,__name__=process_cpu,region=us' --sample "$pprof:id-1" --sample "$pprof:id-2" \
	--series '__name__=memory,pod=p9' --sample "$pprof:id-3" >"$work/push1"
expect "Push" "$(push "$work/push1")" 200
expect "Push's reply" "$(grep -i '^content-type' "$work/headers" | tr -d '\r')|$(wc -c <"$work/body")" "Content-Type: application/proto|0"
expect "Push stored" "$(ct_query "" "SELECT string_agg(name || ' ' || (meta - 'sample_type')::text, ', ' ORDER BY id) FROM calltree.profile WHERE meta ? 'push_id'")" \
	'cart {"region": "us", "push_id": "id-1", "__name__": "process_cpu"}, cart {"region": "us", "push_id": "id-2", "__name__": "process_cpu"}, memory {"pod": "p9", "push_id": "id-3"}'
same_tree "$(last_id)" "$(ct_query "" "SELECT min(id) FROM calltree.profile WHERE meta->>'push_id' = 'id-1'")"
# retried: stored once; a retry with one new sample stores that one
expect "Push retried" "$(push "$work/push1")" 200
pushreq --series 'service_name=cart' --sample "$pprof:id-1" --sample "$pprof:id-4" >"$work/push2"
expect "Push with one new sample" "$(push "$work/push2")" 200
expect "Push IDs stored once" "$(ct_query "" "SELECT string_agg(meta->>'push_id', ',' ORDER BY id) FROM calltree.profile WHERE meta ? 'push_id'")" "id-1,id-2,id-3,id-4"
# a sample without an ID, retried: known as the same push, stored once
pushreq --series 'service_name=noid' --sample "$pprof" >"$work/push_noid"
expect "Push without an ID" "$(push "$work/push_noid")" 200
expect "Push without an ID, retried" "$(push "$work/push_noid")" 200
expect "Push without an ID stored once" "$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE name = 'noid'")" 1
# the same new ID pushed by 4 clients at once: stored once
pushreq --series 'service_name=race' --sample "$pprof:id-race" >"$work/push3"
racers=()
for i in 1 2 3 4; do
	push "$work/push3" -o /dev/null >"$work/race.$i" &
	racers+=($!)
done
wait "${racers[@]}"
expect "concurrent Push statuses" "$(cat "$work"/race.*)" 200200200200
expect "concurrent Push stored once" "$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE meta->>'push_id' = 'id-race'")" 1
# gzip Content-Encoding
pushreq --series 'service_name=zipped' --sample "$pprof:id-zip" | gzip -c >"$work/push4"
expect "gzipped Push" "$(push "$work/push4" -H 'Content-Encoding: gzip')" 200
expect "gzipped Push stored" "$(ct_query "" "SELECT name FROM calltree.profile WHERE meta->>'push_id' = 'id-zip'")" zipped
# the JSON codec: names as protobuf's JSON mapping writes them, escapes, null, unknown fields
python3 - "$pprof" >"$work/push.json" <<'PY'
import base64, json, sys
raw = base64.b64encode(open(sys.argv[1], "rb").read()).decode()
print(json.dumps({"series": [{"labels": [{"name": "service_name", "value": "json\u00e9"},
                                         {"name": "quote", "value": "a\"b\\c\n"}, {"name": "empty", "value": None}],
                              "samples": [{"rawProfile": raw, "ID": "id-json"}], "unknown": [1, {"x": True}]}]}))
PY
expect "JSON Push" "$(post "$url/push.v1.PusherService/Push" -H 'Content-Type: application/json' --data-binary "@$work/push.json")" 200
expect "JSON Push's reply" "$(cat "$work/body")" "{}"
expect "JSON Push stored" "$(ct_query "" "SELECT name || ' ' || (meta - 'sample_type')::text FROM calltree.profile WHERE meta->>'push_id' = 'id-json'")" \
	'jsoné {"empty": "", "quote": "a\"b\\c\n", "push_id": "id-json"}'
same_tree "$(last_id)" "$(ct_query "" "SELECT min(id) FROM calltree.profile WHERE meta->>'push_id' = 'id-1'")"
before=$(profiles)
# bad Pushes: a Connect error, nothing written (not even a good sample beside a bad one)
bad_push() { # bad_push STATUS CODE MESSAGE-PART FILE [CURL ARGS...]
	local status=$1 code=$2 message=$3
	shift 3
	bad_request "$status" "\"code\":\"$code\"" "$url/push.v1.PusherService/Push" -H 'Content-Type: application/proto' --data-binary "@$@"
	grep -qF -- "$message" "$work/body" || fail "bad Push $*: the reply does not say \"$message\": $(cat "$work/body")"
}
pushreq --series 'service_name=half' --sample "$pprof:id-good" --garbage-sample "x:id-bad" >"$work/half"
bad_push 400 invalid_argument 'invalid pprof data' "$work/half"
pushreq --series 'region=eu' --sample "$pprof:id-noname" >"$work/noname"
bad_push 400 invalid_argument 'neither a label service_name nor __name__' "$work/noname"
printf '\x0a\xff\x01' >"$work/malformed"
bad_push 400 invalid_argument 'protobuf is malformed' "$work/malformed"
bad_push 400 invalid_argument 'not valid gzip' "$work/push1" -H 'Content-Encoding: gzip'
bad_request 415 '"code":"unimplemented"' "$url/push.v1.PusherService/Push" -H 'Content-Type: text/plain' --data-binary '{}'
bad_request 413 '"code":"resource_exhausted"' "$url/push.v1.PusherService/Push" -H 'Content-Type: application/proto' --data-binary "@$work/big"
bad_request 400 'not a PushRequest in JSON' "$url/push.v1.PusherService/Push" -H 'Content-Type: application/json' --data-binary '{"series": [{"samples": [{"rawProfile": "%%%"}]}]}'
bad_request 400 'not a PushRequest in JSON' "$url/push.v1.PusherService/Push" -H 'Content-Type: application/json' --data-binary '{"series": [}'
# what a body decodes to is bounded by --max-body too: 99,000 empty series
# (2 bytes each in protobuf, 3 in JSON) or one series of 100 kB of labels
# over 2,000 samples (its labels copied into the meta of each)
/usr/bin/python3 - "$work" "$repo/test" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from protobuf_write import field_bytes
work = sys.argv[1]
open(f"{work}/empty_series", "wb").write(field_bytes(1, b"") * 99000)
open(f"{work}/empty_series.json", "w").write('{"series": [' + ",".join(["{}"] * 60000) + "]}")
labels = b"".join(field_bytes(1, field_bytes(1, b"service_name" if i == 0 else b"k%d" % i) + field_bytes(2, b"v" * 80))
                  for i in range(1000))
samples = b"".join(field_bytes(2, field_bytes(1, b"x")) for _ in range(2000))
open(f"{work}/wide_series", "wb").write(field_bytes(1, labels + samples))
PY
bad_request 413 'decodes to more than the limit of 200000 bytes' "$url/push.v1.PusherService/Push" -H 'Content-Type: application/proto' --data-binary "@$work/empty_series"
bad_request 413 'decodes to more than the limit of 200000 bytes' "$url/push.v1.PusherService/Push" -H 'Content-Type: application/json' --data-binary "@$work/empty_series.json"
bad_request 413 'with their series'"'"' labels take more than the limit of 200000 bytes' "$url/push.v1.PusherService/Push" -H 'Content-Type: application/proto' --data-binary "@$work/wide_series"
expect "nothing of the bad Pushes" "$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE meta->>'push_id' IN ('id-good', 'id-bad', 'id-noname')")" 0

# ---------------------------------------------------------------- metrics
expect "metrics" "$(curl -s "$url/metrics" | grep -E '^calltree_receiver_(requests_total\{endpoint="push",status="200"\}|refusals_total\{reason="too_large"\}|db_connections) ')" \
	'calltree_receiver_requests_total{endpoint="push",status="200"} 11
calltree_receiver_refusals_total{reason="too_large"} 3
calltree_receiver_db_connections 4'

# ---------------------------------------------------------------- OTLP
# Requests made by test/otlp_from_pprof.py (protoc's classes, not calltree's
# code) from the pprof file: one OTLP Profile per pprof sample type.
otlp_url=$url/v1development/profiles
chmod a+rx "$work"
/usr/bin/python3 "$repo/test/otlp_from_pprof.py" "$pprof" "$work/otlp" checkout || fail "otlp_from_pprof.py failed"
otlp() { # otlp FILE [CURL ARGS...]: the status of POSTing FILE as OTLP protobuf
	local file=$1
	shift
	post "$otlp_url" -H 'Content-Type: application/x-protobuf' --data-binary "@$file" "$@"
}
# same_otlp FIRST-ID [REQUEST COUNT]: the COUNT (2) profiles from FIRST-ID
# on are those import_otlp makes of the same protobuf REQUEST ($work/otlp)
# in SQL: names, units, starts, meta, samples (stack, weight, time, labels)
same_otlp() {
	local request=${2:-$work/otlp} count=${3:-2}
	# the import's own statement does not see the profile rows it makes: a second one reads them
	expect "OTLP push from $1 vs import_otlp" "$(ct_query "" "CREATE TEMP TABLE direct AS
	    SELECT d.id, d.n FROM unnest(calltree.import_otlp(pg_read_binary_file('$request'), NULL, '{\"direct\": true}'))
	                     WITH ORDINALITY AS d(id, n)" -c "
	WITH pushed AS (SELECT p.*, row_number() OVER (ORDER BY id) AS n FROM calltree.profile p WHERE id >= $1 AND NOT meta ? 'direct'),
	     direct AS (SELECT p.*, d.n FROM direct d JOIN calltree.profile p USING (id)),
	     rows AS (SELECT profile_id, pg_catalog.md5(string_agg(concat_ws(' ', thread, ts, stack_id, weight, labels_id), ','
	                                                         ORDER BY thread, ts, stack_id, weight, labels_id)) AS h
	                FROM calltree.sample WHERE profile_id IN (SELECT id FROM pushed UNION ALL SELECT id FROM direct) GROUP BY profile_id)
	SELECT count(*) || ' ' || count(*) FILTER (WHERE
	           d.name IS NOT DISTINCT FROM r.name AND d.format = r.format AND d.weight_unit = r.weight_unit
	           AND d.started_at IS NOT DISTINCT FROM r.started_at AND d.meta - 'direct' = r.meta
	           AND (SELECT h FROM rows WHERE profile_id = r.id) IS NOT DISTINCT FROM (SELECT h FROM rows WHERE profile_id = d.id))
	  FROM pushed r FULL JOIN direct d USING (n)")" "$count $count"
	ct_query "" "DELETE FROM calltree.profile WHERE meta ? 'direct'"
}
first=$(($(last_id) + 1))
expect "OTLP push" "$(otlp "$work/otlp")" 200
expect "OTLP's reply: an empty ExportProfilesServiceResponse" \
	"$(grep -i '^content-type' "$work/headers" | tr -d '\r')|$(wc -c <"$work/body")" "Content-Type: application/x-protobuf|0"
expect "OTLP push stored" "$(ct_query "" "SELECT string_agg(name || ' ' || format || ' ' || weight_unit, ', ' ORDER BY id) FROM calltree.profile WHERE id >= $first")" \
	"checkout otlp count, checkout otlp nanoseconds"
same_otlp "$first"
# gzip Content-Encoding, inflated by the receiver: the same request once
# inflated, so a retry of the push above (200, nothing written), and
# stored once that is deleted
gzip -c "$work/otlp" >"$work/otlp.gz"
before=$(written)
expect "gzipped OTLP push, a retry" "$(otlp "$work/otlp.gz" -H 'Content-Encoding: gzip')" 200
expect "gzipped OTLP push, a retry: nothing written" "$(written)" "$before"
ct_query "" "DELETE FROM calltree.profile WHERE id >= $first"
first=$(($(last_id) + 1))
expect "gzipped OTLP push" "$(otlp "$work/otlp.gz" -H 'Content-Encoding: gzip')" 200
same_otlp "$first"
# an empty request has no profiles: accepted, nothing stored
before=$(profiles)
expect "empty OTLP push" "$(otlp /dev/null)" 200
expect "empty OTLP push stored nothing" "$(profiles)" "$before"
# refusals: a google.rpc.Status, nothing written
status_of_body() { # the Status in $work/body as "CODE MESSAGE"
	/usr/bin/python3 - "$work/body" <<'PY'
import sys
data, pos, fields = open(sys.argv[1], "rb").read(), 0, {}
def varint():
    global pos
    value = shift = 0
    while True:
        byte = data[pos]; pos += 1
        value |= (byte & 0x7F) << shift; shift += 7
        if not byte & 0x80:
            return value
while pos < len(data):
    tag = varint()
    if tag == 0x08:
        fields["code"] = varint()
    elif tag == 0x12:
        n = varint(); fields["message"] = data[pos:pos + n].decode(); pos += n
    else:
        sys.exit(f"unexpected tag {tag} in the Status")
print(fields.get("code", 0), fields.get("message", "").split("\n")[0])
PY
}
head -c 1000 "$work/otlp" >"$work/otlp.cut"
bad_request 400 'invalid OTLP data at byte' "$otlp_url" -H 'Content-Type: application/x-protobuf' --data-binary "@$work/otlp.cut"
expect "a truncated request's Status" "$(status_of_body)" "3 invalid OTLP data at byte 1"
expect "a Status is protobuf" "$(grep -i '^content-type' "$work/headers" | tr -d '\r')" "Content-Type: application/x-protobuf"
bad_request 400 'not valid gzip' "$otlp_url" -H 'Content-Type: application/x-protobuf' -H 'Content-Encoding: gzip' --data-binary "@$work/otlp"
bad_request 400 'not valid gzip' "$otlp_url" -H 'Content-Type: application/x-protobuf' -H 'Content-Encoding: gzip' --data-binary "@$work/otlp.cut"
head -c 300000 /dev/zero | gzip -c >"$work/zeros.gz"
bad_request 413 'inflates past the limit of 200000 bytes' "$otlp_url" -H 'Content-Type: application/x-protobuf' -H 'Content-Encoding: gzip' --data-binary "@$work/zeros.gz"
expect "an inflated body over the limit: Status" "$(status_of_body)" "8 the body inflates past the limit of 200000 bytes"
bad_request 413 'larger than the limit of 200000 bytes' "$otlp_url" -H 'Content-Type: application/x-protobuf' --data-binary "@$work/big"
bad_request 415 'Content-Type "text/plain" is not supported' "$otlp_url" -H 'Content-Type: text/plain' --data-binary "@$work/otlp"
bad_request 415 'Content-Encoding "br"' "$otlp_url" -H 'Content-Type: application/x-protobuf' -H 'Content-Encoding: br' --data-binary "@$work/otlp"
bad_request 405 'takes POST' "$otlp_url" -G
expect "the receiver after the OTLP refusals" "$(otlp "$work/otlp")" 200
before=$(profiles)
# OTLP/JSON, made protobuf by the receiver, against Google's json_format
# (test/otlp_json.py, OTLP's hex ids its one change): the JSON of the
# pprof request, and of otlp_cases.py's "many" (several resources, every
# value type, links, a profile id), store what their protobuf stores
otlp_json() { /usr/bin/python3 "$repo/test/otlp_json.py" "$@" || fail "otlp_json.py $* failed"; }
json_otlp() { # json_otlp FILE [CURL ARGS...]: the status of POSTing FILE as OTLP/JSON
	local file=$1
	shift
	post "$otlp_url" -H 'Content-Type: application/json' --data-binary "@$file" "$@"
}
otlp_json to-json "$work/otlp" "$work/otlp.json"
# the request pushed above, in JSON: deleted first, or this push would be its retry
ct_query "" "DELETE FROM calltree.profile WHERE format = 'otlp'"
first=$(($(last_id) + 1))
expect "OTLP/JSON push" "$(json_otlp "$work/otlp.json")" 200
expect "OTLP/JSON's reply" "$(grep -i '^content-type' "$work/headers" | tr -d '\r')|$(cat "$work/body")" "Content-Type: application/json|{}"
same_otlp "$first"
otlp_json case many "$work/many.pb"
otlp_json to-json "$work/many.pb" "$work/many.json"
gzip -c "$work/many.json" >"$work/many.json.gz"
first=$(($(last_id) + 1))
expect "OTLP/JSON push, gzipped" "$(json_otlp "$work/many.json.gz" -H 'Content-Encoding: gzip')" 200
same_otlp "$first" "$work/many.pb" 3
# written by hand: proto names, 64-bit integers as numbers and strings,
# uppercase hex, null members, unknown members, doubles in every form
cat >"$work/hand.json" <<'JSON'
{"resource_profiles": [{"resource": {"attributes": [
    {"key": "service.name", "value": {"stringValue": "hand\u00e9"}},
    {"key": "n", "value": {"int_value": -12}}, {"key": "big", "value": {"intValue": "9223372036854775807"}},
    {"key": "inf", "value": {"doubleValue": "-Infinity"}}, {"key": "e", "value": {"doubleValue": 1.5e3}},
    {"key": "flag", "value": {"boolValue": true}}, {"key": "nothing", "value": null}]},
  "scopeProfiles": [{"scope": {"name": "hand", "attributes": null}, "profiles": [{
    "sampleType": {"typeStrindex": 1, "unitStrindex": 2}, "periodType": {"typeStrindex": 1, "unitStrindex": 2},
    "timeUnixNano": 1700000000000000000, "durationNano": "1000000000", "period": 10,
    "profileId": "0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F0F", "future": {"x": [1, {"y": null}], "z": "\"]}"},
    "samples": [{"stackIndex": 1, "values": [3, "4"], "linkIndex": 1},
                {"stack_index": 2, "timestamps_unix_nano": ["1700000000000001000", 1700000000000002000]}]}]}]}],
 "dictionary": {"stringTable": ["", "cpu", "nanoseconds", "main", "work"],
   "mappingTable": [{}], "attributeTable": [{}],
   "functionTable": [{}, {"nameStrindex": 3}, {"nameStrindex": 4, "startLine": "12"}],
   "locationTable": [{}, {"lines": [{"functionIndex": 2, "line": 14}, {"functionIndex": 1}], "address": "4096"}],
   "stackTable": [{}, {"locationIndices": [1]}, {"locationIndices": []}],
   "linkTable": [{}, {"traceId": "0102030405060708090A0B0C0D0E0F10", "spanId": "a1a2a3a4a5a6a7a8"}]}}
JSON
otlp_json to-pb "$work/hand.json" "$work/hand.pb"
first=$(($(last_id) + 1))
expect "OTLP/JSON push, by hand" "$(json_otlp "$work/hand.json")" 200
same_otlp "$first" "$work/hand.pb" 1
expect "OTLP/JSON by hand: meta" "$(ct_query "" "SELECT name || ' ' || meta::text FROM calltree.profile WHERE id >= $first")" \
	'handé {"e": 1500, "n": -12, "big": 9223372036854775807, "inf": "-Infinity", "flag": true, "period": 10, "nothing": null, "duration_ns": 1000000000, "period_type": "cpu", "period_unit": "nanoseconds", "sample_type": "cpu", "service.name": "handé", "otel.scope.name": "hand", "otlp_profile_id": "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"}'
before=$(profiles)
expect "an empty OTLP/JSON request" "$(json_otlp /dev/stdin <<<'{}')" 200
expect "an empty OTLP/JSON request stored nothing" "$(profiles)" "$before"
# refusals: a google.rpc.Status in JSON, nothing written
bad_json() { # bad_json STATUS MESSAGE-PART JSON
	bad_request "$1" "$2" "$otlp_url" -H 'Content-Type: application/json' --data-binary "$3"
	expect "a refused OTLP/JSON push's Status" "$(grep -i '^content-type' "$work/headers" | tr -d '\r')|$(cut -c1-9 "$work/body")" \
		"Content-Type: application/json|{\"code\":$( [ "$1" = 413 ] && echo 8 || echo 3)"
}
bad_json 400 'invalid OTLP/JSON at byte 22 (resourceProfiles[0]): an object (ResourceProfiles) was expected' '{"resourceProfiles": [}'
bad_json 400 'at byte 46 (dictionary.linkTable[1].traceId): an id must be hex digits, not \"xyz0\"' '{"dictionary": {"linkTable": [{}, {"traceId": "xyz0"}]}}'
bad_json 400 '(dictionary.stackTable[0].locationIndices[1]): \"2147483648\" is not a whole number in the range of int32' \
	'{"dictionary": {"stackTable": [{"locationIndices": [1, 2147483648]}]}}'
bad_json 400 'is not a whole number in the range of uint64' '{"resourceProfiles": [{"scopeProfiles": [{"profiles": [{"durationNano": "-1"}]}]}]}'
bad_json 400 'an element of an array may not be null' '{"dictionary": {"stringTable": ["", null]}}'
bad_json 400 'followed by more than white space' '{} {}'
bad_json 400 'bytes must be base64' '{"resourceProfiles": [{"scopeProfiles": [{"profiles": [{"originalPayload": "%%"}]}]}]}'
deep=$(printf '{"arrayValue": {"values": [%.0s' $(seq 80))$(printf ']}}%.0s' $(seq 80))
bad_json 400 'values nest more than 150 deep' "{\"resourceProfiles\": [{\"resource\": {\"attributes\": [{\"key\": \"deep\", \"value\": $deep}]}}]}"
# a negative int32 takes 10 bytes of protobuf: 3 bytes of JSON make 10
/usr/bin/python3 -c 'print("{\"dictionary\": {\"stackTable\": [{\"locationIndices\": [" + ",".join(["-1"] * 60000) + "]}]}}")' >"$work/negative.json"
bad_json 413 'makes more than 200000 bytes of protobuf' "@$work/negative.json"
expect "the receiver after the OTLP/JSON refusals" "$(json_otlp "$work/otlp.json")" 200
before=$(profiles)

# ---------------------------------------------------------------- JFR
# The Pyroscope Java agent's push: format=jfr, the recording raw (gzipped)
# or in the multipart part "jfr", its LabelsSnapshot in the part "labels"
# (at the end of this file).  Every profile import_jfr makes of the
# recording is stored, as the same call in SQL stores them.
jfr=$shared/data/jfr/dump2.jfr.gz
gzip -dc "$shared/data/jfr/dump2.labels.pb.gz" >"$work/labels.pb"
chmod a+r "$work/labels.pb"
# the query the agent sends
jfr_query="name=javaapp{region=eu}&units=samples&aggregationType=sum&from=1700000000&until=1700000010&spyName=javaspy&sampleRate=20&format=jfr"
jfr_meta='{"region": "eu", "sampleRate": 20, "spyName": "javaspy", "units": "samples", "aggregationType": "sum", "duration": 10}'
# same_jfr FIRST-ID DIRECT-ARGS: the profiles from FIRST-ID on, 3 or more,
# are those import_jfr(pg_read_binary_file(the recording), DIRECT-ARGS)
# makes: names, units, meta, samples (thread, time, stack, weight, label
# set); and started at the push's from
same_jfr() {
	expect "JFR push from $1 vs import_jfr" "$(ct_query "" "CREATE TEMP TABLE direct AS
	    SELECT d.id, d.n FROM unnest(calltree.import_jfr(pg_read_binary_file('$jfr'), $2))
	                     WITH ORDINALITY AS d(id, n)" -c "
	WITH pushed AS (SELECT p.*, row_number() OVER (ORDER BY id) AS n FROM calltree.profile p WHERE id >= $1 AND NOT meta ? 'direct'),
	     direct AS (SELECT p.*, d.n FROM direct d JOIN calltree.profile p USING (id)),
	     rows AS (SELECT profile_id, pg_catalog.md5(string_agg(concat_ws(' ', thread, ts, stack_id, weight, labels_id), ','
	                                                         ORDER BY thread, ts, stack_id, weight, labels_id)) AS h
	                FROM calltree.sample WHERE profile_id IN (SELECT id FROM pushed UNION ALL SELECT id FROM direct) GROUP BY profile_id)
	SELECT count(*) >= 3 AND count(*) = count(*) FILTER (WHERE
	           d.name = 'javaapp' AND r.name = 'javaapp' AND d.format = r.format AND d.weight_unit = r.weight_unit
	           AND r.started_at = to_timestamp(1700000000) AND d.meta - 'direct' = r.meta
	           AND (SELECT h FROM rows WHERE profile_id = r.id) = (SELECT h FROM rows WHERE profile_id = d.id))
	  FROM pushed r FULL JOIN direct d USING (n)")" t
	ct_query "" "DELETE FROM calltree.profile WHERE meta ? 'direct'"
}
jfr_direct="name => 'javaapp', meta => '$jfr_meta'::jsonb || '{\"direct\": true}', sample_rate => 20"
first=$(($(last_id) + 1))
expect "JFR push" "$(post "$ingest?$jfr_query" -H 'Content-Type: application/octet-stream' --data-binary "@$jfr")" 200
same_jfr "$first" "$jfr_direct"
# each push below is the one before in another form: deleted first, or it
# would be taken for its retry
unjfr() { ct_query "" "DELETE FROM calltree.profile WHERE name = 'javaapp'"; }
unjfr
first=$(($(last_id) + 1))
expect "JFR push, multipart" "$(post "$ingest?$jfr_query" -F "jfr=@$jfr;filename=jfr")" 200
same_jfr "$first" "$jfr_direct"
before=$(profiles)
gzip -dc "$jfr" >"$work/dump2.jfr"
head -c 50000 "$work/dump2.jfr" >"$work/cut.jfr"
bad_request 400 'invalid JFR data at byte' "$ingest?$jfr_query" --data-binary "@$work/cut.jfr"
bad_request 400 'no part named "jfr"' "$ingest?$jfr_query" -F "profile=@$jfr"
bad_request 400 'no closing boundary' "$ingest?$jfr_query" -H 'Content-Type: multipart/form-data; boundary=XX' --data-binary "@$work/cut.multipart"
bad_request 400 'sampleRate "0"' "$ingest?name=javaapp&format=jfr&sampleRate=0" --data-binary "@$jfr"

# ---------------------------------------------------------------- tenants
# The row-level-security recipe of docs/operations.md; the receiver logs in
# as a role that may become the tenants' roles, and nothing else.
writer=calltree_receiver_writer
tess=calltree_receiver_tess
tom=calltree_receiver_tom
eve=calltree_receiver_eve
ct_at_exit "ct_query postgres 'DROP ROLE IF EXISTS $tess, $tom, $eve, $login, $writer'"
ct_psql "" -At <<SQL
CREATE ROLE $writer NOLOGIN;
GRANT USAGE ON SCHEMA calltree TO $writer;
GRANT SELECT ON ALL TABLES IN SCHEMA calltree TO $writer;
GRANT INSERT ON calltree.profile, calltree.sample_set, calltree.sample, calltree.event, calltree.func,
                calltree.frame, calltree.stack, calltree.labels, calltree.symbol TO $writer;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA calltree TO $writer;
GRANT UPDATE (weight_unit, started_at) ON calltree.profile TO $writer;
GRANT UPDATE (id) ON calltree.labels TO $writer;
ALTER TABLE calltree.profile ENABLE ROW LEVEL SECURITY;
ALTER TABLE calltree.sample_set ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_profiles ON calltree.profile
    USING (meta->>'tenant' = current_user) WITH CHECK (meta->>'tenant' = current_user);
CREATE POLICY tenant_samples ON calltree.sample_set
    USING (profile_id IN (SELECT id FROM calltree.profile));
CREATE ROLE $tess NOLOGIN IN ROLE $writer;
CREATE ROLE $tom NOLOGIN IN ROLE $writer;
CREATE ROLE $eve NOLOGIN IN ROLE $writer;
CREATE ROLE $login LOGIN;
GRANT $tess, $tom TO $login;
SQL
cat >"$work/tenants" <<CONF
# kind   credential   role
bearer   tok-tess     $tess
basic    bob:s3cret   $tom
orgid    org-tess     $tess
bearer   tok-eve      $eve     # a role the receiver may not become
CONF
start_receiver turl --dbname "dbname=$db user=$login" --tenants "$work/tenants"
before=$(profiles)
tenant_of_last() { ct_query "" "SELECT meta->>'tenant' FROM calltree.profile WHERE id = (SELECT max(id) FROM calltree.profile)"; }
# a label cannot claim another tenant: the receiver's key comes last
expect "bearer" "$(post "$turl/ingest?name=shop{tenant=$tom}&format=pprof" -H 'Authorization: Bearer tok-tess' --data-binary "@$pprof")" 200
expect "bearer's tenant" "$(tenant_of_last)" "$tess"
expect "basic" "$(post "$turl/ingest?name=shop&format=pprof" -u bob:s3cret --data-binary "@$pprof")" 200
expect "basic's tenant" "$(tenant_of_last)" "$tom"
expect "X-Scope-OrgID" "$(post "$turl/ingest?name=shop&format=folded" -H 'X-Scope-OrgID: org-tess' --data-binary "@$collapsed")" 200
expect "X-Scope-OrgID's tenant" "$(tenant_of_last)" "$tess"
pushreq --series 'service_name=cart' --sample "$pprof:id-tenant" >"$work/push5"
expect "Push as a tenant" "$(post "$turl/push.v1.PusherService/Push" -H 'Content-Type: application/proto' -H 'Authorization: Bearer tok-tess' --data-binary "@$work/push5")" 200
expect "Push's tenant" "$(tenant_of_last)" "$tess"
expect "each tenant sees its own" "$(ct_query "" "SET ROLE $tess" -c 'SELECT count(*) FROM calltree.profile' -c "SET ROLE $tom" -c 'SELECT count(*) FROM calltree.profile')" "3
1"
first=$(($(last_id) + 1))
expect "OTLP as a tenant" "$(post "$turl/v1development/profiles" -H 'Content-Type: application/x-protobuf' -H 'Authorization: Bearer tok-tess' --data-binary "@$work/otlp")" 200
expect "OTLP's tenant" "$(ct_query "" "SELECT string_agg(name || ' ' || (meta->>'tenant'), ', ' ORDER BY id) FROM calltree.profile WHERE id >= $first")" \
	"checkout $tess, checkout $tess"
before=$(profiles)
bad_request 401 'credentials are required' "$turl/v1development/profiles" -H 'Content-Type: application/x-protobuf' --data-binary "@$work/otlp"
expect "a refused OTLP push's Status" "$(status_of_body)" "16 credentials are required: Authorization (Bearer or Basic) or X-Scope-OrgID"
before=$(profiles)
bad_request 401 'credentials are required' "$turl/ingest?name=x&format=pprof" --data-binary "@$pprof"
bad_request 401 'unknown credentials' "$turl/ingest?name=x&format=pprof" -H 'Authorization: Bearer tok-nobody' --data-binary "@$pprof"
bad_request 401 'unknown credentials' "$turl/ingest?name=x&format=pprof" -u bob:wrong --data-binary "@$pprof"
bad_request 401 'unknown credentials' "$turl/ingest?name=x&format=pprof" -H 'X-Scope-OrgID: org-nobody' --data-binary "@$pprof"
bad_request 401 '"code":"unauthenticated"' "$turl/push.v1.PusherService/Push" -H 'Content-Type: application/proto' --data-binary "@$work/push5"
bad_request 403 'permission denied to set role' "$turl/ingest?name=x&format=pprof" -H 'Authorization: Bearer tok-eve' --data-binary "@$pprof"
kill -TERM "$turl_pid"
wait "$turl_pid" || fail "the tenants' receiver exited with status $? on SIGTERM"

# ---------------------------------------------------------------- faults
ct_query "" 'ALTER TABLE calltree.profile DISABLE ROW LEVEL SECURITY' -c 'ALTER TABLE calltree.sample_set DISABLE ROW LEVEL SECURITY'
start_receiver furl --dbname "dbname=$db" --connections 1 --queue-wait 300 --timeout 1 --drain-timeout 20
fingest=$furl/ingest
# hold_profile SECONDS: a session holding calltree.profile locked that long, in the background
hold_profile() {
	ct_query "" 'BEGIN' -c 'LOCK TABLE calltree.profile IN ACCESS EXCLUSIVE MODE' -c "SELECT pg_sleep($1)" -c 'COMMIT' >/dev/null &
	holder=$!
	sleep 0.3
}

# the receiver's sessions ended (as by a restart): the next push reconnects
ct_query "" "SELECT count(pg_terminate_backend(pid)) > 0 FROM pg_stat_activity WHERE application_name = 'calltree-receiver'" >/dev/null
sleep 0.2
expect "a push after the sessions ended" "$(post "$fingest?name=again&format=pprof" --data-binary "@$pprof")" 200

# the answer to a push's COMMIT lost (test/pg_commit_cutter.py, between
# the receiver and the server, cuts the connection the server answers
# COMMIT): the receiver asks the database whether the push committed, and
# answers 200, the push stored once, not 503 and a retry storing it twice
mkdir "$work/cutter"
python3 "$repo/test/pg_commit_cutter.py" "$work/cutter" "$PGHOST" "$PGPORT" "$work/cut-commit" 2>>"$work/cutter.log" &
ct_at_exit "kill $!"
for i in $(seq 50); do
	[ -S "$work/cutter/.s.PGSQL.$PGPORT" ] && break
	[ "$i" -lt 50 ] || fail "pg_commit_cutter.py did not listen: $(cat "$work/cutter.log")"
	sleep 0.1
done
start_receiver curl_cut --dbname "host=$work/cutter port=$PGPORT dbname=$db"
touch "$work/cut-commit"
expect "a push whose COMMIT's answer was lost" "$(post "$curl_cut/ingest?name=cutcommit&format=pprof" --data-binary "@$pprof")" 200
[ ! -e "$work/cut-commit" ] || fail "pg_commit_cutter.py cut no COMMIT's answer"
expect "a push whose COMMIT's answer was lost: stored once" "$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE name = 'cutcommit'")" 1
kill -TERM "$curl_cut_pid"

# the database refuses connections: 503 with Retry-After, nothing written; then it comes back
before=$(profiles)
ct_query postgres "ALTER DATABASE $db ALLOW_CONNECTIONS false" \
	-c "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '$db' AND application_name = 'calltree-receiver'" >/dev/null
sleep 0.2
expect "push while the database is down" "$(post "$fingest?name=down&format=pprof" --data-binary "@$pprof")" 503
grep -qi '^Retry-After: [0-9]' "$work/headers" || fail "a 503 without Retry-After: $(cat "$work/headers")"
expect "ready while the database is down" "$(post "$furl/ready" -G)" 503
ct_query postgres "ALTER DATABASE $db ALLOW_CONNECTIONS true"
expect "nothing written while down" "$(profiles)" "$before"
sleep 1.1 # the receiver tries again a second after a failed attempt
expect "push once the database is back" "$(post "$fingest?name=back&format=pprof" --data-binary "@$pprof")" 200

# the one connection busy: 429 with Retry-After, and the waiting push goes through
hold_profile 2
post "$fingest?name=first&format=pprof" --data-binary "@$pprof" -o "$work/first.body" >"$work/first.status" &
first=$!
sleep 0.3
expect "push while every connection is busy" "$(post "$fingest?name=second&format=pprof" --data-binary "@$pprof")" 429
grep -qi '^Retry-After: [0-9]' "$work/headers" || fail "a 429 without Retry-After: $(cat "$work/headers")"
wait "$first" "$holder"
expect "the push that waited for the lock" "$(cat "$work/first.status")" 200
expect "busy: stored once" "$(ct_query "" "SELECT string_agg(name, ',') FROM calltree.profile WHERE name IN ('first', 'second')")" first

# a client that stops sending is dropped after --timeout
expect "slow client dropped" "$(python3 - "${furl##*:}" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"POST /ingest?name=slow HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc")
s.settimeout(10)
start = time.monotonic()
data = s.recv(100)
print("closed" if data == b"" and time.monotonic() - start < 5 else f"not closed: {data!r}")
PY
)" closed

# SIGTERM: the push in flight completes, new connections are refused, the receiver exits 0
hold_profile 2
post "$fingest?name=drained&format=pprof" --data-binary "@$pprof" -o "$work/drained.body" >"$work/drained.status" &
first=$!
sleep 0.3
kill -TERM "$furl_pid"
sleep 0.3
expect "a new connection while draining" "$(post "$furl/ready" -G || true)" 000
wait "$first" "$holder"
expect "the push drained" "$(cat "$work/drained.status")" 200
wait "$furl_pid" || fail "the receiver exited with status $? on SIGTERM"
expect "drained: stored" "$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE name = 'drained'")" 1
grep -q 'SIGTERM: draining' "$work/receiver.log" || fail "the receiver did not log its draining"

# ---------------------------------------------------------------- load and faults
# 12 clients push for CALLTREE_RECEIVER_LOAD_SECONDS (default 20), each
# push retried until answered 200: 8 send Pushes of a sample with an ID of
# its own, 4 send the file to /ingest under a name of its own.  Meanwhile
# PostgreSQL is restarted (pg_ctl restart: every session ends, the server
# refuses connections while it stops and starts), and the receiver is
# killed (SIGKILL) and started again on the same port.  Every ID answered
# 200 is stored exactly once, and so is every name answered 200, also when
# an attempt that failed after it reached the database had stored it (the
# retry is known as the same push); nothing else of the load is stored,
# every profile is whole; and the receiver's peak memory stays within its
# limits.
load_seconds=${CALLTREE_RECEIVER_LOAD_SECONDS:-20}
port=$(free_port)
lurl=http://127.0.0.1:$port
load_options=(--listen "127.0.0.1:$port" --dbname "dbname=$db" --connections 3 --max-clients 16 --max-body 200000)
"$receiver" "${load_options[@]}" >>"$work/receiver.log" 2>&1 &
lpid=$!
ct_at_exit "kill $lpid"
python3 "$repo/test/receiver_load.py" "$lurl" "$pprof" 8 4 "$load_seconds" >"$work/acked" 2>"$work/load.err" &
loader=$!
quarter=$(awk -v s="$load_seconds" 'BEGIN { print s / 4 }')
sleep "$quarter"
ct_cluster_ctl "$PGHOST" -m fast restart >/dev/null 2>&1 || fail "the cluster did not restart" "$PGHOST/server.log"
sleep "$quarter"
peak_kb=$(awk '/^VmHWM/ { print $2 }' "/proc/$lpid/status")
kill -KILL "$lpid"
{ wait "$lpid"; } 2>/dev/null || true
"$receiver" "${load_options[@]}" >>"$work/receiver.log" 2>&1 &
lpid=$!
ct_at_exit "kill $lpid"
wait "$loader" || fail "the load failed: $(cat "$work/load.err")"
read -r rss_kb hwm_kb < <(awk '/^VmRSS/ { rss = $2 } /^VmHWM/ { hwm = $2 } END { print rss, hwm }' "/proc/$lpid/status")
[ "$hwm_kb" -le "$peak_kb" ] || peak_kb=$hwm_kb
kill -TERM "$lpid"
wait "$lpid" || fail "the load's receiver exited with status $? on SIGTERM"
acked=$(grep -c '^push ' "$work/acked" || true)
ingested=$(grep -c '^ingest ' "$work/acked" || true)
if [ "$acked" -lt 20 ] || [ "$ingested" -lt 10 ]; then
	fail "only $acked Pushes and $ingested /ingest pushes were answered 200 in $load_seconds s"
fi
awk '$1 == "push" { print $2 }' "$work/acked" | sort >"$work/acked.sorted"
ct_query "" "SELECT meta->>'push_id' FROM calltree.profile WHERE name = 'load'" | sort >"$work/stored"
cmp -s "$work/acked.sorted" "$work/stored" ||
	fail "the IDs stored are not those answered 200, once each: $(diff "$work/acked.sorted" "$work/stored" | head -n 5)"
awk '$1 == "ingest" { print $2 "|" $3 }' "$work/acked" >"$work/ingest.acked"
ct_query "" "SELECT name || '|' || count(*) FROM calltree.profile WHERE meta->>'spyName' = 'load' GROUP BY name" >"$work/ingest.stored"
unexpected=$(awk -F '|' 'NR == FNR { stored[$1] = $2; next }
	{ n = stored[$1] + 0; if (n != 1) print $1 "|" $2 "|" n; delete stored[$1] }
	END { for (name in stored) print name "|not answered 200|" stored[name] }' "$work/ingest.stored" "$work/ingest.acked" | head -n 5)
[ -z "$unexpected" ] || fail "/ingest pushes stored other than once (name|attempts that may have stored it|stored): $unexpected"
expect "the load's profiles are whole" "$(ct_query "" "SELECT count(*) FROM calltree.profile p
        WHERE (name = 'load' OR meta->>'spyName' = 'load')
          AND (SELECT sum(weight) FROM calltree.sample s WHERE s.profile_id = p.id) IS DISTINCT FROM 1760000000")" 0
grep -Eq '(503|no answer) [1-9]' "$work/load.err" || fail "no push of the load was refused by the faults: $(cat "$work/load.err")"
# (3 x max-clients + connections) x max-body is 10 MB; the rest is the program, libpq and libmicrohttpd
[ "$peak_kb" -lt 40000 ] || fail "the receiver's peak memory was $peak_kb kB"
echo "load: $acked Pushes and $ingested /ingest pushes answered 200 in $load_seconds s; $(cat "$work/load.err");" \
	"receiver peak $peak_kb kB (after the restart: VmRSS $rss_kb kB, VmHWM $hwm_kb kB)"

# ---------------------------------------------------------------- a real agent
# Pyroscope's Node.js SDK (test/js, npm ci by test/run.sh) profiles a
# program busy in burnCpu for 4 s and pushes every second, with a token:
# every push it got a 200 for is stored once, with its tags, and burnCpu
# leads the wall-clock trees.
[ -d "$repo/test/js/node_modules/@pyroscope/nodejs" ] || fail "test/js has no @pyroscope/nodejs: run npm ci in test/js"
start_receiver aurl --dbname "dbname=$db user=$login" --tenants "$work/tenants" --verbose
before=$(profiles)
DEBUG=pyroscope node "$repo/test/js/receiver_agent.js" "$aurl" 4 tok-tess 2>"$work/agent.log" ||
	fail "the Node.js agent failed: $(tail -n 5 "$work/agent.log")"
kill -TERM "$aurl_pid"
wait "$aurl_pid" || fail "the agent's receiver exited with status $? on SIGTERM"
pushed=$(grep -c 'POST /ingest: 200' "$work/receiver.log" || true)
! grep -q 'Server rejected\|Error sending' "$work/agent.log" || fail "the receiver refused a push of the agent: $(grep -A1 'rejected\|Error sending' "$work/agent.log" | head -n 4)"
stored=$(ct_query "" "SELECT count(*) FROM calltree.profile WHERE name = 'nodeagent'")
[ "$pushed" -ge 4 ] || fail "the agent pushed $pushed profiles in 4 s"
# the receivers before this one logged no request (no --verbose)
expect "agent's pushes stored once" "$stored" "$pushed"
expect "agent's meta" "$(ct_query "" "SELECT DISTINCT concat_ws(' ', meta->>'env', meta->>'region', meta->>'spyName', meta->>'tenant', meta->>'process.runtime.name')
                                FROM calltree.profile WHERE name = 'nodeagent'")" "test eu nodespy $tess nodejs"
hot=$(ct_query "" "SELECT f.name FROM calltree.functions((SELECT calltree.stack_agg(s.stack_id, s.weight)
           FROM calltree.sample s JOIN calltree.profile p ON p.id = s.profile_id
          WHERE p.name = 'nodeagent' AND p.meta->>'sample_type' = 'wall')) AS fn JOIN calltree.func f ON f.id = fn.func
         ORDER BY fn.self DESC LIMIT 1")
# the SDK names a function FILE:NAME:LINE
[[ $hot == *receiver_agent.js:burnCpu:* ]] || fail "the agent's hottest function is $hot, not burnCpu"

# ---------------------------------------------------------------- JFR labels
# The Java agent's multipart push with the part "labels" (its
# LabelsSnapshot, which gives the label sets of the samples' context ids):
# stored as import_jfr(labels => ...) stores the recording, the part raw
# or gzipped (the agent's compressionLevelLabels).  Last, as it needs
# import_jfr's parameter labels.
unjfr
first=$(($(last_id) + 1))
expect "JFR push with labels" "$(post "$ingest?$jfr_query" -F "jfr=@$jfr;filename=jfr" -F "labels=@$work/labels.pb;filename=labels")" 200
same_jfr "$first" "$jfr_direct, labels => pg_read_binary_file('$work/labels.pb')"
unjfr
first=$(($(last_id) + 1))
expect "JFR push with gzipped labels" "$(post "$ingest?$jfr_query" -F "jfr=@$jfr;filename=jfr" \
	-F "labels=@$shared/data/jfr/dump2.labels.pb.gz;filename=labels;type=application/x-protobuf")" 200
same_jfr "$first" "$jfr_direct, labels => pg_read_binary_file('$work/labels.pb')"
expect "JFR push with labels: samples with labels" "$(ct_query "" "SELECT count(*) > 0 FROM calltree.sample WHERE profile_id >= $first AND labels_id IS NOT NULL")" t
