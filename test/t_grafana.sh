#!/usr/bin/env bash
# examples/grafana/calltree-dashboard.json: the file is valid JSON, and every
# query in it (panels and query variables) runs against a database with
# profiles and rollups, once Grafana's macros and the dashboard's variables
# are expanded as Grafana's PostgreSQL data source expands them:
#   $__timeFilter(col)  ->  col BETWEEN '<from>' AND '<to>'
#   $__timeFrom(), $__timeTo()  ->  '<from>', '<to>'  (RFC 3339, UTC)
#   $service, $unit, $function  ->  the variable's value, as typed
#   $compare (a custom variable)  ->  its current value
# Each query must return rows; the flame graph's rows are checked against
# the raw samples' tree, the diff flame graph's two sides against the raw
# samples of the range and of the range $compare before, and the table of
# changes must put first the function that grew.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN).
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

dashboard=$repo/examples/grafana/calltree-dashboard.json
db=calltree_grafana
ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'

# Two days of checkout profiles, one every 20 minutes, rolled up by the
# hour; parse takes twice as long on the second day.
ct_psql "$db" -At >/dev/null <<'SQL'
SELECT calltree.import_collapsed(
         CASE WHEN i % 3 = 0 THEN format(E'main;handle;parse %s\nmain;handle 1\n', CASE WHEN i >= 72 THEN 6 ELSE 3 END)
              ELSE E'main;handle;render 2\nmain;gc 1\n' END,
         'grafana-' || i, '{"service": "checkout"}')
  FROM generate_series(0, 143) AS i;
UPDATE calltree.profile SET started_at = '2031-03-03 00:05+00'::timestamptz + substr(name, 9)::int * interval '20 minutes';
SELECT calltree.rollup('1 hour');
SQL

# The queries, expanded, one per line as JSON strings ("where<TAB>sql").
from='2031-03-03T09:30:00Z' to='2031-03-04T17:45:00Z'
python3 - "$dashboard" "$from" "$to" >"$work/queries" <<'PY'
import json, re, sys
path, start, end = sys.argv[1:4]
dash = json.load(open(path))          # fails on invalid JSON
values = {"service": "checkout", "unit": "samples", "function": "parse"}
def expand(sql):
    sql = re.sub(r"\$__timeFilter\(([^)]*)\)", lambda m: f"{m.group(1)} BETWEEN '{start}' AND '{end}'", sql)
    sql = sql.replace("$__timeFrom()", f"'{start}'").replace("$__timeTo()", f"'{end}'")
    sql = re.sub(r"\$(\w+)", lambda m: values[m.group(1)], sql)
    assert "$" not in sql, sql
    return sql
found = []
for v in dash["templating"]["list"]:
    if v["type"] == "custom":
        # a list of values, not a query: its current value is one of them
        assert v["current"]["value"] in v["query"].split(","), v
        values[v["name"]] = v["current"]["value"]
        continue
    query = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
    found.append(("variable " + v["name"], query))
for p in dash["panels"]:
    for t in p["targets"]:
        found.append((f"panel {p['id']} ({p['type']})", t["rawSql"]))
assert len(found) >= 6, found
for where, sql in found:
    print(where + "\t" + json.dumps(expand(sql)))
PY

# the value the diff panels were expanded with
compare=$(python3 -c 'import json, sys
print(next(v["current"]["value"] for v in json.load(open(sys.argv[1]))["templating"]["list"] if v["name"] == "compare"))' "$dashboard")

n=0
while IFS=$'\t' read -r where sql; do
	sql=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1]))' "$sql")
	rows=$(ct_query "$db" "SELECT count(*) FROM ($sql) AS query") || fail "$where: the query fails"
	[ "$rows" -gt 0 ] || fail "$where: no rows"
	n=$((n + 1))
	if [[ "$sql" == *grafana_flamegraph_diff* ]]; then
		# Each side of the diff frame, without the nodes the side lacks, is
		# the flame graph of that range's raw samples (as sets of rows: the
		# order is the union's, checked by sql/flamegraph_diff.sql).
		for side in base test; do
			if [ "$side" = base ]; then
				cols='value, self' since="timestamptz '$from' - interval '$compare'" until="timestamptz '$to' - interval '$compare'"
			else
				cols='"valueRight", "selfRight"' since="timestamptz '$from'" until="timestamptz '$to'"
			fi
			got=$(ct_query "$db" "SELECT string_agg(concat_ws(' ', level, v, s, label), ', ' ORDER BY level, label, v, s)
			              FROM (SELECT level, label, $cols FROM ($sql) AS query) AS r(level, label, v, s) WHERE v > 0")
			want=$(ct_query "$db" "SELECT string_agg(concat_ws(' ', level, value, self, label), ', ' ORDER BY level, label, value, self)
			               FROM calltree.grafana_flamegraph((SELECT calltree.stack_agg(s.stack_id, s.weight)
			                      FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
			                     WHERE p.started_at >= $since AND p.started_at < $until))")
			[ "$got" = "$want" ] || fail "$where: the $side side is $got, the raw samples give $want"
		done
	elif [[ "$sql" == *grafana_flamegraph* ]]; then
		# The flame graph of the range equals the tree of the raw samples.
		got=$(ct_query "$db" "SELECT string_agg(concat_ws(' ', level, value, self, label), ', ') FROM ($sql) AS query")
		want=$(ct_query "$db" "SELECT string_agg(concat_ws(' ', level, value, self, label), ', ')
		               FROM calltree.grafana_flamegraph((SELECT calltree.stack_agg(s.stack_id, s.weight)
		                      FROM calltree.profile p JOIN calltree.sample s ON s.profile_id = p.id
		                     WHERE p.started_at >= '$from' AND p.started_at < '$to'))")
		[ "$got" = "$want" ] || fail "$where: the flame graph is $got, the raw samples give $want"
	elif [[ "$sql" == *calltree.regressions* ]]; then
		# parse grew (twice the time on the second day): it comes first
		first=$(ct_query "$db" "SELECT function FROM ($sql) AS query LIMIT 1")
		[ "$first" = parse ] || fail "$where: the function that grew most is $first, not parse"
	fi
done <"$work/queries"
echo "t_grafana: ok ($n queries of the dashboard run, the flame graphs equal the raw samples' trees)"
