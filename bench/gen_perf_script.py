#!/usr/bin/env python3
"""gen_perf_script.py OUT MEGABYTES STACKS: the text of `perf script`
(after `perf record -g`) for bench/imports.sh.

What it looks like (one sample; frames leaf first, as perf prints them):

    worker-3  4242/4246  [003] 3012345.678901:    1234567 cycles:P: 
    \t    7f3c8e49a1c4 __memmove_avx_unaligned_erms+0x84 (/usr/lib/x86_64-linux-gnu/libc.so.6)
    \t    55d0c3a8e2b8 shop::pkg12::Class3::method_1234(std::string const&, int)+0x58 (/opt/shop/bin/shop-server)
    \t    ...
    \t    7f3c8e429d8f start_thread+0x2ef (/usr/lib/x86_64-linux-gnu/libc.so.6)
    \t    7f3c8e4b9e3f clone3+0x2f (/usr/lib/x86_64-linux-gnu/libc.so.6)

- A `# ========` header block, as perf script prints from perf.data.
- Sample headers with perf's own field widths (`%s %5d/%-5d [%03d]
  %12s: %10d event: `): most threads print `comm pid/tid [cpu]`, some
  `comm tid [cpu]` and some `comm pid/tid` without the cpu (perf prints one
  of these per run, depending on -F and on the recording; the file mixes
  them, one per thread, so that every variant is parsed).  Comms with
  spaces (`GC Thread#0`), a slash and a colon (`kworker/u16:2`).
  Timestamps in microseconds, increasing; one event, `cycles:P`, with a
  period (the sample's weight) that varies from sample to sample.
- Frames `\\t%16x symbol+0xoff (dso)`: a C++ server binary with demangled
  names holding spaces and parentheses, libc, libstdc++, the kernel
  (`[kernel.kallsyms]`), JIT code (`/tmp/perf-4242.map`), and `[unknown]`
  frames: the bogus outermost frame of the main thread (`[unknown]
  ([unknown])`) and JIT frames missing from the map.  Callers have return
  addresses fixed per (caller, callee) call site, leaves an IP anywhere in
  the function, so a func has several frames.
- STACKS distinct stacks: a tree of server-code stacks 3 to 35 frames
  deep (gen_common.grow_stacks with tail=3: each new stack keeps all but
  about 3 frames of an earlier one and adds about 3, the callee fixed by
  the caller and a Zipf-like call slot), below the thread's entry frames
  (main thread or worker threads), ending some in libc or libstdc++ and
  some in a syscall down into the kernel, and 2% idle and kworker stacks
  of the kernel alone.  Samples first name every stack once (shuffled),
  then draw stacks uniformly, until the file reaches MEGABYTES (10^6
  bytes): about 2.3 kB per sample.

Writes OUT.expect.json beside it.
"""
import random

import gen_common as g

VERSION = 1
SEED = 5001
EVENT = 'cycles:P'

APP = '/opt/shop/bin/shop-server'
LIBC = '/usr/lib/x86_64-linux-gnu/libc.so.6'
LIBSTDCXX = '/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30'
KERNEL = '[kernel.kallsyms]'
JIT = '/tmp/perf-4242.map'
UNKNOWN = '[unknown]'

LIBC_LEAVES = ['malloc', '_int_malloc', 'free', '_int_free', 'cfree@GLIBC_2.2.5',
               '__memmove_avx_unaligned_erms', '__memset_avx2_unaligned_erms',
               '__strlen_avx2', '__memcmp_avx2_movbe', 'pthread_mutex_lock',
               '___pthread_mutex_unlock', '__lll_lock_wait', 'pthread_cond_wait@@GLIBC_2.3.2']
LIBSTDCXX_LEAVES = ['operator new(unsigned long)', 'operator delete(void*, unsigned long)',
                    'std::_Hash_bytes(void const*, unsigned long, unsigned long)',
                    'std::__detail::_Prime_rehash_policy::_M_next_bkt(unsigned long) const',
                    'std::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_mutate(unsigned long, unsigned long, char const*, unsigned long)',
                    'std::_Rb_tree_increment(std::_Rb_tree_node_base*)']
