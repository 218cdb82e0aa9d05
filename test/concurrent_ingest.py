#!/usr/bin/env python3
"""Profiles for test/t_concurrent_ingest.sh, in every format calltree reads.

    concurrent_ingest.py DIR IMPORTER FILES SEED

writes FILES profiles for importer number IMPORTER into DIR, and a manifest
DIR/manifest.tsv with one line per file:

    index  kind  path  samples  total

kind says how the file is imported (collapsed, pprof, perf, cpuprofile,
speedscope, trace, firefox, profile: import_profile of a gzipped file,
stream: bin/calltree-load); samples and total are the number of sample rows
and the sum of their weights that the import must store.  Every 8th file is
a big collapsed one, which the import writes in two batches, by
import_collapsed or bin/calltree-load in turn.

The funcs of a file's stacks come from three pools: funcs every importer
uses in every file (known after the first imports), the funcs of the
current "build" (new: file k of every importer uses build k // 4, so the
importers meet the same new funcs at about the same time, each in an order
of its own), and funcs of the file alone.  Stacks and samples come in a
random order.  The same SEED gives the same files.
"""

import gzip
import json
import os
import random
import sys

from protobuf_write import field_bytes, field_varint, varint

KNOWN_FUNCS = 300
BUILD_FUNCS = 500
FILES_PER_BUILD = 4
KINDS = ["collapsed", "pprof", "perf", "cpuprofile", "speedscope", "trace",
         "firefox", "profile"]
BIG_EVERY = 8           # every 8th file: a big collapsed one
BIG_LINES = 10500       # more than one batch of samples (10,000)


class Names:
    def __init__(self, rng, importer, index):
        self.rng = rng
        self.build = index // FILES_PER_BUILD
        self.own = "imp%d_file%d" % (importer, index)

    def one(self):
        r = self.rng.random()
        if r < 0.6:
            return "known_fn_%d" % self.rng.randrange(KNOWN_FUNCS)
        if r < 0.95:
            return "build%d_fn_%d" % (self.build, self.rng.randrange(BUILD_FUNCS))
        return "%s_fn_%d" % (self.own, self.rng.randrange(20))

    def stack(self, low=2, high=10):
        return [self.one() for _ in range(self.rng.randint(low, high))]


def stacks_and_weights(rng, names, nsamples, nstacks, max_weight=50):
    pool = [names.stack() for _ in range(nstacks)]
    picks = [rng.choice(pool) for _ in range(nsamples)]
    weights = [rng.randint(1, max_weight) for _ in range(nsamples)]
    return picks, weights


# ---------------------------------------------------------------- formats

def collapsed(stacks, weights):
    lines = ["%s %d" % (";".join(s), w) for s, w in zip(stacks, weights)]
    return ("\n".join(lines) + "\n").encode(), len(stacks), sum(weights)


def pprof(stacks, weights, labels):
    """A pprof Profile message: one location and function per name."""
    strings = [""]
    index = {}

    def string(s):
        if s not in index:
            index[s] = len(strings)
            strings.append(s)
        return index[s]

    funcs = {}
    out = bytearray()
    out += field_bytes(1, field_varint(1, string("samples")) + field_varint(2, string("count")))
    for stack, weight in zip(stacks, weights):
        for name in stack:
            funcs.setdefault(name, len(funcs) + 1)
        locations = b"".join(varint(funcs[name]) for name in reversed(stack))  # leaf first
        sample = field_bytes(1, locations) + field_bytes(2, varint(weight))
        for key, value in labels:
            sample += field_bytes(3, field_varint(1, string(key)) + field_varint(2, string(value)))
        out += field_bytes(2, sample)
    for name, fid in funcs.items():
        line = field_varint(1, fid)
        out += field_bytes(4, field_varint(1, fid) + field_bytes(4, line))
        out += field_bytes(5, field_varint(1, fid) + field_varint(2, string(name)))
    for s in strings:
        out += field_bytes(6, s.encode())
    return gzip.compress(bytes(out), mtime=0), len(stacks), sum(weights)


def perf(rng, stacks, weights, build):
    """perf script: symbols in libraries, and [unknown] frames (address frames)
    of the build's JIT library, at addresses the importers share."""
    out = []
    t = 1000.0
    for stack, weight in zip(stacks, weights):
        t += rng.randint(1, 999) / 1e6
        out.append("app 100/101 %.6f: %d cycles:" % (t, weight))
        for depth, name in enumerate(reversed(stack)):  # leaf first
            if rng.random() < 0.1:
                address = 0x7f0000 + 16 * rng.randrange(200)
                out.append("\t %x [unknown] (/opt/build%d/jit.so)" % (address, build))
            else:
                out.append("\t %x %s+0x%x (/usr/lib/lib%s.so)"
                           % (0x400000 + depth, name, depth, name.split("_")[0]))
        out.append("")
    return ("\n".join(out) + "\n").encode(), len(stacks), sum(weights)


def tree_nodes(stacks):
    """Prefix tree of the stacks: node ids (1 is the root), parents, names."""
    children = [{}]
    names = [None]
    parents = [None]
    leaves = []
    for stack in stacks:
        node = 0
        for name in stack:
            nxt = children[node].get(name)
            if nxt is None:
                nxt = len(names)
                children[node][name] = nxt
                children.append({})
                names.append(name)
                parents.append(node)
            node = nxt
        leaves.append(node)
    return names, parents, children, leaves


