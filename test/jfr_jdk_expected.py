#!/usr/bin/env python3
"""The JDK's own reading of a recording's samples: `jfr print --json
--stack-depth 2048` (its default prints 5 frames a stack) on standard
input.  With no argument, CPU: jdk.ExecutionSample events, each counting
1.  With the argument `alloc`: allocations, jdk.ObjectAllocationInNewTLAB
weighing its tlabSize, jdk.ObjectAllocationOutsideTLAB its allocationSize,
jdk.ObjectAllocationSample its weight (bytes).  Prints `func<TAB>self<TAB>
running` per function (class.method, the class with `.` for `/`), then
`TOTAL<TAB>weight` and `THREADS<TAB>names`.  Written for t_jfr_jdk.sh,
independent of calltree."""
import json
import sys

WEIGHTS = {
    'cpu': {'jdk.ExecutionSample': None},
    'alloc': {'jdk.ObjectAllocationInNewTLAB': 'tlabSize',
              'jdk.ObjectAllocationOutsideTLAB': 'allocationSize',
              'jdk.ObjectAllocationSample': 'weight'},
}[sys.argv[1] if len(sys.argv) > 1 else 'cpu']

events = json.load(sys.stdin)['recording']['events']
selfw, running, total, threads = {}, {}, 0, set()
for event in events:
    if event['type'] not in WEIGHTS:
        continue
    values = event['values']
    field = WEIGHTS[event['type']]
    weight = 1 if field is None else int(values[field])
    frames = (values.get('stackTrace') or {}).get('frames') or []
    if not frames or weight == 0:
        continue
    names = []
    for frame in frames:
        method = frame['method']
        cls = (method.get('type') or {}).get('name') or ''
        names.append(cls.replace('/', '.') + '.' + method['name'])
    total += weight
    selfw[names[0]] = selfw.get(names[0], 0) + weight
    for name in set(names):
        running[name] = running.get(name, 0) + weight
    thread = values.get('sampledThread') or values.get('eventThread') or {}
    threads.add(thread.get('javaName') or thread.get('osName') or '')
for name in sorted(running):
    print('%s\t%d\t%d' % (name, selfw.get(name, 0), running[name]))
print('TOTAL\t%d' % total)
print('THREADS\t%s' % ','.join(sorted(threads)))
