#!/usr/bin/env python3
"""gen_collapsed.py OUT MEGABYTES STACKS: a collapsed-stacks file
(`a;b;c 42` lines) for bench/imports.sh.

The stacks are those of the first bench/imports.sh: 20,000 funcs named
like `pkg12.mod3.func_1234`, STACKS distinct stacks of depth 5 to 60 grown
as a tree (each extends a random prefix of an earlier one), funcs drawn
from a Pareto law so that a few are everywhere.  The lines first name
every stack once (shuffled), then stacks drawn uniformly, each with a
count from 1 to 1000, until the file reaches MEGABYTES (10^6 bytes), so a
file of 200 MB holds all 100,000 stacks about three times, as does a
concatenation of collapsed files.  Writes OUT.expect.json beside it.
"""
import random

import gen_common as g

VERSION = 2
SEED = 20261123


def main():
    path, target, n_stacks = g.parse_args(__doc__)
    rng = random.Random(SEED)
    funcs = ['pkg%d.mod%d.func_%d' % (i % 97, i % 13, i) for i in range(20000)]
    stacks = g.grow_stacks(
        rng, n_stacks,
        pick=lambda base: funcs[int(rng.paretovariate(1.2)) % len(funcs)],
        roots=lambda: funcs[rng.randrange(100)])
    lines = [';'.join(s) for s in stacks]

    samples = weight = size = 0
    used = set()
    draws = g.cover_then_random(rng, len(stacks))
    with open(path, 'w') as out:
        while size < target:
            i = next(draws)
            count = rng.randint(1, 1000)
            line = '%s %d\n' % (lines[i], count)
            out.write(line)
            size += len(line)
            samples += 1
            weight += count
            used.add(i)

    used_stacks = [stacks[i] for i in sorted(used)]
    names = {f for s in used_stacks for f in s}
    g.write_expect(path, {
        'format': 'collapsed',
        'generator': 'gen_collapsed.py',
        'version': VERSION,
        'seed': SEED,
        'samples': samples,
        'total_weight': weight,
        'distinct_stacks': len(used),
        'mean_depth': round(sum(len(s) for s in used_stacks) / len(used_stacks), 1),
        # a collapsed frame is its func: one frame per name
        'stack_rows': g.trie_nodes(used_stacks),
        'funcs': len(names),
        'frames': len(names),
        'threads': 0,
        'label_sets': 0,
    })


if __name__ == '__main__':
    main()
