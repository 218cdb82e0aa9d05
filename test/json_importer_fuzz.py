#!/usr/bin/env python3
"""Structural fuzzing of the JSON importers, through SQL.

The libFuzzer harnesses of fuzz/ (cpuprofile, speedscope, firefox,
trace_events) run these importers over stand-ins of the backend's jsonb and
numeric; this driver runs them in the backend itself, with the real jsonb,
through their SQL functions and import_profile's detection of them.  It
takes the real files of ../shared/data and a few hand-made ones, applies
mutations that keep the JSON valid (wrong types, missing and duplicate keys,
extreme numbers, ids that refer to nothing or to themselves, emptied,
repeated and shortened arrays, deep nesting, long strings, sums that
overflow), and imports each mutant in a session of its own with
statement_timeout set.  Each outcome is accepted, a clean error, or a
defect: a lost connection, SQLSTATE XX/58/53/57 or an internal message, a
timeout or a run much slower than its size explains, a backend peak memory
(VmHWM) over budget, an accepted import with negative weights, or rows left behind by a failed import.

Not part of `make test`.  Run it against a throwaway cluster, in a
database of its own (it makes one, with the extension):

    nice -n 10 env CT_PG_ROOT=... CT_PORT=... test/run.sh shell \
        python3 test/json_importer_fuzz.py [--cases N] [--seed S] [--out DIR]

Each defect is printed, its input kept in DIR/defects (default DIR:
/tmp/json_importer_fuzz); the summary counts the outcomes per importer and
lists the slowest runs with their sizes; VERBOSE=1 adds the most frequent
error messages.
"""
import argparse
import collections
import copy
import json
import os
import random
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', '..', 'shared', 'data')
if not os.path.isdir(DATA):
    DATA = os.path.join(os.environ.get('CALLTREE_SHARED', '/work/shared'), 'data')

PSQL = os.path.join(os.environ['PG_BIN'], 'psql') if os.environ.get('PG_BIN') else 'psql'
MEMORY_BUDGET_KB = 300000
TIMEOUT = '20s'
SLOW_SECONDS = 5.0


class Raw(str):
    """A number token written as is (1e400, -0, 2^64)."""


class Dup:
    """An object with a repeated key: pairs in order."""

    def __init__(self, pairs):
        self.pairs = pairs


def dump(v):
    if isinstance(v, Raw):
        return str(v)
    if isinstance(v, Dup):
        return '{' + ','.join(json.dumps(k) + ':' + dump(x) for k, x in v.pairs) + '}'
    if isinstance(v, dict):
        return '{' + ','.join(json.dumps(k) + ':' + dump(x) for k, x in v.items()) + '}'
    if isinstance(v, list):
        return '[' + ','.join(dump(x) for x in v) + ']'
    return json.dumps(v)


def seeds():
    """(importer, name, text) of every seed file."""
    out = []

    def add(importer, rel):
        with open(os.path.join(DATA, rel), encoding='utf-8') as f:
            text = f.read()
        try:
            json.loads(text)
        except ValueError:
            return              # a partial trace: not valid JSON to mutate
        out.append((importer, rel, text))
    for rel in ['speedscope-samples/Chrome/65/simple.cpuprofile',
                'speedscope-samples/node/10.11.0/example.cpuprofile',
                'firefox-profiler/hello.cjs-20231120T211435.cpuprofile']:
        add('import_cpuprofile', rel)
    ss = 'speedscope-samples/speedscope/'
    for rel in ['0.0.1/simple.speedscope.json', '0.1.2/simple-sampled.speedscope.json',
                '0.6.0/two-sampled.speedscope.json', 'invalid/out-of-order-events.json']:
        add('import_speedscope', ss + rel)
    for rel in ['Firefox/59/simple-firefox.json', 'Firefox/61/recursion.json']:
        add('import_firefox', 'speedscope-samples/' + rel)
    te = 'speedscope-samples/trace-event/'
    for f in sorted(os.listdir(os.path.join(DATA, te))):
        add('import_trace_events', te + f)
    for name, text in HAND_MADE:
        out.append(('import_firefox', name, text))
    return out


