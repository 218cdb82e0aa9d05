#!/usr/bin/env python3
"""Reference numbers for calltree's JSON importers, computed independently.

Reads .cpuprofile, speedscope and trace-event files (their CPU samples:
Chrome's Profile/ProfileChunk events in any order, nodes linked by parent,
children or both; Chrome 66's CpuProfile events; Hermes' samples/stackFrames) with
Python's json module, applies the rules that docs/formats.md gives for these
importers with no code shared with the C importers, and prints, per file, the
numbers that sql/import_cpuprofile.sql, sql/import_speedscope.sql
and sql/import_trace_events.sql check:

  samples, total, sum(ts)     over all samples of the file
  per thread: samples, total  (speedscope: one thread per profile)
  functions: the top 5 by self (then running, name, file), with running
             counted once per sample even under recursion
  nodes:     the top 5 CallNodes by self (then running, path), shown as depth,
             leaf name and the md5 of the ';'-joined path of names

Usage: json_profiles.py FILE...   (.cpuprofile by its name; trace events by
"traceEvents" or a top-level array; speedscope otherwise)
"""
import hashlib
import json
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

UNIT_SCALE = {"none": 1, "bytes": 1, "nanoseconds": 1, "microseconds": 1000,
              "milliseconds": 1000000, "seconds": 1000000000}


def scaled(value, scale):
    """value * scale rounded half away from zero (ROUND_HALF_UP on Decimal does that)."""
    return int((Decimal(str(value)) * scale).quantize(Decimal(1), rounding=ROUND_HALF_UP))


ANONYMOUS = ("", "(anonymous)", "(anonymous function)")


def js_name(name, url, line, col):
    """A function's name; an unnamed one with a file and a line (1-based, or
    None) is named by where it starts: "(anonymous) app.js:20:5"."""
    if name not in ANONYMOUS or not url or line is None:
        return name
    base = re.split(r"[/\\]", re.split(r"[?#]", url, maxsplit=1)[0])[-1] or url
    return "(anonymous) %s:%d" % (base, line) + ("" if col is None else ":%d" % col)


def call_frame(f):
    """(name, url) of a V8 call frame, its 0-based positions (negative: none)."""
    line, col = f.get("lineNumber", -1), f.get("columnNumber", -1)
    name = js_name(f["functionName"], f.get("url"), line + 1 if line >= 0 else None,
                   col + 1 if col >= 0 else None)
    return (name or "(anonymous)", f.get("url") or None)


def cpuprofile_samples(doc):
    """[(thread, ts, path of (name, file), weight)] in time order."""
    if "nodes" in doc:
        nodes = {n["id"]: n for n in doc["nodes"]}
        parent = {}
        for n in doc["nodes"]:
            for c in n.get("children", []):
                parent[c] = n["id"]
        frame = {i: n["callFrame"] for i, n in nodes.items()}
        start, end = doc["startTime"] * 1000, doc["endTime"] * 1000
        ts, times = 0, []
        for d in doc["timeDeltas"]:
            ts += d * 1000
            times.append(ts)
    else:  # old nested format: head, timestamps (µs), start/end in seconds
        nodes, parent, frame = {}, {}, {}

        def walk(n, p):
            nodes[n["id"]] = n
            frame[n["id"]] = n
            if p is not None:
                parent[n["id"]] = p
            for c in n.get("children", []):
                walk(c, n["id"])
        walk(doc["head"], None)
        start, end = doc["startTime"] * 10**9, doc["endTime"] * 10**9
        times = [t * 1000 - start for t in doc["timestamps"][:len(doc["samples"])]]
    end -= start

    def path(node_id):
        out = []
        while node_id is not None:
            f = frame[node_id]
            if not (node_id not in parent and f["functionName"] == "(root)"):
                out.append(call_frame(f))
            node_id = parent.get(node_id)
        return tuple(reversed(out))

    order = sorted(range(len(doc["samples"])), key=lambda i: (times[i], i))
    result = []
    for k, i in enumerate(order):
        nxt = times[order[k + 1]] if k + 1 < len(order) else max(end, times[i])
        result.append((None, times[i], path(doc["samples"][i]), nxt - times[i]))
    return result


