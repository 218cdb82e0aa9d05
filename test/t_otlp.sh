#!/usr/bin/env bash
# import_otlp against an independent encoder: real pprof files of other
# tools (../shared/data) converted to OTLP by test/otlp_from_pprof.py,
# which reads pprof with its own reader and writes OTLP with the classes
# protoc generates from the vendored .proto files (Google's protobuf
# runtime, not calltree's code).  The converter makes one OTLP Profile per
# pprof sample type; each must give the same profile as import_pprof of
# that sample type: the same weight unit, start time, sample rows, total,
# every function's self and running weight, and the same whole tree
# (to_collapsed).  Then one request through bin/calltree-load --format otlp.
#
# Needs protoc and Debian's python3 with python3-protobuf (packages
# protobuf-compiler, python3-protobuf).  Runs against the cluster of
# test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN, CALLTREE_SHARED).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_otlp
# Debian's interpreter, which has python3-protobuf, whatever python3 is first in PATH
python=/usr/bin/python3


ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'

# One line per OTLP profile: its sample type, then "ok" or what differs
cat >"$work/compare.sql" <<'SQL'
-- the profile rows are read by a later statement: the import's own does not see them
CREATE TEMP TABLE otlp AS
SELECT u.id, u.n FROM unnest(calltree.import_otlp(pg_read_binary_file(:'otlp'))) WITH ORDINALITY AS u(id, n);
CREATE TEMP TABLE pairs AS
SELECT o.id AS otlp_id, o.meta->>'sample_type' AS sample_type, o.name AS name,
       calltree.import_pprof(pg_read_binary_file(:'pprof'), o.meta->>'sample_type') AS pprof_id
  FROM otlp u JOIN calltree.profile o ON o.id = u.id
 ORDER BY u.n;
CREATE TEMP TABLE trees AS
SELECT p.*, (SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = p.otlp_id) AS otlp_tree,
       (SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = p.pprof_id) AS pprof_tree
  FROM pairs p;
SELECT t.sample_type || ' ' || concat_ws(' ',
         CASE WHEN t.name IS DISTINCT FROM :'svc' THEN 'name:' || coalesce(t.name, 'NULL') END,
         CASE WHEN o.weight_unit <> p.weight_unit THEN 'unit:' || o.weight_unit || '/' || p.weight_unit END,
         CASE WHEN o.started_at IS DISTINCT FROM p.started_at THEN 'started_at' END,
         CASE WHEN o.format <> 'otlp' THEN 'format:' || o.format END,
         CASE WHEN (SELECT count(*) FROM calltree.sample WHERE profile_id = t.otlp_id)
                <> (SELECT count(*) FROM calltree.sample WHERE profile_id = t.pprof_id) THEN 'rows' END,
         CASE WHEN (SELECT sum(weight) FROM calltree.sample WHERE profile_id = t.otlp_id)
                IS DISTINCT FROM (SELECT sum(weight) FROM calltree.sample WHERE profile_id = t.pprof_id) THEN 'total' END,
         CASE WHEN EXISTS ((SELECT func, self, running FROM calltree.functions(t.otlp_tree))
                           EXCEPT (SELECT func, self, running FROM calltree.functions(t.pprof_tree)))
                OR EXISTS ((SELECT func, self, running FROM calltree.functions(t.pprof_tree))
                           EXCEPT (SELECT func, self, running FROM calltree.functions(t.otlp_tree)))
              THEN 'functions' END,
         CASE WHEN calltree.to_collapsed(t.otlp_tree) IS DISTINCT FROM calltree.to_collapsed(t.pprof_tree)
              THEN 'tree' END,
         CASE WHEN (SELECT count(*) FROM calltree.functions(t.otlp_tree)) < 2 THEN 'too-small' END,
         'ok')
  FROM trees t JOIN calltree.profile o ON o.id = t.otlp_id JOIN calltree.profile p ON p.id = t.pprof_id
 ORDER BY t.otlp_id;
SQL

# the server reads the converted files (pg_read_binary_file)
chmod a+rx "$work"
files=("$shared/data/pprof/sample.cpu" "$shared/data/speedscope-samples/pprof/simple.prof")
checked=0
for f in "${files[@]}"; do
	[ -r "$f" ] || fail "missing $f"
	name=$(basename "$f")
	CALLTREE_SHARED=$shared "$python" "$repo/test/otlp_from_pprof.py" "$f" "$work/$name.otlp" "svc-$name" ||
		fail "$name: the converter failed"
	result=$(ct_psql "$db" -At -v pprof="$f" -v otlp="$work/$name.otlp" -v svc="svc-$name" -f "$work/compare.sql") || fail "$name: the import failed"
	[ -n "$result" ] || fail "$name: import_otlp made no profile"
	while read -r type verdict; do
		[ "$verdict" = ok ] || fail "$name, sample type $type: OTLP and pprof differ: $verdict"
		checked=$((checked + 1))
	done <<<"$result"
	echo "$name: $(wc -l <<<"$result") sample types agree"
done
# sample.cpu and simple.prof have two sample types each
[ "$checked" -eq 4 ] || fail "$checked profiles were compared, not 4"

# bin/calltree-load --format otlp, gzip-compressed: prints every id, a line
# each in the request's order; both profiles are named by the request
# (service.name), not by the file
gzip -c "$work/sample.cpu.otlp" >"$work/request.gz"
ids=$("$repo/bin/calltree-load" -d "$db" --format otlp --no-progress "$work/request.gz" 2>"$work/load.err") ||
	fail "calltree-load --format otlp failed: $(cat "$work/load.err")"
loaded=$(ct_psql "$db" -At -v ids="{$(paste -sd , <<<"$ids")}" <<<"SELECT string_agg(name || ':' || (meta->>'sample_type'), ' ' ORDER BY n)
  FROM unnest(:'ids'::bigint[]) WITH ORDINALITY AS i(id, n) JOIN calltree.profile p USING (id)")
[ "$loaded" = "svc-sample.cpu:samples svc-sample.cpu:cpu" ] || fail "calltree-load --format otlp loaded: $loaded ($ids)"
[ "$(ct_query "$db" "SELECT max(id) FROM calltree.profile")" = "$(tail -n 1 <<<"$ids")" ] ||
	fail "calltree-load --format otlp printed $ids, not every profile"
grep -q "^calltree-load: $work/request.gz made 2 profiles, named svc-sample.cpu:$" "$work/load.err" ||
	fail "calltree-load --format otlp described: $(cat "$work/load.err")"
echo "t_otlp: $checked OTLP profiles equal to their pprof"