HAND_MADE = [
    ('gecko', json.dumps({
        "meta": {"version": 24, "startTime": 1700000000000, "interval": 1},
        "libs": [{"start": 4096, "end": 8192, "name": "libxul.so", "debugName": "libxul.pdb"}],
        "threads": [{
            "name": "GeckoMain", "pid": "100", "tid": 100,
            "stringTable": ["(root)", "0x1a2b", "Foo::bar(int) (in XUL) + 12", "f (https://e.com/a.js:12:5)",
                            "https://example.com/b.js:7", "plain", "baseline", "0x1100"],
            "frameTable": {"schema": {"location": 0, "implementation": 1, "line": 2, "category": 3},
                           "data": [[0], [1], [2], [3, 6, 14], [4], [5, None, 99], [7]]},
            "stackTable": {"schema": {"prefix": 0, "frame": 1},
                           "data": [[None, 0], [0, 1], [1, 2], [2, 3], [0, 4], [4, 5], [0, 6]]},
            "samples": {"schema": {"stack": 0, "time": 1, "weight": 2},
                        "data": [[3, 1.5, 2], [5, 2.25], [None, 3.0], [6, 4.0000004, 5]]}}],
        "processes": [{"meta": {"version": 24, "startTime": 1700000001000.5},
                       "threads": [{"name": "GeckoMain", "pid": 200, "stringTable": ["(root)", "content"],
                                    "frameTable": {"schema": {"location": 0}, "data": [[0], [1]]},
                                    "stackTable": {"schema": {"frame": 1, "prefix": 0}, "data": [[None, 0], [0, 1]]},
                                    "samples": {"schema": {"stack": 0, "time": 1}, "data": [[1, 0.25]]}}]}]})),
    ('processed', json.dumps({
        "meta": {"preprocessedProfileVersion": 47, "startTime": 1700000000000.25, "interval": 1},
        "libs": [{"name": "libxul.so", "path": "/usr/lib/libxul.so"}],
        "shared": {"stringArray": ["main", "app.js", "work", "helper", "libxul.so", "XRE_main", "ion"]},
        "threads": [{
            "name": "GeckoMain", "pid": "1", "processName": "Parent",
            "resourceTable": {"length": 1, "name": [4], "lib": [0], "host": [None], "type": [1]},
            "funcTable": {"length": 4, "name": [0, 2, 3, 5], "resource": [-1, -1, -1, 0],
                          "fileName": [1, 1, 1, None], "lineNumber": [1, 10, 20, None]},
            "frameTable": {"length": 5, "func": [3, 0, 1, 2, 1], "address": [4096, -1, -1, -1, -1],
                           "line": [None, 2, 11, 21, 12], "column": [None, 1, 5, 3, 7],
                           "implementation": [None, None, 6, None, None]},
            "stackTable": {"length": 5, "frame": [0, 1, 2, 3, 4], "prefix": [None, 0, 1, 2, 1]},
            "samples": {"length": 4, "stack": [2, 3, 4, None], "timeDeltas": [10, 0.5, 0.25, 1],
                        "weight": [1.5, 2, 0.000001, 1], "weightType": "tracing-ms"}},
            {"name": "W", "pid": "2",
             "funcTable": {"length": 1, "name": [3], "resource": [-1], "fileName": [None]},
             "frameTable": {"length": 1, "func": [0], "address": [-1], "line": [None]},
             "stackTable": {"length": 1, "frame": [0], "prefix": [None]},
             "samples": {"length": 1, "stack": [0], "time": [3.5], "weight": [2], "weightType": "samples"}}]})),
    ('processed-shared', json.dumps({
        "meta": {"preprocessedProfileVersion": 56, "startTime": 0},
        "shared": {"stringArray": ["x", "y", "/src/x.rs"],
                   "sources": {"length": 1, "id": [None], "filename": [2]},
                   "resourceTable": {"length": 0, "name": []},
                   "funcTable": {"length": 2, "name": [0, 1], "resource": [-1, -1], "source": [0, None]},
                   "frameTable": {"length": 2, "func": [0, 1], "line": [5, None]},
                   "stackTable": {"length": 2, "frame": [0, 1], "prefix": [None, 0]}},
        "threads": [{"name": "A", "pid": "7", "samples": {"length": 1, "stack": [1], "time": [1]}},
                    {"name": "B", "pid": "7", "samples": {"length": 2, "stack": [0, 1], "time": [2, 3]}}]})),
    ('gecko-string-threads', json.dumps({
        "meta": {"version": 3, "startTime": 0}, "libs": "[]",
        "threads": [json.dumps({"name": "Old", "stringTable": ["(root)", "main (http://a.com/m.js:1)"],
                                "frameTable": {"schema": {"location": 0}, "data": [[0], [1]]},
                                "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": [[None, 0], [0, 1]]},
                                "samples": {"schema": {"stack": 0, "time": 1}, "data": [[1, 1], [0, 2]]}})]})),
]

