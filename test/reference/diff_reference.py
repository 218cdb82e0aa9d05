#!/usr/bin/env python3
"""An independent reading of diff() and regressions(), for test/t_diff_reference.sh.

    diff_reference.py generate SEED COUNT
        prints COUNT random pairs of trees as samples, one per line:
        "pair<TAB>side<TAB>{f,f,...}<TAB>weight<TAB>min_share", side b or t

    diff_reference.py check DIR
        reads what the database printed into DIR (nodes.txt, diff.txt,
        diff_normalized.txt, regressions.txt; fields separated by '|'),
        computes every row of diff() and regressions() from the two trees'
        nodes() alone, and compares them all; prints a summary, or the
        first differences and exits 1.

The computation shares nothing with src/: the union is a FULL JOIN of the two
nodes() lists by path; its order is worked out here (preorder, siblings by
base running + test running descending, then func); normalizing scales with
exact integers and the largest remainder method; functions' weights come
from the nodes (a func's running sums its nodes that have no ancestor of the
same func, its self all its nodes' self).
"""
import random
import sys
from collections import defaultdict
from fractions import Fraction

FUNCS = 9


def random_path(rng):
    return tuple(rng.randint(1, FUNCS) for _ in range(rng.randint(1, 6)))


def random_weight(rng):
    """Mostly positive, some zero, some negative: the inputs may be signed trees."""
    r = rng.random()
    if r < 0.08:
        return 0
    if r < 0.2:
        return -rng.randint(1, 50)
    if r < 0.25:
        return rng.randint(1, 10 ** 15)
    return rng.randint(1, 50)


def generate(seed, count):
    rng = random.Random(seed)
    for pair in range(1, count + 1):
        min_share = rng.choice([0.0, 0.005, 0.05, 0.2, 0.5])
        shape = rng.random()
        base = [] if shape < 0.03 else [(random_path(rng), random_weight(rng))
                                         for _ in range(rng.randint(1, 40))]
        if shape > 0.97:
            test = []
        elif shape < 0.6 and base:
            # a changed copy: some samples kept, reweighed or dropped, a few new
            test = [(p, w if rng.random() < 0.6 else random_weight(rng))
                    for p, w in base if rng.random() < 0.85]
            test += [(random_path(rng), random_weight(rng)) for _ in range(rng.randint(0, 8))]
        else:
            test = [(random_path(rng), random_weight(rng)) for _ in range(rng.randint(1, 40))]
        for side, samples in (("b", base), ("t", test)):
            for path, weight in samples:
                print(f"{pair}\t{side}\t{{{','.join(map(str, path))}}}\t{weight}\t{min_share}")
        if not base and not test:
            print(f"{pair}\tb\t\\N\t0\t{min_share}")


def parse_path(text):
    return tuple(int(x) for x in text.strip("{}").split(",")) if text != "{}" else ()


def read_rows(path):
    with open(path) as f:
        return [line.rstrip("\n").split("|") for line in f if line.strip()]


def read_nodes(directory):
    """pair -> side -> {path: (running, self)}, and each pair's min_share"""
    trees = defaultdict(lambda: {"b": {}, "t": {}})
    min_share = {}
    for pair, side, path, running, self_, share in read_rows(f"{directory}/nodes.txt"):
        pair = int(pair)
        min_share[pair] = float(share)
        trees[pair]  # a pair of two empty trees has no node row
        if path:
            trees[pair][side][parse_path(path)] = (int(running), int(self_))
    return trees, min_share


def union_order(base, test):
    """The FULL JOIN of both trees' nodes by path, in preorder with siblings by
    combined running descending, then func ascending."""
    paths = set(base) | set(test)
    combined = {p: base.get(p, (0, 0))[0] + test.get(p, (0, 0))[0] for p in paths}
    children = defaultdict(list)
    for p in paths:
        children[p[:-1]].append(p)
    order = []
    stack = [()]
    while stack:
        p = stack.pop()
        if p:
            order.append(p)
        kids = sorted(children[p], key=lambda c: (-combined[c], c[-1]))
        stack.extend(reversed(kids))
    return order


def normalized(order, base, base_total, test_total):
    """base's self weights scaled to test's total, largest remainders rounded
    up (ties: earlier in the order), then running weights summed again."""
    scaled = {}
    remainders = []
    for index, p in enumerate(order):
        exact = Fraction(base.get(p, (0, 0))[1] * test_total, base_total)
        floor = exact.numerator // exact.denominator
        scaled[p] = floor
        if exact != floor:
            remainders.append((-(exact - floor), index, p))
    missing = test_total - sum(scaled.values())
    assert 0 <= missing <= len(remainders)
    for _, _, p in sorted(remainders)[:missing]:
        scaled[p] += 1
    running = {p: 0 for p in order}
    for p in order:
        for k in range(1, len(p) + 1):
            running[p[:k]] += scaled[p]
    return {p: (running[p], scaled[p]) for p in order}


