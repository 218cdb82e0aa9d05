#!/usr/bin/env bash
# A fleet uploading at once: 8 importers and 4 readers, side by side, for
# CALLTREE_INGEST_SECONDS (default 90).  The importers use every format
# (import_collapsed, import_pprof with label sets, import_perf_script with
# [unknown] frames, import_cpuprofile, import_speedscope,
# import_trace_events, import_firefox, import_profile of gzipped files, and
# bin/calltree-load's import_stream of files that write more than one batch
# of samples, some with the smallest calltree.import_work_mem), each file
# mixing known funcs with those of a new "build" that every importer meets
# at about the same time, in an order of its own (test/concurrent_ingest.py).
# The readers aggregate, report and export the profiles as they arrive.
#
# Passes only with no error anywhere (a deadlock is one), every imported
# profile complete (its sample count and total weight those its file was
# made with), and no func, frame, stack or label set twice.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

seconds=${CALLTREE_INGEST_SECONDS:-90}
importers=8
readers=4
files=${CALLTREE_INGEST_FILES:-48}     # per importer; imported again (all known) when all are done
db=calltree_ingest
export PGDATABASE=$db
unset PGAPPNAME

ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree' >/dev/null

for ((i = 0; i < importers; i++)); do
	python3 "$repo/test/concurrent_ingest.py" "$work/imp$i" "$i" "$files" 20261126 &
done
wait

# import_file KIND PATH NAME: one file, the way its kind says
import_file() {
	local kind=$1 path=$2 name=$3 call
	case "$kind" in
	stream)
		# every other one with the smallest cache, which it empties as it goes
		if [ $((RANDOM % 2)) = 0 ]; then
			PGOPTIONS="$PGOPTIONS -c calltree.import_work_mem=1024" "$repo/bin/calltree-load" --name "$name" "$path"
		else
			"$repo/bin/calltree-load" --name "$name" "$path"
		fi >/dev/null
		return
		;;
	collapsed) call="calltree.import_collapsed(:'d', name => :'n')" ;;
	perf) call="calltree.import_perf_script(:'d', name => :'n')" ;;
	cpuprofile) call="calltree.import_cpuprofile(:'d', name => :'n')" ;;
	speedscope) call="calltree.import_speedscope(:'d', name => :'n')" ;;
	trace) call="calltree.import_trace_events(:'d', name => :'n')" ;;
	firefox) call="calltree.import_firefox(:'d', name => :'n')" ;;
	pprof) call="calltree.import_pprof(pg_catalog.decode(:'d', 'base64'), name => :'n')" ;;
	profile) call="calltree.import_profile(pg_catalog.decode(:'d', 'base64'), name => :'n')" ;;
	*) fail "unknown kind $kind" ;;
	esac
	case "$kind" in
	pprof | profile) printf '\\set d `base64 -w0 %s`\n' "$path" ;;
	*) printf '\\set d `cat %s`\n' "$path" ;;
	esac | cat - <(printf 'SELECT %s;\n' "$call") |
		ct_psql "$db" -At -v n="$name" >/dev/null
}

# importer I: its files in order, again and again, until the deadline; one
# line per import in imported.tsv, errors in errors.log
importer() {
	local i=$1 pass=0 index kind path samples total name
	while :; do
		while IFS=$'\t' read -r index kind path samples total; do
			[ "$SECONDS" -lt "$deadline" ] || return 0
			name="imp$i-$pass-$index"
			if import_file "$kind" "$path" "$name" 2>>"$work/imp$i/errors.log"; then
				printf '%s\t%s\t%s\t%s\n' "$name" "$kind" "$samples" "$total" >>"$work/imp$i/imported.tsv"
			else
				echo "$name ($kind) failed" >>"$work/imp$i/errors.log"
			fi
		done <"$work/imp$i/manifest.tsv"
		pass=$((pass + 1))
	done
}

