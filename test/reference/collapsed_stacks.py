#!/usr/bin/env python3
"""Reference numbers for calltree's collapsed-stack import, computed independently.

Reads collapsed stack files ("root;caller;leaf count" lines) with Python's
standard library, by the rules of docs/formats.md's import_collapsed section, no
code shared with src/import/import_collapsed.c:

  - UTF-16 with its byte-order mark (either byte order) is decoded as such,
    a UTF-8 byte-order mark is dropped, anything else is UTF-8;
  - lines are cut at LF; trailing white space (CR included) is ignored, and
    lines of white space only are skipped;
  - the count is the last space-separated field, a non-negative integer that
    fits a bigint; the spaces before it are not part of the stack, which
    must not be empty; the stack is split at ';' into func names;
  - any other line is malformed: strictly, the first one is the error
    "malformed collapsed stack at line N"; leniently it is skipped and counted.

Prints, per file, the lines that pg_temp.collapsed_summary() of
test/reference/helpers.sql prints for the imported profile (test/t_collapsed_reference.sh
diffs the two):

  strict:    ok, or the error naming the first malformed line
  lenient:   how many malformed lines are skipped ("none" if no line is)
  samples, total
  functions: the top 10 by self (then running, name); running counts a
             sample once even when the function recurs in its stack
  nodes:     the top 8 CallNodes by running (then self, path) and the top 8
             by self (then running, path), shown as the ';'-joined path

Usage: collapsed_stacks.py FILE...
"""
import sys

WHITE = " \t\n\v\f\r"
INT64_MAX = 2**63 - 1


def decode(raw):
    if raw[:2] == b"\xff\xfe":
        return raw[2:].decode("utf-16-le")
    if raw[:2] == b"\xfe\xff":
        return raw[2:].decode("utf-16-be")
    if raw[:3] == b"\xef\xbb\xbf":
        raw = raw[3:]
    return raw.decode("utf-8")


def parse_line(line):
    """(names, count) of a sample line, or None if malformed."""
    text = line.rstrip(WHITE)
    head, sep, count = text.rpartition(" ")
    if not sep or not count.isdigit() or not count.isascii() or int(count) > INT64_MAX:
        return None
    stack = head.rstrip(" ")
    if not stack:
        return None
    return stack.split(";"), int(count)


def read(text):
    """([(names tuple, count)], first malformed line number or None, malformed count)"""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    samples, first_bad, bad = [], None, 0
    for number, line in enumerate(lines, start=1):
        if line.strip(WHITE) == "":
            continue
        parsed = parse_line(line)
        if parsed is None:
            bad += 1
            first_bad = first_bad or number
            continue
        samples.append((tuple(parsed[0]), parsed[1]))
    return samples, first_bad, bad


def report(samples, first_bad, bad):
    print("  strict: " + ("ok" if first_bad is None else f"malformed collapsed stack at line {first_bad}"))
    print("  lenient: " + ("none" if bad == 0 else f"skipped {bad} malformed line{'' if bad == 1 else 's'}"))
    print(f"  samples {len(samples)}  total {sum(w for _, w in samples)}")
    fself, frun, nself, nrun = {}, {}, {}, {}
    for path, w in samples:
        fself[path[-1]] = fself.get(path[-1], 0) + w
        for f in set(path):
            frun[f] = frun.get(f, 0) + w
        for d in range(1, len(path) + 1):
            nrun[path[:d]] = nrun.get(path[:d], 0) + w
        nself[path] = nself.get(path, 0) + w
    # the database's text order is COLLATE "C": code points, as Python's
    print("  functions (name | self | running):")
    for f in sorted(frun, key=lambda f: (-fself.get(f, 0), -frun[f], f))[:10]:
        print(f"    {f} | {fself.get(f, 0)} | {frun[f]}")
    names = {p: ";".join(p) for p in nrun}
    print("  nodes by running (path | running | self):")
    for p in sorted(nrun, key=lambda p: (-nrun[p], -nself.get(p, 0), names[p]))[:8]:
        print(f"    {names[p]} | {nrun[p]} | {nself.get(p, 0)}")
    print("  nodes by self (path | running | self):")
    for p in sorted(nrun, key=lambda p: (-nself.get(p, 0), -nrun[p], names[p]))[:8]:
        print(f"    {names[p]} | {nrun[p]} | {nself.get(p, 0)}")


def main():
    for name in sys.argv[1:]:
        with open(name, "rb") as f:
            text = decode(f.read())
        print(name)
        report(*read(text))


if __name__ == "__main__":
    main()
