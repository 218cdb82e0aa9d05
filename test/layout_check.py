#!/usr/bin/env python3
"""The layout's rules, read from the code (docs/layout.md states them).

  python3 test/layout_check.py [REPO]

1. Every C file of the extension lives in one of the folders of src/, or is
   src/module.c or src/module.h.
2. A folder uses only the folders below it: tree and formats at the bottom
   (independent of each other), then store, then writer, then import,
   query and export at the top (which do not use each other).  module.h may
   be used by anything; module.c (_PG_init) may use anything.
   "Uses" is read twice: from the #include lines of every file, and, where
   the objects are built, from the symbols each object takes from another
   (nm), which also catches a function declared by hand with `extern`.
3. No circles between files: no two objects that, through the symbols they
   take from each other, need each other (module.o aside, as above).  A
   module split by phase around a private header <folder>/<name>_internal.h
   (the writer) counts as one: its files <name>.c and <name>_*.c work on
   one struct and call each other by design.

Prints one line per breach and exits 1 if there is any.
"""
import os
import re
import subprocess
import sys

LEVEL = {"tree": 0, "formats": 0, "store": 1, "writer": 2,
         "import": 3, "query": 3, "export": 3}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path):
    """The folder of a path relative to src/: 'tree', ..., or 'module'."""
    parts = path.split("/")
    if len(parts) == 1:
        return "module" if parts[0].startswith("module.") else None
    return parts[0]


def may_use(user, used):
    if user == used or used == "module" or user == "module":
        return True
    if user not in LEVEL or used not in LEVEL:
        return False
    return LEVEL[used] < LEVEL[user]


def source_files(src):
    for root, _, files in os.walk(src):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(root, name), src)


def check_includes(src, breaches):
    for rel in source_files(src):
        user = folder_of(rel)
        if user is None or (user not in LEVEL and user != "module"):
            breaches.append(f"src/{rel}: not in a folder of the layout")
            continue
        with open(os.path.join(src, rel), encoding="utf-8") as f:
            text = f.read()
        for header in INCLUDE.findall(text):
            if not os.path.exists(os.path.join(src, header)):
                continue        # PostgreSQL's own headers
            used = folder_of(header)
            if not may_use(user, used):
                breaches.append(f"src/{rel} includes {header}: "
                                f"{user} may not use {used}")


def object_symbols(obj):
    """(defined, undefined) global symbols of one object file."""
    out = subprocess.run(["nm", "-P", obj], check=True,
                         capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        name, kind = fields[0], fields[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBR":
            defined.add(name)
    return defined, undefined


def check_objects(src, breaches):
    objects = [rel[:-2] + ".o" for rel in source_files(src) if rel.endswith(".c")]
    if not all(os.path.exists(os.path.join(src, o)) for o in objects):
        return False
    owner, needs = {}, {}
    for obj in objects:
        defined, undefined = object_symbols(os.path.join(src, obj))
        for name in defined:
            owner[name] = obj
        needs[obj] = undefined
    edges = {obj: set() for obj in objects}
    for obj in objects:
        for name in sorted(needs[obj]):
            other = owner.get(name)
            if other is None or other == obj:
                continue
            edges[obj].add(other)
            user, used = folder_of(obj), folder_of(other)
            if not may_use(user, used):
                breaches.append(f"src/{obj} takes {name} from src/{other}: "
                                f"{user} may not use {used}")
    for circle in circles(src, edges):
        breaches.append("circle among: " + ", ".join(f"src/{o}" for o in circle))
    return True


def phase_module(src, obj):
    """The module split by phase that obj belongs to, or obj itself."""
    folder, name = os.path.split(obj[:-2])
    for header in os.listdir(os.path.join(src, folder)) if folder else []:
        if header.endswith("_internal.h"):
            module = header[:-len("_internal.h")]
            if name == module or name.startswith(module + "_"):
                return os.path.join(folder, module + ".*")
    return obj


def circles(src, edges):
    """The strongly connected components of more than one object (Tarjan),
    module.o left out: it is the root that starts everything."""
    graph = {}
    for o, ts in edges.items():
        if folder_of(o) == "module":
            continue
        node = graph.setdefault(phase_module(src, o), set())
        node.update(phase_module(src, t) for t in ts
                    if folder_of(t) != "module" and phase_module(src, t) != phase_module(src, o))
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    src = os.path.join(repo, "src")
    breaches = []
    check_includes(src, breaches)
    read_objects = check_objects(src, breaches)
    for line in breaches:
        print(line)
    if not read_objects:
        print("objects not built: symbols not read (includes only)")
    print(f"{len(breaches)} breaches of the layout")
    sys.exit(1 if breaches else 0)


if __name__ == "__main__":
    main()
