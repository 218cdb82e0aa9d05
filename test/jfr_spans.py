#!/usr/bin/env python3
"""The span context of test/jfr/Spans.java's recording, read without
calltree, for t_jfr_jdk.sh.

    jfr_spans.py labels FILE   writes the LabelsSnapshot pushed with it
    jfr_spans.py expected      reads its profiler.WallClockSample events as
                               `jfr print --json` prints them (stdin) and
                               prints each event's label set

A label set is what Pyroscope's reader makes of an event: the labels of
its contextId's context, then profile_id (its spanId, 16 hex digits) and
span_name (the snapshot's string of its spanName), each left out when 0,
and span_name also when the snapshot lacks the string.  Printed per event
as `CALLER<TAB>key=value,...` (keys sorted; CALLER: the method that made
the event), sorted."""
import json
import sys

from protobuf_write import field_bytes, field_varint

STRINGS = {10: "thread_name", 11: "pool-1", 7: "GET /checkout", 8: "search"}
CONTEXTS = {1: {10: 11}}  # context id: {key id: value id}


def snapshot():
    """LabelsSnapshot { map<int64, Context> contexts = 1; map<int64, string> strings = 2; }"""
    out = b""
    for cid, labels in CONTEXTS.items():
        context = b"".join(field_bytes(1, field_varint(1, k) + field_varint(2, v)) for k, v in labels.items())
        out += field_bytes(1, field_varint(1, cid) + field_bytes(2, context))
    for sid, text in STRINGS.items():
        out += field_bytes(2, field_varint(1, sid) + field_bytes(2, text.encode()))
    return out


def label_set(values):
    labels = {STRINGS[k]: STRINGS[v] for k, v in CONTEXTS.get(values["contextId"], {}).items()}
    if values["spanId"] != 0:
        labels["profile_id"] = "%016x" % (values["spanId"] & (1 << 64) - 1)
    if values["spanName"] != 0 and STRINGS.get(values["spanName"], ""):
        labels["span_name"] = STRINGS[values["spanName"]]
    return ",".join(f"{k}={v}" for k, v in sorted(labels.items()))


def expected(recording):
    lines = []
    for event in recording["recording"]["events"]:
        values = event["values"]
        caller = values["stackTrace"]["frames"][1]["method"]
        lines.append(f'{caller["type"]["name"]}.{caller["name"]}\t{label_set(values)}')
    return sorted(lines)


if __name__ == "__main__":
    if sys.argv[1] == "labels":
        open(sys.argv[2], "wb").write(snapshot())
    else:
        print("\n".join(expected(json.load(sys.stdin))))
