#!/usr/bin/env python3
"""significant_changes() against SciPy's mannwhitneyu, for test/t_significance.sh.

    significance_reference.py generate SEED CASES
        prints CASES random comparisons as weighted paths, one per line:
        "case<TAB>side<TAB>tree<TAB>{f,f,...}<TAB>weight", side b or t

    significance_reference.py check FILE ROWS
        reads the paths again (FILE) and the rows the database printed
        (ROWS: case|func|name|base_running_share|test_running_share|
        delta_running_share|base_self_share|test_self_share|delta_self_share|
        effect_size|p_value|q_value|significant), computes every row from the
        paths alone and compares them; prints a summary, or the first
        differences and exits 1.

The reference shares nothing with src/: running and self weights are
summed from the paths, shares are Fractions (ties found exactly), the
p-value is SciPy's mannwhitneyu(test, base, alternative='two-sided'), with
method='exact' when no two shares are tied and both sides hold 60 trees or
fewer in all, else method='asymptotic' with use_continuity=True (the choice
significant_changes() documents), and the q-values are Benjamini-Hochberg's,
computed here, over the functions whose shares are not all equal.
"""
import random
import sys
from collections import defaultdict
from fractions import Fraction

from scipy.stats import mannwhitneyu

ALPHA = 0.05
EXACT_MAX = 60


def sizes(rng):
    """The sides' sizes: mostly small, some past the exact method's limit."""
    kind = rng.random()
    if kind < 0.7:
        return rng.randint(2, 12), rng.randint(2, 12)
    if kind < 0.85:
        return rng.randint(20, 30), rng.randint(20, 30)
    return rng.randint(25, 45), rng.randint(25, 45)


def case_paths(rng, case):
    """One comparison's weighted paths: main (func 1) over leaves and a chain."""
    nbase, ntest = sizes(rng)
    nfuncs = rng.randint(2, 8)
    tied = rng.random() < 0.5        # small weights: many ties, shares of 0
    raised = rng.randint(2, nfuncs + 1)
    lines = []
    for side, count in (("b", nbase), ("t", ntest)):
        for tree in range(1, count + 1):
            weights = {}
            for f in range(2, nfuncs + 2):
                w = rng.randint(0, 3) if tied else rng.randint(1, 1000)
                if side == "t" and f == raised:
                    w += rng.randint(0, 2) if tied else rng.randint(0, 600)
                weights[f] = w
            if sum(weights.values()) == 0:
                weights[2] = 1
            for f, w in weights.items():
                if w == 0:
                    continue
                # every third func is called by the one before it: running > self there
                path = [1, f - 1, f] if f % 3 == 0 and f > 2 else [1, f]
                lines.append(f"{case}\t{side}\t{tree}\t{{{','.join(map(str, path))}}}\t{w}")
    return lines


def generate(seed, cases):
    rng = random.Random(seed)
    for case in range(1, cases + 1):
        print("\n".join(case_paths(rng, case)))


def read_trees(path):
    """{case: {side: {tree: [(path, weight)]}}}"""
    trees = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    with open(path) as f:
        for line in f:
            case, side, tree, p, w = line.rstrip("\n").split("\t")
            trees[int(case)][side][int(tree)].append((tuple(int(x) for x in p.strip("{}").split(",")), int(w)))
    return trees


def func_weights(samples):
    """{func: (running, self)} and the total of one tree's paths"""
    running = defaultdict(int)
    self_ = defaultdict(int)
    for path, w in samples:
        for f in set(path):
            running[f] += w
        self_[path[-1]] += w
    return {f: (running[f], self_[f]) for f in running}, sum(w for _, w in samples)


def bh(ps):
    """Benjamini-Hochberg q-values, in the order of ps"""
    n = len(ps)
    order = sorted(range(n), key=lambda i: (ps[i], i))
    q = [0.0] * n
    smallest = 1.0
    for rank in range(n, 0, -1):
        i = order[rank - 1]
        smallest = min(smallest, ps[i] * n / rank)
        q[i] = smallest
    return q


def expected_rows(case_trees):
    """{func: (the row's columns after func)} of one case"""
    sides = {}
    for side in ("b", "t"):
        sides[side] = [func_weights(case_trees[side][k]) for k in sorted(case_trees[side])]
    funcs = sorted({f for side in sides.values() for weights, _ in side for f in weights})
    rows = {}
    tested = []
    for f in funcs:
        run = {s: [Fraction(w.get(f, (0, 0))[0], t) for w, t in sides[s]] for s in sides}
        slf = {s: [Fraction(w.get(f, (0, 0))[1], t) for w, t in sides[s]] for s in sides}
        n1, n2 = len(run["b"]), len(run["t"])
        pooled = run["b"] + run["t"]
        mean = {s: float(sum(run[s]) / len(run[s])) for s in run}
        mean_self = {s: float(sum(slf[s]) / len(slf[s])) for s in slf}
        if len(set(pooled)) == 1:
            effect, p = 0.5, 1.0
        else:
            exact = len(set(pooled)) == len(pooled) and n1 + n2 <= EXACT_MAX
            r = mannwhitneyu([float(x) for x in run["t"]], [float(x) for x in run["b"]],
                             alternative="two-sided", use_continuity=True,
                             method="exact" if exact else "asymptotic")
            effect, p = r.statistic / (n1 * n2), float(r.pvalue)
            tested.append(f)
        rows[f] = [mean["b"], mean["t"], mean["t"] - mean["b"], mean_self["b"], mean_self["t"],
                   mean_self["t"] - mean_self["b"], effect, p]
    for f, q in zip(tested, bh([rows[f][7] for f in tested])):
        rows[f] += [q, q < ALPHA]
    for f in funcs:
        if len(rows[f]) == 8:
            rows[f] += [1.0, False]
    return rows


def close(a, b):
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b)) + 1e-12


def check(path, rows_path):
    trees = read_trees(path)
    got = defaultdict(dict)
    with open(rows_path) as f:
        for line in f:
            cols = line.rstrip("\n").split("|")
            got[int(cols[0])][int(cols[1])] = [float(x) for x in cols[3:12]] + [cols[12] == "t"]
    problems = []
    npvalues = nexact = 0
    smallest = 1.0
    for case in sorted(trees):
        want = expected_rows(trees[case])
        if set(want) != set(got[case]):
            problems.append(f"case {case}: funcs {sorted(got[case])}, expected {sorted(want)}")
            continue
        for f, w in want.items():
            g = got[case][f]
            npvalues += 1
            smallest = min(smallest, w[7])
            for name, a, b in zip(("base_running", "test_running", "delta_running", "base_self", "test_self",
                                   "delta_self", "effect", "p", "q"), g[:9], w[:9]):
                if not close(a, b):
                    problems.append(f"case {case} func {f}: {name} {a!r}, expected {b!r}")
            if g[9] != w[9]:
                problems.append(f"case {case} func {f}: significant {g[9]}, expected {w[9]}")
        nb, nt = len(trees[case]["b"]), len(trees[case]["t"])
        nexact += nb + nt <= EXACT_MAX
    if problems:
        print("\n".join(problems[:20]))
        print(f"{len(problems)} differences")
        sys.exit(1)
    print(f"{len(trees)} comparisons ({nexact} of at most {EXACT_MAX} trees), {npvalues} rows, "
          f"p-values as SciPy's mannwhitneyu, q-values as Benjamini-Hochberg's; the smallest p {smallest:.3g}")


def main():
    if sys.argv[1] == "generate":
        generate(int(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
