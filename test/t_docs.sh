#!/usr/bin/env bash
# The documentation's examples are run and their output compared with the
# text shown: every sql and sh example of README.md and docs/*.md (the pages
# that exist).  test/docs_examples.py runs one page; a page is written to
# these rules:
#
# 1. Each page runs in its own freshly created, empty database, top to
#    bottom; the page itself runs CREATE EXTENSION calltree.
# 2. Every ```sql fenced block is run.  Consecutive sql blocks of a page run
#    in one psql session (so SET search_path carries over), as
#    psql -X -q -v ON_ERROR_STOP=1 -P footer=off (and -P pager=off); the
#    harness separates the blocks' outputs with \echo markers.
# 3. A ```sql block followed (only blank lines between) by a fenced block
#    with no language tag (a bare ```) shows its expected output: psql's
#    stdout for that block, compared exactly after removing trailing white
#    space from every line and the empty lines at its start and end.
#    stderr (NOTICEs) is not compared.  A block that raises an error fails.
# 4. ```sh blocks run with bash -e, in the page's order, with PGDATABASE set
#    to the page's database and PostgreSQL's programs first on PATH; they
#    end the current psql session (the next sql block starts a new one).
#    A bare block right after one is its expected stdout, compared the
#    same way; after a block fenced ```sh stderr, its stdout and stderr as
#    written, run without PGOPTIONS (NOTICEs shown, as a user sees them).
#    Both run with PGTZ=UTC, so that timestamps print as shown, and with
#    client_min_messages=warning (ct_script_init of test/lib.sh sets PGOPTIONS).
# 5. psql and sh blocks run in a scratch folder in which examples and bin
#    are links to the repository's folders: `bin/calltree-load
#    examples/x` works, and files the examples write (\copy ... TO
#    'flame.html', \o, > file) land in the scratch folder, not in the
#    repository.  Each page has a scratch folder of its own.
# 6. A block preceded by the line <!-- not run: REASON --> (blank lines may
#    come between) is skipped, and so is the output block shown after it;
#    a skipped block does not end a psql session.  An sql block must end
#    its last statement (a ';' or a backslash command such as \g).
# 7. A block that fails is reported with its page, its first line, its line
#    number and a unified diff (or the error).  After a block that errs the
#    rest of its page is not run; after a wrong output it is.  The test
#    fails if any block fails, and prints how many blocks ran per page.
#
# Fences may be indented (inside a list item); other languages (```json,
# ```console, ...) and bare blocks that follow no sql or sh block are text.
#
# Runs against the cluster of test/run.sh (PGHOST, PGPORT, PGUSER, PG_BIN):
#   test/run.sh shell test/t_docs.sh [PAGE.md ...]
# Without arguments it runs README.md and every docs/*.md.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

pages=()
if [ $# -gt 0 ]; then
	for page in "$@"; do
		pages+=("$(cd "$(dirname "$page")" && pwd)/$(basename "$page")")
	done
else
	pages+=("$repo/README.md")
	for page in "$repo"/docs/*.md; do
		[ -f "$page" ] && pages+=("$page")
	done
fi

failed=0
n=0
for page in "${pages[@]}"; do
	n=$((n + 1))
	db=calltree_docs_$n
	scratch=$work/page$n
	ct_createdb "$db"
	mkdir "$scratch"
	ln -s "$repo/examples" "$scratch/examples"
	ln -s "$repo/bin" "$scratch/bin"
	python3 "$repo/test/docs_examples.py" --page "$page" --name "${page#"$repo"/}" \
		--db "$db" --dir "$scratch" --psql "$PG_BIN/psql" || failed=$((failed + 1))
done
[ "$failed" -eq 0 ] || fail "$failed of $n pages have failing examples"
echo "$n pages, all examples as shown"
