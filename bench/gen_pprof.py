#!/usr/bin/env python3
"""gen_pprof.py OUT MEGABYTES STACKS: a gzip-compressed pprof profile
(profile.proto, as Go's runtime/pprof writes a CPU profile) for
bench/imports.sh.  MEGABYTES (10^6 bytes) is the size of the protobuf
before compression.

The protobuf is written by the small encoder below (varints, keys,
length-delimited and packed fields; field numbers from pprof's
profile.proto), in the order Go writes its fields: sample types
(samples/count, cpu/nanoseconds), samples, mapping, locations,
functions, string table, time_nanos, duration_nanos, period type,
period, default_sample_type (cpu).

- 20,000 Go functions (`github.com/acme/shop/internal/pkg12.(*Type3).Method1234`,
  closures, the runtime's and net/http's), each with a file name and a
  start line, and 1 to 3 locations (call sites on different lines) of one
  mapping (the binary, with a build id); about one location in eight holds
  two lines, a function inlined into its caller (the caller last, as pprof
  orders them).
- STACKS distinct stacks: a tree of server-code stacks 3 to 35 frames
  deep (grown as in gen_perf_script.py) below a goroutine's entry
  (net/http's `(*conn).serve` under `runtime.goexit`, or `runtime.main`),
  some ending in the runtime (mallocgc, futex, ...), and 5% of the GC's
  mark workers; callers use the location of the call site, fixed per
  (caller, callee).
- Samples with location ids leaf first (packed) and values (count, count
  x 10 ms, packed); samples first name every stack once (shuffled), then
  again in later passes, each (stack, label set) once for up to 9 passes,
  as a profile aggregated by stack and labels.  Labels as pprof.Do sets
  them: `handler` (4 values) and sometimes `tenant`; one sample in nine
  has none.
- Only the functions and locations that some sample uses are written.

Writes OUT.expect.json beside it (with the uncompressed size).
"""
import gzip
import random

import gen_common as g

VERSION = 1
SEED = 7001
PERIOD = 10000000            # 10 ms, in ns: runtime/pprof's 100 Hz


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7f) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def vint(field, n):
    """an int64/uint64 field (wire type 0); 0 is the default, omitted"""
    return key(field, 0) + varint(n) if n else b''


def ld(field, payload):
    """a length-delimited field (wire type 2): a message or a string"""
    return key(field, 2) + varint(len(payload)) + payload


def packed(field, ints):
    return ld(field, b''.join(varint(i) for i in ints))


def value_type(t, u):
    return vint(1, t) + vint(2, u)


class Strings:
    def __init__(self):
        self.list, self.index = [], {}
        self('')

    def __call__(self, s):
        i = self.index.get(s)
        if i is None:
            i = self.index[s] = len(self.list)
            self.list.append(s)
        return i