EXTREMES = [None, True, False, "", "x", "1", "NaN", "-Infinity", {}, [], [[]], [None], {"": None},
            0, -1, 1, 2, 0.5, -0.5, Raw('-0'), Raw('1e308'), Raw('-1e308'), Raw('1e-308'), Raw('1e400'),
            Raw('1e-400'), Raw('1e100000'), 2**31 - 1, 2**31, -2**31 - 1, 2**53 + 1, 2**62,
            2**63 - 1, 2**63, -2**63, -2**63 - 1, 2**64, Raw('9223372036854775807.5'), Raw('4e18'),
            Raw('0.0000000000000000000001'), Raw('123456789012345678901234567890')]


def paths(v, prefix=()):
    """Every (path) below v, v itself first."""
    out = [prefix]
    if isinstance(v, dict):
        for k, x in v.items():
            out.extend(paths(x, prefix + (k,)))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out.extend(paths(x, prefix + (i,)))
    return out


def get(v, p):
    for k in p:
        v = v[k]
    return v


def put(root, p, x):
    if not p:
        return x
    get(root, p[:-1])[p[-1]] = x
    return root


def mutate_once(rng, root):
    ps = paths(root)
    # favour containers and short paths a little: structure is where ids live
    p = rng.choice(ps)
    if rng.random() < 0.3:
        cs = [q for q in ps if isinstance(get(root, q), (dict, list))]
        p = rng.choice(cs)
    v = get(root, p)
    parent = get(root, p[:-1]) if p else None
    op = rng.randrange(14)
    if op == 0 or (op == 1 and not isinstance(v, (int, float))):
        return put(root, p, copy.deepcopy(rng.choice(EXTREMES))), 'type'
    if op == 1:
        n = len(parent) if isinstance(parent, list) else 10
        choices = [v + 1, v - 1, -v, 0, -1, n, n + 1, rng.randint(-2, max(n, 2) + 2)]
        if isinstance(p[-1] if p else None, int):
            choices.append(p[-1])       # an element that names its own index: a self-loop
        return put(root, p, rng.choice(choices)), 'int'
    if op == 2 and isinstance(parent, dict):
        del parent[p[-1]]
        return root, 'delete key'
    if op == 3 and isinstance(parent, dict):
        pairs = list(parent.items())
        i = [k for k, _ in pairs].index(p[-1])
        other = copy.deepcopy(rng.choice(EXTREMES))
        pairs.insert(i + rng.randint(0, 1), (p[-1], other))
        return put(root, p[:-1], Dup(pairs)), 'dup key'
    if isinstance(v, list):
        if op == 4:
            return put(root, p, []), 'empty array'
        if op == 5 and v:
            i = rng.randrange(len(v))
            v.insert(i, copy.deepcopy(v[i]))
            return root, 'repeat element'
        if op == 6 and v:
            del v[rng.randrange(len(v))]
            return root, 'drop element'
        if op == 7 and v:
            rng.shuffle(v)
            return root, 'shuffle'
        if op == 8 and v and len(dump(v)) < 20000:
            return put(root, p, v * rng.choice([100, 2000])), 'repeat array'
        if op == 9 and v and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            big = rng.choice([Raw('4e18'), 2**62, 2**63 - 1, Raw('1e300'), -2**62, Raw('1.5e17')])
            return put(root, p, [big] * len(v)), 'overflowing numbers'
        if op == 10 and v and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
            return put(root, p, list(range(len(v)))), 'self indexes'
    if op == 11:
        depth = rng.choice([100, 3000, 20000])
        return put(root, p, Raw('[' * depth + ']' * depth)), 'deep nesting'
    if op == 12:
        return put(root, p, 'a' * rng.choice([10000, 1000000, 5000000])), 'long string'
    if op == 13 and isinstance(v, dict):
        # a child list or id field that points back at the object itself
        for k in ('children', 'parent', 'prefix', 'id', 'stack', 'frame', 'callFrame'):
            if k in v:
                ident = v.get('id', p[-1] if p and isinstance(p[-1], int) else 0)
                if k == 'children':
                    v[k] = [ident] + list(v[k]) if isinstance(v[k], list) else [ident]
                elif isinstance(ident, int):
                    v[k] = ident
                return root, 'self reference'
    return put(root, p, copy.deepcopy(rng.choice(EXTREMES))), 'type'


