#!/usr/bin/env python3
"""Reference numbers for sql/import_firefox.sql, computed without calltree.

Reads Firefox Profiler profiles (Gecko, possibly wrapped in a DevTools
"Recorded Performance Data" file, or processed) with Python's json module and
prints, per file: the sample count per thread, the total, the top functions
by running weight (a sample counts once per function, even under recursion)
with their self weight, and the running/self weight of every call-tree node
below a chosen function.  Funcs are named the way the Firefox Profiler names
them (its rules, written here as regular expressions):

    "name (file:line)"  -> name, file (last of a " -> " chain)
    "file:line"         -> "(root scope) file"
    anything else       -> the whole string

except for a JS function without a name ("file:line[:col]", or "(root scope)
file" in a processed profile), which calltree names by where it starts,
docs/formats.md's "(anonymous) basename:line[:col]", and the Firefox Profiler
does not: it merges all of a file's.

Usage: firefox_reference.py FILE SUBTREE_ROOT_NAME
"""
import json
import re
import sys
from collections import Counter, defaultdict

JS = re.compile(r'^(.*) \((.*):([0-9]+)\)$')
JS_BARE = re.compile(r'^()(.*):([0-9]+)$')


def anonymous_name(uri, line, col):
    """An unnamed JS function's name: its file's last path segment, line[, col]."""
    base = re.split(r'[/\\]', re.split(r'[?#]', uri, maxsplit=1)[0])[-1] or uri
    return '(anonymous) %s:%d' % (base, line) + ('' if col is None else ':%d' % col)


def func_of(location):
    m = JS.match(location) or JS_BARE.match(location)
    if not m:
        return (location, None)
    name, uri = m.group(1), m.group(2)
    uri = uri.split(' -> ')[-1]
    # "file:line:col": the profiler's regex keeps ":line" in the file; calltree
    # splits it off; neither file here has columns, so both agree.
    if name:
        return (name, uri)
    line, col = int(m.group(3)), None
    m = re.match(r'^(.*):([0-9]+)$', uri)
    if m:
        uri, line, col = m.group(1), int(m.group(2)), line
    return (anonymous_name(uri, line, col), uri)


def processed_func(name, uri, line, col):
    if uri is not None and line is not None and name in ('', '(anonymous)', '(root scope) ' + uri):
        return (anonymous_name(uri, line, col), uri)
    return (name, uri)


def label(func):
    name, file = func
    return name if file is None else name + ' @ ' + file


def gecko_table(t):
    schema = t['schema']
    return [{k: (row[i] if i < len(row) else None) for k, i in schema.items()} for row in t['data']]


def threads_of(doc):
    if 'meta' not in doc and 'profile' in doc:
        doc = doc['profile']
    if 'preprocessedProfileVersion' in doc['meta']:
        strings = doc.get('shared', {}).get('stringArray')
        for th in doc['threads']:
            st = th.get('stringArray', strings)
            ft, fn, sk, sa = th['frameTable'], th['funcTable'], th['stackTable'], th['samples']
            funcs = [processed_func(st[fn['name'][f]],
                                    None if fn['fileName'][f] is None else st[fn['fileName'][f]],
                                    fn['lineNumber'][f] if 'lineNumber' in fn else None,
                                    fn['columnNumber'][f] if 'columnNumber' in fn else None)
                     for f in ft['func']]
            yield th['name'], funcs, list(zip(sk['prefix'], sk['frame'])), sa['stack'], sa.get('weight')
        return
    for th in doc['threads']:
        st = th['stringTable']
        frames = gecko_table(th['frameTable'])
        funcs = [func_of(st[f['location']]) for f in frames]
        stacks = [(s['prefix'], s['frame']) for s in gecko_table(th['stackTable'])]
        rows = gecko_table(th['samples'])
        samples = [s['stack'] for s in rows]
        times = [s['time'] for s in rows if s['stack'] is not None]
        print('thread %s: ts from %d to %d ns' % (th['name'], round(min(times) * 1e6), round(max(times) * 1e6)))
        yield th['name'], funcs, stacks, samples, None


def path_of(stacks, funcs, i):
    path = []
    while i is not None:
        prefix, frame = stacks[i]
        path.append(funcs[frame])
        i = prefix
    return tuple(reversed(path))


def main(filename, subtree):
    doc = json.load(open(filename))
    print('file', filename.split('/')[-1])
    per_thread = Counter()
    paths = Counter()
    for name, funcs, stacks, samples, weights in threads_of(doc):
        for k, s in enumerate(samples):
            if s is None:
                continue
            w = weights[k] if weights else 1
            per_thread[name] += w
            paths[path_of(stacks, funcs, s)] += w
    for name, n in sorted(per_thread.items()):
        print('thread %s: %d' % (name, n))
    print('total', sum(paths.values()))

    running, self_ = Counter(), Counter()
    for p, w in paths.items():
        for f in set(p):
            running[f] += w
        self_[p[-1]] += w
    print('top functions (running, self):')
    for f in sorted(running, key=lambda f: (-running[f], -self_[f], label(f)))[:12]:
        print('  %-60s %4d %4d' % (label(f), running[f], self_[f]))

    node_running, node_self = defaultdict(int), defaultdict(int)
    for p, w in paths.items():
        for d in range(1, len(p) + 1):
            node_running[p[:d]] += w
        node_self[p] += w
    print('nodes up to 3 levels below the first %s (running, self):' % subtree)
    rows = []
    for p in node_running:
        names = [f[0] for f in p]
        if subtree in names and len(p) - names.index(subtree) <= 4:
            rows.append((' > '.join(names[names.index(subtree):]), node_running[p], node_self[p]))
    for row in sorted(rows, key=lambda r: (r[0].encode(), -r[1])):
        print('  %-70s %4d %4d' % row)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