def cpuprofile(rng, stacks):
    names, parents, children, leaves = tree_nodes(stacks)
    nodes = []
    for i, name in enumerate(names):
        frame = {"functionName": "(root)" if i == 0 else name, "scriptId": "0", "url": "",
                 "lineNumber": -1, "columnNumber": -1}
        nodes.append({"id": i + 1, "callFrame": frame,
                      "children": [c + 1 for c in children[i].values()]})
    deltas = [rng.randint(1, 2000) for _ in leaves]
    end = sum(deltas) + rng.randint(1, 2000)
    data = {"nodes": nodes, "samples": [leaf + 1 for leaf in leaves], "timeDeltas": deltas,
            "startTime": 0, "endTime": end}
    # each sample lasts until the next, the last until endTime (µs -> ns)
    return json.dumps(data).encode(), len(leaves), (end - deltas[0]) * 1000


def speedscope(stacks, weights):
    frames = {}
    samples = []
    for stack in stacks:
        samples.append([frames.setdefault(name, len(frames)) for name in stack])
    data = {"$schema": "https://www.speedscope.app/file-format-schema.json",
            "shared": {"frames": [{"name": name} for name in frames]},
            "profiles": [{"type": "sampled", "name": "main", "unit": "none", "startValue": 0,
                          "endValue": sum(weights), "samples": samples, "weights": weights}]}
    return json.dumps(data).encode(), len(stacks), sum(weights)


def trace(rng, stacks):
    """Trace events with Hermes' samples and stackFrames."""
    names, parents, children, leaves = tree_nodes(stacks)
    frames = {}
    for i in range(1, len(names)):
        frame = {"name": names[i], "category": "JavaScript"}
        if parents[i]:
            frame["parent"] = parents[i]
        frames[str(i)] = frame
    ts = 1000
    samples = []
    for leaf in leaves:
        ts += rng.randint(1, 500)
        samples.append({"ts": ts, "pid": 1, "tid": 1, "sf": leaf})
    data = {"traceEvents": [], "samples": samples, "stackFrames": frames}
    # each sample lasts until the next, the last none (µs -> ns)
    return json.dumps(data).encode(), len(leaves), (samples[-1]["ts"] - samples[0]["ts"]) * 1000


def firefox(rng, stacks, weights):
    """A Gecko profile: string, frame, stack and sample tables."""
    strings, frame_of, frame_rows = [], {}, []
    stack_of, stack_rows = {}, []
    data = []
    for stack, weight in zip(stacks, weights):
        prefix = None
        for name in stack:
            if name not in frame_of:
                frame_of[name] = len(frame_rows)
                frame_rows.append([len(strings)])
                strings.append(name)
            key = (prefix, frame_of[name])
            if key not in stack_of:
                stack_of[key] = len(stack_rows)
                stack_rows.append([prefix, frame_of[name]])
            prefix = stack_of[key]
        data.append([prefix, len(data) + rng.random(), weight])
    thread = {"name": "GeckoMain", "pid": "1", "tid": 1, "stringTable": strings,
              "frameTable": {"schema": {"location": 0}, "data": frame_rows},
              "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": stack_rows},
              "samples": {"schema": {"stack": 0, "time": 1, "weight": 2}, "data": data}}
    profile = {"meta": {"version": 24, "startTime": 1700000000000, "interval": 1},
               "libs": [], "threads": [thread]}
    return json.dumps(profile).encode(), len(stacks), sum(weights)


# ---------------------------------------------------------------- files

def make(rng, importer, index):
    names = Names(rng, importer, index)
    if index % BIG_EVERY == BIG_EVERY - 1:
        pool = [names.stack(2, 6) for _ in range(2000)]
        stacks = [rng.choice(pool) for _ in range(BIG_LINES)]
        weights = [rng.randint(1, 50) for _ in stacks]
        kind = "stream" if index % (2 * BIG_EVERY) == BIG_EVERY - 1 else "collapsed"
        return (kind,) + collapsed(stacks, weights)
    kind = KINDS[(importer + index) % len(KINDS)]
    stacks, weights = stacks_and_weights(rng, names, rng.randint(20, 300), rng.randint(5, 60))
    labels = [("host", "h%d" % importer), ("build", "b%d" % names.build)]
    if kind == "collapsed":
        return (kind,) + collapsed(stacks, weights)
    if kind == "pprof":
        return (kind,) + pprof(stacks, weights, labels)
    if kind == "perf":
        return (kind,) + perf(rng, stacks, weights, names.build)
    if kind == "cpuprofile":
        return (kind,) + cpuprofile(rng, stacks)
    if kind == "speedscope":
        return (kind,) + speedscope(stacks, weights)
    if kind == "trace":
        return (kind,) + trace(rng, stacks)
    if kind == "firefox":
        return (kind,) + firefox(rng, stacks, weights)
    # import_profile: a gzipped file of one of the text formats, recognized
    inner = [collapsed(stacks, weights), perf(rng, stacks, weights, names.build),
             speedscope(stacks, weights)][index % 3]
    return (kind, gzip.compress(inner[0], mtime=0), inner[1], inner[2])


def main():
    folder, importer, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "manifest.tsv"), "w") as manifest:
        for index in range(count):
            rng = random.Random("%d/%d/%d" % (seed, importer, index))
            kind, data, samples, total = make(rng, importer, index)
            path = os.path.join(folder, "%04d.%s" % (index, kind))
            with open(path, "wb") as f:
                f.write(data)
            manifest.write("%d\t%s\t%s\t%d\t%d\n" % (index, kind, path, samples, total))


if __name__ == "__main__":
    main()