def share(weight, total):
    return None if total == 0 else float(weight) / float(total)


def expected_diff(base, test, normalize):
    order = union_order(base, test)
    base_total = sum(s for _, s in base.values())
    test_total = sum(s for _, s in test.values())
    if normalize:
        base = normalized(order, base, base_total, test_total)
        base_total = test_total
    index = {p: i + 1 for i, p in enumerate(order)}
    rows = []
    for p in order:
        br, bs = base.get(p, (0, 0))
        tr, ts = test.get(p, (0, 0))
        rows.append((index[p], index.get(p[:-1]), len(p) - 1, p[-1], p, br, bs, tr, ts,
                     tr - br, ts - bs, share(br, base_total), share(tr, test_total)))
    return rows


def function_weights(tree):
    """func -> (running, self): each sample once per function"""
    weights = defaultdict(lambda: [0, 0])
    for p, (running, self_) in tree.items():
        weights[p[-1]][1] += self_
        if p[-1] not in p[:-1]:
            weights[p[-1]][0] += running
    return weights


def expected_regressions(base, test, min_share):
    bw, tw = function_weights(base), function_weights(test)
    base_total = sum(s for _, s in base.values())
    test_total = sum(s for _, s in test.values())
    rows = []
    for func in set(bw) | set(tw):
        br, bs = bw.get(func, (0, 0))
        tr, ts = tw.get(func, (0, 0))
        shares = [share(bs, base_total), share(ts, test_total), share(br, base_total), share(tr, test_total)]
        if not any(s is not None and abs(s) >= min_share for s in shares):
            continue
        delta_self = None if None in shares[:2] else shares[1] - shares[0]
        delta_running = None if None in shares[2:] else shares[3] - shares[2]
        rows.append((func, shares[0], shares[1], delta_self, shares[2], shares[3], delta_running))
    rows.sort(key=lambda r: (r[3] is None, -(r[3] or 0), r[0]))
    return rows


def parse_value(text, kind):
    if text == "":
        return None
    if kind == "path":
        return parse_path(text)
    if kind == "float":
        return float(text)
    return int(text)


DIFF_KINDS = ["int", "int", "int", "int", "path", "int", "int", "int", "int", "int", "int", "float", "float"]
REGRESSION_KINDS = ["int", "float", "float", "float", "float", "float", "float"]


def read_results(path, kinds):
    """pair -> list of rows, in the order printed"""
    results = defaultdict(list)
    for fields in read_rows(path):
        results[int(fields[0])].append(tuple(parse_value(v, k) for v, k in zip(fields[1:], kinds)))
    return results


def check(directory):
    trees, min_share = read_nodes(directory)
    diffs = read_results(f"{directory}/diff.txt", DIFF_KINDS)
    normalized_diffs = read_results(f"{directory}/diff_normalized.txt", DIFF_KINDS)
    # regressions.txt: pair|func|name|six shares|ordinality; the name is not compared (the funcs are bare ids)
    regressions = defaultdict(list)
    for fields in sorted(read_rows(f"{directory}/regressions.txt"), key=lambda f: (int(f[0]), int(f[9]))):
        values = [fields[1]] + fields[3:9]
        regressions[int(fields[0])].append(tuple(parse_value(v, k) for v, k in zip(values, REGRESSION_KINDS)))
    problems = []
    counts = defaultdict(int)
    for pair in sorted(trees):
        base, test = trees[pair]["b"], trees[pair]["t"]
        checks = [("diff", diffs[pair], expected_diff(base, test, False)),
                  ("regressions", regressions[pair], expected_regressions(base, test, min_share[pair]))]
        if sum(s for _, s in base.values()) != 0:
            checks.append(("diff normalized", normalized_diffs[pair], expected_diff(base, test, True)))
        elif normalized_diffs[pair]:
            problems.append(f"pair {pair}: diff normalized of a base of total 0 gave rows")
        for what, got, want in checks:
            counts[what] += len(want)
            if got != want:
                problems.append(f"pair {pair}: {what} differs")
                for i in range(max(len(got), len(want))):
                    g = got[i] if i < len(got) else None
                    w = want[i] if i < len(want) else None
                    if g != w:
                        problems.append(f"  row {i + 1}: database {g}\n  {' ' * len(str(i + 1))}      reference {w}")
                        break
    if problems:
        print("\n".join(problems[:40]))
        sys.exit(1)
    print(f"{len(trees)} pairs: {counts['diff']} diff rows, {counts['diff normalized']} normalized, "
          f"{counts['regressions']} regressions rows agree")


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(int(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        sys.exit(__doc__)