# reader I: a random query on a random profile, until the deadline
reader() {
	local i=$1 queries=0 tree
	local -a reads=(
		"SELECT count(*) FROM calltree.report(:tree)"
		"SELECT count(*) FROM calltree.functions(:tree) fn JOIN calltree.func f ON f.id = fn.func"
		"SELECT length(calltree.flamegraph(:tree, 'ingest'))"
		"SELECT length(calltree.to_pprof(:tree))"
		"SELECT length(calltree.to_collapsed(:tree))"
		"SELECT length(calltree.to_speedscope(:tree)::text)"
		"SELECT count(*) FROM calltree.nodes(:tree)"
	)
	tree="(SELECT calltree.stack_agg(s.stack_id, s.weight) FROM calltree.sample s WHERE s.profile_id = (SELECT p.id FROM calltree.profile p ORDER BY random() LIMIT 1))"
	while [ "$SECONDS" -lt "$deadline" ]; do
		if ! ct_query "$db" "${reads[RANDOM % ${#reads[@]}]//:tree/$tree}" >/dev/null 2>>"$work/reader$i.errors"; then
			echo "reader $i: query failed" >>"$work/reader$i.errors"
		fi
		queries=$((queries + 1))
	done
	echo "$queries" >"$work/reader$i.count"
}

deadline=$((SECONDS + seconds))
for ((i = 0; i < importers; i++)); do
	: >"$work/imp$i/imported.tsv"
	: >"$work/imp$i/errors.log"
	importer "$i" &
done
for ((i = 0; i < readers; i++)); do
	: >"$work/reader$i.errors"
	reader "$i" &
done
wait

# ---------------------------------------------------------------- checks
errors=$(cat "$work"/imp*/errors.log "$work"/reader*.errors)
if [ -n "$errors" ]; then
	echo "$errors" | sort | uniq -c | sort -rn | head -20 >&2
	fail "$(grep -c 'failed' <<<"$errors") imports or reads failed, $(grep -c 'deadlock detected' <<<"$errors" || true) of them in a deadlock"
fi

cat "$work"/imp*/imported.tsv >"$work/imported.tsv"
imported=$(wc -l <"$work/imported.tsv")
[ "$imported" -gt 0 ] || fail "nothing was imported in $seconds s"
# every profile as its file: sample count and total weight
incomplete=$(ct_psql "$db" -At <<-SQL
	CREATE TEMP TABLE expected (name text, kind text, samples bigint, total numeric);
	\copy expected FROM '$work/imported.tsv'
	SELECT count(*) || ' incomplete, for example ' || coalesce(min(e.name || ' (' || e.kind || '): '
	       || coalesce(a.samples, 0) || ' samples of weight ' || coalesce(a.total, 0)
	       || ', expected ' || e.samples || ' of ' || e.total), '')
	  FROM expected e
	  LEFT JOIN (SELECT p.name, count(s.*) AS samples, sum(s.weight) AS total
	               FROM calltree.profile p LEFT JOIN calltree.sample s ON s.profile_id = p.id
	              GROUP BY p.id, p.name) a ON a.name = e.name
	 WHERE a.samples IS DISTINCT FROM e.samples OR a.total IS DISTINCT FROM e.total
	HAVING count(*) > 0
	UNION ALL
	SELECT (SELECT count(*) FROM calltree.profile) - count(*) || ' profiles more than imported'
	  FROM expected HAVING (SELECT count(*) FROM calltree.profile) <> count(*);
SQL
)
[ -z "$incomplete" ] || fail "$incomplete"

duplicates=$(ct_query "$db" "SELECT concat_ws(', ',
	(SELECT count(*) || ' funcs' FROM (SELECT FROM calltree.func GROUP BY name, file, resource HAVING count(*) > 1) d HAVING count(*) > 0),
	(SELECT count(*) || ' frames' FROM (SELECT FROM calltree.frame GROUP BY func_id, address, line, col, implementation HAVING count(*) > 1) d HAVING count(*) > 0),
	(SELECT count(*) || ' stacks' FROM (SELECT FROM calltree.stack GROUP BY prefix_id, frame_id HAVING count(*) > 1) d HAVING count(*) > 0),
	(SELECT count(*) || ' label sets' FROM (SELECT FROM calltree.labels GROUP BY labels HAVING count(*) > 1) d HAVING count(*) > 0))")
[ -z "$duplicates" ] || fail "duplicate interned rows: $duplicates"

echo "$imported profiles in $seconds s ($(cut -f2 "$work/imported.tsv" | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')),"\
	"$(cat "$work"/reader*.count | awk '{n += $1} END {print n}') reads; $(ct_query "$db" "SELECT count(*) || ' funcs, ' ||
	(SELECT count(*) FROM calltree.stack) || ' stacks, ' || (SELECT count(*) FROM calltree.labels) || ' label sets'
	FROM calltree.func")"
