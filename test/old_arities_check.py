#!/usr/bin/env python3
"""C functions that an older version declares with fewer arguments.

  python3 test/old_arities_check.py [REPO]

Until ALTER EXTENSION calltree UPDATE runs, a database keeps the SQL
declarations of the version it installed, and they call the current
library.  A C function that a newer version declares with more arguments
is then called with fewer: reading an argument past PG_NARGS() reads
memory after the call's arguments, which is garbage (and crashed a server
once).  So, for every C symbol that the scripts of src/ (the frozen
releases, the update scripts and the current install) declare with
different numbers of input arguments:

  every argument index the function's own body reads as a literal
  (PG_GETARG_*(N), PG_ARGISNULL(N)) at or past the smallest count must be
  read in a body that consults PG_NARGS().

Arguments read through helpers (import_options.c's has_arg) are checked by
the helpers themselves.  Prints one line per breach and the symbols it
checked; exits 1 on any breach, or when it found nothing to compare.
"""
import glob
import os
import re
import sys

FUNCTION = re.compile(r"CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+[\w@.\"]+\s*\(", re.I)
SYMBOL = re.compile(r"AS\s+'MODULE_PATHNAME'\s*,\s*'(\w+)'", re.I)
C_FUNCTION = re.compile(r"\nDatum\n(\w+)\(PG_FUNCTION_ARGS\)\n\{(.*?)\n\}", re.S)
ARG_READ = re.compile(r"PG_(?:GETARG_\w+|ARGISNULL)\((\d+)\)")


def split_top_level(text):
    """The comma-separated parts of TEXT outside parentheses."""
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current)
    return parts


def declared_arities(repo):
    """{C symbol: {input argument count: [script, ...]}} over src/'s scripts."""
    scripts = (glob.glob(os.path.join(repo, "src/releases/*.sql"))
               + glob.glob(os.path.join(repo, "src/install/**/*.sql"), recursive=True)
               + glob.glob(os.path.join(repo, "src/updates/*.sql")))
    arities = {}
    for script in sorted(scripts):
        text = open(script, encoding="utf-8").read()
        for match in FUNCTION.finditer(text):
            end, depth = match.end(), 1
            while depth:
                depth += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            args = split_top_level(text[match.end():end - 1])
            inputs = [a for a in args if not re.match(r"\s*OUT\s", a, re.I)]
            statement = text[end:].split(";", 1)[0]
            symbol = SYMBOL.search(statement)
            if symbol:
                arities.setdefault(symbol.group(1), {}).setdefault(len(inputs), []).append(
                    os.path.relpath(script, repo))
    return arities


def c_bodies(repo):
    """{C symbol: (file, body)} of every fmgr function in src/."""
    bodies = {}
    for path in glob.glob(os.path.join(repo, "src/**/*.c"), recursive=True):
        for match in C_FUNCTION.finditer(open(path, encoding="utf-8").read()):
            bodies[match.group(1)] = (os.path.relpath(path, repo), match.group(2))
    return bodies


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else "."
    arities = declared_arities(repo)
    bodies = c_bodies(repo)
    breaches, checked = [], []
    for symbol, counts in sorted(arities.items()):
        if symbol not in bodies:
            breaches.append(f"{symbol}: declared in {sorted(counts.items())[0][1][0]}, no such C function")
            continue
        if len(counts) == 1:
            continue
        fewest = min(counts)
        path, body = bodies[symbol]
        late = sorted({int(n) for n in ARG_READ.findall(body) if int(n) >= fewest})
        checked.append(f"{symbol} ({'/'.join(str(c) for c in sorted(counts))} arguments)")
        if late and "PG_NARGS()" not in body:
            breaches.append(f"{path}: {symbol} reads argument {', '.join(map(str, late))} without PG_NARGS(), "
                            f"but {counts[fewest][0]} declares it with {fewest}")
    if not checked:
        breaches.append("found no C function declared with different argument counts: the scripts were not read")
    for line in breaches:
        print(line)
    print(f"checked {len(checked)} functions declared with different argument counts: {', '.join(checked)}")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main())
