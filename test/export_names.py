#!/usr/bin/env python3
"""Random func names through every exporter, for test/t_export_names.sh.

    export_names.py paths SEED COUNT > paths.sql
        COUNT random stacks of random names (any character PostgreSQL's
        text holds: controls, U+FFFE, U+FFFF, noncharacters, private use,
        astral planes, XML and JSON specials), as SQL inserting them into
        table export_paths (names text[], weight int8).
    export_names.py check DIR
        Parses what the exporters wrote into DIR with strict parsers:
        flamegraph.svg with expat, speedscope.json with json (no control
        characters in strings), pprof.gz (protobuf string table in
        UTF-8) and collapsed.txt (one stack per line, ';' between names),
        and checks the names against names.json.
"""
import gzip
import json
import random
import re
import sys
import xml.etree.ElementTree as ET

SPECIALS = "<>&\"';\\{}[]:,# \t\n\r"
POOLS = [
    lambda rng: chr(rng.randint(0x20, 0x7e)),
    lambda rng: chr(rng.choice(list(range(1, 0x20)) + [0x7f])),
    lambda rng: chr(rng.randint(0x80, 0x9f)),
    lambda rng: chr(rng.choice([0xfffe, 0xffff, 0xfffd, 0xfdd0, 0xfdef, 0xfeff, 0x1fffe, 0x10ffff])),
    lambda rng: chr(rng.randint(0xa0, 0xd7ff)),
    lambda rng: chr(rng.randint(0xe000, 0xffff)),
    lambda rng: chr(rng.randint(0x10000, 0x10ffff)),
    lambda rng: rng.choice(SPECIALS),
]


def random_name(rng):
    return "".join(rng.choice(POOLS)(rng) for _ in range(rng.randint(1, 12)))


def sql_literal(s):
    """An E'' literal of any text without NUL (a UTF-8 database)."""
    out = []
    for ch in s:
        c = ord(ch)
        if ch in "'\\":
            out.append("\\" + ch)
        elif 0x20 <= c < 0x7f:
            out.append(ch)
        else:
            out.append("\\U%08X" % c)
    return "E'" + "".join(out) + "'"


def generate(seed, count):
    rng = random.Random(seed)
    names = [random_name(rng) for _ in range(count // 2 + 1)]
    print("CREATE TABLE export_paths (names text[], weight int8);")
    print("INSERT INTO export_paths VALUES")
    rows = []
    for _ in range(count):
        path = [rng.choice(names) for _ in range(rng.randint(1, 6))]
        rows.append("  (ARRAY[" + ", ".join(sql_literal(n) for n in path) + f"]::text[], {rng.randint(1, 1000)})")
    print(",\n".join(rows) + ";")


def fail(message):
    sys.exit("export_names: " + message)


def varint(data, pos):
    shift = value = 0
    while True:
        b = data[pos]
        pos += 1
        value |= (b & 0x7f) << shift
        shift += 7
        if b < 0x80:
            return value, pos


def pprof_strings(data):
    """The string_table (field 6) of a Profile message, as bytes."""
    pos, strings = 0, []
    while pos < len(data):
        key, pos = varint(data, pos)
        field, wire = key >> 3, key & 7
        if wire == 0:
            _, pos = varint(data, pos)
        elif wire == 2:
            length, pos = varint(data, pos)
            if field == 6:
                strings.append(data[pos:pos + length])
            pos += length
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        else:
            fail(f"pprof: wire type {wire} at byte {pos}")
    return strings


def check(folder):
    with open(f"{folder}/names.json", encoding="utf-8") as f:
        names = set(json.load(f))
    with open(f"{folder}/lines.json", encoding="utf-8") as f:
        lines = json.load(f)            # [[depth, self], ...] of collapsed's lines

    with open(f"{folder}/flamegraph.svg", "rb") as f:
        svg = f.read()
    try:
        root = ET.fromstring(svg)
    except ET.ParseError as e:
        fail(f"flamegraph: not well-formed XML: {e}")
    if not root.tag.endswith("svg"):
        fail(f"flamegraph: root element {root.tag}")

    with open(f"{folder}/speedscope.json", "rb") as f:
        try:
            doc = json.loads(f.read().decode("utf-8", errors="strict"), strict=True)
        except (ValueError, UnicodeDecodeError) as e:
            fail(f"speedscope: not strict JSON: {e}")
    frames = {frame["name"] for frame in doc["shared"]["frames"]}
    if frames != names:
        fail(f"speedscope: frame names differ from the funcs: {sorted(frames ^ names)[:5]!r}")

    with open(f"{folder}/pprof.gz", "rb") as f:
        data = gzip.decompress(f.read())
    try:
        strings = {s.decode("utf-8", errors="strict") for s in pprof_strings(data)}
    except UnicodeDecodeError as e:
        fail(f"pprof: a string is not UTF-8: {e}")
    if not names <= strings:
        fail(f"pprof: names missing from the string table: {sorted(names - strings)[:5]!r}")

    with open(f"{folder}/collapsed.txt", "rb") as f:
        text = f.read().decode("utf-8", errors="strict")
    got = text.split("\n")
    if got and got[-1] == "":
        got.pop()
    if len(got) != len(lines):
        fail(f"collapsed: {len(got)} lines, expected {len(lines)}")
    for line, (depth, weight) in zip(got, lines):
        m = re.fullmatch(r"(.*) (-?[0-9]+)", line, re.S)
        if not m or int(m.group(2)) != weight or len(m.group(1).split(";")) != depth:
            fail(f"collapsed: line {line!r}, expected {depth} names and weight {weight}")
    print(f"{len(names)} names; svg {len(svg)} bytes, {len(frames)} speedscope frames, "
          f"{len(strings)} pprof strings, {len(got)} collapsed lines")


if __name__ == "__main__":
    if sys.argv[1] == "paths":
        generate(int(sys.argv[2]), int(sys.argv[3]))
    else:
        check(sys.argv[2])
