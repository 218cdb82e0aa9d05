#!/usr/bin/env python3
"""Per-function self and running weights of another parser's reading of a JFR
recording: its collapsed stacks (gzip), one stack a line, root first, frames
`class.method:line` joined by `;` (a native library's name may itself hold
`;`), then ` [weight]`.  Prints `func<TAB>self<TAB>running` lines, the
line numbers dropped (calltree keeps them on frames, not in names), then
`TOTAL<TAB>total`.  Written for t_jfr.sh, independent of calltree."""
import gzip
import re
import sys

FRAME = re.compile(r'(.*?):(\d+)(?:;|$)')
LINE = re.compile(r'^(.*) \[(\d+)\]$')

selfw, running, total = {}, {}, 0
with gzip.open(sys.argv[1], 'rt', encoding='utf-8') as f:
    for raw in f:
        m = LINE.match(raw.rstrip('\n'))
        if not m:
            continue  # a stack without a weight: the reading's own truncation
        stack, weight = m.group(1), int(m.group(2))
        frames, pos = [], 0
        while pos < len(stack):
            fm = FRAME.match(stack, pos)
            if not fm:
                sys.exit('unparsable stack: ' + stack)
            frames.append(fm.group(1))
            pos = fm.end()
        total += weight
        selfw[frames[-1]] = selfw.get(frames[-1], 0) + weight
        for name in set(frames):
            running[name] = running.get(name, 0) + weight
for name in sorted(running):
    print('%s\t%d\t%d' % (name, selfw.get(name, 0), running[name]))
print('TOTAL\t%d' % total)
