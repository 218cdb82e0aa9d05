#!/usr/bin/env bash
# Every non-strict C function of calltree, called with all its arguments
# NULL and then with each one NULL in turn (the others valid), returns or
# raises an error a user can act on: never a crash, never an internal error
# (SQLSTATE class XX).  Such a function must test each argument it reads;
# one that does not dereferences a NULL pointer.  test/null_args_calls.py
# writes the calls.
#
# Runs against the cluster of test/run.sh.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init

db=calltree_null_args
ct_createdb "$db"
ct_psql "$db" >/dev/null <<'SQL'
CREATE EXTENSION calltree;
CREATE TABLE chunks (data bytea);
INSERT INTO chunks VALUES ('\x0a00');
SELECT calltree.import_collapsed(E'main;work 3\nmain 1\n', 'null args');
SQL

# the non-strict C functions with arguments, but for aggregate support
# functions taking internal (SQL cannot pass them a state)
ct_query "$db" "SELECT p.oid::regprocedure || '|' || p.proretset
  FROM pg_proc p
 WHERE p.pronamespace = 'calltree'::regnamespace AND NOT p.proisstrict AND p.prokind = 'f'
   AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c') AND p.pronargs > 0
   AND NOT 'internal'::regtype = ANY (p.proargtypes::regtype[])
 ORDER BY 1" >"$work/functions"
functions=$(wc -l <"$work/functions")
[ "$functions" -ge 20 ] || fail "only $functions non-strict C functions found"
python3 "$repo/test/null_args_calls.py" <"$work/functions" >"$work/calls.sql"
calls=$(sed -n 's/^\\echo CALLS //p' "$work/calls.sql")

rc=0
ct_psql "$db" -v ON_ERROR_STOP=0 -v VERBOSITY=verbose -f "$work/calls.sql" >"$work/out" 2>&1 || rc=$?
reached=$(grep -c '^CALL [0-9]*$' "$work/out" || true)
if [ "$rc" -ne 0 ] || ! grep -qx "CALLS $calls" "$work/out"; then
	last=$(grep '^CALL [0-9]*$' "$work/out" | tail -n 1)
	fail "psql stopped (exit $rc) after $reached of $calls calls; the last: $(grep -A1 -x "\\\\echo $last" "$work/calls.sql" | tail -n 1)" "$work/out"
fi
if grep -E 'ERROR:  XX[0-9A-Z]{3}' "$work/out" >&2; then
	fail "internal errors above; the calls are in $work/calls.sql"
fi
[ "$(ct_query "$db" 'SELECT 1')" = 1 ] || fail "the server does not answer after the calls"
echo "t_null_args: ok ($calls calls of $functions non-strict C functions, $(grep -c 'ERROR:' "$work/out") of them errors, none internal)"
