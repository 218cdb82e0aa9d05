#!/usr/bin/env python3
"""The JDK's own reading of a recording's samples: `jfr print --json
--stack-depth 2048` (its default prints 5 frames a stack) on standard
input.  The argument names the profile:
- `cpu` (the default) or `cpu:NANOS`: jdk.ExecutionSample events, each
  weighing 1, or NANOS (the sampling interval the recording was made with);
- `alloc`: allocations, jdk.ObjectAllocationInNewTLAB weighing its
  tlabSize, jdk.ObjectAllocationOutsideTLAB its allocationSize,
  jdk.ObjectAllocationSample its weight (bytes);
- `live`: jdk.OldObjectSample events, each weighing 1;
- `mutex-count`, `mutex-delay`: jdk.JavaMonitorEnter events, each
  weighing 1, or its duration in nanoseconds;
- `block-count`, `block-delay`: jdk.ThreadPark events, the same.
Prints `func<TAB>self<TAB>running` per function (class.method, the class
with `.` for `/`), then `TOTAL<TAB>weight` and `THREADS<TAB>names`.
Written for t_jfr_jdk.sh, independent of calltree."""
import json
import re
import sys

DURATION = re.compile(r'^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d{1,9}))?S)?$')


def nanos(text):
    """An ISO-8601 duration as jfr prints it (PT0.015077734S), in ns."""
    m = DURATION.match(text)
    if not m:
        raise ValueError('not a duration: %r' % text)
    hours, minutes, seconds, fraction = m.groups()
    total = (int(hours or 0) * 60 + int(minutes or 0)) * 60 + int(seconds or 0)
    return total * 10**9 + int((fraction or '').ljust(9, '0'))


MODE = sys.argv[1] if len(sys.argv) > 1 else 'cpu'
INTERVAL = 1
if MODE.startswith('cpu:'):
    MODE, INTERVAL = 'cpu', int(MODE[4:])
# event type -> how one weighs: a field (bytes), 'duration', or None (1)
WEIGHTS = {
    'cpu': {'jdk.ExecutionSample': None},
    'alloc': {'jdk.ObjectAllocationInNewTLAB': 'tlabSize',
              'jdk.ObjectAllocationOutsideTLAB': 'allocationSize',
              'jdk.ObjectAllocationSample': 'weight'},
    'live': {'jdk.OldObjectSample': None},
    'mutex-count': {'jdk.JavaMonitorEnter': None},
    'mutex-delay': {'jdk.JavaMonitorEnter': 'duration'},
    'block-count': {'jdk.ThreadPark': None},
    'block-delay': {'jdk.ThreadPark': 'duration'},
}[MODE]

events = json.load(sys.stdin)['recording']['events']
selfw, running, total, threads = {}, {}, 0, set()
for event in events:
    if event['type'] not in WEIGHTS:
        continue
    values = event['values']
    field = WEIGHTS[event['type']]
    if field is None:
        weight = INTERVAL
    elif field == 'duration':
        weight = nanos(values[field])
    else:
        weight = int(values[field])
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