def mutate(rng, text):
    root = json.loads(text)
    ops = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        if isinstance(root, (Raw, Dup)):
            break
        try:
            root, op = mutate_once(rng, root)
        except (TypeError, KeyError, IndexError, ValueError, AttributeError):
            op = 'skipped'
        ops.append(op)
    return dump(root), ops


SCRIPT = r"""
\set VERBOSITY verbose
SET statement_timeout = '%(timeout)s';
SELECT count(*) AS p, (SELECT count(*) FROM calltree.sample) AS s, (SELECT count(*) FROM calltree.event) AS e,
       clock_timestamp() AS t0 FROM calltree.profile \gset b_
\echo @@START
\warn @@START
SELECT %(call)s AS id \gset
\echo @@END
\warn @@END
SELECT 'TIME', extract(epoch FROM clock_timestamp() - :'b_t0'::timestamptz);
\if :{?id}
SELECT 'ACC', (SELECT count(*) FROM calltree.sample WHERE profile_id = :id),
       (SELECT count(*) FILTER (WHERE weight < 0) FROM calltree.sample WHERE profile_id = :id),
       (SELECT count(*) FROM calltree.event WHERE profile_id = :id),
       (SELECT format FROM calltree.profile WHERE id = :id);
DELETE FROM calltree.profile WHERE id = :id;
\else
SELECT 'LEFT', (SELECT count(*) FROM calltree.profile) - :b_p, (SELECT count(*) FROM calltree.sample) - :b_s,
       (SELECT count(*) FROM calltree.event) - :b_e;
\endif
SELECT 'HWM', (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s+(\d+)'))[1];
"""

CALLS = {
    'import_cpuprofile': "calltree.import_cpuprofile(pg_read_file(%s))",
    'import_speedscope': "calltree.import_speedscope(pg_read_file(%s))",
    'import_firefox': "calltree.import_firefox(pg_read_file(%s))",
    'import_trace_events': "calltree.import_trace_events(pg_read_file(%s))",
    'import_trace_events/events': "calltree.import_trace_events(pg_read_file(%s), source => 'events')",
    'import_profile': "calltree.import_profile(pg_read_binary_file(%s))",
}


def quote(s):
    return "'" + s.replace("'", "''") + "'"


def run_case(importer, path, size, stream=False):
    if stream:
        call = "calltree.import_stream('pg_temp.c')"
        pre = ("CREATE TEMP TABLE c (seq int, chunk text);\n"
               "INSERT INTO c SELECT 1, translate(encode(pg_read_binary_file(%s), 'base64'), E'\\n', '');\n" % quote(path))
    else:
        call = CALLS[importer] % quote(path)
        pre = ''
    script = pre + SCRIPT % {'timeout': TIMEOUT, 'call': call}
    t = time.time()
    r = subprocess.run([PSQL, '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=0'], input=script,
                       capture_output=True, text=True, timeout=120)
    return classify(r.stdout, r.stderr, r.returncode, size)


def classify(out, err, rc, size):
    """(outcome, detail, seconds the import took)"""
    outcome, detail = judge(out, err, rc, size)
    m = re.search(r'^TIME\|([0-9.]+)$', out, re.M)
    return outcome, detail, float(m.group(1)) if m else 0.0


