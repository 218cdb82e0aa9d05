#!/usr/bin/env python3
"""Per-function self and running time of a .cpuprofile, read without calltree,
for test/t_anon_js.sh.

Reads the file with Python's json module and applies the rules of
docs/formats.md ("V8 .cpuprofile" and "Anonymous JavaScript functions"),
with no code shared with calltree:

  - sample i happens at startTime + timeDeltas[0] + ... + timeDeltas[i] (µs);
    the samples are put in time order, stably, and each lasts until the
    next one, the last until endTime (0 if endTime comes first);
  - a sample's stack is its node and the node's ancestors, without the
    parentless "(root)" node (a sample on "(root)" itself keeps it);
  - a function is (name, url); an unnamed one ("" or "(anonymous)") with a
    url and a line is "(anonymous) BASENAME:LINE:COL", 1-based, COL left out
    when unknown; otherwise an empty name is "(anonymous)";
  - self: the time of the samples whose leaf is the function; running: the
    time of the samples with the function anywhere on the stack, once per
    sample even under recursion.

Prints one line per function, "name<TAB>file<TAB>self<TAB>running" (ns, the
file empty when there is none), in no particular order.

Usage: cpuprofile_functions.py FILE.cpuprofile
"""
import json
import sys
from collections import defaultdict


def function_of(call_frame):
    name = call_frame["functionName"]
    url = call_frame.get("url") or ""
    line = call_frame.get("lineNumber", -1)
    col = call_frame.get("columnNumber", -1)
    if name in ("", "(anonymous)") and url and line >= 0:
        base = url.split("?")[0].split("#")[0].split("/")[-1] or url
        name = "(anonymous) %s:%d" % (base, line + 1)
        if col >= 0:
            name += ":%d" % (col + 1)
    return (name or "(anonymous)", url)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        doc = json.load(f)
    parent = {}
    for node in doc["nodes"]:
        for child in node.get("children", []):
            parent[child] = node["id"]
    frames = {node["id"]: node["callFrame"] for node in doc["nodes"]}

    def stack(node_id):
        """The functions of a sample's stack, leaf first."""
        funcs, at = [], node_id
        while at is not None:
            if at in parent or frames[at]["functionName"] != "(root)":
                funcs.append(function_of(frames[at]))
            at = parent.get(at)
        return funcs or [function_of(frames[node_id])]

    times, t = [], doc["startTime"]
    for delta in doc["timeDeltas"]:
        t += delta
        times.append(t)
    order = sorted(range(len(times)), key=lambda i: (times[i], i))
    self_ns, running_ns = defaultdict(int), defaultdict(int)
    for k, i in enumerate(order):
        end = times[order[k + 1]] if k + 1 < len(order) else max(doc["endTime"], times[i])
        weight = (end - times[i]) * 1000
        funcs = stack(doc["samples"][i])
        self_ns[funcs[0]] += weight
        for func in set(funcs):
            running_ns[func] += weight
    for (name, url), running in running_ns.items():
        print("%s\t%s\t%d\t%d" % (name, url, self_ns[(name, url)], running))


if __name__ == "__main__":
    main()
