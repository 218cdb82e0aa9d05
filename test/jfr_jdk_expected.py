#!/usr/bin/env python3
"""The JDK's own reading of a recording's CPU samples: `jfr print --json
--stack-depth 2048 --events jdk.ExecutionSample` (its
default prints 5 frames a stack) on standard input.  Prints `func<TAB>self<TAB>
running` per function (class.method, the class with `.` for `/`, each
sample counting 1), then `TOTAL<TAB>samples` and `THREADS<TAB>names`.
Written for t_jfr_jdk.sh, independent of calltree."""
import json
import sys

events = json.load(sys.stdin)['recording']['events']
selfw, running, total, threads = {}, {}, 0, set()
for event in events:
    if event['type'] != 'jdk.ExecutionSample':
        continue
    values = event['values']
    frames = (values.get('stackTrace') or {}).get('frames') or []
    if not frames:
        continue
    names = []
    for frame in frames:
        method = frame['method']
        cls = (method.get('type') or {}).get('name') or ''
        names.append(cls.replace('/', '.') + '.' + method['name'])
    total += 1
    selfw[names[0]] = selfw.get(names[0], 0) + 1
    for name in set(names):
        running[name] = running.get(name, 0) + 1
    thread = values.get('sampledThread') or {}
    threads.add(thread.get('javaName') or thread.get('osName') or '')
for name in sorted(running):
    print('%s\t%d\t%d' % (name, selfw.get(name, 0), running[name]))
print('TOTAL\t%d' % total)
print('THREADS\t%s' % ','.join(sorted(threads)))
