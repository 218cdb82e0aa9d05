#!/usr/bin/env bash
# to_speedscope() output is valid against speedscope's published file-format
# schema (https://www.speedscope.app/file-format-schema.json, shipped by the
# `speedscope` npm package as dist/release/file-format-schema.json), checked
# with ajv.
#
# Starts nothing: uses the cluster of the runner (PGHOST, PGPORT, PGUSER,
# PGDATABASE) and creates a scratch database.  Needs node and the packages of
# test/js (the runner does `npm ci --prefix test/js`; see test/js/package.json).
# CALLTREE_SHARED (default ../shared) holds the real profiles, under data/.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

js=$repo/test/js
db=calltree_speedscope_schema

schema=$js/node_modules/speedscope/dist/release/file-format-schema.json
[ -f "$schema" ] || fail "no $schema: run npm ci --prefix test/js"
[ -d "$js/node_modules/ajv" ] || fail "no ajv in test/js/node_modules: run npm ci --prefix test/js"


ct_createdb "$db"
ct_query "$db" 'CREATE EXTENSION calltree'

# The trees: a small one of three samples, real profiles, odd names, unknown func ids.
ct_psql "$db" -At -v dir="$shared/data" <<'SQL'
CREATE TABLE trees (name text PRIMARY KEY, tree calltree.calltree);
-- three samples, F under C and under H: A→B→C→D→E, A→B→C→F→G, A→B→H→F
CREATE TEMP TABLE seed AS
SELECT calltree.intern_stack(names) AS stack_id
  FROM (VALUES (ARRAY['A','B','C','D','E']), (ARRAY['A','B','C','F','G']), (ARRAY['A','B','H','F'])) AS v(names);
INSERT INTO trees SELECT 'seed-000', calltree.stack_agg(stack_id) FROM seed;
\set f :dir '/speedscope-samples/Chrome/65/sucrase.cpuprofile'
SELECT calltree.import_cpuprofile(pg_read_file(:'f')) AS id \gset
INSERT INTO trees SELECT 'sucrase', calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = :id;
\set f :dir '/firefox-profiler/hello.cjs-20231120T211435.cpuprofile'
SELECT calltree.import_cpuprofile(pg_read_file(:'f')) AS id \gset
INSERT INTO trees SELECT 'hello-cjs', calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = :id;
\set f :dir '/speedscope-samples/speedscope/0.0.1/simple.speedscope.json'
SELECT calltree.import_speedscope(pg_read_file(:'f')) AS id \gset
INSERT INTO trees SELECT 'speedscope-evented', calltree.stack_agg(stack_id, weight) FROM calltree.sample WHERE profile_id = :id;
CREATE TEMP TABLE odd AS
SELECT calltree.intern_stack(names) AS stack_id, w
  FROM (VALUES (ARRAY['main', 'say "hi"'], 5::bigint), (ARRAY['main', E'back\\slash', E'tab\té'], 0)) AS v(names, w);
INSERT INTO trees SELECT 'odd-names', calltree.stack_agg(stack_id, w) FROM odd;
INSERT INTO trees SELECT 'unknown-funcs', calltree.calltree_agg(p) FROM (VALUES (ARRAY[2147483000, 2147483001])) AS v(p);
SQL

names=$(ct_query "$db" "SELECT name FROM trees ORDER BY name")
for name in $names; do
	ct_query "$db" "SELECT calltree.to_speedscope(tree, name) FROM trees WHERE name = '$name'" >"$work/$name.json"
done

NODE_PATH=$js/node_modules node - "$schema" "$work"/*.json <<'JS'
const fs = require('fs');
const path = require('path');
const Ajv = require('ajv');
const [schemaFile, ...files] = process.argv.slice(2);
const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
// the published schema is draft-07 and names itself by $id/$schema
const ajv = new Ajv({allErrors: true, strict: false});
const validate = ajv.compile(schema);
let failed = 0;
for (const file of files) {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (validate(doc)) {
    console.log(`t_speedscope_schema: ${path.basename(file)} valid`);
  } else {
    failed++;
    console.error(`t_speedscope_schema: ${path.basename(file)} INVALID: ${ajv.errorsText(validate.errors)}`);
  }
}
process.exit(failed ? 1 : 0);
JS

# The validator must also reject a broken file, or the check above proves nothing.
echo '{"$schema": "https://www.speedscope.app/file-format-schema.json", "shared": {"frames": [{}]}, "profiles": []}' >"$work/broken.json"
if NODE_PATH=$js/node_modules node -e '
const Ajv = require("ajv"); const fs = require("fs");
const v = new Ajv({strict: false}).compile(JSON.parse(fs.readFileSync(process.argv[1], "utf8")));
process.exit(v(JSON.parse(fs.readFileSync(process.argv[2], "utf8"))) ? 0 : 1);' "$schema" "$work/broken.json"; then
	fail "ajv accepted a frame without a name: the schema check is not working"
fi
echo "t_speedscope_schema: ok ($(echo "$names" | wc -l) files)"