def judge(out, err, rc, size):
    """(outcome, detail)"""
    if '@@START' not in err:
        return 'defect:other', 'setup failed: ' + err[-300:]
    m = re.search(r'ERROR:  ([0-9A-Z]{5}): (.*)', err.split('@@START')[1].split('@@END')[0])
    lost = ('server closed the connection' in err or 'connection to server was lost' in err
            or 'terminating connection' in err or rc == 2)
    if lost or '@@END' not in out:
        return 'defect:crash', err.strip()[-500:]
    fields = {ln.split('|')[0]: ln.split('|')[1:] for ln in out.splitlines() if '|' in ln}
    secs = float(fields.get('TIME', ['0'])[0] or 0)
    hwm = int(fields.get('HWM', ['0'])[0] or 0)
    if hwm > MEMORY_BUDGET_KB:
        return 'defect:memory', '%d kB for %d bytes' % (hwm, size)
    if m:
        code, msg = m.group(1), m.group(2)
        if code == '57014':
            return 'defect:timeout', msg
        if code[:2] in ('XX', '58', '57', '53') or 'cache lookup failed' in msg:
            return 'defect:internal', code + ': ' + msg
        if re.search(r'index row|violates|value too long|out of range for type|invalid memory alloc', msg):
            # the backend's own words, naming neither the format nor the place
            return 'defect:unexplained error', code + ': ' + msg
        left = fields.get('LEFT', ['0', '0', '0'])
        if any(x != '0' for x in left):
            return 'defect:left behind', 'profiles, samples, events: ' + ','.join(left)
        if secs > SLOW_SECONDS:
            return 'defect:slow', '%.1f s for %d bytes (error %s)' % (secs, size, code)
        return 'error', code + ': ' + msg[:80]
    if 'ACC' not in fields:
        return 'defect:other', (out + err)[-500:]
    samples, negative, events = map(int, fields['ACC'][:3])
    # the Firefox Profiler's weights may be negative (its comparisons)
    if negative and fields['ACC'][3] != 'firefox':
        return 'defect:negative weights', '%d of %d samples' % (negative, samples)
    if samples == 0 and events == 0:
        return 'accepted:empty', ''
    if secs > SLOW_SECONDS:
        return 'defect:slow', '%.1f s for %d bytes' % (secs, size)
    return 'accepted', ''


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--cases', type=int, default=3000, help='mutants in all')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--out', default='/tmp/json_importer_fuzz')
    ap.add_argument('--minutes', type=float, default=25, help='stop after this long')
    ap.add_argument('--only', help='one importer')
    args = ap.parse_args()
    os.makedirs(os.path.join(args.out, 'defects'), exist_ok=True)
    rng = random.Random(args.seed)
    env_db = os.environ.get('PGDATABASE')
    os.environ['PGDATABASE'] = 'json_importer_fuzz'
    subprocess.run([PSQL, '-X', '-q', '-d', env_db or 'postgres', '-c', 'DROP DATABASE IF EXISTS json_importer_fuzz',
                    '-c', 'CREATE DATABASE json_importer_fuzz'], check=True)
    subprocess.run([PSQL, '-X', '-q', '-c', 'CREATE EXTENSION calltree'], check=True)
    files = seeds()
    if args.only:
        files = [f for f in files if f[0] == args.only]
    counts = collections.defaultdict(collections.Counter)
    details = collections.defaultdict(collections.Counter)
    case_path = os.path.join(args.out, 'case.json')
    rates = []
    stop = time.time() + args.minutes * 60
    for n in range(args.cases):
        if time.time() > stop:
            break
        # each importer as often, whatever its number of seed files
        importer = rng.choice(sorted({f[0] for f in files}))
        importer, name, text = rng.choice([f for f in files if f[0] == importer])
        data, ops = mutate(rng, text)
        with open(case_path, 'w', encoding='utf-8') as f:
            f.write(data)
        route = rng.random()
        stream = False
        if route < 0.2:
            importer = 'import_profile'
        elif route < 0.25:
            importer, stream = 'import_stream', True
        elif importer == 'import_trace_events' and route < 0.5:
            importer = 'import_trace_events/events'
        try:
            outcome, detail, secs = run_case(importer, case_path, len(data), stream)
        except subprocess.TimeoutExpired:
            outcome, detail, secs = 'defect:hang', 'psql did not return in 120 s', 120.0
        # the slowest runs with their sizes, for a look at super-linear time
        rates.append((secs, len(data), importer, name, ', '.join(ops)))
        rates = sorted(rates, reverse=True)[:5]
        counts[importer][outcome] += 1
        if outcome == 'error':
            details[importer][detail[:60]] += 1
        if outcome.startswith('defect'):
            keep = os.path.join(args.out, 'defects', '%05d.json' % n)
            os.replace(case_path, keep)
            print('%s %s (%s; %s): %s -> %s' % (outcome, importer, name, ', '.join(ops), keep,
                                                detail[:300]), flush=True)
            if outcome == 'defect:crash':
                time.sleep(3)       # the postmaster restarts its backends
    total = collections.Counter()
    for importer in sorted(counts):
        print('%-28s %s' % (importer, dict(sorted(counts[importer].items()))))
        total.update(counts[importer])
    print('%-28s %s' % ('all (%d)' % sum(total.values()), dict(sorted(total.items()))))
    for secs, size, importer, name, ops in rates:
        print('slowest: %.2f s for %d bytes, %s (%s; %s)' % (secs, size, importer, name, ops))
    if os.environ.get('VERBOSE'):
        for importer in sorted(details):
            for d, c in details[importer].most_common(15):
                print('  %s %5d %s' % (importer, c, d))
    return 1 if any(k.startswith('defect') for k in total) else 0


if __name__ == '__main__':
    sys.exit(main())
