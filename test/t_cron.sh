#!/usr/bin/env bash
# Rollups scheduled by pg_cron (Debian's postgresql-15-cron): a cluster of
# its own that preloads pg_cron runs a real job that calls calltree.rollup,
# and the rollup trees it leaves equal stack_agg over the same samples.
#
# pg_cron 1.4 (Debian 12's) schedules by the minute at the finest; its
# seconds syntax came later.  So that the test takes seconds, not up to a
# minute, the job runs the command of the documented every-minute job on
# the schedule '@reboot', and the test restarts the server: pg_cron then
# runs it at once, as it would at the top of a minute.  A second profile,
# imported afterwards, is taken by the next run (another restart).
#
# Then the daily report of significant changes of docs/reports.md: the
# page's set-up block and its job's command, taken from the page, the job
# run the same way over two days of hourly profiles, must find the function
# that slowed down.
#
# Runs beside the cluster of test/run.sh (its programs, PG_BIN); the
# cluster here is its own (ct_cluster_start), in the scratch folder, socket
# only, and every query below goes to it.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

pkglibdir=$("$PG_CONFIG" --pkglibdir)
[ -f "$pkglibdir/pg_cron.so" ] ||
	fail "pg_cron is not installed in $pkglibdir (Debian: apt-get install postgresql-15-cron)"

cron=$work/cron
# jobs run in background workers: no connection through a host name
ct_cluster_start "$cron" "shared_preload_libraries = 'pg_cron'" "cron.database_name = 'postgres'" \
	"cron.use_background_workers = on"
export PGHOST=$cron PGPORT=$CT_PORT

ct_query postgres 'CREATE EXTENSION pg_cron'
"$PG_BIN/createdb" reports
ct_query reports 'CREATE EXTENSION calltree'

# import NAME SERVICE STARTED COLLAPSED
import() {
	ct_query reports "SELECT calltree.import_collapsed(E'$4', '$1', jsonb_build_object('service', '$2')) IS NOT NULL;
	           UPDATE calltree.profile SET started_at = '$3' WHERE name = '$1'" >/dev/null
}
import cron-1 checkout '2031-03-03 09:15+00' 'main;a 3\nmain;b 1\n'
import cron-2 checkout '2031-03-03 10:10+00' 'main;a 2\nmain;a;c 4\n'
import cron-3 search '2031-03-03 10:20+00' 'main;s 7\n'

# The command of the documented job: hours from samples, days from hours.
command="SELECT calltree.rollup('1 hour'); SELECT calltree.rollup('1 day')"
ct_query postgres "SELECT cron.schedule_in_database('calltree-rollup', '@reboot', \$\$$command\$\$, 'reports')" >/dev/null

# run_job N: restart the server and wait (at most 30 s) for the job's Nth run.
run_job() {
	ct_cluster_ctl "$cron" restart >/dev/null 2>&1 || fail "the pg_cron cluster did not restart" "$cron/server.log"
	local i status
	for i in $(seq 60); do
		status=$(ct_query postgres "SELECT string_agg(status, ' ' ORDER BY runid) FROM cron.job_run_details")
		case "$status" in
		*failed*) fail "the job failed: $(ct_query postgres "SELECT return_message FROM cron.job_run_details WHERE status = 'failed'")" ;;
		esac
		[ "$(wc -w <<<"$status")" -ge "$1" ] && [ "$(awk '{print $NF}' <<<"$status")" = succeeded ] && return
		sleep 0.5
	done
	fail "the job's run $1 did not succeed within 30 s (runs: ${status:-none})"
}