def speedscope_samples(doc):
    frames = [(js_name(f["name"], f.get("file"), f.get("line"), f.get("col")), f.get("file"))
              for f in doc["shared"]["frames"]]
    result = []
    for index, prof in enumerate(doc["profiles"]):
        thread = prof.get("name") or str(index)
        scale = UNIT_SCALE[prof["unit"]]
        time_unit = prof["unit"] not in ("none", "bytes")
        if prof["type"] == "sampled":
            for stack, w in zip(prof["samples"], prof["weights"]):
                if stack:
                    result.append((thread, None, tuple(frames[i] for i in stack), scaled(w, scale)))
        else:
            start = scaled(prof["startValue"], scale)
            stack, prev = [], None
            for ev in prof["events"]:
                at = scaled(ev["at"], scale)
                if stack and at > prev:
                    result.append((thread, prev - start if time_unit else None,
                                   tuple(frames[i] for i in stack), at - prev))
                prev = at
                if ev["type"] == "O":
                    stack.append(ev["frame"])
                else:
                    assert stack and stack[-1] == ev["frame"], "bad close"
                    stack.pop()
            assert not stack, "unclosed frames"
    return result


def text(value):
    """pid, tid, id: a number's or a string's text."""
    return value if isinstance(value, str) else str(value)


def weigh(group, end):
    """[(ts, order, thread, path)] of one thread → samples weighing the time to the next."""
    group.sort(key=lambda s: (s[0], s[1]))
    result = []
    for k, (ts, _, thread, path) in enumerate(group):
        nxt = group[k + 1][0] if k + 1 < len(group) else (max(end, ts) if end is not None else ts)
        result.append((thread, ts, path, nxt - ts))
    return result


def trace_samples(doc):
    """The CPU samples of a trace-event file, as cpuprofile_samples gives them."""
    events = doc if isinstance(doc, list) else doc["traceEvents"]
    names = {}
    for ev in events:
        if ev.get("ph") == "M" and ev.get("name") == "thread_name":
            names[(text(ev.get("pid", 0)), text(ev.get("tid", 0)))] = ev["args"]["name"]

    def label(ev):
        key = (text(ev.get("pid", 0)), text(ev.get("tid", 0)))
        return (names[key] + " " if key in names else "") + "/".join(key)

    # Chrome 70 and later: Profile events and their ProfileChunks, matched by
    # (pid, id) in any order; Chrome 66 to 69: CpuProfile events, each a whole
    # .cpuprofile.  Each is (the event that names its thread, startTime in µs,
    # [(nodes, samples, timeDeltas, endTime or None)] in file order).
    chunked = {}
    whole = []
    for ev in events:
        if ev.get("ph") == "P" and ev.get("name") in ("Profile", "ProfileChunk"):
            key = (text(ev.get("pid", 0)), text(ev.get("id", "")))
            entry = chunked.setdefault(key, {"profile": None, "chunks": []})
            if ev["name"] == "Profile":
                assert entry["profile"] is None, "a profile started twice"
                entry["profile"] = ev
            else:
                data = ev["args"]["data"]
                cpu = data.get("cpuProfile", {})
                entry["chunks"].append((cpu.get("nodes", []), cpu.get("samples", []),
                                        data.get("timeDeltas", []), data.get("endTime")))
        elif ev.get("name") == "CpuProfile":
            data = ev["args"]["data"]
            cpu = data["cpuProfile"]
            whole.append((ev, cpu.get("startTime", ev.get("ts")),
                          [(cpu["nodes"], cpu.get("samples", []),
                            cpu.get("timeDeltas", data.get("timeDeltas", [])), cpu.get("endTime"))]))
    profiles = []
    for entry in chunked.values():
        assert entry["profile"] is not None, "chunks without their Profile event"
        ev = entry["profile"]
        profiles.append((ev, ev["args"]["data"].get("startTime", ev.get("ts")), entry["chunks"]))
    profiles += whole
    starts = [scaled(start, 1000) for _, start, _ in profiles]
    hermes = doc.get("samples", []) if isinstance(doc, dict) and "stackFrames" in doc else []
    origin = min(starts + [scaled(s["ts"], 1000) for s in hermes], default=0)

    result = []
    for ev, start, parts in profiles:
        frames, parent, fname, end = {}, {}, {}, None

        def link(child, par):
            assert parent.get(child, par) == par, "a node with two parents"
            parent[child] = par
        for nodes, _, _, _ in parts:
            for n in nodes:
                cf = n["callFrame"]
                frames[n["id"]] = call_frame(cf)
                fname[n["id"]] = cf["functionName"]
                if "parent" in n:
                    link(n["id"], n["parent"])
                for c in n.get("children", []):
                    link(c, n["id"])
        ts = scaled(start, 1000) - origin
        group = []
        for _, samples, deltas, part_end in parts:
            assert len(samples) == len(deltas)
            for node, delta in zip(samples, deltas):
                ts += scaled(delta, 1000)
                out = []
                at = node
                while at is not None:
                    if not (at not in parent and fname[at] == "(root)"):
                        out.append(frames[at])
                    at = parent.get(at)
                group.append((ts, len(group), label(ev), tuple(reversed(out)) or (frames[node],)))
            if part_end is not None:
                end = scaled(part_end, 1000) - origin
        result += weigh(group, end)

    if hermes:
        sf = {int(k): v for k, v in doc["stackFrames"].items()}
        threads = {}
        for s in hermes:
            out, at = [], int(s["sf"])
            while at is not None:
                f = sf[at]
                parent = int(f["parent"]) if "parent" in f else None
                if not (parent is None and f.get("category") == "root"):
                    out.append((f["name"], None))
                at = parent
            group = threads.setdefault(label(s), [])
            group.append((scaled(s["ts"], 1000) - origin, len(group), label(s),
                          tuple(reversed(out)) or ((sf[int(s["sf"])]["name"], None),)))
        for group in threads.values():
            result += weigh(group, None)
    return result


