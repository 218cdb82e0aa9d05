#!/usr/bin/env python3
# Reference numbers for sql/import_pprof.sql, computed outside calltree:
# reads `go tool pprof -traces` output on stdin and prints the running
# weight of every root-first path prefix (a CallNode), heaviest first.
#   go tool pprof -symbolize=none -traces -sample_index=samples FILE | python3 test/pprof_trace_paths.py 40
# Values keep go's unit suffix stripped (ms, s, ...), so use one unit per run.
import sys, re, collections
blocks = sys.stdin.read().split('-----------+-------------------------------------------------------')[1:]
run = collections.Counter()
for b in blocks:
    lines = [l for l in b.split('\n') if l.strip()]
    if not lines: continue
    m = re.match(r'\s*(\S+)\s+(.*)', lines[0]); val = m.group(1); frames = [m.group(2).strip()] + [l.strip() for l in lines[1:]]
    v = float(re.sub('[a-z]+$','',val)) if val != '0' else 0
    frames = [re.sub(r' \(inline\)$','',f) for f in frames][::-1]
    for i in range(1, len(frames)+1): run[' > '.join(frames[:i])] += v
for k, v in sorted(run.items(), key=lambda kv: -kv[1])[:int(sys.argv[1])]: print(v, k)
