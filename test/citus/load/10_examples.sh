# The profiles of README.md and docs/cookbook.md, through bin/calltree-load
# (import_stream): the three CPU profiles of the toy shop, then the deploys
# example.
set -e
bin/calltree-load examples/web-1.pprof --meta host=web-1 >/dev/null
bin/calltree-load examples/web-2.pprof --meta host=web-2 >/dev/null
bin/calltree-load examples/web-1-later.pprof --meta host=web-1 >/dev/null
psql -X -q -v ON_ERROR_STOP=1 -c 'SET client_min_messages = warning' -f examples/deploys/load.sql >/dev/null
# On Citus, the deploys join the distributed profiles: a reference table
# (docs/citus.md, "Queries")
psql -X -q -v ON_ERROR_STOP=1 -c "DO \$\$ BEGIN IF EXISTS (SELECT FROM pg_extension WHERE extname = 'citus') THEN PERFORM create_reference_table('deploys'); END IF; END \$\$" >/dev/null