SYSCALLS = [('__GI___libc_read', '__x64_sys_read', ['ksys_read', 'vfs_read', 'sock_read_iter', 'tcp_recvmsg']),
            ('__GI___libc_write', '__x64_sys_write', ['ksys_write', 'vfs_write', 'sock_write_iter', 'tcp_sendmsg']),
            ('epoll_wait', '__x64_sys_epoll_wait', ['do_epoll_wait', 'ep_poll', 'schedule_hrtimeout_range']),
            ('__futex_abstimed_wait_common', '__x64_sys_futex', ['do_futex', 'futex_wait', 'futex_wait_queue']),
            ('__GI___mmap64', '__x64_sys_mmap', ['ksys_mmap_pgoff', 'vm_mmap_pgoff', 'do_mmap'])]
IDLE = ['secondary_startup_64_no_verify', 'start_secondary', 'cpu_startup_entry', 'do_idle',
        'cpuidle_idle_call', 'cpuidle_enter', 'cpuidle_enter_state']
KWORKER = ['ret_from_fork', 'kthread', 'worker_thread', 'process_one_work']


class Funcs:
    """Functions laid out in their dso: name, dso, start address, size."""

    def __init__(self, rng):
        self.name, self.dso, self.start, self.size = [], [], [], []
        self.index = {}
        self.rng = rng
        self.next_start = {}

    def add(self, name, dso, base):
        addr = self.next_start.get(dso, base)
        size = 0x40 + 0x10 * self.rng.randrange(64)
        self.next_start[dso] = addr + size
        self.index[(name, dso)] = len(self.name)
        self.name.append(name)
        self.dso.append(dso)
        self.start.append(addr)
        self.size.append(size)
        return len(self.name) - 1

    def get(self, name, dso, base):
        i = self.index.get((name, dso))
        return self.add(name, dso, base) if i is None else i


