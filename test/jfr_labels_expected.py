#!/usr/bin/env python3
"""The label sets of a recording's execution samples, read without
calltree: argv[1] is the Pyroscope Java agent's LabelsSnapshot as `protoc
--decode=LabelsSnapshot jfr_labels.proto` prints it, argv[2] the
recording's jdk.ExecutionSample events as `jfr print --json` prints them.
Each sample's contextId names its label set in the snapshot (none for 0 or
an id the snapshot lacks).  Prints, per label set (`key=value,...` sorted
by key, empty for none), the number of samples with a stack that count as
CPU time (their thread not in STATE_SLEEPING) and as wall-clock time (all
of them, the recording being async-profiler's wall-clock mode):
`cpu<TAB>set<TAB>count` and `wall<TAB>set<TAB>count`, sorted.  Written for
t_jfr.sh, independent of calltree."""
import json
import re
import sys

TOKEN = re.compile(r'\s*(?:([A-Za-z_][A-Za-z0-9_]*)|(-?\d+)|("(?:[^"\\]|\\.)*")|([:{}]))')


def tokens(text):
    pos = 0
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip() == '':
                return
            raise ValueError('cannot read protoc output at %d' % pos)
        pos = m.end()
        name, number, string, punct = m.groups()
        if name:
            yield ('name', name)
        elif number:
            yield ('value', int(number))
        elif string:
            yield ('value', unquote(string[1:-1]))
        else:
            yield ('punct', punct)


def unquote(body):
    """protoc's C-style escapes: \\ooo octal bytes, \\n, \\", \\\\ ..."""
    out = bytearray()
    i = 0
    simple = {'n': 10, 't': 9, 'r': 13, '"': 34, "'": 39, '\\': 92}
    while i < len(body):
        c = body[i]
        if c != '\\':
            out += c.encode('utf-8')
            i += 1
        elif body[i + 1] in simple:
            out.append(simple[body[i + 1]])
            i += 2
        else:
            out.append(int(body[i + 1:i + 4], 8))
            i += 4
    return out.decode('utf-8')


def parse(stream):
    """A message as a list of (field, value), a value a list for submessages."""
    fields = []
    for kind, tok in stream:
        if kind == 'punct' and tok == '}':
            return fields
        name = tok
        kind, tok = next(stream)
        if tok == ':':
            kind, tok = next(stream)
            fields.append((name, tok))
        elif tok == '{':
            fields.append((name, parse(stream)))
    return fields


def entry(fields, default):
    """A map entry: proto3 text omits a key or value that is zero."""
    values = dict(fields)
    return values.get('key', 0), values.get('value', default)


snapshot = parse(tokens(open(sys.argv[1]).read()))
strings = dict(entry(v, '') for f, v in snapshot if f == 'strings')
contexts = {}
for field, value in snapshot:
    if field == 'contexts':
        cid, context = entry(value, [])
        labels = dict(entry(v, 0) for f, v in context if f == 'labels')
        contexts[cid] = ','.join('%s=%s' % kv for kv in
                                 sorted((strings[k], strings[v]) for k, v in labels.items()))

counts = {}
for event in json.load(open(sys.argv[2]))['recording']['events']:
    if event['type'] != 'jdk.ExecutionSample':
        continue
    values = event['values']
    if not (values.get('stackTrace') or {}).get('frames'):
        continue
    labels = contexts.get(values.get('contextId') or 0, '')
    kinds = ['wall'] if values.get('state') == 'STATE_SLEEPING' else ['cpu', 'wall']
    for kind in kinds:
        counts[(kind, labels)] = counts.get((kind, labels), 0) + 1
for (kind, labels), n in sorted(counts.items()):
    print('%s\t%s\t%d' % (kind, labels, n))