def main():
    path, target, n_stacks = g.parse_args(__doc__)
    rng = random.Random(SEED)
    S = Strings()
    s_samples, s_count, s_cpu, s_ns = S('samples'), S('count'), S('cpu'), S('nanoseconds')

    # functions: (name, file, start_line); id = index + 1
    funcs = []

    def func(name, filename):
        funcs.append((name, filename, rng.randint(10, 3000)))
        return len(funcs) - 1

    shop = []
    for i in range(20000):
        p = i % 97
        if i % 4 == 0:
            name = 'github.com/acme/shop/internal/pkg%d.handle%d' % (p, i)
        elif i % 4 == 3:
            name = 'github.com/acme/shop/internal/pkg%d.(*Type%d).Method%d.func1' % (p, i % 13, i)
        else:
            name = 'github.com/acme/shop/internal/pkg%d.(*Type%d).Method%d' % (p, i % 13, i)
        shop.append(func(name, '/build/shop/internal/pkg%d/file%d.go' % (p, i % 7)))
    small = [func('github.com/acme/shop/internal/util.(*Buf%d).Len' % i, '/build/shop/internal/util/buf.go')
             for i in range(500)]
    rt = '/usr/lib/go-1.19/src/'
    goexit = func('runtime.goexit', rt + 'runtime/asm_amd64.s')
    serve = [func('net/http.(*conn).serve', rt + 'net/http/server.go'),
             func('net/http.serverHandler.ServeHTTP', rt + 'net/http/server.go'),
             func('net/http.(*ServeMux).ServeHTTP', rt + 'net/http/server.go'),
             func('net/http.HandlerFunc.ServeHTTP', rt + 'net/http/server.go')]
    gc = [func('runtime.gcBgMarkWorker', rt + 'runtime/mgc.go'),
          func('runtime.systemstack', rt + 'runtime/asm_amd64.s'),
          func('runtime.gcBgMarkWorker.func2', rt + 'runtime/mgc.go'),
          func('runtime.gcDrain', rt + 'runtime/mgcmark.go')]
    gc_leaves = [func(n, rt + 'runtime/mgcmark.go') for n in
                 ('runtime.scanobject', 'runtime.greyobject', 'runtime.findObject', 'runtime.markBits.isMarked')]
    rmain = [func('runtime.main', rt + 'runtime/proc.go'), func('main.main', '/build/shop/cmd/shop/main.go')]
    rt_leaves = [func(n, rt + 'runtime/' + f) for n, f in
                 (('runtime.mallocgc', 'malloc.go'), ('runtime.memmove', 'memmove_amd64.s'),
                  ('runtime.mapaccess2_faststr', 'map_faststr.go'), ('runtime.futex', 'sys_linux_amd64.s'),
                  ('syscall.Syscall', 'syscall/syscall_linux.go'), ('runtime.memclrNoHeapPointers', 'memclr_amd64.s'),
                  ('runtime.heapBitsSetType', 'mbitmap.go'), ('runtime.nextFreeFast', 'malloc.go'))]

    # locations: (address, [(function index, line)], inner line first)
    locations = []
    func_locs = [[] for _ in funcs]
    address = 0x401000
    for f, (name, filename, start) in enumerate(funcs):
        for _ in range(rng.randint(1, 3)):
            address += 0x10 * rng.randint(1, 16)
            lines = [(f, start + rng.randint(1, 120))]
            if f < len(shop) and rng.random() < 0.125:
                inl = rng.choice(small)
                lines.insert(0, (inl, funcs[inl][2] + rng.randint(1, 5)))
            func_locs[f].append(len(locations))
            locations.append((address, lines))
    mem_limit = (address + 0xfffff) & ~0xfffff

    def pareto(pool):
        return pool[int(rng.paretovariate(1.2)) % len(pool)]

    bodies = g.grow_stacks(rng, n_stacks, pick=g.callee_picker(rng, shop), tail=3,
                           roots=lambda: shop[rng.randrange(100)], min_depth=3, max_depth=35)
    fstacks, seen = [], set()
    b = 0
    while len(fstacks) < n_stacks:
        r = rng.random()
        if r < 0.05:
            fs = [goexit] + gc + [pareto(gc_leaves) for _ in range(rng.randint(1, 4))]
        else:
            body = list(bodies[b % len(bodies)])
            b += 1
            if b > len(bodies):
                body.append(pareto(shop))
            fs = ([goexit] + serve if r < 0.9 else rmain) + body
            if rng.random() < 0.3:
                fs.append(rng.choice(rt_leaves))
        t = tuple(fs)
        if t not in seen:
            seen.add(t)
            fstacks.append(t)

    def site(caller, callee):
        locs = func_locs[caller]
        return locs[(caller * 2654435761 + callee * 40503) % len(locs)]

    # stacks as location indexes, root first
    lstacks = []
    for fs in fstacks:
        locs = [site(f, fs[k + 1]) for k, f in enumerate(fs[:-1])]
        locs.append(rng.choice(func_locs[fs[-1]]))
        lstacks.append(locs)
    packed_locs = [packed(1, [i + 1 for i in reversed(ls)]) for ls in lstacks]

    # label sets: option 0 has none
    s_handler, s_tenant = S('handler'), S('tenant')
    handlers = [S(h) for h in ('/api/v1/orders', '/api/v1/cart', '/api/v1/search', '/healthz')]
    tenants = [S(t) for t in ('acme', 'globex')]
    label_opts = [b'']
    for h in handlers:
        label_opts.append(ld(3, vint(1, s_handler) + vint(2, h)))
        label_opts.append(ld(3, vint(1, s_handler) + vint(2, h)) + ld(3, vint(1, s_tenant) + vint(2, rng.choice(tenants))))

    # The sizes of the messages written after the samples, counted as
    # samples first use their locations, so that the whole protobuf
    # reaches the target: a mapping, the locations and functions used,
    # the string table (string indexes taken as 3-byte varints).
    def loc_size(loc):
        addr, lines = locations[loc]
        return len(ld(4, vint(1, loc + 1) + vint(2, 1) + vint(3, addr)
                      + b''.join(ld(4, vint(1, f + 1) + vint(2, line)) for f, line in lines)))

    def func_size(f):
        name, filename, start = funcs[f]
        return len(ld(5, vint(1, f + 1) + b'\x10xxx\x18xxx\x20xxx' + vint(5, start))) + len(ld(6, name.encode()))

    rest = 200 + sum(len(ld(6, s.encode())) for s in S.list)
    seen_locs, seen_funcs, seen_files = set(), set(), set()
    body = bytearray()
    body += ld(1, value_type(s_samples, s_count)) + ld(1, value_type(s_cpu, s_ns))
    samples = weight = 0
    used, used_labels = set(), set()
    order = list(range(len(lstacks)))
    passes = 0
    while len(body) + rest < target:
        rng.shuffle(order)
        for i in order:
            if len(body) + rest >= target:
                break
            count = min(1 + int(rng.paretovariate(1.3)), 1000)
            opt = (i + passes) % len(label_opts)
            body += ld(2, packed_locs[i] + packed(2, [count, count * PERIOD]) + label_opts[opt])
            samples += 1
            weight += count * PERIOD
            if opt:
                used_labels.add(opt)
            if i not in used:
                used.add(i)
                for loc in lstacks[i]:
                    if loc not in seen_locs:
                        seen_locs.add(loc)
                        rest += loc_size(loc)
                        for f, _ in locations[loc][1]:
                            if f not in seen_funcs:
                                seen_funcs.add(f)
                                rest += func_size(f)
                                if funcs[f][1] not in seen_files:
                                    seen_files.add(funcs[f][1])
                                    rest += len(ld(6, funcs[f][1].encode()))
        passes += 1

    used_locs = sorted({loc for i in used for loc in lstacks[i]})
    used_funcs = sorted({f for loc in used_locs for f, _ in locations[loc][1]})
    body += ld(3, vint(1, 1) + vint(2, 0x400000) + vint(3, mem_limit) + vint(4, 0)
               + vint(5, S('/usr/local/bin/shop'))
               + vint(6, S('a3f5c8d2e1b04f6a9c7d8e2f1a0b3c4d5e6f7a8b'))
               + vint(7, 1) + vint(8, 1) + vint(9, 1) + vint(10, 1))
    for loc in used_locs:
        addr, lines = locations[loc]
        body += ld(4, vint(1, loc + 1) + vint(2, 1) + vint(3, addr)
                   + b''.join(ld(4, vint(1, f + 1) + vint(2, line)) for f, line in lines))
    for f in used_funcs:
        name, filename, start = funcs[f]
        n = S(name)
        body += ld(5, vint(1, f + 1) + vint(2, n) + vint(3, n) + vint(4, S(filename)) + vint(5, start))
    for s in S.list:
        body += ld(6, s.encode())
    body += vint(9, 1763876160000000000) + vint(10, 30 * 1000000000)
    body += ld(11, value_type(s_cpu, s_ns)) + vint(12, PERIOD) + vint(14, s_cpu)

    with open(path, 'wb') as out:
        out.write(gzip.compress(bytes(body), compresslevel=6, mtime=0))

    # frames: one per line of a location, the caller (last line) outermost
    def frames(ls):
        return [(loc, j) for loc in ls for j in reversed(range(len(locations[loc][1])))]

    g.write_expect(path, {
        'format': 'pprof',
        'generator': 'gen_pprof.py',
        'version': VERSION,
        'seed': SEED,
        'uncompressed_bytes': len(body),
        'sample_type': 'cpu',
        'samples': samples,
        'total_weight': weight,
        'total_count': weight // PERIOD,
        'distinct_stacks': len(used),
        'stack_rows': g.trie_nodes([frames(lstacks[i]) for i in sorted(used)]),
        'mean_depth': round(sum(len(frames(lstacks[i])) for i in used) / len(used), 1),
        'frames': sum(len(locations[loc][1]) for loc in used_locs),
        'funcs': len(used_funcs),
        'locations': len(used_locs),
        'threads': 0,
        'label_sets': len(used_labels),
    })


if __name__ == '__main__':
    main()
