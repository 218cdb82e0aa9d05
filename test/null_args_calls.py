#!/usr/bin/env python3
"""Calls of calltree's non-strict C functions with NULL arguments.

  python3 test/null_args_calls.py < FUNCTIONS > CALLS.sql

FUNCTIONS: lines "regprocedure|retset" (t or f), as test/t_null_args.sh
reads them from the catalog.  For each function, one call with every
argument NULL, then one call per argument with that argument NULL and the
others valid values of their types (a small call tree of the test's
database, its packed samples, 'x', 1, ...).  Each call is preceded by
"\\echo CALL N" so that the test can count how many calls psql reached.
A function with an argument type not in VALID below is an error: add a
value for the type, so that the new function is tested too.
"""
import sys

VALID = {
    "bigint": "1::bigint",
    "boolean": "true",
    "bytea": "'\\x0a00'::bytea",
    "calltree.calltree": "(SELECT calltree.stack_agg(stack_id, weight) FROM calltree.sample)",
    "calltree.samples": "(SELECT samples FROM calltree.sample_set LIMIT 1)",
    "calltree.stack_weights": "calltree.stack_agg_transfn(NULL::calltree.stack_weights, 1::bigint, 1::bigint)",
    "double precision": "0.5::float8",
    "integer": "1",
    "integer[]": "'{1}'::int4[]",
    "jsonb": "'{}'::jsonb",
    "regclass": "'chunks'::regclass",
    "text": "'x'",
}


def call(name, retset, args):
    arguments = ", ".join(args)
    return f"SELECT * FROM {name}({arguments});" if retset else f"SELECT {name}({arguments});"


def main():
    calls = []
    for line in sys.stdin:
        signature, retset = line.strip().rsplit("|", 1)
        name, types = signature.split("(", 1)
        types = [t.strip() for t in types[:-1].split(",")]
        unknown = [t for t in types if t not in VALID]
        if unknown:
            sys.exit(f"null_args_calls.py: no valid value for {', '.join(unknown)} ({signature}): add one to VALID")
        calls.append(call(name, retset == "t", [f"NULL::{t}" for t in types]))
        for i in range(len(types)):
            calls.append(call(name, retset == "t",
                              [f"NULL::{t}" if j == i else VALID[t] for j, t in enumerate(types)]))
    for n, statement in enumerate(calls, 1):
        print(f"\\echo CALL {n}")
        print(statement)
    print(f"\\echo CALLS {len(calls)}")


if __name__ == "__main__":
    main()