def main():
    path, target, n_stacks = g.parse_args(__doc__)
    rng = random.Random(SEED)
    F = Funcs(rng)
    app_base, libc_base, cxx_base = 0x55d0c3a00000, 0x7f3c8e400000, 0x7f3c8e800000
    k_base, jit_base = 0xffffffff81000000, 0x7f3c70000000

    app = []
    for i in range(14000):
        if i % 3 == 0:
            name = 'shop::pkg%d::Class%d::method_%d(std::string const&, int)' % (i % 97, i % 13, i)
        elif i % 3 == 1:
            name = 'shop::pkg%d::detail::helper_%d(unsigned long)' % (i % 97, i)
        else:
            name = 'shop_handle_%d' % i
        app.append(F.add(name, APP, app_base))
    main_fn = F.add('main', APP, app_base)
    start_fn = F.add('_start', APP, app_base)
    libc_leaves = [F.get(n, LIBC, libc_base) for n in LIBC_LEAVES]
    cxx_leaves = [F.get(n, LIBSTDCXX, cxx_base) for n in LIBSTDCXX_LEAVES]
    libc_start = F.get('__libc_start_call_main', LIBC, libc_base)
    clone3 = F.get('clone3', LIBC, libc_base)
    start_thread = F.get('start_thread', LIBC, libc_base)
    thread_routine = F.get('execute_native_thread_routine', LIBSTDCXX, cxx_base)
    entry = [F.get('entry_SYSCALL_64_after_hwframe', KERNEL, k_base),
             F.get('do_syscall_64', KERNEL, k_base)]
    syscalls = [(F.get(w, LIBC, libc_base), F.get(s, KERNEL, k_base),
                 [F.get(k, KERNEL, k_base) for k in chain]) for w, s, chain in SYSCALLS]
    kfuncs = [F.add('kfunc_%d' % i, KERNEL, k_base) for i in range(3000)]
    idle = [F.get(n, KERNEL, k_base) for n in IDLE]
    idle_leaves = [F.get(n, KERNEL, k_base) for n in ('intel_idle', 'mwait_idle_with_hints', 'native_safe_halt')]
    kworker = [F.get(n, KERNEL, k_base) for n in KWORKER]
    jit = [F.add('lua_trace_%d' % i, JIT, jit_base) for i in range(1500)]

    def pareto(pool):
        return pool[int(rng.paretovariate(1.2)) % len(pool)]

    # Each stack: (group, [func], [unknown frame or None per position]),
    # root first; group picks the threads that run it.
    bodies = g.grow_stacks(rng, n_stacks, pick=g.callee_picker(rng, app), tail=3,
                           roots=lambda: app[rng.randrange(100)], min_depth=3, max_depth=35)
    stacks, seen = [], set()
    b = 0
    while len(stacks) < n_stacks:
        if rng.random() < 0.02:
            # kernel only: the idle loop (swapper) or a kworker
            if rng.random() < 0.7:
                funcs = idle + [pareto(kfuncs) for _ in range(rng.randint(0, 4))] + [rng.choice(idle_leaves)]
                group = 'idle'
            else:
                funcs = kworker + [pareto(kfuncs) for _ in range(rng.randint(1, 12))]
                group = 'kworker'
        else:
            body = list(bodies[b % len(bodies)])
            b += 1
            if b > len(bodies):     # bodies used up by duplicates: vary the tail
                body.append(pareto(app))
            if rng.random() < 0.05:
                # JIT code called from the server, some of it missing from the map
                k = rng.randint(1, len(body))
                body[k:k] = [pareto(jit) if rng.random() < 0.7 else -1 - rng.randrange(1 << 20)
                             for _ in range(rng.randint(1, 6))]
            if rng.random() < 0.1:
                group, funcs = 'main', [-1, libc_start, main_fn] + body
            else:
                group, funcs = 'worker', [clone3, start_thread, thread_routine] + body
            r = rng.random()
            if r < 0.25:
                funcs += [rng.choice(cxx_leaves)] if rng.random() < 0.4 else []
                funcs += [rng.choice(libc_leaves)]
            elif r < 0.45:
                wrapper, sys_fn, chain = rng.choice(syscalls)
                funcs += [wrapper] + entry + [sys_fn] + chain[:rng.randint(1, len(chain))]
                funcs += [pareto(kfuncs) for _ in range(rng.randint(0, 6))]
        key = tuple(funcs)
        if key in seen:
            continue
        seen.add(key)
        stacks.append((group, funcs))

    # Frames: (dso, address, symbol or None), root first.  -1 is the
    # main thread's bogus outermost frame, below -1 a JIT address
    # missing from the map.
    bogus = (UNKNOWN, 0x6ce258d4c544155, None)

    def site(caller, callee):
        # a return address, fixed per call site
        h = (caller * 2654435761 + callee * 40503 + 12345) & 0xffffffff
        return 8 + (h % (F.size[caller] // 8)) * 8 - 3

    frame_seqs = []
    for group, funcs in stacks:
        frames = []
        last = len(funcs) - 1
        for k, f in enumerate(funcs):
            if f == -1:
                frames.append(bogus)
            elif f < -1:
                frames.append((JIT, jit_base + 0x100000 + (-f) * 0x10, None))
            else:
                off = rng.randrange(1, F.size[f]) if k == last else site(f, funcs[k + 1] if funcs[k + 1] >= 0 else 0)
                frames.append((F.dso[f], F.start[f] + off, f))
        frame_seqs.append(frames)

    def frame_line(fr):
        dso, addr, f = fr
        if f is None:
            return '\t%16x [unknown] (%s)\n' % (addr, dso)
        return '\t%16x %s+0x%x (%s)\n' % (addr, F.name[f], addr - F.start[f], dso)

    text = [''.join(frame_line(fr) for fr in reversed(frames)) + '\n' for frames in frame_seqs]

    # threads: (comm, pid, tid, header style); the importer's thread
    # value is "comm pid/tid", or "comm tid" when one number is printed
    threads = {
        'main': [('shop-server', 4242, 4242, 'pt')],
        'worker': [('worker-%d' % i, 4242, 4250 + i, 'pt' if i % 4 else 'pt-nocpu') for i in range(12)]
        + [('GC Thread#%d' % i, 4242, 4270 + i, 'pt') for i in range(2)],
        'idle': [('swapper', 0, 0, 't')],
        'kworker': [('kworker/u16:%d' % i, 300 + i, 300 + i, 't') for i in range(3)],
    }

    def header(thread, cpu, us, period):
        comm, pid, tid, style = thread
        ts = '%d.%06d' % divmod(us, 1000000)
        if style == 'pt':
            return '%s %5d/%-5d [%03d] %12s: %10d %s: \n' % (comm, pid, tid, cpu, ts, period, EVENT)
        if style == 'pt-nocpu':
            return '%s %5d/%-5d %12s: %10d %s: \n' % (comm, pid, tid, ts, period, EVENT)
        return '%s %5d [%03d] %12s: %10d %s: \n' % (comm, tid, cpu, ts, period, EVENT)

    def thread_value(thread):
        comm, pid, tid, style = thread
        return '%s %d' % (comm, tid) if style == 't' else '%s %d/%d' % (comm, pid, tid)

    samples = weight = 0
    used, thread_names = set(), set()
    us = 3012345 * 1000000 + 123456
    first_us = None
    draws = g.cover_then_random(rng, len(stacks))
    with open(path, 'w') as out:
        size = out.write('# ========\n'
                         '# captured on    : Mon Nov 23 05:36:00 2026\n'
                         '# header version : 1\n'
                         '# hostname : bench-host\n'
                         '# os release : 6.1.0-13-amd64\n'
                         '# perf version : 6.1.55\n'
                         '# arch : x86_64\n'
                         '# nrcpus online : 8\n'
                         '# nrcpus avail : 8\n'
                         '# cpudesc : Intel(R) Xeon(R) CPU @ 2.20GHz\n'
                         '# total memory : 32869516 kB\n'
                         '# cmdline : /usr/bin/perf record -e cycles:P -F 4999 -g -a\n'
                         '# event : name = cycles:P, , id = { 31, 32, 33, 34 }, size = 136, '
                         '{ sample_period, sample_freq } = 4999, sample_type = IP|TID|TIME|CALLCHAIN|CPU|PERIOD, '
                         'read_format = ID, disabled = 1, inherit = 1, freq = 1, precise_ip = 3, sample_id_all = 1\n'
                         '# CPU_TOPOLOGY info available, use -I to display\n'
                         '# missing features: TRACING_DATA BRANCH_STACK GROUP_DESC AUXTRACE STAT CLOCKID DIR_FORMAT\n'
                         '# ========\n'
                         '#\n')
        while size < target:
            i = next(draws)
            group = stacks[i][0]
            thread = rng.choice(threads[group])
            cpu = rng.randrange(8) if group == 'idle' else thread[2] % 8
            period = rng.randint(20000, 4000000)
            us += rng.randint(1, 200)
            if first_us is None:
                first_us = us       # ts counts from the first sample
            size += out.write(header(thread, cpu, us, period))
            size += out.write(text[i])
            samples += 1
            weight += period
            used.add(i)
            thread_names.add(thread_value(thread))

    used_frames = [frame_seqs[i] for i in sorted(used)]
    frame_keys = {(dso, addr, f is None) for frames in used_frames for dso, addr, f in frames}
    func_keys = {(dso, addr) if f is None else (F.name[f], dso)
                 for frames in used_frames for dso, addr, f in frames}
    g.write_expect(path, {
        'format': 'perf script',
        'generator': 'gen_perf_script.py',
        'version': VERSION,
        'seed': SEED,
        'event': EVENT,
        'samples': samples,
        'total_weight': weight,
        'distinct_stacks': len(used),
        'mean_depth': round(sum(len(s) for s in used_frames) / len(used_frames), 1),
        'stack_rows': g.trie_nodes([[(d, a, f is None) for d, a, f in fr] for fr in used_frames]),
        'frames': len(frame_keys),
        'funcs': len(func_keys),
        'threads': len(thread_names),
        'last_ts': (us - first_us) * 1000,
        'label_sets': 0,
    })


if __name__ == '__main__':
    main()