def report(samples):
    total = sum(s[3] for s in samples)
    tss = [s[1] for s in samples if s[1] is not None]
    print(f"  samples {len(samples)}  total {total}  sum(ts) {sum(tss) if tss else None}")
    threads = {}
    for s in samples:
        t = threads.setdefault(s[0], [0, 0])
        t[0] += 1
        t[1] += s[3]
    for t, (n, w) in sorted(threads.items(), key=lambda x: str(x[0])):
        print(f"  thread {t}: samples {n} total {w}")
    fself, frun, nself, nrun = {}, {}, {}, {}
    for _, _, path, w in samples:
        fself[path[-1]] = fself.get(path[-1], 0) + w
        for f in set(path):
            frun[f] = frun.get(f, 0) + w
        for d in range(1, len(path) + 1):
            nrun[path[:d]] = nrun.get(path[:d], 0) + w
        nself[path] = nself.get(path, 0) + w
    print("  functions (name | file | self | running):")
    for f in sorted(frun, key=lambda f: (-fself.get(f, 0), -frun[f], f[0], f[1] or ""))[:5]:
        print(f"    {f[0]} | {f[1] or ''} | {fself.get(f, 0)} | {frun[f]}")
    print("  nodes (depth | leaf | md5 of path names | running | self):")
    names = {p: ";".join(n for n, _ in p) for p in nrun}
    for p in sorted(nrun, key=lambda p: (-nself.get(p, 0), -nrun[p], names[p]))[:5]:
        print(f"    {len(p)} | {p[-1][0]} | {hashlib.md5(names[p].encode()).hexdigest()} | {nrun[p]} | {nself.get(p, 0)}")


def main():
    for name in sys.argv[1:]:
        with open(name, encoding="utf-8") as f:
            doc = json.load(f)
        print(name)
        if name.endswith(".cpuprofile"):
            report(cpuprofile_samples(doc))
        elif isinstance(doc, list) or "traceEvents" in doc:
            report(trace_samples(doc))
        else:
            report(speedscope_samples(doc))


if __name__ == "__main__":
    main()