# check LEVEL: every rollup row of the level equals stack_agg over the
# samples of its profiles, and every profile is in one row of the level.
check() {
	local got
	got=$(ct_query reports "
		SELECT count(*) || ' rows, ' || count(*) FILTER (WHERE r.tree OPERATOR(calltree.=) (
		         SELECT calltree.stack_agg(s.stack_id, s.weight)
		           FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
		          WHERE r.profiles @> p.id)) || ' equal, '
		       || (SELECT count(*) FROM calltree.profile p
		            WHERE (SELECT count(*) FROM calltree.rollup q WHERE q.width = '$1' AND q.profiles @> p.id) = 1)
		       || ' of ' || (SELECT count(*) FROM calltree.profile) || ' profiles'
		  FROM calltree.rollup r WHERE r.width = '$1'")
	[ "$got" = "$2" ] || fail "level $1: $got, expected $2"
}

run_job 1
check '1 hour' '3 rows, 3 equal, 3 of 3 profiles'
check '1 day' '2 rows, 2 equal, 3 of 3 profiles'
[ "$(ct_query reports "SELECT calltree.to_collapsed(calltree.tree_between('{\"service\": \"checkout\"}', '2031-03-03', '2031-03-04'))")" = \
	"$(printf 'main;a 5\nmain;a;c 4\nmain;b 1')" ] || fail "tree_between over the job's rollups is not the raw tree"

# A profile imported after the run: the next run takes it.
import cron-4 checkout '2031-03-03 10:40+00' 'main;d 2\n'
run_job 2
check '1 hour' '3 rows, 3 equal, 4 of 4 profiles'
check '1 day' '2 rows, 2 equal, 4 of 4 profiles'

# The daily report of significant changes (docs/reports.md): the page's
# table and function, then its job's command, run by pg_cron over two days
# of hourly profiles of shop, yesterday and the day before (UTC), parse
# twice as slow yesterday.  (A run that straddles midnight UTC, between the
# profiles' dates and the job's, would look at the wrong day.)
"$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d reports -c 'SET client_min_messages = warning' \
	-f <(python3 - "$repo/docs/reports.md" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
block = re.search(r"<!-- test/t_cron.sh runs this block[^>]*-->\s*```sql\n(.*?)```", page, re.S)
print(block.group(1))
PY
) >/dev/null || fail "the daily report's set-up of docs/reports.md failed"
daily=$(python3 - "$repo/docs/reports.md" <<'PY'
import re, sys
page = open(sys.argv[1]).read()
print(re.search(r"'calltree-daily-changes', '[^']*',\s*\$\$(.*?)\$\$", page, re.S).group(1))
PY
)
[ -n "$daily" ] || fail "no daily job in docs/reports.md"
ct_query reports "SELECT count(calltree.import_collapsed(
	         format(E'main;handle;parse %s\nmain;handle;render %s\nmain;gc %s\n',
	                (20 + h % 5) * d, 50 + (h * 7) % 11, 10 + (h * 3) % 4),
	         format('shop-%s-%s', d, h), '{\"service\": \"shop\"}'))
	  FROM generate_series(1, 2) AS d, generate_series(8, 15) AS h;
	UPDATE calltree.profile SET started_at = (now() AT TIME ZONE 'UTC')::date::timestamp AT TIME ZONE 'UTC'
	         - (3 - split_part(name, '-', 2)::int) * interval '1 day' + split_part(name, '-', 3)::int * interval '1 hour'
	 WHERE name LIKE 'shop-%'" >/dev/null
ct_query postgres "SELECT cron.unschedule('calltree-rollup')" >/dev/null
ct_query postgres "SELECT cron.schedule_in_database('calltree-daily-changes', '@reboot', \$\$$daily\$\$, 'reports')" >/dev/null
run_job 3
got=$(ct_query reports "SELECT string_agg(name || (CASE WHEN after_pct > before_pct THEN ' up' ELSE ' down' END), ', ' ORDER BY name)
	                      FROM daily_changes
	                     WHERE day = (now() AT TIME ZONE 'UTC')::date - 1 AND group_key = '{\"service\": \"shop\"}'")
[ "$got" = "gc down, handle up, parse up, render down" ] ||
	fail "the daily job wrote '$got' into daily_changes, expected parse up and its consequences"

echo "t_cron: ok (pg_cron $(ct_query postgres "SELECT extversion FROM pg_extension WHERE extname = 'pg_cron'") ran rollup twice; hourly and daily trees equal stack_agg; the daily report found parse up)"
