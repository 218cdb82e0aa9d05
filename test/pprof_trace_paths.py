# running weight per root-first path prefix, from `go tool pprof -traces` output (values in ms or counts)
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
