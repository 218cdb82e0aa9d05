"""Helpers shared by the import benchmark's generators (bench/gen_*.py).

Python 3 standard library only.  Every generator is deterministic: one
random.Random with a fixed seed, no clock, no hash() of strings (which is
salted per process).
"""
import json
import os
import sys


def parse_args(usage):
    """gen_X.py OUT_FILE MEGABYTES STACKS -> (path, target bytes, stacks)."""
    if len(sys.argv) != 4:
        sys.exit(usage)
    path, mb, stacks = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    if mb <= 0 or stacks <= 0:
        sys.exit(usage)
    return path, int(mb * 1000000), stacks


def grow_stacks(rng, n, pick, roots, min_depth=5, max_depth=60, extend=0.9, tail=None):
    """n distinct stacks (tuples, root first) grown as a tree.

    With probability `extend` a new stack starts from a random earlier
    stack, else from a new root drawn by roots() and grows to a random
    depth in [min_depth, max_depth]; frames are drawn by pick(stack so
    far).  tail=None: the algorithm of the first bench/imports.sh, which
    keeps a random prefix (at least one frame) of the earlier stack and
    grows to a random depth, so stacks share about half their frames.
    tail=T: keeps all but about T frames of the earlier stack and adds
    about T (at least 1 each, exponential), as in real call trees where
    distinct stacks mostly differ near the leaf.  Duplicates are dropped
    and drawn again.
    """
    def geo():
        return 1 + int(rng.expovariate(1.0 / tail))

    stacks, seen = [], set()
    while len(stacks) < n:
        if stacks and rng.random() < extend:
            base = stacks[rng.randrange(len(stacks))]
            if tail is None:
                base = list(base[:rng.randint(1, len(base))])
                depth = rng.randint(min_depth, max_depth)
            else:
                cut = max(1, len(base) - geo())
                base = list(base[:cut])
                depth = max(min_depth, min(max_depth, cut + geo()))
        else:
            base = [roots()]
            depth = rng.randint(min_depth, max_depth)
        while len(base) < depth:
            base.append(pick(base))
        t = tuple(base)
        if t not in seen:
            seen.add(t)
            stacks.append(t)
    return stacks


def callee_picker(rng, pool, slots=16, alpha=0.15):
    """pick() for grow_stacks: the callee is fixed by the caller and a
    call slot (Zipf-like among `slots`), so that a function calls the same
    few functions wherever it appears; over the pool it is Pareto
    distributed with a small alpha (0.15: mildly skewed, so that about
    half of 20,000 functions appear in 100,000 stacks)."""
    n = len(pool)

    def pick(base):
        slot = min(int(rng.paretovariate(1.0)) - 1, slots - 1)
        h = (base[-1] * 2654435761 + slot * 2246822519 + 374761393) % 4294967311
        u = (h + 0.5) / 4294967311
        return pool[int(u ** (-1.0 / alpha)) % n]
    return pick


def trie_nodes(sequences):
    """Distinct non-empty prefixes of the sequences: the rows a calltree
    import writes to calltree.stack (one per (prefix, frame)), when the
    sequences hold frame keys, root first."""
    ids = {}
    for seq in sequences:
        parent = 0
        for key in seq:
            k = (parent, key)
            node = ids.get(k)
            if node is None:
                node = ids[k] = len(ids) + 1
            parent = node
    return len(ids)


def cover_then_random(rng, n_stacks, weights=None):
    """Stack indexes for the samples: first every stack once (shuffled),
    so that a file large enough holds all of them, then random draws
    (uniform, or by `weights` through a cumulative table)."""
    order = list(range(n_stacks))
    rng.shuffle(order)
    for i in order:
        yield i
    if weights is None:
        while True:
            yield rng.randrange(n_stacks)
    cum, total = [], 0
    for w in weights:
        total += w
        cum.append(total)
    import bisect
    while True:
        yield bisect.bisect_right(cum, rng.random() * total)


def write_expect(path, facts):
    """The side file FILE.expect.json: what the generator wrote, for the
    benchmark's sanity checks.  Written last, through a rename, so that a
    file whose generation was interrupted has no side file."""
    facts = dict(facts)
    facts['bytes'] = os.path.getsize(path)
    tmp = path + '.expect.json.tmp'
    with open(tmp, 'w') as out:
        json.dump(facts, out, indent=1, sort_keys=True)
        out.write('\n')
    os.replace(tmp, path + '.expect.json')
