#!/usr/bin/env python3
"""Reference numbers for perf script files, computed without calltree.

Reads the text of `perf script` (a file name, '-' for stdin) and prints what
import_perf_script() must give, one fact per line:

    samples|N              samples of the imported event
    total|N                sum of weights (the period column, else 1)
    threads|N              distinct "comm pid/tid" strings
    func|name|resource|running|self     the 12 hottest funcs by running weight
    node|name@resource;...|running|self  a few CallNodes, root first

A func is the symbol without its +0x offset and the dso; an [unknown] symbol
is a func of its own per address, named '0x' + hex address, in its dso.
A func's running weight counts each sample once, even under recursion.
The event is the one given with --event (exact name, or the name without
its :modifiers), else the first one in the file.

This parser shares no code with src/import/import_perf_script.c: it works with
regular expressions over whole lines.
"""
import re
import sys
from collections import defaultdict

HEADER = re.compile(r'^\s*(?P<head>.*?)\s*(?P<ts>\d+\.\d+):\s*(?:(?P<period>\d+)\s+)?(?:(?P<event>\S+):(?:\s|$))?')
# the dso is the last parenthesized group, itself with at most one nested
# group ("(/lib/x.so (deleted))"); symbols may hold parentheses ("operator()")
FRAME = re.compile(r'^\t\s*(?P<addr>[0-9a-fA-F]+)\s+(?P<sym>.*?)\s*\((?P<dso>[^()]*(?:\([^()]*\))?[^()]*)\)\s*$')
OFFSET = re.compile(r'\+0x[0-9a-fA-F]+$')


def thread_of(head):
    tokens = head.split()
    if tokens and re.fullmatch(r'\[\d+\]', tokens[-1]):
        tokens.pop()
    if not tokens:
        return None
    m = re.match(r'^(.*?)\s+(\d+(?:/\d+)?)$', ' '.join(tokens))
    if m:
        return m.group(1) + ' ' + m.group(2)
    return ' '.join(tokens)


def func_of(addr, sym, dso):
    sym = OFFSET.sub('', sym.strip())
    if sym in ('', '[unknown]'):
        return ('0x%x' % int(addr, 16), dso)
    return (sym, dso)


def samples(text, want):
    chosen = None
    current = None
    for line in text.split('\n') + ['']:
        line = line.rstrip('\r')
        if line.strip() == '' or line.startswith('#'):
            if current:
                yield current
            current = None
            continue
        if line.startswith('\t'):
            m = FRAME.match(line)
            assert m, line
            if current is not None:
                current['stack'].append(func_of(m['addr'], m['sym'], m['dso']))
            continue
        if current:
            yield current
        m = HEADER.match(line)
        assert m, line
        event = m['event'] or ''
        if want is None:
            chosen = chosen or event
            take = event == chosen
        else:
            take = want in (event, event.split(':')[0])
        current = {'thread': thread_of(m['head']), 'weight': int(m['period'] or 1), 'stack': []} if take else None


def main():
    args = sys.argv[1:]
    want = None
    if args[:1] == ['--event']:
        want, args = args[1], args[2:]
    text = sys.stdin.read() if args[0] == '-' else open(args[0], encoding='utf-8', errors='replace').read()

    n = total = 0
    threads = set()
    running = defaultdict(int)
    self_w = defaultdict(int)
    nodes = defaultdict(lambda: [0, 0])  # path tuple -> [running, self]
    for s in samples(text, want):
        path = tuple(reversed(s['stack']))  # root first
        w = s['weight']
        n += 1
        total += w
        threads.add(s['thread'])
        for f in set(path):
            running[f] += w
        self_w[path[-1]] += w
        for i in range(1, len(path) + 1):
            nodes[path[:i]][0] += w
        nodes[path][1] += w

    print('samples|%d' % n)
    print('total|%d' % total)
    print('threads|%d' % len(threads))
    for f in sorted(running, key=lambda f: (-running[f], f))[:12]:
        print('func|%s|%s|%d|%d' % (f[0], f[1], running[f], self_w[f]))
    # the heaviest path, step by step (ties by name), down to depth 4,
    # and the first deepest path
    path = ()
    picked = []
    while len(path) < 4:
        children = [p for p in nodes if len(p) == len(path) + 1 and p[:len(path)] == path]
        if not children:
            break
        path = sorted(children, key=lambda p: (-nodes[p][0], p[-1]))[0]
        picked.append(path)
    deepest = max(nodes, key=len)
    picked.append(deepest)
    for p in dict.fromkeys(picked):
        print('node|%s|%d|%d' % (';'.join('%s@%s' % f for f in p), nodes[p][0], nodes[p][1]))


if __name__ == '__main__':
    main()
